// YieldFixup: make every loop carry and if-phi live in
// one buffer by inserting a tile.move where the yielded value sits elsewhere.
//
// Bottom-up (children first):
//  * a loop carry i whose yielded value y and init are tile variables on
//    different allocations gets `y_mv = tile.move(y, target_memory=<init
//    space>)`, typed like y but with the init's MemRef and space, right
//    before the terminating yield (moves in carry order), and y_mv is
//    yielded instead. The iter-arg then takes the init's MemRef and the
//    return var the (new) yielded value's;
//  * an if-phi takes the then value's MemRef; an else value elsewhere gets
//    `e_mv = tile.move(e, ...)` before the else yield (skipped under PTOAS,
//    which reconciles branch phis in codegen).
// Beyond PyPTO's pass (each found by the property test): the phi's buffer must
// be one the phi may overwrite on either path, so it is the buffer of a
// value defined inside its arm — the then value's, else the else value's,
// whose arm copies nothing while the then arm copies its value in — and,
// when neither arm defines its value (both come from before the if and may
// still be live after it), a fresh allocation both arms copy into. Iter-args
// yielded directly are copied like any value (PyPTO skips them, leaving
// the phi's buffer unwritten on that path). A loop yielding its own
// iter-arg needs nothing. MemoryReuse chooses the phi buffers before it
// packs lifetimes (YieldFixupOptions::arm_copies = false) and copies after. A move from Acc to Acc is illegal
// (an internal error): divergent L0C accumulators must be coalesced before. A copy it made on an earlier run
// (a planned program compiled again, where that copy is an ordinary `y_mv = tile.move(y)` before the yield)
// is written into its destination instead of being copied again (transfers.hpp, TransferBuilder::absorb);
// with arm_copies = false, before the packing.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/transfers.hpp"

namespace pto_mem::pypto::passes {

struct YieldFixupOptions {
  bool loops = true;
  bool ifs = true;
  /// false: only choose each phi's buffer (creating the fresh ones with their
  /// copies) and leave the copies into arm-local buffers for later — run
  /// before lifetime packing, so that packing sees where each phi lives.
  bool arm_copies = true;
  std::string_view pass_name = "MemoryReuse";
};

namespace detail {

class YieldFixupMutator : public IRMutator {
 public:
  YieldFixupMutator(const Function& f, const Program& p, PassContext& ctx, const YieldFixupOptions& o,
                    const std::vector<DerivedValue>* relations)
      : f_(f), p_(p), ctx_(ctx), options_(o), tb_(f, p, ctx, o.pass_name) {
    if (relations)
      for (const auto& d : *relations) derived_.try_emplace(d.var.get(), &d);
  }

  /// A value derived from another (alias, in-place result, view) follows it
  /// at once: a phi or loop result re-pointed above must not leave a later
  /// loop's init behind.
  StmtPtr mutate_assign(const AssignStmt& s, const StmtPtr& self) override {
    if (const DerivedValue* const* d = derived_.find(s.var.get())) normalize_identity(**d);
    return self;  // nothing inside a statement other than a loop or an if changes: skip its expressions
  }
  StmtPtr mutate_eval(const EvalStmt&, const StmtPtr& self) override { return self; }
  StmtPtr mutate_yield(const YieldStmt&, const StmtPtr& self) override { return self; }
  StmtPtr mutate_return(const ReturnStmt&, const StmtPtr& self) override { return self; }

  StmtPtr mutate_for(const ForStmt& s, const StmtPtr& self) override {
    align_loop_carries(s.iter_args, s.return_vars);
    StmtPtr r = IRMutator::mutate_for(s, self);
    if (failed_) return r;
    const auto* l = r->as<ForStmt>();
    if (!options_.loops) {
      if (!options_.arm_copies) absorb_loop_copies(l->iter_args, l->body);
      return r;
    }
    StmtPtr body = fix_loop(l->iter_args, l->body, l->return_vars);
    if (body == l->body) return r;
    return make_node<ForStmt>(l->loop_var, l->start, l->stop, l->step, l->iter_args, std::move(body),
                              l->return_vars, l->for_kind, l->stage, l->attrs, l->loc);
  }
  StmtPtr mutate_while(const WhileStmt& s, const StmtPtr& self) override {
    align_loop_carries(s.iter_args, s.return_vars);
    StmtPtr r = IRMutator::mutate_while(s, self);
    if (failed_) return r;
    const auto* l = r->as<WhileStmt>();
    if (!options_.loops) {
      if (!options_.arm_copies) absorb_loop_copies(l->iter_args, l->body);
      return r;
    }
    StmtPtr body = fix_loop(l->iter_args, l->body, l->return_vars);
    if (body == l->body) return r;
    return make_node<WhileStmt>(l->condition, l->iter_args, std::move(body), l->return_vars, l->loc);
  }
  StmtPtr mutate_if(const IfStmt& s, const StmtPtr& self) override {
    StmtPtr r = IRMutator::mutate_if(s, self);
    if (!options_.ifs || failed_) return r;
    const auto* i = r->as<IfStmt>();
    if (i->return_vars.empty()) return r;
    const YieldStmt* ty = terminating_yield(i->then_body);
    const YieldStmt* ey = terminating_yield(i->else_body);
    std::vector<StmtPtr> then_moves, else_moves;
    std::vector<ExprPtr> then_values = ty ? ty->values : std::vector<ExprPtr>{};
    std::vector<ExprPtr> else_values = ey ? ey->values : std::vector<ExprPtr>{};
    const auto then_defs = defined_in(i->then_body), else_defs = defined_in(i->else_body);
    std::vector<Transfer> then_ts, else_ts;
    std::vector<Transfer> then_later, else_later;  // copied after lifetime packing (arm_copies = false)
    std::vector<std::size_t> then_slots, else_slots;
    for (std::size_t k = 0; k < i->return_vars.size(); ++k) {
      const VarPtr t = value(ty, k), e = value(ey, k);
      if (!t && !e) continue;
      // The phi's buffer must be free for it on both paths: the buffer of an
      // arm-local value (written in that arm; the other arm copies into it),
      // the then one first. Without one, a value from before the if may still
      // be live after it, so copying the other arm's value over it would
      // clobber it: both arms copy into a fresh buffer instead (unless they
      // yield the same value).
      MemRefPtr target;
      std::optional<MemorySpace> space;
      bool fresh = false;
      // A copy an earlier run made into the phi's buffer (a planned program
      // read back) is arm-local too, but only as the copy: a value the other
      // arm computes there comes first, as it did on that run.
      const bool t_local = t && then_defs.contains(t.get()), e_local = e && else_defs.contains(e.get());
      const bool t_copy = t_local && trailing_copy(f_, i->then_body, t);
      const bool e_copy = e_local && trailing_copy(f_, i->else_body, e);
      if (t_local && (!t_copy || !e_local || e_copy)) {
        target = var_memref(t), space = var_space(t);
      } else if (e_local) {
        target = var_memref(e), space = var_space(e);
      } else if (!t || !e || t == e || same_window(*var_memref(t), *var_memref(e))) {
        target = var_memref(t ? t : e), space = var_space(t ? t : e);
      } else {
        target = fresh_buffer(i->return_vars[k], t, e), space = var_space(t);
        fresh = true;
      }
      if (!target) continue;
      for (auto [v, ts, slots, later] : {std::tuple{t, &then_ts, &then_slots, &then_later},
                                         std::tuple{e, &else_ts, &else_slots, &else_later}}) {
        if (!v || same_window(*var_memref(v), *target)) continue;
        if (!fresh && !options_.arm_copies) {
          later->push_back(Transfer{v, target, space, nullptr});
          continue;
        }
        ts->push_back(Transfer{v, target, space, nullptr});
        slots->push_back(k);
      }
      set_memref(i->return_vars[k], target, space);
    }
    // A copy an earlier run made is in the phi's buffer before the packing.
    if (!then_later.empty()) tb_.absorb(then_later, i->then_body);
    if (!else_later.empty()) tb_.absorb(else_later, i->else_body);
    for (auto [ts, slots, y, values, moves, arm] :
         {std::tuple{&then_ts, &then_slots, ty, &then_values, &then_moves, i->then_body},
          std::tuple{&else_ts, &else_slots, ey, &else_values, &else_moves, i->else_body}}) {
      if (ts->empty()) continue;
      if (!tb_.schedule(*ts, y->loc, *moves, arm)) {
        failed_ = true;
        return r;
      }
      for (std::size_t x = 0; x < ts->size(); ++x) (*values)[(*slots)[x]] = var_ref((*ts)[x].result);
    }
    if (then_moves.empty() && else_moves.empty()) return r;
    StmtPtr then_body = i->then_body, else_body = i->else_body;
    if (!then_moves.empty())
      then_body =
          replace_terminating_yield(then_body, std::move(then_moves), yield(std::move(then_values), ty->loc));
    if (!else_moves.empty())
      else_body =
          replace_terminating_yield(else_body, std::move(else_moves), yield(std::move(else_values), ey->loc));
    return make_node<IfStmt>(i->condition, std::move(then_body), std::move(else_body), i->return_vars,
                             i->loc);
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  /// The fresh allocations (phi buffers, saves) go after the leading allocs.
  [[nodiscard]] Function with_allocs(Function f) const { return tb_.with_allocs(std::move(f)); }

 private:
  struct Move {
    VarPtr var;
    StmtPtr stmt;
  };

  /// Value k of a yield when it is a tile variable with a MemRef.
  static VarPtr value(const YieldStmt* y, std::size_t k) {
    if (!y || k >= y->values.size()) return nullptr;
    auto v = as_var(y->values[k]);
    return is_planned_tile(v) ? v : nullptr;
  }

  /// Value k of a yield when it is a tile variable, with or without a MemRef.
  static VarPtr tile_value(const YieldStmt* y, std::size_t k) {
    if (!y || k >= y->values.size()) return nullptr;
    auto v = as_var(y->values[k]);
    return tile_of(v) ? v : nullptr;
  }

  /// Variables defined inside `body`.
  static std::unordered_set<const Var*> defined_in(const StmtPtr& body) {
    std::unordered_set<const Var*> out;
    for_each_def(body, [&](const VarPtr& v) { out.insert(v.get()); });
    return out;
  }

  /// A new allocation for phi `phi` as large as the larger of its two values.
  MemRefPtr fresh_buffer(const VarPtr& phi, const VarPtr& t, const VarPtr& e) {
    const auto space = var_space(t);
    if (!space || *space == MemorySpace::DDR) return nullptr;
    return tb_.fresh(*space, std::max(var_memref(t)->size, var_memref(e)->size), phi->name, phi->loc);
  }

  static bool same_window(const MemRef& a, const MemRef& b) { return passes::same_window(a, b); }

  /// Before the copies are placed (arm_copies = false, loops = false): the
  /// copies an earlier run made at a loop's yield (a planned program read
  /// back) go into the carried windows now (TransferBuilder::absorb), so
  /// that lifetime packing sees them there.
  void absorb_loop_copies(const std::vector<IterArg>& iter_args, const StmtPtr& body) {
    const YieldStmt* y = terminating_yield(body);
    if (!y) return;
    std::vector<Transfer> ts;
    for (std::size_t k = 0; k < iter_args.size() && k < y->values.size(); ++k) {
      const VarPtr init = as_var(iter_args[k].init);
      const VarPtr v = value(y, k);
      if (is_planned_tile(init) && v && !passes::same_window(var_memref(v), var_memref(init)))
        ts.push_back(Transfer{v, var_memref(init), var_space(init), nullptr});
    }
    if (!ts.empty()) tb_.absorb(ts, body);
  }

  /// The copies at a loop's yield into the carried windows, as one
  /// parallel copy (a swap or rotation of carries saves a source first).
  StmtPtr fix_loop(const std::vector<IterArg>& iter_args, const StmtPtr& body,
                   const std::vector<VarPtr>& return_vars) {
    const YieldStmt* y = terminating_yield(body);
    if (!y) return body;
    std::vector<ExprPtr> values = y->values;
    std::vector<Transfer> ts;
    std::vector<std::size_t> slots;
    std::vector<bool> carried(iter_args.size(), false);
    for (std::size_t k = 0; k < iter_args.size() && k < values.size(); ++k) {
      const VarPtr init = as_var(iter_args[k].init);
      if (!is_planned_tile(init)) continue;
      carried[k] = true;
      const MemRefPtr target = var_memref(init);
      const auto space = var_space(init);
      // A yielded value without storage of its own (a cross-core receive, in
      // its pipe slot) is copied into the carried window like any other.
      if (const VarPtr v = tile_value(y, k); v && !passes::same_window(var_memref(v), target)) {
        ts.push_back(Transfer{v, target, space, nullptr});
        slots.push_back(k);
      }
      set_memref(iter_args[k].var, target, space);
    }
    std::vector<StmtPtr> moves;
    if (!ts.empty()) {
      if (!tb_.schedule(ts, y->loc, moves, body)) {
        failed_ = true;
        return body;
      }
      for (std::size_t x = 0; x < ts.size(); ++x) values[slots[x]] = var_ref(ts[x].result);
    }
    for (std::size_t k = 0; k < iter_args.size() && k < values.size() && k < return_vars.size(); ++k)
      if (auto now = as_var(values[k]); carried[k] && is_planned_tile(now))
        set_memref(return_vars[k], var_memref(now), var_space(now));
    if (moves.empty()) return body;
    return replace_terminating_yield(body, std::move(moves), yield(std::move(values), y->loc));
  }

  const Function& f_;
  const Program& p_;
  PassContext& ctx_;
  YieldFixupOptions options_;
  PointerMap<const Var*, const DerivedValue*> derived_;
  TransferBuilder tb_;
  bool failed_ = false;
};

}  // namespace detail

/// YieldFixup over `f`; inserted moves are recorded in ctx.moves, an Acc to
/// Acc move is reported as an internal error (the function is then returned
/// as far as it was fixed). With `relations` (capture_identity_relations
/// before anything moved), derived values are re-derived on the way.
[[nodiscard]] inline Function yield_fixup(const Function& f, const Program& p, PassContext& ctx,
                                          const YieldFixupOptions& options = {},
                                          const std::vector<DerivedValue>* relations = nullptr) {
  detail::YieldFixupMutator m(f, p, ctx, options, relations);
  Function out = f;
  if (f.body) out.body = m.mutate_stmt(f.body);
  return m.with_allocs(std::move(out));
}

}  // namespace pto_mem::pypto::passes
