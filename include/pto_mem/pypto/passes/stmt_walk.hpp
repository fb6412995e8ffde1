// Lean walks for the passes: statements only, definitions only, reads only,
// or "does some expression match?", in program order. Each is a small
// IRWalker (ir/visitor.hpp) that turns off the parts of the walk it does not
// need; a pass that only looks at statements (or at what they define) skips
// the expressions, which are most of a walk's time on large kernels.
//
//     for_each_statement(f.body, [&](const Stmt& s) { ... });  // every statement
//     for_each_def(f, [&](const VarPtr& v) { ... });          // every definition
#pragma once

#include <type_traits>

#include "pto_mem/pypto/ir/visitor.hpp"

namespace pto_mem::pypto {

namespace detail::stmt_walk {

/// Statements only (expressions skipped), `fn` on each before its children.
template <class F>
struct Statements : IRWalker<Statements<F>> {
  F* fn;
  explicit Statements(F* f) : fn(f) {}
  void visit_stmt(const StmtPtr& s) {
    if (!s) return;
    (*fn)(*s);
    IRWalker<Statements>::visit_stmt(s);
  }
  void visit_expr(const ExprPtr&) {}
};

/// Definitions only (expressions skipped).
template <class F>
struct Defs : IRWalker<Defs<F>> {
  F* fn;
  explicit Defs(F* f) : fn(f) {}
  void visit_expr(const ExprPtr&) {}
  void visit_var_def(const VarPtr& v) { (*fn)(v); }
};

/// Reads only (definitions are no-ops already).
template <class F>
struct Uses : IRWalker<Uses<F>> {
  F* fn;
  explicit Uses(F* f) : fn(f) {}
  void visit_var_use(const VarPtr& v) {
    if (v) (*fn)(v);
  }
};

/// Pre-order search over expressions, stopping at the first match.
template <class P>
struct AnyExpr : IRWalker<AnyExpr<P>> {
  P* pred;
  bool found = false;
  explicit AnyExpr(P* p) : pred(p) {}
  void visit_stmt(const StmtPtr& s) {
    if (!found) IRWalker<AnyExpr>::visit_stmt(s);
  }
  void visit_expr(const ExprPtr& e) {
    if (found || !e) return;
    if ((*pred)(*e)) {
      found = true;
      return;
    }
    IRWalker<AnyExpr>::visit_expr(e);
  }
};

}  // namespace detail::stmt_walk

/// Calls `fn(const Stmt&)` on every statement below `s` (sequences included),
/// pre-order, in program order.
template <class F>
void for_each_statement(const StmtPtr& s, F&& fn) {
  detail::stmt_walk::Statements<std::remove_reference_t<F>> w(&fn);
  w.visit_stmt(s);
}

/// Calls `fn(const VarPtr&)` on every variable `s` defines, in the order
/// IRWalker::visit_var_def sees them: assignment targets, alloc bases, loop
/// vars, iter-args, the body, then return vars; an if's phis after its arms.
/// In SSA form every use comes after its definition, so this is also the
/// order of first occurrence.
template <class F>
void for_each_def(const StmtPtr& s, F&& fn) {
  detail::stmt_walk::Defs<std::remove_reference_t<F>> w(&fn);
  w.visit_stmt(s);
}

/// Parameters first, then the body's definitions.
template <class F>
void for_each_def(const Function& f, F&& fn) {
  detail::stmt_walk::Defs<std::remove_reference_t<F>> w(&fn);
  w.visit_function(f);
}

/// Whether `pred(const Expr&)` holds for some expression below `e` (`e`
/// included), pre-order.
template <class P>
[[nodiscard]] bool any_expr(const ExprPtr& e, P&& pred) {
  detail::stmt_walk::AnyExpr<std::remove_reference_t<P>> w(&pred);
  w.visit_expr(e);
  return w.found;
}

/// Whether `pred(const Expr&)` holds for some expression of a statement
/// below `s`: every expression IRMutator rewrites (values, loop bounds,
/// inits and attributes, conditions, yielded and returned values). A walk
/// that rewrites only such expressions can be skipped when none matches.
template <class P>
[[nodiscard]] bool any_expr(const StmtPtr& s, P&& pred) {
  detail::stmt_walk::AnyExpr<std::remove_reference_t<P>> w(&pred);
  w.visit_stmt(s);
  return w.found;
}

/// Calls `fn(const VarPtr&)` on every variable read below `e` or `s`, in the
/// order IRWalker::visit_var_use sees them (loop bounds, inits and
/// attributes, conditions, values; a call's arguments then its keyword
/// arguments).
template <class F>
void for_each_var_use(const ExprPtr& e, F&& fn) {
  detail::stmt_walk::Uses<std::remove_reference_t<F>> w(&fn);
  w.visit_expr(e);
}
template <class F>
void for_each_var_use(const StmtPtr& s, F&& fn) {
  detail::stmt_walk::Uses<std::remove_reference_t<F>> w(&fn);
  w.visit_stmt(s);
}

}  // namespace pto_mem::pypto
