// IRVisitor walks a function read-only; IRMutator rebuilds it, sharing every
// subtree it did not change (copy-on-write), so a pass that rewrites ten
// statements of a 100k-statement kernel allocates ten new statements plus
// their enclosing sequences.
//
// Both walk statements in program order, pre-order, recursing into loop and
// branch bodies. Override the hook of the node kind you care about and call
// the base to keep recursing. Types hanging off variables are not walked.
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

class IRVisitor {
 public:
  IRVisitor() = default;
  IRVisitor(const IRVisitor&) = default;
  IRVisitor& operator=(const IRVisitor&) = default;
  virtual ~IRVisitor() = default;

  /// Parameters (as definitions), then the body.
  virtual void visit_function(const Function& f) {
    for (const auto& p : f.params) visit_var_def(p.var);
    if (f.body) visit_stmt(f.body);
  }

  virtual void visit_stmt(const StmtPtr& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq: visit_seq(*s->as<SeqStmts>()); break;
      case StmtKind::Assign: visit_assign(*s->as<AssignStmt>()); break;
      case StmtKind::Eval: visit_eval(*s->as<EvalStmt>()); break;
      case StmtKind::Alloc: visit_alloc(*s->as<AllocStmt>()); break;
      case StmtKind::For: visit_for(*s->as<ForStmt>()); break;
      case StmtKind::If: visit_if(*s->as<IfStmt>()); break;
      case StmtKind::While: visit_while(*s->as<WhileStmt>()); break;
      case StmtKind::Yield: visit_yield(*s->as<YieldStmt>()); break;
      case StmtKind::Return: visit_return(*s->as<ReturnStmt>()); break;
    }
  }

  virtual void visit_seq(const SeqStmts& s) {
    path_.push_back({&s, 0});
    for (std::size_t i = 0; i < s.stmts.size(); ++i) {
      path_.back().child = i;
      visit_stmt(s.stmts[i]);
    }
    path_.pop_back();
  }
  /// Value first (its uses), then the defined variable.
  virtual void visit_assign(const AssignStmt& s) {
    visit_expr(s.value);
    visit_var_def(s.var);
  }
  virtual void visit_eval(const EvalStmt& s) { visit_expr(s.value); }
  virtual void visit_alloc(const AllocStmt& s) { visit_var_def(s.var); }
  /// Bounds and init values (read before the loop), loop var and iter-args,
  /// the body, then the return vars.
  virtual void visit_for(const ForStmt& s) {
    visit_expr(s.start);
    visit_expr(s.stop);
    visit_expr(s.step);
    for (const auto& ia : s.iter_args) visit_expr(ia.init);
    for (const auto& kw : s.attrs) visit_expr(kw.value);
    visit_var_def(s.loop_var);
    for (const auto& ia : s.iter_args) visit_var_def(ia.var);
    path_.push_back({&s, 0});
    visit_stmt(s.body);
    path_.pop_back();
    for (const auto& rv : s.return_vars) visit_var_def(rv);
  }
  virtual void visit_if(const IfStmt& s) {
    visit_expr(s.condition);
    path_.push_back({&s, 0});
    visit_stmt(s.then_body);
    path_.back().child = 1;
    visit_stmt(s.else_body);
    path_.pop_back();
    for (const auto& rv : s.return_vars) visit_var_def(rv);
  }
  virtual void visit_while(const WhileStmt& s) {
    for (const auto& ia : s.iter_args) visit_expr(ia.init);
    for (const auto& ia : s.iter_args) visit_var_def(ia.var);
    path_.push_back({&s, 0});
    visit_expr(s.condition);
    visit_stmt(s.body);
    path_.pop_back();
    for (const auto& rv : s.return_vars) visit_var_def(rv);
  }
  virtual void visit_yield(const YieldStmt& s) {
    for (const auto& v : s.values) visit_expr(v);
  }
  virtual void visit_return(const ReturnStmt& s) {
    for (const auto& v : s.values) visit_expr(v);
  }

  virtual void visit_expr(const ExprPtr& e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Var: visit_var_use(e->as<VarExpr>()->var); break;
      case ExprKind::Call: visit_call(*e->as<Call>()); break;
      case ExprKind::List:
        for (const auto& x : e->as<ListExpr>()->elems) visit_expr(x);
        break;
      case ExprKind::Tuple:
        for (const auto& x : e->as<TupleExpr>()->elems) visit_expr(x);
        break;
      case ExprKind::Binary:
        visit_expr(e->as<BinaryExpr>()->lhs);
        visit_expr(e->as<BinaryExpr>()->rhs);
        break;
      case ExprKind::Unary: visit_expr(e->as<UnaryExpr>()->operand); break;
      case ExprKind::Subscript:
        visit_expr(e->as<SubscriptExpr>()->value);
        visit_expr(e->as<SubscriptExpr>()->index);
        break;
      default: break;
    }
  }
  virtual void visit_call(const Call& c) {
    for (const auto& a : c.args) visit_expr(a);
    for (const auto& kw : c.kwargs) visit_expr(kw.value);
  }

  /// A variable is defined: parameter, LHS, alloc base, loop var, iter-arg,
  /// loop return var or if-phi.
  virtual void visit_var_def(const VarPtr&) {}
  /// A variable is read in an expression.
  virtual void visit_var_use(const VarPtr&) {}

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
    switch (s->kind) {
      case StmtKind::Seq: return mutate_seq(*s->as<SeqStmts>(), s);
      case StmtKind::Assign: return mutate_assign(*s->as<AssignStmt>(), s);
      case StmtKind::Eval: return mutate_eval(*s->as<EvalStmt>(), s);
      case StmtKind::Alloc: return mutate_alloc(*s->as<AllocStmt>(), s);
      case StmtKind::For: return mutate_for(*s->as<ForStmt>(), s);
      case StmtKind::If: return mutate_if(*s->as<IfStmt>(), s);
      case StmtKind::While: return mutate_while(*s->as<WhileStmt>(), s);
      case StmtKind::Yield: return mutate_yield(*s->as<YieldStmt>(), s);
      case StmtKind::Return: return mutate_return(*s->as<ReturnStmt>(), s);
    }
    return s;
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
    if (!rv_changed && cond == s.condition && then_body == s.then_body && else_body == s.else_body) return self;
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
    switch (e->kind) {
      case ExprKind::Var: return mutate_var_use(*e->as<VarExpr>(), e);
      case ExprKind::Call: return mutate_call(*e->as<Call>(), e);
      case ExprKind::List: {
        std::optional<std::vector<ExprPtr>> elems;
        if (!replace_each(e->as<ListExpr>()->elems, elems, itself, expr_mutation())) return e;
        return e->as<ListExpr>()->dict ? dict_expr(std::move(*elems)) : list(std::move(*elems));
      }
      case ExprKind::Tuple: {
        std::optional<std::vector<ExprPtr>> elems;
        if (!replace_each(e->as<TupleExpr>()->elems, elems, itself, expr_mutation())) return e;
        return tuple(std::move(*elems));
      }
      case ExprKind::Binary: {
        const auto* b = e->as<BinaryExpr>();
        auto l = mutate_expr(b->lhs), r = mutate_expr(b->rhs);
        return l == b->lhs && r == b->rhs ? e : binary(b->op, std::move(l), std::move(r));
      }
      case ExprKind::Unary: {
        const auto* u = e->as<UnaryExpr>();
        auto x = mutate_expr(u->operand);
        return x == u->operand ? e : unary(u->op, std::move(x));
      }
      case ExprKind::Subscript: {
        const auto* s = e->as<SubscriptExpr>();
        auto v = mutate_expr(s->value), i = mutate_expr(s->index);
        return v == s->value && i == s->index ? e : subscript(std::move(v), std::move(i));
      }
      default: return e;
    }
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

/// Calls `fn(const Stmt&)` on every statement in program order (pre-order).
template <class F>
void for_each_stmt(const StmtPtr& root, F&& fn) {
  struct Walker : IRVisitor {
    F* f;
    explicit Walker(F* x) : f(x) {}
    void visit_stmt(const StmtPtr& s) override {
      if (!s) return;
      (*f)(*s);
      IRVisitor::visit_stmt(s);
    }
  } w(&fn);
  w.visit_stmt(root);
}

}  // namespace pto_mem::pypto
