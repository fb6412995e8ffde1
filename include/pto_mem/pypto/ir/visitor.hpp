// Walking the tile IR.
//
// IRWalker<Derived> is the walk every pass builds on: a template over the
// visitor (CRTP), so each hook is a direct, inlinable call and a hook the
// visitor does not define costs nothing. Its defaults recurse; a visitor
// defines the hooks it cares about and calls IRWalker's to keep recursing.
// For example, the variables a statement reads:
//
//     struct Reads : IRWalker<Reads> {
//       std::vector<const Var*> vars;
//       void visit_var_use(const VarPtr& v) { vars.push_back(v.get()); }
//     } r;
//     r.visit_stmt(body);
//
// IRVisitor is the same walk with virtual hooks (for code off the hot path
// that prefers overriding); IRMutator rebuilds a function, sharing every
// subtree it did not change (copy-on-write), so a pass that rewrites ten
// statements of a 100k-statement kernel allocates ten new statements plus
// their enclosing sequences.
//
// Walks go in program order, pre-order, recursing into loop and branch
// bodies. Types hanging off variables are not walked. The two kind switches
// of the IR live here, in with_node(): everything else dispatches through it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/function.hpp"

namespace pto_mem::pypto {

/// Calls `f` with the concrete statement `s` is (SeqStmts, AssignStmt, ...).
template <class F>
decltype(auto) with_node(const Stmt& s, F&& f) {
  switch (s.kind) {
    case StmtKind::Seq: return f(static_cast<const SeqStmts&>(s));
    case StmtKind::Assign: return f(static_cast<const AssignStmt&>(s));
    case StmtKind::Eval: return f(static_cast<const EvalStmt&>(s));
    case StmtKind::Alloc: return f(static_cast<const AllocStmt&>(s));
    case StmtKind::For: return f(static_cast<const ForStmt&>(s));
    case StmtKind::If: return f(static_cast<const IfStmt&>(s));
    case StmtKind::While: return f(static_cast<const WhileStmt&>(s));
    case StmtKind::Yield: return f(static_cast<const YieldStmt&>(s));
    case StmtKind::Return: break;
  }
  return f(static_cast<const ReturnStmt&>(s));
}

/// Calls `f` with the concrete expression `e` is when it has operands (a
/// VarExpr, Call, ListExpr, TupleExpr, BinaryExpr, UnaryExpr or
/// SubscriptExpr); a constant is passed as the plain `const Expr&`.
template <class F>
decltype(auto) with_node(const Expr& e, F&& f) {
  switch (e.kind) {
    case ExprKind::Var: return f(static_cast<const VarExpr&>(e));
    case ExprKind::Call: return f(static_cast<const Call&>(e));
    case ExprKind::List: return f(static_cast<const ListExpr&>(e));
    case ExprKind::Tuple: return f(static_cast<const TupleExpr&>(e));
    case ExprKind::Binary: return f(static_cast<const BinaryExpr&>(e));
    case ExprKind::Unary: return f(static_cast<const UnaryExpr&>(e));
    case ExprKind::Subscript: return f(static_cast<const SubscriptExpr&>(e));
    default: break;
  }
  return f(e);
}

/// One enclosing statement of the node being visited: the statement and which
/// child the walk is in (SeqStmts: statement index; IfStmt: 0 then, 1 else;
/// loops: 0 body).
struct PathEntry {
  const Stmt* stmt = nullptr;
  std::size_t child = 0;
};

/// A chain of enclosing statements, outermost first (a view: IRVisitor's
/// path() while it walks, or a path an index stored).
using StmtPath = std::span<const PathEntry>;

/// The static walk (see the top of this file). Hooks, all optional:
///  * visit_stmt(const StmtPtr&) / visit_expr(const ExprPtr&): every node,
///    before it is dispatched on its kind;
///  * visit_seq, visit_assign, visit_eval, visit_alloc, visit_for, visit_if,
///    visit_while, visit_yield, visit_return, visit_call: one node kind;
///  * visit_var_def(const VarPtr&): a variable is defined (parameter,
///    assignment target, alloc base, loop var, iter-arg, loop return var,
///    if-phi); visit_var_use(const VarPtr&): a variable is read;
///  * enter_child(const Stmt& parent, std::size_t child) and
///    leave_child(const Stmt& parent) around each child statement list the
///    walk descends into (a sequence's statement `child`, an if's arm 0 or 1,
///    a loop's body 0; a while's condition is inside its body's child).
template <class Derived>
class IRWalker {
 public:
  /// Parameters (as definitions), then the body.
  void visit_function(const Function& f) {
    for (const auto& p : f.params) self().visit_var_def(p.var);
    if (f.body) self().visit_stmt(f.body);
  }

  void visit_stmt(const StmtPtr& s) {
    if (s) with_node(*s, [this](const auto& n) { this->route(n); });
  }

  void visit_seq(const SeqStmts& s) {
    for (std::size_t i = 0; i < s.stmts.size(); ++i) {
      self().enter_child(s, i);
      self().visit_stmt(s.stmts[i]);
      self().leave_child(s);
    }
  }
  /// Value first (its uses), then the defined variable.
  void visit_assign(const AssignStmt& s) {
    self().visit_expr(s.value);
    self().visit_var_def(s.var);
  }
  void visit_eval(const EvalStmt& s) { self().visit_expr(s.value); }
  void visit_alloc(const AllocStmt& s) { self().visit_var_def(s.var); }
  /// Bounds and init values (read before the loop), attributes, loop var and
  /// iter-args, the body, then the return vars.
  void visit_for(const ForStmt& s) {
    self().visit_expr(s.start);
    self().visit_expr(s.stop);
    self().visit_expr(s.step);
    for (const auto& ia : s.iter_args) self().visit_expr(ia.init);
    for (const auto& kw : s.attrs) self().visit_expr(kw.value);
    self().visit_var_def(s.loop_var);
    for (const auto& ia : s.iter_args) self().visit_var_def(ia.var);
    self().enter_child(s, 0);
    self().visit_stmt(s.body);
    self().leave_child(s);
    for (const auto& rv : s.return_vars) self().visit_var_def(rv);
  }
  void visit_if(const IfStmt& s) {
    self().visit_expr(s.condition);
    self().enter_child(s, 0);
    self().visit_stmt(s.then_body);
    self().leave_child(s);
    self().enter_child(s, 1);
    self().visit_stmt(s.else_body);
    self().leave_child(s);
    for (const auto& rv : s.return_vars) self().visit_var_def(rv);
  }
  /// Init values, iter-args, then the condition and the body (the
  /// condition is evaluated on every trip: it is inside the loop).
  void visit_while(const WhileStmt& s) {
    for (const auto& ia : s.iter_args) self().visit_expr(ia.init);
    for (const auto& ia : s.iter_args) self().visit_var_def(ia.var);
    self().enter_child(s, 0);
    self().visit_expr(s.condition);
    self().visit_stmt(s.body);
    self().leave_child(s);
    for (const auto& rv : s.return_vars) self().visit_var_def(rv);
  }
  void visit_yield(const YieldStmt& s) {
    for (const auto& v : s.values) self().visit_expr(v);
  }
  void visit_return(const ReturnStmt& s) {
    for (const auto& v : s.values) self().visit_expr(v);
  }

  void visit_expr(const ExprPtr& e) {
    if (e) with_node(*e, [this](const auto& n) { this->route(n); });
  }
  void visit_call(const Call& c) {
    for (const auto& a : c.args) self().visit_expr(a);
    for (const auto& kw : c.kwargs) self().visit_expr(kw.value);
  }

  void visit_var_def(const VarPtr&) {}
  void visit_var_use(const VarPtr&) {}
  void enter_child(const Stmt&, std::size_t) {}
  void leave_child(const Stmt&) {}

 protected:
  Derived& self() { return static_cast<Derived&>(*this); }

 private:
  void route(const SeqStmts& s) { self().visit_seq(s); }
  void route(const AssignStmt& s) { self().visit_assign(s); }
  void route(const EvalStmt& s) { self().visit_eval(s); }
  void route(const AllocStmt& s) { self().visit_alloc(s); }
  void route(const ForStmt& s) { self().visit_for(s); }
  void route(const IfStmt& s) { self().visit_if(s); }
  void route(const WhileStmt& s) { self().visit_while(s); }
  void route(const YieldStmt& s) { self().visit_yield(s); }
  void route(const ReturnStmt& s) { self().visit_return(s); }
  void route(const VarExpr& e) { self().visit_var_use(e.var); }
  void route(const Call& c) { self().visit_call(c); }
  void route(const ListExpr& e) {
    for (const auto& x : e.elems) self().visit_expr(x);
  }
  void route(const TupleExpr& e) {
    for (const auto& x : e.elems) self().visit_expr(x);
  }
  void route(const BinaryExpr& e) {
    self().visit_expr(e.lhs);
    self().visit_expr(e.rhs);
  }
  void route(const UnaryExpr& e) { self().visit_expr(e.operand); }
  void route(const SubscriptExpr& e) {
    self().visit_expr(e.value);
    self().visit_expr(e.index);
  }
  void route(const Expr&) {}  // a constant
};

/// IRWalker with virtual hooks, and the chain of enclosing statements
/// (path()) kept as it walks. Override a hook and call IRVisitor's to keep
/// recursing.
class IRVisitor : public IRWalker<IRVisitor> {
  using Walk = IRWalker<IRVisitor>;

 public:
  IRVisitor() = default;
  IRVisitor(const IRVisitor&) = default;
  IRVisitor& operator=(const IRVisitor&) = default;
  virtual ~IRVisitor() = default;

  virtual void visit_function(const Function& f) { Walk::visit_function(f); }
  virtual void visit_stmt(const StmtPtr& s) { Walk::visit_stmt(s); }
  virtual void visit_seq(const SeqStmts& s) { Walk::visit_seq(s); }
  virtual void visit_assign(const AssignStmt& s) { Walk::visit_assign(s); }
  virtual void visit_eval(const EvalStmt& s) { Walk::visit_eval(s); }
  virtual void visit_alloc(const AllocStmt& s) { Walk::visit_alloc(s); }
  virtual void visit_for(const ForStmt& s) { Walk::visit_for(s); }
  virtual void visit_if(const IfStmt& s) { Walk::visit_if(s); }
  virtual void visit_while(const WhileStmt& s) { Walk::visit_while(s); }
  virtual void visit_yield(const YieldStmt& s) { Walk::visit_yield(s); }
  virtual void visit_return(const ReturnStmt& s) { Walk::visit_return(s); }
  virtual void visit_expr(const ExprPtr& e) { Walk::visit_expr(e); }
  virtual void visit_call(const Call& c) { Walk::visit_call(c); }
  virtual void visit_var_def(const VarPtr&) {}
  virtual void visit_var_use(const VarPtr&) {}

  void enter_child(const Stmt& s, std::size_t child) { path_.push_back({&s, child}); }
  void leave_child(const Stmt&) { path_.pop_back(); }

  /// The statements enclosing the node being visited, outermost first.
  [[nodiscard]] const std::vector<PathEntry>& path() const noexcept { return path_; }

 protected:
  std::vector<PathEntry> path_;
};

class IRMutator {
 public:
  IRMutator() = default;
  IRMutator(const IRMutator&) = default;
  IRMutator& operator=(const IRMutator&) = default;
  virtual ~IRMutator() = default;

  /// A copy of `f` with mutated parameters and body.
  virtual Function mutate_function(const Function& f) {
    Function out = f;
    for (auto& p : out.params) p.var = mutate_var_def(p.var);
    if (out.body) out.body = mutate_stmt(out.body);
    return out;
  }

  /// Returns `s` itself when nothing below it changed; null deletes it.
  virtual StmtPtr mutate_stmt(const StmtPtr& s) {
    if (!s) return s;
    return with_node(*s, [&](const auto& n) { return this->mutate_node(n, s); });
  }

  /// Copies the statements only from the first child that changed on (a
  /// walk that changes nothing allocates nothing).
  virtual StmtPtr mutate_seq(const SeqStmts& s, const StmtPtr& self) {
    std::vector<StmtPtr> one;  // what replaces the current child
    std::vector<StmtPtr> out;
    bool copied = false;
    for (std::size_t i = 0; i < s.stmts.size(); ++i) {
      one.clear();
      mutate_seq_child(s.stmts[i], one);
      if (!copied) {
        if (one.size() == 1 && one.front() == s.stmts[i]) continue;
        out.reserve(s.stmts.size() + one.size());
        out.assign(s.stmts.begin(), s.stmts.begin() + static_cast<std::ptrdiff_t>(i));
        copied = true;
      }
      for (auto& x : one) out.push_back(std::move(x));
    }
    if (!copied || (out.size() == s.stmts.size() && std::equal(out.begin(), out.end(), s.stmts.begin())))
      return self;
    return seq(std::move(out), s.loc, s.scope);
  }
  /// Appends what replaces `child` in its sequence: override to insert
  /// statements before or after it (e.g. a tile.move before its consumer),
  /// or to drop it.
  virtual void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) {
    if (auto r = mutate_stmt(child)) out.push_back(std::move(r));
  }

  virtual StmtPtr mutate_assign(const AssignStmt& s, const StmtPtr& self) {
    auto value = mutate_expr(s.value);
    auto var = mutate_var_def(s.var);
    if (value == s.value && var == s.var) return self;
    return assign(std::move(var), std::move(value), s.loc);
  }
  virtual StmtPtr mutate_eval(const EvalStmt& s, const StmtPtr& self) {
    auto value = mutate_expr(s.value);
    if (value == s.value) return self;
    return eval(std::move(value), s.loc);
  }
  virtual StmtPtr mutate_alloc(const AllocStmt& s, const StmtPtr& self) {
    auto var = mutate_var_def(s.var);
    if (var == s.var) return self;
    return alloc(std::move(var), s.space, s.size, s.pinned, s.op, s.loc);
  }
  virtual StmtPtr mutate_for(const ForStmt& s, const StmtPtr& self) {
    bool changed = false;
    auto m = [&](const ExprPtr& e) {
      auto r = mutate_expr(e);
      changed |= r != e;
      return r;
    };
    auto start = m(s.start), stop = m(s.stop), step = m(s.step);
    // The carries and attributes are copied only when one of them changes.
    std::optional<std::vector<IterArg>> iter_args;
    std::optional<std::vector<Kwarg>> attrs;
    changed |= replace_each(s.iter_args, iter_args, init_of, expr_mutation());
    changed |= replace_each(s.attrs, attrs, value_of, expr_mutation());
    auto loop_var = mutate_var_def(s.loop_var);
    changed |= loop_var != s.loop_var;
    changed |= replace_each(s.iter_args, iter_args, var_of, var_def_mutation());
    auto body = mutate_stmt(s.body);
    changed |= body != s.body;
    std::optional<std::vector<VarPtr>> return_vars;
    changed |= replace_each(s.return_vars, return_vars, itself, var_def_mutation());
    if (!changed) return self;
    return make_node<ForStmt>(std::move(loop_var), std::move(start), std::move(stop), std::move(step),
                              iter_args ? std::move(*iter_args) : s.iter_args, std::move(body),
                              return_vars ? std::move(*return_vars) : s.return_vars, s.for_kind, s.stage,
                              attrs ? std::move(*attrs) : s.attrs, s.loc);
  }
  virtual StmtPtr mutate_if(const IfStmt& s, const StmtPtr& self) {
    auto cond = mutate_expr(s.condition);
    auto then_body = mutate_stmt(s.then_body);
    auto else_body = mutate_stmt(s.else_body);
    std::optional<std::vector<VarPtr>> return_vars;
    bool rv_changed = replace_each(s.return_vars, return_vars, itself, var_def_mutation());
    if (!rv_changed && cond == s.condition && then_body == s.then_body && else_body == s.else_body)
      return self;
    return make_node<IfStmt>(std::move(cond), std::move(then_body), std::move(else_body),
                             return_vars ? std::move(*return_vars) : s.return_vars, s.loc);
  }
  virtual StmtPtr mutate_while(const WhileStmt& s, const StmtPtr& self) {
    std::optional<std::vector<IterArg>> iter_args;
    bool changed = replace_each(s.iter_args, iter_args, init_of, expr_mutation());
    changed |= replace_each(s.iter_args, iter_args, var_of, var_def_mutation());
    auto cond = mutate_expr(s.condition);
    auto body = mutate_stmt(s.body);
    changed |= cond != s.condition || body != s.body;
    std::optional<std::vector<VarPtr>> return_vars;
    changed |= replace_each(s.return_vars, return_vars, itself, var_def_mutation());
    if (!changed) return self;
    return make_node<WhileStmt>(std::move(cond), iter_args ? std::move(*iter_args) : s.iter_args,
                                std::move(body), return_vars ? std::move(*return_vars) : s.return_vars,
                                s.loc);
  }
  virtual StmtPtr mutate_yield(const YieldStmt& s, const StmtPtr& self) {
    std::optional<std::vector<ExprPtr>> values;
    if (!replace_each(s.values, values, itself, expr_mutation())) return self;
    return yield(std::move(*values), s.loc);
  }
  virtual StmtPtr mutate_return(const ReturnStmt& s, const StmtPtr& self) {
    std::optional<std::vector<ExprPtr>> values;
    if (!replace_each(s.values, values, itself, expr_mutation())) return self;
    return ret(std::move(*values), s.loc);
  }

  /// Returns `e` itself when nothing below it changed.
  virtual ExprPtr mutate_expr(const ExprPtr& e) {
    if (!e) return e;
    return with_node(*e, [&](const auto& n) { return this->mutate_node(n, e); });
  }
  virtual ExprPtr mutate_call(const Call& c, const ExprPtr& self) {
    std::optional<std::vector<ExprPtr>> args;
    std::optional<std::vector<Kwarg>> kwargs;
    bool changed = replace_each(c.args, args, itself, expr_mutation());
    changed |= replace_each(c.kwargs, kwargs, value_of, expr_mutation());
    if (!changed) return self;
    return call(c.op, args ? std::move(*args) : c.args, kwargs ? std::move(*kwargs) : c.kwargs);
  }
  virtual ExprPtr mutate_var_use(const VarExpr& e, const ExprPtr& self) {
    auto v = mutate_var(e.var);
    return v == e.var ? self : var_ref(std::move(v));
  }

  /// Hooks for renaming: by default both definitions and uses go through
  /// mutate_var, so overriding it alone substitutes a variable everywhere.
  virtual VarPtr mutate_var_def(const VarPtr& v) { return mutate_var(v); }
  virtual VarPtr mutate_var(const VarPtr& v) { return v; }

 private:
  StmtPtr mutate_node(const SeqStmts& n, const StmtPtr& s) { return mutate_seq(n, s); }
  StmtPtr mutate_node(const AssignStmt& n, const StmtPtr& s) { return mutate_assign(n, s); }
  StmtPtr mutate_node(const EvalStmt& n, const StmtPtr& s) { return mutate_eval(n, s); }
  StmtPtr mutate_node(const AllocStmt& n, const StmtPtr& s) { return mutate_alloc(n, s); }
  StmtPtr mutate_node(const ForStmt& n, const StmtPtr& s) { return mutate_for(n, s); }
  StmtPtr mutate_node(const IfStmt& n, const StmtPtr& s) { return mutate_if(n, s); }
  StmtPtr mutate_node(const WhileStmt& n, const StmtPtr& s) { return mutate_while(n, s); }
  StmtPtr mutate_node(const YieldStmt& n, const StmtPtr& s) { return mutate_yield(n, s); }
  StmtPtr mutate_node(const ReturnStmt& n, const StmtPtr& s) { return mutate_return(n, s); }
  ExprPtr mutate_node(const VarExpr& n, const ExprPtr& e) { return mutate_var_use(n, e); }
  ExprPtr mutate_node(const Call& n, const ExprPtr& e) { return mutate_call(n, e); }
  ExprPtr mutate_node(const ListExpr& n, const ExprPtr& e) {
    std::optional<std::vector<ExprPtr>> elems;
    if (!replace_each(n.elems, elems, itself, expr_mutation())) return e;
    return n.dict ? dict_expr(std::move(*elems)) : list(std::move(*elems));
  }
  ExprPtr mutate_node(const TupleExpr& n, const ExprPtr& e) {
    std::optional<std::vector<ExprPtr>> elems;
    if (!replace_each(n.elems, elems, itself, expr_mutation())) return e;
    return tuple(std::move(*elems));
  }
  ExprPtr mutate_node(const BinaryExpr& n, const ExprPtr& e) {
    auto l = mutate_expr(n.lhs), r = mutate_expr(n.rhs);
    return l == n.lhs && r == n.rhs ? e : binary(n.op, std::move(l), std::move(r));
  }
  ExprPtr mutate_node(const UnaryExpr& n, const ExprPtr& e) {
    auto x = mutate_expr(n.operand);
    return x == n.operand ? e : unary(n.op, std::move(x));
  }
  ExprPtr mutate_node(const SubscriptExpr& n, const ExprPtr& e) {
    auto v = mutate_expr(n.value), i = mutate_expr(n.index);
    return v == n.value && i == n.index ? e : subscript(std::move(v), std::move(i));
  }
  ExprPtr mutate_node(const Expr&, const ExprPtr& e) { return e; }  // a constant

 protected:
  /// Replaces, in element order, `field(in[k])` by `mutate(field(in[k]))`;
  /// `out` becomes a copy of `in` only at the first replacement that differs
  /// (so a walk that changes nothing allocates nothing), and later calls on
  /// the same vector (another field) edit that copy. Returns whether this
  /// call replaced anything.
  template <class T, class Field, class Mutate>
  static bool replace_each(const std::vector<T>& in, std::optional<std::vector<T>>& out, Field field,
                           Mutate&& mutate) {
    bool replaced = false;
    for (std::size_t k = 0; k < in.size(); ++k) {
      const auto& old = field(in[k]);
      auto r = mutate(old);
      if (r == old) continue;
      if (!out) out = in;
      field((*out)[k]) = std::move(r);
      replaced = true;
    }
    return replaced;
  }
  /// Fields for replace_each: the element itself, a carry's init or
  /// variable, a keyword argument's value.
  static constexpr auto itself = [](auto& x) -> auto& { return x; };
  static constexpr auto init_of = [](auto& a) -> auto& { return a.init; };
  static constexpr auto var_of = [](auto& a) -> auto& { return a.var; };
  static constexpr auto value_of = [](auto& a) -> auto& { return a.value; };
  /// What replace_each calls: mutate_expr, or mutate_var_def.
  struct ExprMutation {
    IRMutator* self;
    ExprPtr operator()(const ExprPtr& e) const { return self->mutate_expr(e); }
  };
  struct VarDefMutation {
    IRMutator* self;
    VarPtr operator()(const VarPtr& v) const { return self->mutate_var_def(v); }
  };
  ExprMutation expr_mutation() { return {this}; }
  VarDefMutation var_def_mutation() { return {this}; }
};

/// Replaces variables (by identity) at definitions and uses.
class VarSubstituter : public IRMutator {
 public:
  explicit VarSubstituter(std::unordered_map<const Var*, VarPtr> map) : map_(std::move(map)) {}
  VarPtr mutate_var(const VarPtr& v) override {
    auto it = map_.find(v.get());
    return it == map_.end() ? v : it->second;
  }

 private:
  std::unordered_map<const Var*, VarPtr> map_;
};

[[nodiscard]] inline StmtPtr substitute(const StmtPtr& s, std::unordered_map<const Var*, VarPtr> map) {
  VarSubstituter sub(std::move(map));
  return sub.mutate_stmt(s);
}
[[nodiscard]] inline ExprPtr substitute(const ExprPtr& e, std::unordered_map<const Var*, VarPtr> map) {
  VarSubstituter sub(std::move(map));
  return sub.mutate_expr(e);
}
[[nodiscard]] inline Function substitute(const Function& f, std::unordered_map<const Var*, VarPtr> map) {
  VarSubstituter sub(std::move(map));
  return sub.mutate_function(f);
}

/// Calls `fn(const Stmt&)` on every statement below `root` (sequences
/// included), pre-order, in program order; expressions are not walked.
template <class F>
void for_each_stmt(const StmtPtr& root, F&& fn) {
  struct Walker : IRWalker<Walker> {
    F* f;
    explicit Walker(F* x) : f(x) {}
    void visit_stmt(const StmtPtr& s) {
      if (!s) return;
      (*f)(*s);
      IRWalker<Walker>::visit_stmt(s);
    }
    void visit_expr(const ExprPtr&) {}
  } w(&fn);
  w.visit_stmt(root);
}

}  // namespace pto_mem::pypto
