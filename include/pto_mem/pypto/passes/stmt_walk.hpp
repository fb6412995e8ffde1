// Lean walks for the passes: statements only, or variable definitions only,
// in program order. IRVisitor also walks every expression; a pass that only
// looks at statements (or at what they define) saves that work, which is most
// of a walk's time on large kernels.
#pragma once

#include "pto_mem/pypto/ir/function.hpp"

namespace pto_mem::pypto {

/// Calls `fn(const Stmt&)` on every statement below `s` (sequences included),
/// pre-order, in program order.
template <class F>
void for_each_statement(const StmtPtr& s, F&& fn) {
  if (!s) return;
  fn(*s);
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : s->as<SeqStmts>()->stmts) for_each_statement(c, fn);
      break;
    case StmtKind::For: for_each_statement(s->as<ForStmt>()->body, fn); break;
    case StmtKind::While: for_each_statement(s->as<WhileStmt>()->body, fn); break;
    case StmtKind::If:
      for_each_statement(s->as<IfStmt>()->then_body, fn);
      for_each_statement(s->as<IfStmt>()->else_body, fn);
      break;
    default: break;
  }
}

/// Calls `fn(const VarPtr&)` on every variable `s` defines, in the order
/// IRVisitor::visit_var_def sees them: assignment targets, alloc bases, loop
/// vars, iter-args, the body, then return vars; an if's phis after its arms.
/// In SSA form every use comes after its definition, so this is also the
/// order of first occurrence.
template <class F>
void for_each_def(const StmtPtr& s, F&& fn) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : s->as<SeqStmts>()->stmts) for_each_def(c, fn);
      break;
    case StmtKind::Assign: fn(s->as<AssignStmt>()->var); break;
    case StmtKind::Alloc: fn(s->as<AllocStmt>()->var); break;
    case StmtKind::For: {
      const auto* f = s->as<ForStmt>();
      fn(f->loop_var);
      for (const auto& ia : f->iter_args) fn(ia.var);
      for_each_def(f->body, fn);
      for (const auto& rv : f->return_vars) fn(rv);
      break;
    }
    case StmtKind::While: {
      const auto* w = s->as<WhileStmt>();
      for (const auto& ia : w->iter_args) fn(ia.var);
      for_each_def(w->body, fn);
      for (const auto& rv : w->return_vars) fn(rv);
      break;
    }
    case StmtKind::If: {
      const auto* i = s->as<IfStmt>();
      for_each_def(i->then_body, fn);
      for_each_def(i->else_body, fn);
      for (const auto& rv : i->return_vars) fn(rv);
      break;
    }
    default: break;
  }
}

/// Parameters first, then the body's definitions.
template <class F>
void for_each_def(const Function& f, F&& fn) {
  for (const auto& p : f.params) fn(p.var);
  for_each_def(f.body, fn);
}

/// Whether `pred(const Expr&)` holds for some expression below `e` (`e`
/// included), pre-order.
template <class P>
[[nodiscard]] bool any_expr(const ExprPtr& e, P&& pred) {
  if (!e) return false;
  if (pred(*e)) return true;
  switch (e->kind) {
    case ExprKind::Call: {
      const auto* c = e->as<Call>();
      for (const auto& a : c->args)
        if (any_expr(a, pred)) return true;
      for (const auto& kw : c->kwargs)
        if (any_expr(kw.value, pred)) return true;
      return false;
    }
    case ExprKind::List:
      for (const auto& x : e->as<ListExpr>()->elems)
        if (any_expr(x, pred)) return true;
      return false;
    case ExprKind::Tuple:
      for (const auto& x : e->as<TupleExpr>()->elems)
        if (any_expr(x, pred)) return true;
      return false;
    case ExprKind::Binary: return any_expr(e->as<BinaryExpr>()->lhs, pred) || any_expr(e->as<BinaryExpr>()->rhs, pred);
    case ExprKind::Unary: return any_expr(e->as<UnaryExpr>()->operand, pred);
    case ExprKind::Subscript:
      return any_expr(e->as<SubscriptExpr>()->value, pred) || any_expr(e->as<SubscriptExpr>()->index, pred);
    default: return false;
  }
}

/// Whether `pred(const Expr&)` holds for some expression of a statement
/// below `s`: every expression IRMutator rewrites (values, loop bounds,
/// inits and attributes, conditions, yielded and returned values). A walk
/// that rewrites only such expressions can be skipped when none matches.
template <class P>
[[nodiscard]] bool any_expr(const StmtPtr& s, P&& pred) {
  if (!s) return false;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : s->as<SeqStmts>()->stmts)
        if (any_expr(c, pred)) return true;
      return false;
    case StmtKind::Assign: return any_expr(s->as<AssignStmt>()->value, pred);
    case StmtKind::Eval: return any_expr(s->as<EvalStmt>()->value, pred);
    case StmtKind::Alloc: return false;
    case StmtKind::For: {
      const auto* l = s->as<ForStmt>();
      if (any_expr(l->start, pred) || any_expr(l->stop, pred) || any_expr(l->step, pred)) return true;
      for (const auto& ia : l->iter_args)
        if (any_expr(ia.init, pred)) return true;
      for (const auto& kw : l->attrs)
        if (any_expr(kw.value, pred)) return true;
      return any_expr(l->body, pred);
    }
    case StmtKind::While: {
      const auto* l = s->as<WhileStmt>();
      for (const auto& ia : l->iter_args)
        if (any_expr(ia.init, pred)) return true;
      return any_expr(l->condition, pred) || any_expr(l->body, pred);
    }
    case StmtKind::If: {
      const auto* i = s->as<IfStmt>();
      return any_expr(i->condition, pred) || any_expr(i->then_body, pred) || any_expr(i->else_body, pred);
    }
    case StmtKind::Yield:
      for (const auto& v : s->as<YieldStmt>()->values)
        if (any_expr(v, pred)) return true;
      return false;
    case StmtKind::Return:
      for (const auto& v : s->as<ReturnStmt>()->values)
        if (any_expr(v, pred)) return true;
      return false;
  }
  return false;
}

/// Calls `fn(const VarPtr&)` on every variable read below `s`, in the order
/// IRVisitor::visit_var_use sees them (loop bounds, inits and attributes,
/// conditions, values; a call's arguments then its keyword arguments).
template <class F>
void for_each_var_use(const ExprPtr& e, F&& fn) {
  if (!e) return;
  switch (e->kind) {
    case ExprKind::Var:
      if (const VarPtr& v = e->as<VarExpr>()->var) fn(v);
      break;
    case ExprKind::Call: {
      const auto* c = e->as<Call>();
      for (const auto& a : c->args) for_each_var_use(a, fn);
      for (const auto& kw : c->kwargs) for_each_var_use(kw.value, fn);
      break;
    }
    case ExprKind::List:
      for (const auto& x : e->as<ListExpr>()->elems) for_each_var_use(x, fn);
      break;
    case ExprKind::Tuple:
      for (const auto& x : e->as<TupleExpr>()->elems) for_each_var_use(x, fn);
      break;
    case ExprKind::Binary:
      for_each_var_use(e->as<BinaryExpr>()->lhs, fn);
      for_each_var_use(e->as<BinaryExpr>()->rhs, fn);
      break;
    case ExprKind::Unary: for_each_var_use(e->as<UnaryExpr>()->operand, fn); break;
    case ExprKind::Subscript:
      for_each_var_use(e->as<SubscriptExpr>()->value, fn);
      for_each_var_use(e->as<SubscriptExpr>()->index, fn);
      break;
    default: break;
  }
}
template <class F>
void for_each_var_use(const StmtPtr& s, F&& fn) {
  if (!s) return;
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : s->as<SeqStmts>()->stmts) for_each_var_use(c, fn);
      break;
    case StmtKind::Assign: for_each_var_use(s->as<AssignStmt>()->value, fn); break;
    case StmtKind::Eval: for_each_var_use(s->as<EvalStmt>()->value, fn); break;
    case StmtKind::Alloc: break;
    case StmtKind::For: {
      const auto* l = s->as<ForStmt>();
      for_each_var_use(l->start, fn);
      for_each_var_use(l->stop, fn);
      for_each_var_use(l->step, fn);
      for (const auto& ia : l->iter_args) for_each_var_use(ia.init, fn);
      for (const auto& kw : l->attrs) for_each_var_use(kw.value, fn);
      for_each_var_use(l->body, fn);
      break;
    }
    case StmtKind::While: {
      const auto* l = s->as<WhileStmt>();
      for (const auto& ia : l->iter_args) for_each_var_use(ia.init, fn);
      for_each_var_use(l->condition, fn);
      for_each_var_use(l->body, fn);
      break;
    }
    case StmtKind::If: {
      const auto* i = s->as<IfStmt>();
      for_each_var_use(i->condition, fn);
      for_each_var_use(i->then_body, fn);
      for_each_var_use(i->else_body, fn);
      break;
    }
    case StmtKind::Yield:
      for (const auto& v : s->as<YieldStmt>()->values) for_each_var_use(v, fn);
      break;
    case StmtKind::Return:
      for (const auto& v : s->as<ReturnStmt>()->values) for_each_var_use(v, fn);
      break;
  }
}

}  // namespace pto_mem::pypto
