// Where each variable is defined, and the "is this buffer still touched
// later in this block?" question the retargeting rules ask (a producer may
// write into a carried or phi buffer only when nothing later still reads it).
//
//     for i, (acc,) in range(4, init_values=(a,)):   # acc: iter-arg 0 of the loop
//         n = tile.add(acc, x)                       # n: assignment, path [loop body, child 0]
//         r = yield_(n)                              # r: loop return 0
//
// Retargeting `n` into the carried buffer asks DefSites how `n` is defined
// (an assignment: its producer can write there) and LaterTouches whether a
// statement after `n`'s, in its block, still reads `acc`'s buffer (then it
// may not).
#pragma once

#include <cstddef>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/path_pool.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

/// A variable's defining site. For an assignment, `path` is the chain of
/// enclosing statements (outermost first) with the child index taken at each.
struct DefSite {
  enum class Kind { param, assign, phi, loop_return, iter_arg, other };
  Kind kind = Kind::other;
  const Stmt* stmt = nullptr;  ///< the AssignStmt, IfStmt, ForStmt or WhileStmt
  std::size_t index = 0;       ///< phi / carry slot
  StmtPath path;
};

class DefSites {
 public:
  explicit DefSites(const Function& f) {
    const std::size_t expected = defined_estimate(f);
    index_.reserve(expected);
    sites_.reserve(expected);
    handles_.reserve(expected);
    pool_.reserve(expected);  // about one entry per path (a top-level statement's)
    for (const auto& p : f.params) set(p.var.get(), DefSite{DefSite::Kind::param, nullptr, 0, {}});
    Walk(*this).visit_stmt(f.body);
    for (std::size_t i = 0; i < sites_.size(); ++i)
      if (sites_[i].kind == DefSite::Kind::assign) sites_[i].path = pool_[handles_[i]];
    handles_ = {};
  }

  [[nodiscard]] const DefSite* find(const Var* v) const {
    const std::uint32_t* i = index_.find(v);
    return i ? &sites_[*i] : nullptr;
  }

 private:
  /// The last definition of a variable wins (as a map assignment would).
  void set(const Var* v, DefSite d, PathPool::Handle h = {}) {
    auto [i, fresh] = index_.try_emplace(v, static_cast<std::uint32_t>(sites_.size()));
    if (fresh) {
      sites_.push_back(d);
      handles_.push_back(h);
    } else {
      sites_[*i] = d;
      handles_[*i] = h;
    }
  }
  void carries(const Stmt& s, const std::vector<IterArg>& ia, const std::vector<VarPtr>& rv) {
    for (std::size_t i = 0; i < ia.size(); ++i) set(ia[i].var.get(), DefSite{DefSite::Kind::iter_arg, &s, i, {}});
    for (std::size_t i = 0; i < rv.size(); ++i) set(rv[i].get(), DefSite{DefSite::Kind::loop_return, &s, i, {}});
  }
  /// IRWalker's order and paths, definitions only (expressions skipped);
  /// a loop's carries are recorded after its body.
  struct Walk : IRWalker<Walk> {
    DefSites& out;
    std::vector<PathEntry> path{};
    explicit Walk(DefSites& o) : out(o) {}
    void enter_child(const Stmt& s, std::size_t child) { path.push_back({&s, child}); }
    void leave_child(const Stmt&) { path.pop_back(); }
    void visit_expr(const ExprPtr&) {}
    void visit_alloc(const AllocStmt&) {}
    void visit_assign(const AssignStmt& s) {
      out.set(s.var.get(), DefSite{DefSite::Kind::assign, &s, 0, {}}, out.pool_.intern(path));
    }
    template <class Loop>
    void loop(const Loop& l) {
      enter_child(l, 0);
      visit_stmt(l.body);
      leave_child(l);
      out.carries(l, l.iter_args, l.return_vars);
    }
    void visit_for(const ForStmt& l) { loop(l); }
    void visit_while(const WhileStmt& l) { loop(l); }
    void visit_if(const IfStmt& i) {
      IRWalker<Walk>::visit_if(i);  // the arms; the phis below replace its (no-op) definitions
      for (std::size_t k = 0; k < i.return_vars.size(); ++k)
        out.set(i.return_vars[k].get(), DefSite{DefSite::Kind::phi, &i, k, {}});
    }
  };

  PathPool pool_;
  std::vector<DefSite> sites_;
  std::vector<PathPool::Handle> handles_;  // while building
  PointerMap<const Var*, std::uint32_t> index_;
};

/// The loop's carries: iter-args, body and return vars of a For or While.
struct LoopView {
  const std::vector<IterArg>* iter_args = nullptr;
  const StmtPtr* body = nullptr;
  const std::vector<VarPtr>* return_vars = nullptr;
};

[[nodiscard]] inline std::optional<LoopView> loop_view(const Stmt* s) {
  if (!s) return std::nullopt;
  if (const auto* f = s->as<ForStmt>()) return LoopView{&f->iter_args, &f->body, &f->return_vars};
  if (const auto* w = s->as<WhileStmt>()) return LoopView{&w->iter_args, &w->body, &w->return_vars};
  return std::nullopt;
}

/// Value i of a body's terminating yield as a variable, or null.
[[nodiscard]] inline VarPtr yielded_var(const StmtPtr& body, std::size_t i) {
  const YieldStmt* y = terminating_yield(body);
  return y && i < y->values.size() ? as_var(y->values[i]) : nullptr;
}

/// Answers "does a statement after child k of this sequence read a tile on
/// base B, or assign one?" with one table per sequence, built on first use
/// from the variables' current types. Build a new one after types change.
class LaterTouches {
 public:
  [[nodiscard]] bool touched_after(const SeqStmts& s, std::size_t child, const Var* base) {
    const Tables& t = tables(s);
    auto found = t.by_base.find(base);
    return found != t.by_base.end() && found->second > child;
  }
  /// Same, for one variable (read, or assigned) rather than a buffer.
  [[nodiscard]] bool var_touched_after(const SeqStmts& s, std::size_t child, const Var* v) {
    const Tables& t = tables(s);
    auto found = t.by_var.find(v);
    return found != t.by_var.end() && found->second > child;
  }

  /// Walking `path` from the innermost statement outwards, true when some
  /// enclosing sequence touches `base`, or one of `vars`, after the path's
  /// element. The walk stops at `stop` (when given) or at the first
  /// enclosing loop; sibling branches of an enclosing if are never scanned.
  [[nodiscard]] bool live_after(StmtPath path, const Var* base, const Stmt* stop = nullptr,
                                const std::vector<const Var*>& vars = {}) {
    for (auto e = path.rbegin(); e != path.rend(); ++e) {
      if (stop && e->stmt == stop) return false;
      if (const auto* s = e->stmt->as<SeqStmts>()) {
        if (touched_after(*s, e->child, base)) return true;
        for (const Var* v : vars)
          if (var_touched_after(*s, e->child, v)) return true;
        continue;
      }
      if (!stop && (e->stmt->is<ForStmt>() || e->stmt->is<WhileStmt>())) return false;
    }
    return false;
  }

 private:
  using Table = std::unordered_map<const Var*, std::size_t>;  // base (or var) -> last child touching it
  struct Tables {
    Table by_base, by_var;
  };

  const Tables& tables(const SeqStmts& s) {
    auto [it, fresh] = tables_.try_emplace(&s);
    if (fresh) build(s, it->second);
    return it->second;
  }

  static void build(const SeqStmts& s, Tables& t) {
    struct Touch : IRWalker<Touch> {
      Tables* t;
      std::size_t at = 0;
      void note(const VarPtr& v) {
        t->by_var[v.get()] = at;
        if (const Var* b = var_base(v)) t->by_base[b] = at;
      }
      void visit_var_use(const VarPtr& v) { note(v); }
      void visit_assign(const AssignStmt& a) {
        IRWalker<Touch>::visit_assign(a);
        note(a.var);
      }
    } w;
    w.t = &t;
    for (std::size_t i = 0; i < s.stmts.size(); ++i) {
      w.at = i;
      w.visit_stmt(s.stmts[i]);
    }
  }

  std::unordered_map<const SeqStmts*, Tables> tables_;
};

}  // namespace pto_mem::pypto::passes
