// "Is this storage still observed?" — the question the storage rules ask
// before they let a loop carry, a branch result or an accumulator write over
// a value's bytes (pypto SPEC.md §5.5, seed "MaterializeSemanticAliases":
// protect reads repeated by back-edges, record initializer reads at the loop
// header).
//
// UseIndex records every variable read of a function with the chain of
// statements holding it, and every definition's position. A read of `v`
// observes position P (a statement) when, relative to P, it comes
//  * inside P (when asked: a loop's body), or
//  * after P in an enclosing sequence (not in a sibling if-arm), or
//  * anywhere inside an enclosing loop of P that `v` was defined outside of:
//    that read runs again on the loop's next iteration, after P.
// Reads are of *windows*: a read counts when the variable's current window
// overlaps the one asked about, so views and aliases are reads of their
// storage; variables of the value's own chain (the carry itself, what is
// derived from it) are excluded by the caller.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"

namespace pto_mem::pypto::passes {

class UseIndex {
 public:
  explicit UseIndex(const Function& f) {
    struct Walk : IRVisitor {
      UseIndex* out;
      const Stmt* holder = nullptr;
      explicit Walk(UseIndex* o) : out(o) {}
      void visit_stmt(const StmtPtr& s) override {
        const Stmt* before = holder;
        holder = s.get();
        IRVisitor::visit_stmt(s);
        holder = before;
      }
      void visit_var_use(const VarPtr& v) override {
        if (v) out->uses_.push_back(Use{v, holder, path()});
      }
      void visit_var_def(const VarPtr& v) override {
        if (v) out->defs_.emplace(v.get(), Def{holder, path()});
      }
    } w(this);
    w.visit_function(f);
  }

  struct Use {
    VarPtr var;
    const Stmt* holder;          ///< the innermost statement holding the read
    std::vector<PathEntry> path;  ///< its enclosing statements, outermost first
  };
  struct Def {
    const Stmt* holder;
    std::vector<PathEntry> path;
  };

  [[nodiscard]] const std::vector<Use>& uses() const noexcept { return uses_; }
  [[nodiscard]] const Def* def(const Var* v) const {
    auto it = defs_.find(v);
    return it == defs_.end() ? nullptr : &it->second;
  }

  /// Whether `v` was defined outside loop `loop` (its definition is not
  /// inside the loop's body nor by the loop's own header).
  [[nodiscard]] bool defined_outside(const Var* v, const Stmt* loop) const {
    const Def* d = def(v);
    if (!d) return true;  // a parameter
    if (d->holder == loop) return false;
    for (const auto& e : d->path)
      if (e.stmt == loop) return false;
    return true;
  }

  /// Whether some read of a variable whose window overlaps `window`, not in
  /// `exclude`, observes statement `at` (with enclosing path `at_path`);
  /// reads inside `at` count when `inside` (reads in `at`'s own header never do).
  [[nodiscard]] bool observed(const Stmt* at, const std::vector<PathEntry>& at_path, const MemRef& window,
                              const std::unordered_set<const Var*>& exclude, bool inside) const {
    for (const Use& u : uses_) {
      if (exclude.contains(u.var.get())) continue;
      const MemRefPtr m = var_memref(u.var);
      if (!m || !windows_overlap(*m, window)) continue;
      if (observes(u, at, at_path, inside)) return true;
    }
    return false;
  }

 private:
  [[nodiscard]] bool observes(const Use& u, const Stmt* at, const std::vector<PathEntry>& at_path, bool inside) const {
    // Common prefix of the two chains.
    std::size_t k = 0;
    while (k < at_path.size() && k < u.path.size() && at_path[k].stmt == u.path[k].stmt &&
           at_path[k].child == u.path[k].child)
      ++k;
    // Repeated by an enclosing loop the value was defined outside of.
    for (std::size_t i = 0; i < k; ++i) {
      const Stmt* s = at_path[i].stmt;
      if ((s->is<ForStmt>() || s->is<WhileStmt>()) && defined_outside(u.var.get(), s)) return true;
    }
    if (k == at_path.size()) {  // the read is at or below `at`
      if (u.holder == at) return false;  // `at`'s own header
      if (k < u.path.size() && u.path[k].stmt == at) return inside;
      return false;
    }
    if (k == u.path.size()) return false;  // the read encloses `at` (a loop header or if condition before it)
    // Diverging below one statement: after it in a sequence; exclusive in an if.
    const Stmt* s = at_path[k].stmt;
    if (s != u.path[k].stmt) return false;
    if (s->is<SeqStmts>()) return u.path[k].child > at_path[k].child;
    return false;
  }

  std::vector<Use> uses_;
  std::unordered_map<const Var*, Def> defs_;
};

/// The variables that stand for the value of one of `seeds` or for a value
/// derived from it in place: aliases, views and in-place results of them
/// (`relations`), loops they initialise (iter-arg and result) or are yielded
/// to (result), phis they are an arm value of — transitively.
[[nodiscard]] inline std::unordered_set<const Var*> value_chain(const Function& f,
                                                                const std::vector<DerivedValue>& relations,
                                                                std::vector<const Var*> seeds) {
  std::unordered_map<const Var*, std::vector<const Var*>> next;
  for (const auto& d : relations) next[d.source.get()].push_back(d.var.get());
  for_each_statement(f.body, [&](const Stmt& s) {
    auto carries = [&](const std::vector<IterArg>& ia, const StmtPtr& body, const std::vector<VarPtr>& rv) {
      const YieldStmt* y = terminating_yield(body);
      for (std::size_t i = 0; i < ia.size(); ++i) {
        if (auto init = as_var(ia[i].init)) {
          next[init.get()].push_back(ia[i].var.get());
          if (i < rv.size()) next[init.get()].push_back(rv[i].get());
        }
        if (y && i < y->values.size() && i < rv.size())
          if (auto v = as_var(y->values[i])) next[v.get()].push_back(rv[i].get());
        if (i < rv.size()) next[ia[i].var.get()].push_back(rv[i].get());
      }
    };
    if (const auto* l = s.as<ForStmt>()) carries(l->iter_args, l->body, l->return_vars);
    if (const auto* w = s.as<WhileStmt>()) carries(w->iter_args, w->body, w->return_vars);
    if (const auto* i = s.as<IfStmt>()) {
      for (const StmtPtr& arm : {i->then_body, i->else_body}) {
        const YieldStmt* y = terminating_yield(arm);
        for (std::size_t k = 0; y && k < y->values.size() && k < i->return_vars.size(); ++k)
          if (auto v = as_var(y->values[k])) next[v.get()].push_back(i->return_vars[k].get());
      }
    }
  });
  std::unordered_set<const Var*> out;
  while (!seeds.empty()) {
    const Var* v = seeds.back();
    seeds.pop_back();
    if (!v || !out.insert(v).second) continue;
    if (auto it = next.find(v); it != next.end())
      for (const Var* w : it->second) seeds.push_back(w);
  }
  return out;
}

}  // namespace pto_mem::pypto::passes
