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
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
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

/// The defining site of every variable of a function, read from its
/// FunctionIndex (loop vars and alloc bases have none: nothing retargets them).
class DefSites {
 public:
  /// From `index` (built from the function as it is now); kept alive by the
  /// sites' paths, which point into it.
  explicit DefSites(std::shared_ptr<const FunctionIndex> index) : walk_(std::move(index)) {
    index_.reserve(walk_->defs().size());
    sites_.reserve(walk_->defs().size());
    for (const auto& d : walk_->defs()) {
      if (!d.holder) {
        set(d.var, DefSite{DefSite::Kind::param, nullptr, 0, {}});
      } else if (d.holder->is<AssignStmt>()) {
        set(d.var, DefSite{DefSite::Kind::assign, d.holder, 0, d.path});
      } else if (const auto* i = d.holder->as<IfStmt>()) {
        if (auto k = slot(i->return_vars, d.var)) set(d.var, DefSite{DefSite::Kind::phi, i, *k, {}});
      } else if (const auto* l = d.holder->as<ForStmt>()) {
        carry(*l, l->iter_args, l->return_vars, d.var);
      } else if (const auto* w = d.holder->as<WhileStmt>()) {
        carry(*w, w->iter_args, w->return_vars, d.var);
      }
    }
  }
  /// Same, building the index of `f`.
  explicit DefSites(const Function& f) : DefSites(std::make_shared<const FunctionIndex>(f)) {}

  [[nodiscard]] const DefSite* find(const Var* v) const {
    const std::uint32_t* i = index_.find(v);
    return i ? &sites_[*i] : nullptr;
  }

 private:
  /// The last definition of a variable wins (as a map assignment would).
  void set(const Var* v, DefSite d) {
    auto [i, fresh] = index_.try_emplace(v, static_cast<std::uint32_t>(sites_.size()));
    if (fresh)
      sites_.push_back(d);
    else
      sites_[*i] = d;
  }
  static std::optional<std::size_t> slot(const std::vector<VarPtr>& vars, const Var* v) {
    for (std::size_t k = 0; k < vars.size(); ++k)
      if (vars[k].get() == v) return k;
    return std::nullopt;
  }
  void carry(const Stmt& s, const std::vector<IterArg>& ia, const std::vector<VarPtr>& rv, const Var* v) {
    for (std::size_t k = 0; k < ia.size(); ++k)
      if (ia[k].var.get() == v) return set(v, DefSite{DefSite::Kind::iter_arg, &s, k, {}});
    if (auto k = slot(rv, v)) set(v, DefSite{DefSite::Kind::loop_return, &s, *k, {}});
  }

  std::shared_ptr<const FunctionIndex> walk_;
  std::vector<DefSite> sites_;
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
