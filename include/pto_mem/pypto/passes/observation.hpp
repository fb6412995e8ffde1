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
//    that read runs again on the loop's next iteration, after P (not in a
//    loop of at most one trip: it has no next iteration).
// Reads are of *windows*: a read counts when the variable's current window
// overlaps the one asked about, so views and aliases are reads of their
// storage; variables of the value's own chain (the carry itself, what is
// derived from it) are excluded by the caller.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"

namespace pto_mem::pypto::passes {

class UseIndex : public MemRefObserver {
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
        if (v) out->uses_.push_back(Use{v, holder, interned()});
      }
      void visit_var_def(const VarPtr& v) override {
        if (v) out->defs_.emplace(v.get(), Def{holder, interned()});
      }
      /// The current path, stored once for the reads and definitions that share it.
      const std::vector<PathEntry>* interned() {
        auto& pool = out->paths_;
        const auto& p = path();
        if (!pool.empty()) {
          const auto& last = pool.back();
          bool same = last.size() == p.size();
          for (std::size_t i = 0; same && i < p.size(); ++i)
            same = last[i].stmt == p[i].stmt && last[i].child == p[i].child;
          if (same) return &last;
        }
        return &pool.emplace_back(p);
      }
    } w(this);
    w.visit_function(f);
    // The reads of each variable, and the variables on each base.
    for (std::uint32_t i = 0; i < uses_.size(); ++i) {
      const Var* v = uses_[i].var.get();
      auto [it, fresh] = group_of_.try_emplace(v, static_cast<std::uint32_t>(groups_.size()));
      if (fresh) groups_.push_back(Group{uses_[i].var.get(), nullptr, 0, {}});
      groups_[it->second].uses.push_back(i);
    }
    for (std::uint32_t g = 0; g < groups_.size(); ++g) file(g, base_of(*groups_[g].var));
  }

  struct Use {
    VarPtr var;
    const Stmt* holder;                  ///< the innermost statement holding the read
    const std::vector<PathEntry>* path;  ///< its enclosing statements, outermost first
  };
  struct Def {
    const Stmt* holder;
    const std::vector<PathEntry>* path;
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
    for (const auto& e : *d->path)
      if (e.stmt == loop) return false;
    return true;
  }

  /// Whether `v` is defined after statement `at` (with enclosing path
  /// `at_path`) in an enclosing sequence: not at or inside `at`, not before
  /// it, not in an if-arm exclusive with it (a parameter or a variable added
  /// after the index was built: no).
  [[nodiscard]] bool defined_after(const Var* v, const Stmt* at, const std::vector<PathEntry>& at_path) const {
    const Def* d = def(v);
    if (!d || d->holder == at) return false;
    const std::vector<PathEntry>& dp = *d->path;
    std::size_t k = 0;
    while (k < at_path.size() && k < dp.size() && at_path[k].stmt == dp[k].stmt && at_path[k].child == dp[k].child)
      ++k;
    if (k == at_path.size() || k == dp.size()) return false;  // inside `at`, or in a header enclosing it
    const Stmt* s = at_path[k].stmt;
    return s == dp[k].stmt && s->is<SeqStmts>() && dp[k].child > at_path[k].child;
  }

  /// Whether some read of a variable whose window overlaps `window`, not in
  /// `exclude` (a ValueChains::Chain or anything with `contains(const Var*)`),
  /// observes statement `at` (with enclosing path `at_path`); reads inside
  /// `at` count when `inside` (reads in `at`'s own header never do).
  ///
  /// Only the variables now on `window`'s base are looked at (the index is
  /// kept current through MemRefObserver), and the exclusion is asked last,
  /// so a lazily built chain is built only when a read of the window does
  /// observe `at`.
  template <class Exclusion>
  [[nodiscard]] bool observed(const Stmt* at, const std::vector<PathEntry>& at_path, const MemRef& window,
                              const Exclusion& exclude, bool inside) const {
    bool found = false;
    if (auto b = on_base_.find(window.base.get()); b != on_base_.end())
      for (std::uint32_t g : b->second) {
        const MemRef* m = memref_ptr(groups_[g].var->type);
        if (!m || !windows_overlap(*m, window)) continue;
        for (std::uint32_t i : groups_[g].uses)
          if (observes(uses_[i], at, at_path, inside) && !exclude.contains(uses_[i].var.get())) {
            found = true;
            break;
          }
        if (found) break;
      }
#ifndef NDEBUG
    // Debug builds (the sanitizer run) prove the index against a full scan.
    bool scanned = false;
    for (const Use& u : uses_) {
      const MemRef* m = memref_ptr(u.var->type);
      if (m && windows_overlap(*m, window) && observes(u, at, at_path, inside) && !exclude.contains(u.var.get())) {
        scanned = true;
        break;
      }
    }
    if (scanned != found) {
      std::fputs("pto_mem internal error: UseIndex's per-base index disagrees with a full scan\n", stderr);
      std::abort();
    }
#endif
    return found;
  }

  /// Whether some read of `v` itself observes statement `at` (as observed()
  /// counts reads; inside `at` when `inside`).
  [[nodiscard]] bool read_observes(const Var* v, const Stmt* at, const std::vector<PathEntry>& at_path,
                                   bool inside) const {
    auto g = group_of_.find(v);
    if (g == group_of_.end()) return false;
    for (std::uint32_t i : groups_[g->second].uses)
      if (observes(uses_[i], at, at_path, inside)) return true;
    return false;
  }

  void memref_changed(const Var& v) override {
    auto it = group_of_.find(&v);
    if (it == group_of_.end()) return;  // never read (or defined after the index was built)
    file(it->second, base_of(v));
  }

 private:
  struct Group {
    const Var* var;
    const Var* base;                  ///< the base it is filed under (null: none)
    std::uint32_t slot = 0;           ///< its position in on_base_[base]
    std::vector<std::uint32_t> uses;  ///< into uses_
  };
  static const Var* base_of(const Var& v) noexcept {
    const MemRef* m = memref_ptr(v.type);
    return m ? m->base.get() : nullptr;
  }
  /// Files group `g` under `base` (moving it from where it was, O(1)).
  void file(std::uint32_t g, const Var* base) {
    if (groups_[g].base == base) return;
    if (groups_[g].base) {
      auto& old = on_base_[groups_[g].base];
      const std::uint32_t last = old.back();
      old[groups_[g].slot] = last;
      groups_[last].slot = groups_[g].slot;
      old.pop_back();
    }
    groups_[g].base = base;
    if (base) {
      auto& now = on_base_[base];
      groups_[g].slot = static_cast<std::uint32_t>(now.size());
      now.push_back(g);
    }
  }

  [[nodiscard]] bool observes(const Use& u, const Stmt* at, const std::vector<PathEntry>& at_path, bool inside) const {
    const std::vector<PathEntry>& up = *u.path;
    // Common prefix of the two chains.
    std::size_t k = 0;
    while (k < at_path.size() && k < up.size() && at_path[k].stmt == up[k].stmt &&
           at_path[k].child == up[k].child)
      ++k;
    // Repeated by an enclosing loop the value was defined outside of.
    for (std::size_t i = 0; i < k; ++i) {
      const Stmt* s = at_path[i].stmt;
      if ((s->is<ForStmt>() || s->is<WhileStmt>()) && loop_repeats(*s) && defined_outside(u.var.get(), s))
        return true;
    }
    if (k == at_path.size()) {  // the read is at or below `at`
      if (u.holder == at) return false;  // `at`'s own header
      if (k < up.size() && up[k].stmt == at) return inside;
      return false;
    }
    if (k == up.size()) return false;  // the read encloses `at` (a loop header or if condition before it)
    // Diverging below one statement: after it in a sequence; exclusive in an if.
    const Stmt* s = at_path[k].stmt;
    if (s != up[k].stmt) return false;
    if (s->is<SeqStmts>()) return up[k].child > at_path[k].child;
    return false;
  }

  std::deque<std::vector<PathEntry>> paths_;  // stable addresses
  std::vector<Use> uses_;
  std::unordered_map<const Var*, Def> defs_;
  std::vector<Group> groups_;
  std::unordered_map<const Var*, std::uint32_t> group_of_;
  std::unordered_map<const Var*, std::vector<std::uint32_t>> on_base_;
};

/// The variables that stand for the value of one of the seeds or for a
/// value derived from it in place: aliases, views and in-place results of
/// them (`relations`), loops they initialise (iter-arg and result) or are
/// yielded to (result), phis they are an arm value of — transitively.
///
/// The graph is built once per function (one walk); each query is a search
/// from its seeds. The graph is structural (which variable initialises,
/// yields to or derives which), so it stays valid while passes move
/// variables between windows; rebuild it after statements are added.
class ValueChains {
 public:
  ValueChains(const Function& f, const std::vector<DerivedValue>& relations) {
    for (const auto& d : relations) next_[d.source.get()].push_back(d.var.get());
    for_each_statement(f.body, [&](const Stmt& s) {
      auto carries = [&](const std::vector<IterArg>& ia, const StmtPtr& body, const std::vector<VarPtr>& rv) {
        const YieldStmt* y = terminating_yield(body);
        for (std::size_t i = 0; i < ia.size(); ++i) {
          if (auto init = as_var(ia[i].init)) {
            next_[init.get()].push_back(ia[i].var.get());
            if (i < rv.size()) next_[init.get()].push_back(rv[i].get());
          }
          if (y && i < y->values.size() && i < rv.size())
            if (auto v = as_var(y->values[i])) next_[v.get()].push_back(rv[i].get());
          if (i < rv.size()) next_[ia[i].var.get()].push_back(rv[i].get());
        }
      };
      if (const auto* l = s.as<ForStmt>()) carries(l->iter_args, l->body, l->return_vars);
      if (const auto* w = s.as<WhileStmt>()) carries(w->iter_args, w->body, w->return_vars);
      if (const auto* i = s.as<IfStmt>()) {
        for (const StmtPtr& arm : {i->then_body, i->else_body}) {
          const YieldStmt* y = terminating_yield(arm);
          for (std::size_t k = 0; y && k < y->values.size() && k < i->return_vars.size(); ++k)
            if (auto v = as_var(y->values[k])) next_[v.get()].push_back(i->return_vars[k].get());
        }
      }
    });
  }

  /// The chain of `seeds`, computed when first asked (most questions are
  /// answered before any read needs it).
  class Chain {
   public:
    Chain(const ValueChains& g, std::vector<const Var*> seeds) : g_(&g), seeds_(std::move(seeds)) {}
    [[nodiscard]] bool contains(const Var* v) const {
      if (extra_.contains(v)) return true;
      if (!done_) {
        g_->expand(seeds_, members_);
        done_ = true;
      }
      return members_.contains(v);
    }
    /// Adds `v` (and nothing derived from it) to the chain.
    void insert(const Var* v) { extra_.insert(v); }

   private:
    const ValueChains* g_;
    std::vector<const Var*> seeds_;
    std::unordered_set<const Var*> extra_;
    mutable std::unordered_set<const Var*> members_;
    mutable bool done_ = false;
  };

  [[nodiscard]] Chain of(std::vector<const Var*> seeds) const { return Chain(*this, std::move(seeds)); }

 private:
  void expand(std::vector<const Var*> todo, std::unordered_set<const Var*>& out) const {
    while (!todo.empty()) {
      const Var* v = todo.back();
      todo.pop_back();
      if (!v || !out.insert(v).second) continue;
      if (auto it = next_.find(v); it != next_.end())
        for (const Var* w : it->second) todo.push_back(w);
    }
  }
  std::unordered_map<const Var*, std::vector<const Var*>> next_;
};

}  // namespace pto_mem::pypto::passes
