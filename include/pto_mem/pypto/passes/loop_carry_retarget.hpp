// Top-down loop-carry retargeting: a loop's carried
// buffer must hold the value the body yields, so the producer of that value
// is made to write straight into the carried buffer when that is safe;
// otherwise YieldFixup later copies it with a tile.move.
//
// Loops are visited outermost first. For carry i with a MemRef, the target
// is the iter-arg's MemRef (or what an enclosing loop already planned for
// it) and TryRetarget(yielded value) plans, recursively:
//  * a value already on the target base: done;
//  * an assignment (a call of a registered op; a bare alias refuses):
//    1. output-reuses-input k: retarget argument k, then the value;
//    2. a view: only tile.set_validshape sharing its input's allocation
//       follows its input; other views refuse (their window would be lost);
//    3./4. a target_memory or resolved output space other than the target's
//       refuses (a Vec-only op never lands on a DDR carry);
//    5. an op that may not write a buffer it reads refuses when a forbidden
//       operand is, or is planned to be, on the target base (PyPTO: not-in-
//       place-safe ops, current bases; here every forbidden operand,
//       forbid_output_alias and widening casts too);
//    6. liveness: any statement after the definition, in every enclosing
//       block up to the first enclosing loop, that reads or assigns a tile on
//       the target base — or a variable already planned onto it, such as an
//       inner loop's iter-arg — refuses (sibling if-arms are not scanned);
//    7. plan the value onto the target;
//  * an if-phi: both arms' values must retarget, then the phi;
//  * a loop return var: its init (then the iter-arg is planned), then the
//    loop's yielded value (PyPTO's order: yield first), then the return var;
//  * an iter-arg: its init, then the iter-arg.
// A variable met again while being retargeted refuses (cycle guard), and so
// does one already planned onto another window (one value, one storage: a
// value yielded to two carries is written into the first one's buffer and
// copied into the second's). A
// refusal takes back the plans made on its way (PyPTO lets them remain;
// but a then-value left on the target drags its phi — and a loop carried
// through that phi — onto the target, where a value planned under the old
// carry may clobber it). Nothing is rewritten here: MaterializeSemanticAliases
// writes placements() back with the semantic alias classes.
#pragma once

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/passes/def_sites.hpp"
#include "pto_mem/pypto/passes/observation.hpp"
#include "pto_mem/pypto/passes/semantic_alias_classes.hpp"
#include "pto_mem/pypto/passes/transfers.hpp"

namespace pto_mem::pypto::passes {

class LoopCarryRetarget {
 public:
  LoopCarryRetarget(const Function& f, const PassContext& ctx)
      : f_(f), ctx_(ctx), defs_(ctx.indexes.of(f)), allocs_(alloc_statements(f)) {}

  /// Plans every loop carry of the function, outermost loops first.
  void run() {
    for_each_statement(f_.body, [&](const Stmt& s) {
      auto loop = loop_view(&s);
      if (!loop) return;
      for (std::size_t i = 0; i < loop->iter_args->size(); ++i) {
        const VarPtr& ia = (*loop->iter_args)[i].var;
        Target t;
        if (auto p = plans_.find(ia.get()); p != plans_.end()) {
          t.memref = p->second.memref;
          t.space = p->second.space;
        } else {
          t.memref = var_memref(ia);
          t.space = var_space(ia);
        }
        if (!t.memref || !t.memref->base) continue;
        // A carry typed without a space (a space-less Tile parameter, which InitMemRef puts in DDR) is in
        // its allocation's space: the op-space rules below must see it, or a Vec-only producer would be
        // moved onto a DDR buffer (PyPTO's InitMemRef writes that space into the type).
        const AllocStmt* alloc = allocs_.find(t.memref->base.get());
        if (!t.space && alloc) t.space = alloc->space;
        // A declared carry keeps its own binding: what the body yields is copied into it.
        if (alloc && alloc->pinned) continue;
        root_ = &s;
        // A copy made at this yield on an earlier run (a planned program
        // compiled again) is left to YieldFixup, which writes it into the
        // carried window where it is, as it made it the first time: planned
        // here, it would put a value on the carried window before the branch
        // destinations are chosen, which the first run did not see.
        if (auto y = yielded_var(*loop->body, i); y && !trailing_copy(f_, *loop->body, y)) try_retarget(y, t);
      }
    });
  }

  /// Every planned variable on its target MemRef and space, in planning
  /// order: MaterializeSemanticAliases writes them back with the semantic
  /// alias classes (semantic_alias_classes.hpp).
  [[nodiscard]] std::vector<Placed> placements() const {
    std::vector<Placed> out;
    out.reserve(order_.size());
    for (const Var* v : order_) {
      const Plan& p = plans_.at(v);
      out.push_back({p.var, p.memref, p.space});
    }
    return out;
  }

  [[nodiscard]] std::size_t planned() const noexcept { return order_.size(); }
  [[nodiscard]] bool is_planned(const Var* v) const { return plans_.contains(v); }

 private:
  struct Target {
    MemRefPtr memref;
    std::optional<MemorySpace> space;
  };
  struct Plan {
    VarPtr var;
    MemRefPtr memref;
    std::optional<MemorySpace> space;
  };

  const Var* current_base(const VarPtr& v) const { return current_base(v.get()); }
  const Var* current_base(const Var* v) const {
    if (auto p = plans_.find(v); p != plans_.end()) return p->second.memref->base.get();
    const MemRef* m = v ? memref_ptr(v->type) : nullptr;
    return m ? m->base.get() : nullptr;
  }
  MemRefPtr current_memref(const VarPtr& v) const {
    if (auto p = plans_.find(v.get()); p != plans_.end()) return p->second.memref;
    return var_memref(v);
  }

  /// A loop between the definition at `path` and the carry's loop (that loop
  /// included; only the innermost one when the carry's loop does not enclose
  /// it) whose body reads a value on `base` defined outside that loop.
  bool read_again_by_a_loop(StmtPath path, const Var* base) const {
    bool root_inside = false;
    for (const auto& e : path) root_inside |= e.stmt == root_;
    for (auto e = path.rbegin(); e != path.rend(); ++e) {
      const Stmt* l = e->stmt;
      if (!l->is<ForStmt>() && !l->is<WhileStmt>()) continue;
      // A loop of at most one trip reads nothing again.
      if (loop_repeats(*l) && read_in_loop(l, base)) return true;
      if (!root_inside || l == root_) break;
    }
    return false;
  }

  /// Whether loop `l`'s body reads a variable defined outside `l` whose
  /// current base is `base`: one typed on `base` and not planned away, or
  /// one planned onto it. The index of reads is built on the first question
  /// (most kernels ask none: no definition they retarget is inside a loop).
  bool read_in_loop(const Stmt* l, const Var* base) const {
    if (!uses_) uses_.emplace(ctx_.indexes.of(f_));
    auto hit = [&](const UseIndex::Use& u) {
      if (current_base(u.var) != base || !uses_->defined_outside(u.var, l)) return false;
      for (const auto& p : u.path)
        if (p.stmt == l) return true;
      return false;
    };
    if (uses_->any_use_on(base, hit)) return true;
    if (auto it = planned_onto_.find(base); it != planned_onto_.end())
      for (const Var* v : it->second)
        if (uses_->any_use_of(v, hit)) return true;
    return false;
  }

  void plan(const VarPtr& v, const Target& t) {
    std::optional<Plan> before;
    if (auto it = plans_.find(v.get()); it != plans_.end()) before = it->second;
    undo_.emplace_back(v.get(), std::move(before));
    auto [it, fresh] = plans_.insert_or_assign(v.get(), Plan{v, t.memref, t.space});
    if (fresh) order_.push_back(v.get());
    planned_onto_[t.memref->base.get()].push_back(v.get());  // stale entries are filtered on use
  }

  /// Variables planned onto `base` so far (their old values will live there).
  std::vector<const Var*> planned_onto(const Var* base) const {
    std::vector<const Var*> out;
    auto it = planned_onto_.find(base);
    if (it == planned_onto_.end()) return out;
    for (const Var* v : it->second)
      if (auto p = plans_.find(v); p != plans_.end() && p->second.memref->base.get() == base)
        out.push_back(v);
    return out;
  }

  /// Takes back every plan made after undo-log position `mark`.
  void undo_to(std::size_t mark) {
    while (undo_.size() > mark) {
      auto& [v, before] = undo_.back();
      if (before) {
        plans_.insert_or_assign(v, *before);
      } else {
        plans_.erase(v);
        if (!order_.empty() && order_.back() == v) order_.pop_back();
      }
      undo_.pop_back();
    }
  }

  bool try_retarget(const VarPtr& v, const Target& t) {
    if (!v) return false;
    if (same_window(current_memref(v), t.memref)) return true;
    // A value holds one storage: once planned for one carry (with what was
    // planned alongside it, such as an inner loop's carry it initialises),
    // it stays there, and a second carry it reaches copies it at its yield.
    if (plans_.contains(v.get())) return false;
    if (!busy_.insert(v.get()).second) return false;  // cycle guard
    const std::size_t mark = undo_.size();
    const bool ok = retarget_by_definition(v, t);
    if (!ok) undo_to(mark);
    busy_.erase(v.get());
    return ok;
  }

  bool retarget_by_definition(const VarPtr& v, const Target& t) {
    const DefSite* d = defs_.find(v.get());
    if (!d) return false;
    switch (d->kind) {
      case DefSite::Kind::assign: return retarget_assignment(v, *d, t);
      case DefSite::Kind::phi: {
        const auto* s = d->stmt->as<IfStmt>();
        auto then_value = yielded_var(s->then_body, d->index);
        if (!then_value || !try_retarget(then_value, t)) return false;
        if (s->else_body) {
          auto else_value = yielded_var(s->else_body, d->index);
          if (!else_value || !try_retarget(else_value, t)) return false;
        }
        plan(v, t);
        return true;
      }
      case DefSite::Kind::loop_return: {
        // The init and iter-arg first: the yield's producer is then checked
        // knowing that the iter-arg it may still read lives on the target.
        auto loop = loop_view(d->stmt);
        if (!loop || d->index >= loop->iter_args->size()) return false;
        auto y = yielded_var(*loop->body, d->index);
        auto init = as_var((*loop->iter_args)[d->index].init);
        if (!y || !init || !try_retarget(init, t)) return false;
        plan((*loop->iter_args)[d->index].var, t);
        if (!try_retarget(y, t)) return false;
        plan(v, t);
        return true;
      }
      case DefSite::Kind::iter_arg: {
        auto loop = loop_view(d->stmt);
        if (!loop || d->index >= loop->iter_args->size()) return false;
        auto init = as_var((*loop->iter_args)[d->index].init);
        if (!init || !try_retarget(init, t)) return false;
        plan(v, t);
        return true;
      }
      default: return false;
    }
  }

  bool retarget_assignment(const VarPtr& v, const DefSite& d, const Target& t) {
    const Call* c = call_of(d.stmt->as<AssignStmt>()->value);
    const OpSpec* spec = c ? spec_of(ctx_, *c) : nullptr;
    if (!spec) return false;                            // a bare alias or an unregistered op
    if (allocs_.pinned(current_base(v))) return false;  // declared
    // 1. In place: the input's buffer is the output's.
    if (spec->reuses_input) {
      auto src = arg_var(*c, *spec->reuses_input);
      if (!src || !try_retarget(src, t)) return false;
      plan(v, t);
      return true;
    }
    // 2. Views keep a window of their input; only set_validshape follows it.
    if (spec->is_inherit_input()) {
      auto src = arg_var(*c, 0);
      if (c->op != "tile.set_validshape" || !src || var_base(src) != var_base(v)) return false;
      if (!try_retarget(src, t)) return false;
      plan(v, t);
      return true;
    }
    // 3. and 4. The op must produce the target's space.
    if (const ExprPtr* kw = c->kwarg("target_memory"); kw && t.space && as_space(*kw) != t.space)
      return false;
    if (auto r = spec->resolve_output(*c); r && t.space && *r != *t.space) return false;
    // 5. It may not write a buffer it reads through a forbidden operand
    //    (one that is, or is planned to be, on the target).
    for (std::size_t k : forbidden_operands(*spec, *c, v, ctx_))
      if (auto a = arg_var(*c, k); a && current_base(a) == t.memref->base.get()) return false;
    // 6. The target buffer is dead after the definition, up to the loop —
    //    also through values already planned onto it (an inner iter-arg).
    if (touches_.live_after(d.path, t.memref->base.get(), nullptr, planned_onto(t.memref->base.get())))
      return false;
    if (read_again_by_a_loop(d.path, t.memref->base.get())) return false;
    plan(v, t);
    return true;
  }

  const Function& f_;
  const PassContext& ctx_;
  DefSites defs_;
  mutable std::optional<UseIndex> uses_;  // built on first use; LoopCarryRetarget changes no statement
  AllocTable allocs_;
  const Stmt* root_ = nullptr;
  LaterTouches touches_;
  std::unordered_map<const Var*, Plan> plans_;
  std::vector<const Var*> order_;
  std::vector<std::pair<const Var*, std::optional<Plan>>> undo_;
  std::unordered_map<const Var*, std::vector<const Var*>> planned_onto_;
  std::unordered_set<const Var*> busy_;
};

}  // namespace pto_mem::pypto::passes
