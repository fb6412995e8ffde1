// "Is this storage still observed?" — the question the storage rules ask
// before they let a loop carry, a branch result or an accumulator write over
// a value's bytes (the Buffer IR storage rules of MaterializeSemanticAliases:
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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/path_pool.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

class UseIndex : public MemRefObserver {
 public:
  explicit UseIndex(const Function& f) {
    defs_.reserve(defined_estimate(f));
    group_of_.reserve(defined_estimate(f));
    on_base_.reserve(defined_estimate(f));
    def_list_.reserve(defined_estimate(f));
    uses_.reserve(2 * defined_estimate(f));  // about two reads per statement
    use_paths_.reserve(2 * defined_estimate(f));
    pool_.reserve(defined_estimate(f));
    Walk w{*this};
    for (const auto& p : f.params) w.def(p.var.get());
    w.stmt(f.body);
    // The paths are final now: point every record at its own.
    for (std::size_t i = 0; i < uses_.size(); ++i) uses_[i].path = pool_[use_paths_[i]];
    for (auto& d : def_list_) d.path = pool_[d.handle];
    use_paths_ = {};
    // The reads of each variable (one array, grouped by variable in order
    // of first read), and the variables on each base.
    std::vector<std::uint32_t> group_of_use(uses_.size());
    for (std::uint32_t i = 0; i < uses_.size(); ++i) {
      const Var* v = uses_[i].var;
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
    use_order_.resize(uses_.size());
    for (std::uint32_t i = 0; i < uses_.size(); ++i) use_order_[groups_[group_of_use[i]].end++] = i;
    for (std::uint32_t g = 0; g < groups_.size(); ++g) file(g, base_of(*groups_[g].var));
  }

  struct Use {
    const Var* var;
    const Stmt* holder;  ///< the innermost statement holding the read
    StmtPath path;       ///< its enclosing statements, outermost first
  };
  struct Def {
    const Stmt* holder = nullptr;
    StmtPath path;
    PathPool::Handle handle;  ///< where `path` is in the pool
  };

  [[nodiscard]] const std::vector<Use>& uses() const noexcept { return uses_; }

  /// Calls fn(const Use&) on every read of a variable now on `base`, until
  /// fn returns true; returns whether one did.
  template <class F>
  bool any_use_on(const Var* base, F&& fn) const {
    const std::uint32_t* head = on_base_.find(base);
    for (std::uint32_t g = head ? *head : none; g != none; g = groups_[g].next)
      for (std::uint32_t k = groups_[g].begin; k < groups_[g].end; ++k)
        if (fn(uses_[use_order_[k]])) return true;
    return false;
  }
  /// Same, over the reads of variable `v`.
  template <class F>
  bool any_use_of(const Var* v, F&& fn) const {
    const std::uint32_t* g = group_of_.find(v);
    if (!g) return false;
    for (std::uint32_t k = groups_[*g].begin; k < groups_[*g].end; ++k)
      if (fn(uses_[use_order_[k]])) return true;
    return false;
  }
  [[nodiscard]] const Def* def(const Var* v) const {
    const std::uint32_t* i = defs_.find(v);
    return i ? &def_list_[*i] : nullptr;
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

  /// Whether `v` is defined after statement `at` (with enclosing path
  /// `at_path`) in an enclosing sequence: not at or inside `at`, not before
  /// it, not in an if-arm exclusive with it (a parameter or a variable added
  /// after the index was built: no).
  [[nodiscard]] bool defined_after(const Var* v, const Stmt* at, StmtPath at_path) const {
    const Def* d = def(v);
    if (!d || d->holder == at) return false;
    const StmtPath dp = d->path;
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
  [[nodiscard]] bool observed(const Stmt* at, StmtPath at_path, const MemRef& window, const Exclusion& exclude,
                              bool inside) const {
    bool found = false;
    const std::uint32_t* head = on_base_.find(window.base.get());
    for (std::uint32_t g = head ? *head : none; g != none && !found; g = groups_[g].next) {
      const MemRef* m = memref_ptr(groups_[g].var->type);
      if (!m || !windows_overlap(*m, window)) continue;
      for (std::uint32_t k = groups_[g].begin; k < groups_[g].end; ++k) {
        const Use& u = uses_[use_order_[k]];
        if (observes(u, at, at_path, inside) && !exclude.contains(u.var)) {
          found = true;
          break;
        }
      }
    }
#ifndef NDEBUG
    // Debug builds (the sanitizer run) prove the index against a full scan.
    bool scanned = false;
    for (const Use& u : uses_) {
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
    const Var* base = nullptr;     ///< the base it is filed under (null: none)
    std::uint32_t prev = none;     ///< the list of the variables on `base`
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
      if (x.prev != none) groups_[x.prev].next = x.next;
      else *on_base_.find(x.base) = x.next;
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

  /// The index's walk: IRVisitor's order, holders and paths (a read in a
  /// loop header or an if condition is held by that statement, a while's
  /// condition inside the loop's path), without its virtual calls.
  struct Walk {
    UseIndex& out;
    std::vector<PathEntry> path{};
    const Stmt* holder = nullptr;
    PathPool::Handle here_{};
    bool dirty = true;  // the path changed since `here_` was interned

    PathPool::Handle here() {
      if (dirty) here_ = out.pool_.intern(path), dirty = false;
      return here_;
    }
    void push(const Stmt* s, std::size_t child) {
      path.push_back({s, child});
      dirty = true;
    }
    void pop() {
      path.pop_back();
      dirty = true;
    }
    void use(const Var* v) {
      if (!v) return;
      out.uses_.push_back(Use{v, holder, {}});
      out.use_paths_.push_back(here());
    }
    void def(const Var* v) {
      if (!v) return;
      auto [i, fresh] = out.defs_.try_emplace(v, static_cast<std::uint32_t>(out.def_list_.size()));
      if (fresh) out.def_list_.push_back(Def{holder, {}, here()});
    }
    void expr(const ExprPtr& e) {
      if (!e) return;
      switch (e->kind) {
        case ExprKind::Var: use(e->as<VarExpr>()->var.get()); break;
        case ExprKind::Call: {
          const auto* c = e->as<Call>();
          for (const auto& a : c->args) expr(a);
          for (const auto& kw : c->kwargs) expr(kw.value);
          break;
        }
        case ExprKind::List:
          for (const auto& x : e->as<ListExpr>()->elems) expr(x);
          break;
        case ExprKind::Tuple:
          for (const auto& x : e->as<TupleExpr>()->elems) expr(x);
          break;
        case ExprKind::Binary:
          expr(e->as<BinaryExpr>()->lhs);
          expr(e->as<BinaryExpr>()->rhs);
          break;
        case ExprKind::Unary: expr(e->as<UnaryExpr>()->operand); break;
        case ExprKind::Subscript:
          expr(e->as<SubscriptExpr>()->value);
          expr(e->as<SubscriptExpr>()->index);
          break;
        default: break;
      }
    }
    void stmt(const StmtPtr& sp) {
      if (!sp) return;
      const Stmt* s = sp.get();
      const Stmt* before = holder;
      holder = s;
      switch (s->kind) {
        case StmtKind::Seq: {
          const auto& stmts = s->as<SeqStmts>()->stmts;
          push(s, 0);
          for (std::size_t i = 0; i < stmts.size(); ++i) {
            path.back().child = i;
            dirty = true;
            stmt(stmts[i]);
          }
          pop();
          break;
        }
        case StmtKind::Assign:
          expr(s->as<AssignStmt>()->value);
          def(s->as<AssignStmt>()->var.get());
          break;
        case StmtKind::Eval: expr(s->as<EvalStmt>()->value); break;
        case StmtKind::Alloc: def(s->as<AllocStmt>()->var.get()); break;
        case StmtKind::For: {
          const auto* l = s->as<ForStmt>();
          expr(l->start);
          expr(l->stop);
          expr(l->step);
          for (const auto& ia : l->iter_args) expr(ia.init);
          for (const auto& kw : l->attrs) expr(kw.value);
          def(l->loop_var.get());
          for (const auto& ia : l->iter_args) def(ia.var.get());
          push(s, 0);
          stmt(l->body);
          pop();
          for (const auto& rv : l->return_vars) def(rv.get());
          break;
        }
        case StmtKind::If: {
          const auto* i = s->as<IfStmt>();
          expr(i->condition);
          push(s, 0);
          stmt(i->then_body);
          path.back().child = 1;
          dirty = true;
          stmt(i->else_body);
          pop();
          for (const auto& rv : i->return_vars) def(rv.get());
          break;
        }
        case StmtKind::While: {
          const auto* l = s->as<WhileStmt>();
          for (const auto& ia : l->iter_args) expr(ia.init);
          for (const auto& ia : l->iter_args) def(ia.var.get());
          push(s, 0);
          expr(l->condition);
          stmt(l->body);
          pop();
          for (const auto& rv : l->return_vars) def(rv.get());
          break;
        }
        case StmtKind::Yield:
          for (const auto& v : s->as<YieldStmt>()->values) expr(v);
          break;
        case StmtKind::Return:
          for (const auto& v : s->as<ReturnStmt>()->values) expr(v);
          break;
      }
      holder = before;
    }
  };

  PathPool pool_;
  std::vector<Use> uses_;
  std::vector<PathPool::Handle> use_paths_;  // while building
  PointerMap<const Var*, std::uint32_t> defs_;  // into def_list_
  std::vector<Def> def_list_;
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
