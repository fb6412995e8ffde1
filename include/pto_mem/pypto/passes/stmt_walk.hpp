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

}  // namespace pto_mem::pypto
