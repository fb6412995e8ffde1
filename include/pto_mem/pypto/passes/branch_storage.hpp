// Explicit branch destinations (the Buffer IR storage rules of
// MaterializeSemanticAliases: explicit transfers at branch exits).
//
// Example. One arm computes a new value, the other passes `x` through, and
// `x` is read again after the if:
//
//     x = tile.load(x_ddr, ...)                          # on mem_vec_2
//     if c < 1:
//         a = tile.exp(x)                                # on mem_vec_3
//         r1 = yield_(a)
//     else:
//         r1 = yield_(x)
//     s = tile.add(r1, x)
//
// `r1` needs one window whichever arm ran. x's window will not do: the then
// arm would have to overwrite x, which the add still reads. The then arm's
// own producer's window (mem_vec_3) will, so the else arm copies into it:
//
//     else:
//         x_mv = tile.move(x, target_memory=Vec)         # on mem_vec_3
//         r1 = yield_(x_mv)
//
// Every if-phi gets a destination window that both arms leave its value in,
// chosen per result slot, inner ifs first:
//  1. keep a common window: both arms yield values already on one window
//     (the same value, or views of one buffer) — no copy;
//  2. else the window of an *unaliased in-branch producer*: a value defined
//     in that arm by an op writing storage of its own (not a view, not in
//     place, not an alias, not a declared binding), whose allocation no other
//     variable uses and which that arm yields once — the then arm's first;
//     but before the else arm's producer, the window of a value one arm
//     yields (a value from before the if, or a view of one) that is *dead at
//     the other arm's producer*: no read of that window observes the
//     producer's definition (later in its arm, after the if, or again on a
//     later iteration of an enclosing loop; observation.hpp), nothing after
//     it in the arm is defined on it, and the producer may be redirected
//     onto it — then neither arm copies (PyPTO's YieldFixup gets the same
//     result from lifetime packing: the producer lands on the dead input's
//     buffer);
//  3. else a fresh allocation `mem_<space>_<phi>`.
// An arm value with no storage of its own (a cross-core receive, in its pipe
// slot) takes part too: the destination is then the other arm's in-branch
// producer's window or a fresh one, and the receive is copied into it.
// Then each arm's value either is on the destination already, or is an
// unaliased in-branch producer redirected to write it (same space and size,
// none of its forbidden operands on it), or is copied into it by an explicit
// tile.move at the arm's end — all copies of one arm as one parallel copy
// (transfers.hpp). Two slots never share a destination unless both arms
// yield them the same values; so a value from before the if, which may still
// be read after it, is never overwritten by the other arm.
//
// With logical tile selection (opt-in, tile_selection.hpp), a result whose
// exit would copy and whose two values qualify takes no destination: the
// two values move into the two slots of one allocation, the if yields the
// slot index (0 from the then arm, 1 from the else arm; one index per if)
// and the phi's window is that slot. A phi already so selected (a second
// run of the pass) is kept as it is.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/def_sites.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/observation.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/passes/tile_selection.hpp"
#include "pto_mem/pypto/passes/transfers.hpp"

namespace pto_mem::pypto::passes {

/// One logical tile selection, for the note that tells a sync pass where
/// to put the exit barrier.
struct TileSelection {
  Loc at;                       ///< the if
  std::string phi, slot_index;  ///< the selected result and the scalar result holding its slot
  std::string then_value, else_value;
  std::string allocation;  ///< the two-slot allocation
  Addr slot_bytes = 0;
};

class BranchStorage : public IRMutator {
 public:
  BranchStorage(const Function& f, const PassContext& ctx, TransferBuilder& tb,
                const std::vector<DerivedValue>& relations)
      : f_(f),
        relations_(relations),
        ctx_(ctx),
        tb_(tb),
        defs_(ctx.indexes.of(f)),
        allocs_(alloc_statements(f)) {
    holders_.reserve(defined_estimate(f));
    for_each_var_def(f, [&](const VarPtr& v) {
      if (const Var* b = var_base(v)) ++holders_[b];
    });
    for (const auto& d : relations) derived_.try_emplace(d.var.get(), &d);
  }

  /// The logical tile selections made, in the order the ifs were finished.
  [[nodiscard]] const std::vector<TileSelection>& selections() const noexcept { return selections_; }

  /// A derived value follows its source at once (a phi chosen earlier may
  /// have moved it), so a later if sees its current window.
  StmtPtr mutate_assign(const AssignStmt& s, const StmtPtr& self) override {
    if (const DerivedValue* const* d = derived_.find(s.var.get())) normalize_identity(**d);
    return self;
  }

  /// A loop's carries follow their inits before its body is looked at (a
  /// phi chosen earlier may have moved an init), so an if inside or after
  /// the loop sees the carry's window as it will be.
  StmtPtr mutate_for(const ForStmt& s, const StmtPtr& self) override {
    align_loop_carries(s.iter_args, s.return_vars);
    return IRMutator::mutate_for(s, self);
  }
  StmtPtr mutate_while(const WhileStmt& s, const StmtPtr& self) override {
    align_loop_carries(s.iter_args, s.return_vars);
    return IRMutator::mutate_while(s, self);
  }

  StmtPtr mutate_if(const IfStmt& s, const StmtPtr& self) override {
    StmtPtr r = IRMutator::mutate_if(s, self);
    if (tb_.failed()) return r;
    const auto* i = r->as<IfStmt>();
    if (i->return_vars.empty() || !i->else_body) return r;
    const YieldStmt* ty = terminating_yield(i->then_body);
    const YieldStmt* ey = terminating_yield(i->else_body);
    if (!ty || !ey) return r;
    const std::size_t n = i->return_vars.size();
    std::vector<VarPtr> t(n), e(n);
    std::vector<MemRefPtr> dest(n);
    std::vector<Addr> fresh_size(n, 0);  // a fresh destination of this size, made once selection had its say
    std::vector<bool> selected(n, false);
    std::vector<std::optional<MemorySpace>> space(n);
    for (std::size_t k = 0; k < n; ++k) {
      t[k] = value(ty, k);
      e[k] = value(ey, k);
      const auto sp = is_planned_tile(i->return_vars[k]) ? var_space(i->return_vars[k]) : std::nullopt;
      if (!t[k] || !e[k] || !sp || *sp == MemorySpace::DDR) {
        t[k] = e[k] = nullptr;
        continue;
      }
      space[k] = is_planned_tile(t[k]) ? var_space(t[k]) : var_space(e[k]);
      if (!is_planned_tile(t[k]) && !is_planned_tile(e[k])) space[k] = sp;
      // 0. Selected already (by an earlier run of the pass): kept as it is.
      selected[k] = already_selected(*i, k, t[k], e[k], ty, ey);
    }
    auto claimed = [&](const MemRefPtr& m, std::size_t k) {
      for (std::size_t j = 0; j < k; ++j) {
        if (t[j] == t[k] && e[j] == e[k]) continue;
        if (dest[j] && windows_overlap(dest[j], m)) return true;
        if (selected[j] && (windows_overlap(var_memref(t[j]), m) || windows_overlap(var_memref(e[j]), m)))
          return true;
      }
      return false;
    };
    // 1. Common windows.
    for (std::size_t k = 0; k < n; ++k) {
      if (!t[k] || selected[k]) continue;
      if (same_window(var_memref(t[k]), var_memref(e[k])) && !claimed(var_memref(t[k]), k))
        dest[k] = var_memref(t[k]);
    }
    auto fresh_destination = [&](std::size_t k) {
      Addr size = var_memref(i->return_vars[k])->size;
      for (const VarPtr& v : {t[k], e[k]})
        if (is_planned_tile(v)) size = std::max(size, var_memref(v)->size);
      fresh_size[k] = size;
    };
    // 2./3. A producer's window, else a fresh one.
    for (std::size_t k = 0; k < n; ++k) {
      if (!t[k] || dest[k] || selected[k]) continue;
      // An arm value without storage of its own (a cross-core receive, which
      // lives in its pipe slot) is copied into the destination; the other
      // arm's in-branch producer may be it, else a fresh window.
      if (!is_planned_tile(t[k]) || !is_planned_tile(e[k])) {
        if (unaliased_producer(t[k], &s, 0, ty) && !claimed(var_memref(t[k]), k)) {
          dest[k] = var_memref(t[k]);
        } else if (unaliased_producer(e[k], &s, 1, ey) && !claimed(var_memref(e[k]), k)) {
          dest[k] = var_memref(e[k]);
        } else {
          fresh_destination(k);
        }
        continue;
      }
      if (unaliased_producer(t[k], &s, 0, ty) && !claimed(var_memref(t[k]), k)) {
        dest[k] = var_memref(t[k]);
      } else if (dead_at_producer(t[k], e[k], s, 1, ey) && !claimed(var_memref(t[k]), k)) {
        dest[k] = var_memref(t[k]);
      } else if (dead_at_producer(e[k], t[k], s, 0, ty) && !claimed(var_memref(e[k]), k)) {
        dest[k] = var_memref(e[k]);
        space[k] = var_space(e[k]);
      } else if (unaliased_producer(e[k], &s, 1, ey) && !claimed(var_memref(e[k]), k)) {
        dest[k] = var_memref(e[k]);
        space[k] = var_space(e[k]);
      } else {
        fresh_destination(k);
      }
    }
    // 4. Logical tile selection (opt-in) where an arm would copy.
    VarPtr slot_index;
    if (selection_enabled())
      for (std::size_t k = 0; k < n; ++k)
        if (t[k] && !selected[k] && would_copy(s, t[k], e[k], dest[k], fresh_size[k], space[k], ty, ey) &&
            select(s, *i, k, t, e, dest, slot_index))
          selected[k] = true;
    for (std::size_t k = 0; k < n; ++k)
      if (t[k] && !dest[k] && !selected[k])
        dest[k] =
            tb_.fresh(space[k].value_or(MemorySpace::Vec), fresh_size[k], i->return_vars[k]->name, i->loc);
    // Each arm: redirect or copy.
    std::vector<ExprPtr> then_values = ty->values, else_values = ey->values;
    std::vector<StmtPtr> then_moves, else_moves;
    for (auto [vals, yld, arm, values, moves] :
         {std::tuple{&t, ty, std::size_t{0}, &then_values, &then_moves},
          std::tuple{&e, ey, std::size_t{1}, &else_values, &else_moves}}) {
      std::vector<Transfer> ts;
      std::vector<std::size_t> slot;
      for (std::size_t k = 0; k < n; ++k) {
        const VarPtr v = (*vals)[k];
        if (!v || selected[k] || same_window(var_memref(v), dest[k])) continue;
        if (redirectable(v, &s, arm, yld, dest[k], space[k])) {
          set_memref(v, dest[k], space[k]);
          continue;
        }
        ts.push_back(Transfer{v, dest[k], space[k], nullptr});
        slot.push_back(k);
      }
      if (ts.empty()) continue;
      if (!tb_.schedule(ts, yld->loc, *moves, arm == 0 ? i->then_body : i->else_body)) return r;
      for (std::size_t x = 0; x < ts.size(); ++x) (*values)[slot[x]] = var_ref(ts[x].result);
    }
    for (std::size_t k = 0; k < n; ++k)
      if (dest[k] && !selected[k]) set_memref(i->return_vars[k], dest[k], space[k]);
    if (then_moves.empty() && else_moves.empty() && !slot_index) return r;
    std::vector<VarPtr> results = i->return_vars;
    if (slot_index) {  // the then arm selects slot 0, the else arm slot 1
      results.push_back(slot_index);
      then_values.push_back(int_imm(0));
      else_values.push_back(int_imm(1));
    }
    StmtPtr then_body = i->then_body, else_body = i->else_body;
    if (!then_moves.empty() || slot_index)
      then_body =
          replace_terminating_yield(then_body, std::move(then_moves), yield(std::move(then_values), ty->loc));
    if (!else_moves.empty() || slot_index)
      else_body =
          replace_terminating_yield(else_body, std::move(else_moves), yield(std::move(else_values), ey->loc));
    return make_node<IfStmt>(i->condition, std::move(then_body), std::move(else_body), std::move(results),
                             i->loc);
  }

 private:
  /// The tile value arm `y` yields in slot `k` (with or without storage of its own).
  static VarPtr value(const YieldStmt* y, std::size_t k) {
    if (!y || k >= y->values.size()) return nullptr;
    auto v = as_var(y->values[k]);
    return tile_of(v) ? v : nullptr;
  }

  [[nodiscard]] bool selection_enabled() const noexcept {
    return ctx_.logical_tile_selection && ctx_.planner != Planner::ptoas;
  }

  /// Every variable of the function now: those it had when the pass began and the copies it inserted.
  [[nodiscard]] std::vector<VarPtr> all_vars() const {
    std::vector<VarPtr> out;
    for_each_var_def(f_, [&](const VarPtr& v) { out.push_back(v); });
    out.insert(out.end(), tb_.made().begin(), tb_.made().end());
    return out;
  }

  /// Whether result `k` of `i` is a logical tile selection already: its window is at a run-time slot of
  /// one of the if's own scalar results, and with the slot each arm yields it is that arm's value's window.
  [[nodiscard]] static bool already_selected(const IfStmt& i, std::size_t k, const VarPtr& t, const VarPtr& e,
                                             const YieldStmt* ty, const YieldStmt* ey) {
    const MemRefPtr m = var_memref(i.return_vars[k]);
    const VarPtr index = m ? as_var(m->slot_index) : nullptr;
    if (!index || !is_planned_tile(t) || !is_planned_tile(e)) return false;
    for (std::size_t j = 0; j < i.return_vars.size(); ++j) {
      if (i.return_vars[j] != index || j >= ty->values.size() || j >= ey->values.size()) continue;
      auto ct = as_const_int(ty->values[j]), ce = as_const_int(ey->values[j]);
      if (!ct || !ce) return false;
      auto at = [&](const VarPtr& v, std::int64_t slot) {
        const MemRefPtr w = var_memref(v);
        auto off = fold_with(m->byte_offset, index.get(), slot);
        return w->base == m->base && w->size == m->size && off && w->const_offset() == off;
      };
      return at(t, *ct) && at(e, *ce);
    }
    return false;
  }

  /// Whether an arm of a result with values `t`, `e` would copy its value into the destination (`dest`,
  /// or a fresh window of `fresh_size` bytes when null).
  bool would_copy(const IfStmt& s, const VarPtr& t, const VarPtr& e, const MemRefPtr& dest, Addr fresh_size,
                  std::optional<MemorySpace> space, const YieldStmt* ty, const YieldStmt* ey) const {
    for (std::size_t arm = 0; arm < 2; ++arm) {
      const VarPtr& v = arm == 0 ? t : e;
      const YieldStmt* y = arm == 0 ? ty : ey;
      if (!dest) {
        if (!(unaliased_producer(v, &s, arm, y) && var_space(v) == space &&
              var_memref(v)->size == fresh_size))
          return true;
      } else if (!same_window(var_memref(v), dest) && !redirectable(v, &s, arm, y, dest, space)) {
        return true;
      }
    }
    return false;
  }

  /// Logical tile selection for result `k` of `i` (`s`: the if as the pass found it), when its values
  /// qualify (tile_selection.hpp): their allocations become the two slots of a new one and the phi's
  /// window the slot `slot_index` names (made on the if's first selection). True when applied.
  bool select(const IfStmt& s, const IfStmt& i, std::size_t k, const std::vector<VarPtr>& t,
              const std::vector<VarPtr>& e, const std::vector<MemRefPtr>& dest, VarPtr& slot_index) {
    const VarPtr& phi = i.return_vars[k];
    const VarPtr &a = t[k], &b = e[k];
    if (!is_planned_tile(a) || !is_planned_tile(b) || a == b || !is_planned_tile(phi)) return false;
    const TypePtr held[] = {a->type, b->type, phi->type};  // the references below outlive set_memref
    const TileType &ta = *as_tile(held[0]), &tb = *as_tile(held[1]), &tp = *as_tile(held[2]);
    if (!ta.space || !selectable_space(*ta.space) || !same_descriptor(ta, tb) || !same_descriptor(ta, tp))
      return false;
    const MemRef &ma = *ta.memref, &mb = *tb.memref;
    const auto offset = ma.const_offset();
    if (!offset || *offset < 0 || mb.const_offset() != offset || ma.size != mb.size ||
        ma.size != tp.memref->size)
      return false;
    const Var* from[2] = {ma.base.get(), mb.base.get()};
    if (from[0] == from[1]) return false;
    Addr extent = 0;
    for (const Var* base : from) {
      const AllocStmt* al = allocs_.find(base);
      if (!al || al->pinned || al->space != *ta.space) return false;
      extent = std::max(extent, al->size);
    }
    // The other results of this if keep off both allocations.
    auto on = [&](const MemRefPtr& m) { return m && (m->base.get() == from[0] || m->base.get() == from[1]); };
    for (std::size_t j = 0; j < t.size(); ++j)
      if (j != k && (on(var_memref(t[j])) || on(var_memref(e[j])) || on(dest[j]))) return false;
    // Every window on them constant and in no slot yet.
    const std::vector<VarPtr> vars = all_vars();
    for (const VarPtr& v : vars) {
      const MemRefPtr m = var_memref(v);
      if (!on(m)) continue;
      const auto o = m->const_offset();
      if (!o || *o < 0 || m->slot_count != 1) return false;
      extent = std::max(extent, static_cast<Addr>(*o) + m->size);
    }
    // The phi is only read, and nothing written on either allocation after the if is read through it.
    if (!selection_uses_) selection_uses_.emplace(f_, ctx_);
    const auto chain = read_only_chain(phi, relations_, *selection_uses_);
    if (!chain) return false;
    if (!uses_) uses_.emplace(ctx_.indexes.of(f_)), chains_.emplace(f_, relations_);
    const auto* at = uses_->def(phi.get());
    if (!at || at->holder != &s) return false;
    bool clobbered = false;
    for_each_var_def(f_, [&](const VarPtr& v) {
      if (clobbered || !on(var_memref(v)) || chain->contains(v.get())) return;
      if (const DerivedValue* const* d = derived_.find(v.get()); d && !(*d)->writes_over_source()) return;
      if (!uses_->defined_after(v.get(), &s, at->path)) return;
      const auto* w = uses_->def(v.get());
      for (const Var* c : *chain)
        if (uses_->read_observes(c, w->holder, w->path, true) ||
            // The writer itself reads the phi: on the path that selects this
            // slot it would write the bytes it reads (v = tile.recip(phi)
            // planned into a slot's storage by a loop carry), which an op
            // that is not in-place safe may not do.
            uses_->any_use_of(c, [&](const UseIndex::Use& u) { return u.holder == w->holder; }))
          clobbered = true;
    });
    if (clobbered) return false;

    // Apply: the allocation, the two slots, the phi's window.
    const MemorySpace space = *ta.space;
    const Addr size = ma.size;
    const std::int64_t in_slot = *offset;
    const Addr align = space_alignment(ctx_, space);
    const auto slot = align_up(extent, align);
    if (!slot || *slot > static_cast<Addr>(std::numeric_limits<std::int64_t>::max() / 2)) return false;
    if (!slot_index)
      slot_index = make_var(tb_.unique_name(phi->name + "_slot"), scalar_type(DataType::INDEX), i.loc);
    const MemRefPtr whole = tb_.fresh(space, 2 * *slot, phi->name + "_sel", i.loc);
    const auto bytes = static_cast<std::int64_t>(*slot);
    relocate_allocation(vars, from[0], whole->base, 0, 0, 2);
    relocate_allocation(vars, from[1], whole->base, bytes, 1, 2);
    set_memref(phi,
               make_memref(whole->base, add(mul(var_ref(slot_index), int_imm(bytes)), int_imm(in_slot)), size,
                           2, var_ref(slot_index), false),
               space);
    selections_.push_back(
        TileSelection{i.loc, phi->name, slot_index->name, a->name, b->name, whole->name(), *slot});
    return true;
  }

  /// Defined in arm `arm` of `i` (the if as the pass found it) by a call writing storage of its own, alone
  /// on its allocation (not declared), yielded once by that arm.
  bool unaliased_producer(const VarPtr& v, const IfStmt* i, std::size_t arm, const YieldStmt* y) const {
    if (!is_planned_tile(v)) return false;
    const DefSite* d = defs_.find(v.get());
    if (!d || d->kind != DefSite::Kind::assign) return false;
    bool inside = false;
    for (const auto& p : d->path) inside |= p.stmt == i && p.child == arm;
    if (!inside) return false;
    const Call* c = call_of(d->stmt->as<AssignStmt>()->value);
    const OpSpec* spec = c ? spec_of(ctx_, *c) : nullptr;
    if (!spec || spec->reuses_input || spec->is_inherit_input() || spec->lands_in_source()) return false;
    const Var* b = var_base(v);
    std::size_t own = 1;  // v, and this if's phis InitMemRef put on v's MemRef
    for (const auto& phi : i->return_vars) own += var_base(phi) == b;
    if (const std::size_t* h = holders_.find(b); !h || *h != own) return false;
    if (allocs_.pinned(b)) return false;
    std::size_t yielded = 0;
    for (const auto& x : y->values)
      if (as_var(x) == v) ++yielded;
    return yielded == 1;
  }

  /// Whether `kept`'s window may be the destination because the other arm's value `prod` (arm `arm` of
  /// `i`, the if as the pass found it) is an unaliased producer that can be redirected onto it and the
  /// window is dead from `prod`'s definition on: no read of it observes that point (later in the arm,
  /// after the if, or on a later iteration of an enclosing loop; the phi's own chain excepted), no
  /// variable after it in the arm is defined on it, and no loop inside the arm encloses `prod`.
  bool dead_at_producer(const VarPtr& kept, const VarPtr& prod, const IfStmt& i, std::size_t arm,
                        const YieldStmt* y) {
    if (!kept || !prod || kept == prod) return false;
    const MemRefPtr w = var_memref(kept);
    if (!w || !w->base || windows_overlap(var_memref(prod), w)) return false;
    if (allocs_.pinned(w->base.get())) return false;
    if (!redirectable(prod, &i, arm, y, w, var_space(kept))) return false;
    const DefSite* d = defs_.find(prod.get());
    // From the producer out to the if: only sequences and ifs (no loop repeats the arm's tail), and
    // nothing defined on the window after the producer.
    bool reached = false;
    for (auto e = d->path.rbegin(); e != d->path.rend() && !reached; ++e) {
      if (e->stmt == &i) {
        reached = true;
      } else if (const auto* seq = e->stmt->as<SeqStmts>()) {
        bool clobbered = false;
        for (std::size_t c = e->child + 1; c < seq->stmts.size() && !clobbered; ++c)
          for_each_def(seq->stmts[c], [&](const VarPtr& v) {
            if (const MemRefPtr m = var_memref(v); m && windows_overlap(m, w)) clobbered = true;
          });
        if (clobbered) return false;
      } else if (!e->stmt->is<IfStmt>()) {
        return false;
      }
    }
    if (!reached) return false;
    if (!uses_) uses_.emplace(ctx_.indexes.of(f_)), chains_.emplace(f_, relations_);
    const auto* at = uses_->def(prod.get());
    return at && !uses_->observed(at->holder, at->path, *w, chains_->of({prod.get()}), false);
  }

  /// An unaliased producer that may write `dest` instead of its own storage.
  bool redirectable(const VarPtr& v, const IfStmt* i, std::size_t arm, const YieldStmt* y,
                    const MemRefPtr& dest, std::optional<MemorySpace> space) const {
    if (!unaliased_producer(v, i, arm, y)) return false;
    if (var_space(v) != space || var_memref(v)->size != dest->size) return false;
    const Call* c = call_of(defs_.find(v.get())->stmt->as<AssignStmt>()->value);
    const OpSpec* spec = spec_of(ctx_, *c);
    for (std::size_t k : forbidden_operands(*spec, *c, v, ctx_))
      if (auto a = arg_var(*c, k); a && windows_overlap(var_memref(a), dest)) return false;
    return true;
  }

  const Function& f_;
  const std::vector<DerivedValue>& relations_;
  // Built when the first dead-window candidate needs them; the index follows set_memref.
  std::optional<UseIndex> uses_;
  std::optional<ValueChains> chains_;
  std::optional<SelectionUses> selection_uses_;
  std::vector<TileSelection> selections_;
  const PassContext& ctx_;
  TransferBuilder& tb_;
  DefSites defs_;
  AllocTable allocs_;
  PointerMap<const Var*, std::size_t> holders_;
  PointerMap<const Var*, const DerivedValue*> derived_;
};

}  // namespace pto_mem::pypto::passes
