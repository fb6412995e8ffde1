// "Is this storage still observed?" — the question the storage rules ask
// before they let a loop carry, a branch result or an accumulator write over
// a value's bytes (the Buffer IR storage rules of MaterializeSemanticAliases:
// protect reads repeated by back-edges, record initializer reads at the loop
// header).
//
//     for i, (acc,) in range(4, init_values=(x,)):
//         n = tile.add(acc, 1)    # may n write over acc's bytes (x's)?
//         y = tile.exp(x)         # no: x is read after n, and on the next trip
//         r = yield_(n)
//
// UseIndex groups the reads a FunctionIndex recorded (each with the chain of
// statements holding it, and every definition's position) by variable and
// by the allocation base each variable is on now. A read of `v`
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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/path_pool.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

class UseIndex : public MemRefObserver {
 public:
  /// Reads and definitions from `index` (built from the function as it is now).
  explicit UseIndex(std::shared_ptr<const FunctionIndex> index) : index_(std::move(index)) {
    const auto& uses = index_->uses();
    group_of_.reserve(index_->defs().size());
    on_base_.reserve(index_->defs().size());
    // The reads of each variable (one array, grouped by variable in order
    // of first read), and the variables on each base.
    std::vector<std::uint32_t> group_of_use(uses.size());
    for (std::uint32_t i = 0; i < uses.size(); ++i) {
      const Var* v = uses[i].var;
      auto [g, fresh] = group_of_.try_emplace(v, static_cast<std::uint32_t>(groups_.size()));
      if (fresh) groups_.push_back(Group{v});
      group_of_use[i] = *g;
      ++groups_[*g].end;  // a count for now
    }
    std::uint32_t at = 0;
    for (auto& g : groups_) {
      g.begin = at;
      at += g.end;
      g.end = g.begin;
    }
    use_order_.resize(uses.size());
    for (std::uint32_t i = 0; i < uses.size(); ++i) use_order_[groups_[group_of_use[i]].end++] = i;
    for (std::uint32_t g = 0; g < groups_.size(); ++g) file(g, base_of(*groups_[g].var));
  }
  /// Same, building the index of `f`.
  explicit UseIndex(const Function& f) : UseIndex(std::make_shared<const FunctionIndex>(f)) {}

  using Use = FunctionIndex::Use;
  using Def = FunctionIndex::Def;

  /// The walk this index reads.
  [[nodiscard]] const FunctionIndex& function_index() const noexcept { return *index_; }

  [[nodiscard]] const std::vector<Use>& uses() const noexcept { return index_->uses(); }

  /// Calls fn(const Use&) on every read of a variable now on `base`, until
  /// fn returns true; returns whether one did.
  template <class F>
  bool any_use_on(const Var* base, F&& fn) const {
    const std::uint32_t* head = on_base_.find(base);
    for (std::uint32_t g = head ? *head : none; g != none; g = groups_[g].next)
      for (std::uint32_t k = groups_[g].begin; k < groups_[g].end; ++k)
        if (fn(uses()[use_order_[k]])) return true;
    return false;
  }
  /// Same, over the reads of variable `v`.
  template <class F>
  bool any_use_of(const Var* v, F&& fn) const {
    const std::uint32_t* g = group_of_.find(v);
    if (!g) return false;
    for (std::uint32_t k = groups_[*g].begin; k < groups_[*g].end; ++k)
      if (fn(uses()[use_order_[k]])) return true;
    return false;
  }
  [[nodiscard]] const Def* def(const Var* v) const { return index_->def(v); }

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

  /// Whether `v` is defined after statement `at` (with enclosing path
  /// `at_path`) in an enclosing sequence: not at or inside `at`, not before
  /// it, not in an if-arm exclusive with it (a parameter or a variable added
  /// after the index was built: no).
  [[nodiscard]] bool defined_after(const Var* v, const Stmt* at, StmtPath at_path) const {
    const Def* d = def(v);
    if (!d || d->holder == at) return false;
    const StmtPath dp = d->path;
    std::size_t k = 0;
    while (k < at_path.size() && k < dp.size() && at_path[k].stmt == dp[k].stmt &&
           at_path[k].child == dp[k].child)
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
  [[nodiscard]] bool observed(const Stmt* at, StmtPath at_path, const MemRef& window,
                              const Exclusion& exclude, bool inside) const {
    bool found = false;
    const std::uint32_t* head = on_base_.find(window.base.get());
    for (std::uint32_t g = head ? *head : none; g != none && !found; g = groups_[g].next) {
      const MemRef* m = memref_ptr(groups_[g].var->type);
      if (!m || !windows_overlap(*m, window)) continue;
      for (std::uint32_t k = groups_[g].begin; k < groups_[g].end; ++k) {
        const Use& u = uses()[use_order_[k]];
        if (observes(u, at, at_path, inside) && !exclude.contains(u.var)) {
          found = true;
          break;
        }
      }
    }
#ifndef NDEBUG
    // Debug builds (the sanitizer run) prove the index against a full scan.
    bool scanned = false;
    for (const Use& u : uses()) {
      const MemRef* m = memref_ptr(u.var->type);
      if (m && windows_overlap(*m, window) && observes(u, at, at_path, inside) && !exclude.contains(u.var)) {
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
  [[nodiscard]] bool read_observes(const Var* v, const Stmt* at, StmtPath at_path, bool inside) const {
    return any_use_of(v, [&](const Use& u) { return observes(u, at, at_path, inside); });
  }

  void memref_changed(const Var& v) override {
    const std::uint32_t* g = group_of_.find(&v);
    if (!g) return;  // never read (or defined after the index was built)
    file(*g, base_of(v));
  }

 private:
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  /// The reads of one variable, and its place in the list of its base.
  struct Group {
    const Var* var;
    const Var* base = nullptr;  ///< the base it is filed under (null: none)
    std::uint32_t prev = none;  ///< the list of the variables on `base`
    std::uint32_t next = none;
    std::uint32_t begin = 0, end = 0;  ///< its reads: use_order_[begin, end)
  };
  static const Var* base_of(const Var& v) noexcept {
    const MemRef* m = memref_ptr(v.type);
    return m ? m->base.get() : nullptr;
  }
  /// Files group `g` under `base` (moving it from where it was, O(1)).
  void file(std::uint32_t g, const Var* base) {
    Group& x = groups_[g];
    if (x.base == base) return;
    if (x.base) {  // unlink
      if (x.prev != none)
        groups_[x.prev].next = x.next;
      else
        *on_base_.find(x.base) = x.next;
      if (x.next != none) groups_[x.next].prev = x.prev;
    }
    x.base = base;
    x.prev = x.next = none;
    if (base) {  // push front
      std::uint32_t* head = on_base_.try_emplace(base, none).first;
      x.next = *head;
      if (x.next != none) groups_[x.next].prev = g;
      *head = g;
    }
  }

  [[nodiscard]] bool observes(const Use& u, const Stmt* at, StmtPath at_path, bool inside) const {
    const StmtPath up = u.path;
    // Common prefix of the two chains.
    std::size_t k = 0;
    while (k < at_path.size() && k < up.size() && at_path[k].stmt == up[k].stmt &&
           at_path[k].child == up[k].child)
      ++k;
    // Repeated by an enclosing loop the value was defined outside of.
    for (std::size_t i = 0; i < k; ++i) {
      const Stmt* s = at_path[i].stmt;
      if ((s->is<ForStmt>() || s->is<WhileStmt>()) && loop_repeats(*s) && defined_outside(u.var, s))
        return true;
    }
    if (k == at_path.size()) {           // the read is at or below `at`
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

  std::shared_ptr<const FunctionIndex> index_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> use_order_;  // uses_ indices, grouped by variable
  PointerMap<const Var*, std::uint32_t> group_of_;
  PointerMap<const Var*, std::uint32_t> on_base_;  // the first group of each base's list
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
      if (const auto* next = next_.find(v))
        for (const Var* w : *next) todo.push_back(w);
    }
  }
  PointerMap<const Var*, std::vector<const Var*>> next_;
};

}  // namespace pto_mem::pypto::passes
