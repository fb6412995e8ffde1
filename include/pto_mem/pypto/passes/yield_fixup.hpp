// YieldFixup (pypto SPEC.md §6.7): make every loop carry and if-phi live in
// one buffer by inserting a tile.move where the yielded value sits elsewhere.
//
// Bottom-up (children first):
//  * a loop carry i whose yielded value y and init are plain tile variables
//    on different allocations gets `y_mv = tile.move(y, target_memory=<init
//    space>)`, typed like y but with the init's MemRef and space, right
//    before the terminating yield (moves in carry order), and y_mv is
//    yielded instead. The iter-arg then takes the init's MemRef and the
//    return var the (new) yielded value's;
//  * an if-phi takes the then value's MemRef (the else value's when the then
//    value is not a plain variable with a MemRef); an else value elsewhere
//    gets `e_mv = tile.move(e, ...)` before the else yield (skipped under
//    PTOAS, which reconciles branch phis in codegen).
// Iter-args yielded directly are not plain variables and are skipped. A
// move from Acc to Acc is illegal (an internal error): divergent L0C
// accumulators must be coalesced before.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/passes/pass_support.hpp"

namespace pto_mem::pypto::passes {

struct YieldFixupOptions {
  bool loops = true;
  bool ifs = true;
  std::string_view pass_name = "MemoryReuse";
};

namespace detail {

/// `body` with its terminating yield replaced by `before...` then `yield`.
[[nodiscard]] inline StmtPtr replace_terminating_yield(const StmtPtr& body, std::vector<StmtPtr> before,
                                                        StmtPtr new_yield) {
  if (!body) return body;
  if (body->is<YieldStmt>()) {
    before.push_back(std::move(new_yield));
    return seq(std::move(before), body->loc);
  }
  const auto* s = body->as<SeqStmts>();
  if (!s || s->stmts.empty()) return body;
  std::vector<StmtPtr> stmts = s->stmts;
  if (stmts.back()->is<YieldStmt>()) {
    stmts.pop_back();
    for (auto& b : before) stmts.push_back(std::move(b));
    stmts.push_back(std::move(new_yield));
  } else {
    stmts.back() = replace_terminating_yield(stmts.back(), std::move(before), std::move(new_yield));
  }
  return seq(std::move(stmts), s->loc);
}

class YieldFixupMutator : public IRMutator {
 public:
  YieldFixupMutator(const Function& f, const Program& p, PassContext& ctx, const YieldFixupOptions& o)
      : f_(f), p_(p), ctx_(ctx), options_(o), iter_args_(iter_arg_set(f)) {}

  StmtPtr mutate_for(const ForStmt& s, const StmtPtr& self) override {
    StmtPtr r = IRMutator::mutate_for(s, self);
    if (!options_.loops || failed_) return r;
    const auto* l = r->as<ForStmt>();
    StmtPtr body = fix_loop(l->iter_args, l->body, l->return_vars);
    if (body == l->body) return r;
    return std::make_shared<const ForStmt>(l->loop_var, l->start, l->stop, l->step, l->iter_args, std::move(body),
                                           l->return_vars, l->for_kind, l->stage, l->attrs, l->loc);
  }
  StmtPtr mutate_while(const WhileStmt& s, const StmtPtr& self) override {
    StmtPtr r = IRMutator::mutate_while(s, self);
    if (!options_.loops || failed_) return r;
    const auto* l = r->as<WhileStmt>();
    StmtPtr body = fix_loop(l->iter_args, l->body, l->return_vars);
    if (body == l->body) return r;
    return std::make_shared<const WhileStmt>(l->condition, l->iter_args, std::move(body), l->return_vars, l->loc);
  }
  StmtPtr mutate_if(const IfStmt& s, const StmtPtr& self) override {
    StmtPtr r = IRMutator::mutate_if(s, self);
    if (!options_.ifs || failed_) return r;
    const auto* i = r->as<IfStmt>();
    if (i->return_vars.empty()) return r;
    const YieldStmt* ty = terminating_yield(i->then_body);
    const YieldStmt* ey = terminating_yield(i->else_body);
    std::vector<StmtPtr> moves;
    std::vector<ExprPtr> else_values = ey ? ey->values : std::vector<ExprPtr>{};
    for (std::size_t k = 0; k < i->return_vars.size(); ++k) {
      const VarPtr t = plain(ty, k), e = plain(ey, k);
      const VarPtr owner = t ? t : e;
      if (!owner) continue;
      const MemRefPtr target = var_memref(owner);
      const auto space = var_space(owner);
      if (t && e && !same_window(*var_memref(e), *target)) {
        auto mv = make_move(e, target, space, ey->loc);
        if (!mv) return r;
        else_values[k] = var_ref(mv->var);
        moves.push_back(std::move(mv->stmt));
      }
      set_memref(i->return_vars[k], target, space);
    }
    if (moves.empty()) return r;
    StmtPtr else_body = replace_terminating_yield(i->else_body, std::move(moves), yield(std::move(else_values), ey->loc));
    return std::make_shared<const IfStmt>(i->condition, i->then_body, std::move(else_body), i->return_vars, i->loc);
  }

  [[nodiscard]] bool failed() const noexcept { return failed_; }

 private:
  struct Move {
    VarPtr var;
    StmtPtr stmt;
  };

  /// Value k of a yield when it is a plain tile variable with a MemRef (not an iter-arg).
  VarPtr plain(const YieldStmt* y, std::size_t k) const {
    if (!y || k >= y->values.size()) return nullptr;
    auto v = as_var(y->values[k]);
    if (!is_planned_tile(v) || iter_args_.contains(v.get())) return nullptr;
    return v;
  }

  static bool same_window(const MemRef& a, const MemRef& b) {
    return a.base == b.base && same_expr(a.byte_offset, b.byte_offset);
  }

  std::optional<Move> make_move(const VarPtr& src, const MemRefPtr& target, std::optional<MemorySpace> space, Loc loc) {
    if (space == MemorySpace::Acc && var_space(src) == MemorySpace::Acc) {
      ctx_.diagnostics.push_back(pass_error(
          p_, src->loc,
          std::string(options_.pass_name) + " cannot reconcile divergent L0C accumulator buffers with tile.move in function '" +
              f_.name + "': '" + src->name + "' (" + var_memref(src)->name() + ") and its carry or branch result (" +
              target->name() + ") are different Acc buffers; accumulator control-flow values must be coalesced "
              "before YieldFixup (keep the accumulator chain in place: matmul_acc on the carried value)",
          code::internal));
      failed_ = true;
      return std::nullopt;
    }
    const MemorySpace to = space.value_or(MemorySpace::Vec);
    TypePtr t = with_memory_space(with_memref(src->type, target), to);
    auto var = make_var(src->name + "_mv", std::move(t), loc);
    auto value = call("tile.move", {var_ref(src)}, {Kwarg{"target_memory", space_imm(to)}});
    ctx_.moves.push_back(InsertedMove{f_.name, var->name, src->name, to});
    return Move{var, assign(var, std::move(value), loc)};
  }

  StmtPtr fix_loop(const std::vector<IterArg>& iter_args, const StmtPtr& body, const std::vector<VarPtr>& return_vars) {
    const YieldStmt* y = terminating_yield(body);
    if (!y) return body;
    std::vector<StmtPtr> moves;
    std::vector<ExprPtr> values = y->values;
    for (std::size_t k = 0; k < iter_args.size() && k < values.size(); ++k) {
      const VarPtr init = as_var(iter_args[k].init);
      if (!is_planned_tile(init)) continue;
      const MemRefPtr target = var_memref(init);
      const auto space = var_space(init);
      if (const VarPtr v = plain(y, k); v && var_base(v) != target->base.get()) {
        auto mv = make_move(v, target, space, y->loc);
        if (!mv) return body;
        values[k] = var_ref(mv->var);
        moves.push_back(std::move(mv->stmt));
      }
      set_memref(iter_args[k].var, target, space);
      if (k < return_vars.size())
        if (auto now = as_var(values[k]); is_planned_tile(now)) set_memref(return_vars[k], var_memref(now), var_space(now));
    }
    if (moves.empty()) return body;
    return replace_terminating_yield(body, std::move(moves), yield(std::move(values), y->loc));
  }

  const Function& f_;
  const Program& p_;
  PassContext& ctx_;
  YieldFixupOptions options_;
  std::unordered_set<const Var*> iter_args_;
  bool failed_ = false;
};

}  // namespace detail

/// YieldFixup over `f`; inserted moves are recorded in ctx.moves, an Acc to
/// Acc move is reported as an internal error (the function is then returned
/// as far as it was fixed).
[[nodiscard]] inline Function yield_fixup(const Function& f, const Program& p, PassContext& ctx,
                                          const YieldFixupOptions& options = {}) {
  detail::YieldFixupMutator m(f, p, ctx, options);
  Function out = f;
  if (f.body) out.body = m.mutate_stmt(f.body);
  return out;
}

}  // namespace pto_mem::pypto::passes
