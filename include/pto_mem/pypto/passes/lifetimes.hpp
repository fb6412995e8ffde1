// Statement points and live ranges of tile values (a tile is live from the
// point that defines it to the point of its last use): the one
// numbering MemoryReuse and the DSA-RP allocation plan share.
//
// Walking the body in program order, every assignment, expression
// statement, yield and return takes the next point; an if condition and a
// loop's init values are read at the current point without taking one. A
// tile defined by an assignment is *tracked*: defined at its statement's
// point, last used at the largest point that reads it (its own point when
// nothing does). Optionally, on-chip tile parameters are tracked too,
// defined at point 0 (DSA-RP).
//
// Uses of values that own no storage are redirected to the values whose
// buffers they live in:
//  * a loop return var lives in its init's buffer: its uses count for the
//    init (recursively through phis and other return vars);
//  * an if-phi counts for its branch-local sources (the yield value of a
//    branch when that value is defined inside the branch, recursively through
//    nested phis) and, beyond the spec, for the value whose MemRef the phi
//    takes (the then value, else the else value) even when that value is
//    defined before the if: PyPTO would not extend it, which lets a later
//    tile overwrite the phi's buffer while the phi is live.
// Iter-arg uses are not counted: the init is read at the loop's first point,
// and loop extension keeps it live to the loop's last point.
//
// Loop extension: a value defined before a loop and used at or after the
// loop's first point lives at least to the loop's last point. Beyond the
// spec, every loop with a statement in its body takes one more point after
// its body, its *back-edge* point, and that is the loop's last point: a
// value read inside the loop is read again on the next iteration, after
// everything the body defines — even a value defined last in the body and
// never used must not take its buffer (PyPTO's touching intervals would
// allow that).
//
// Phi families: each (if, result slot) gets a family id, attached to the
// branch-local sources of that phi (recursively through nested phis); values
// sharing a family are one logical value on mutually exclusive paths.
//
// Cost: one walk, plus O(log L) per tracked value for loop extension.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

struct Lifetimes {
  /// Tracked tiles in definition order (parameters first when tracked).
  std::vector<VarPtr> vars;
  std::vector<Tick> def;   ///< inclusive statement points
  std::vector<Tick> last;
  std::vector<std::vector<std::uint32_t>> families;  ///< phi families of each tracked tile
  std::vector<const AssignStmt*> def_stmt;           ///< null for parameters
  /// [first, last] point of every loop body that holds a statement.
  std::vector<std::pair<Tick, Tick>> loops;
  Tick points = 0;  ///< statement points used (the next free point)

  [[nodiscard]] std::optional<std::size_t> find(const Var* v) const {
    const std::size_t* i = index_.find(v);
    if (!i) return std::nullopt;
    return *i;
  }
  [[nodiscard]] std::size_t size() const noexcept { return vars.size(); }

 private:
  friend class LifetimeWalk;
  PointerMap<const Var*, std::size_t> index_;
};

struct LifetimeOptions {
  /// Track on-chip tile parameters, defined at point 0 (as DSA-RP does).
  bool params_at_zero = false;
};

class LifetimeWalk {
 public:
  explicit LifetimeWalk(Lifetimes& out) : out_(out) {}

  void run(const Function& f, const LifetimeOptions& options) {
    const std::size_t expected = defined_estimate(f);
    serial_.reserve(expected);
    out_.index_.reserve(expected);
    out_.vars.reserve(expected);
    out_.def.reserve(expected);
    out_.last.reserve(expected);
    out_.families.reserve(expected);
    out_.def_stmt.reserve(expected);
    for (const auto& p : f.params) {
      note_def(p.var.get());
      if (options.params_at_zero && tile_of(p.var) && var_space(p.var) != MemorySpace::DDR) track(p.var, 0, nullptr);
    }
    walk(f.body);
    out_.points = order_;
    extend_over_loops();
  }

 private:
  void track(const VarPtr& v, Tick at, const AssignStmt* s) {
    if (!out_.index_.try_emplace(v.get(), out_.vars.size()).second) return;
    out_.vars.push_back(v);
    out_.def.push_back(at);
    out_.last.push_back(at);
    out_.families.emplace_back();
    out_.def_stmt.push_back(s);
  }
  void note_def(const Var* v) { serial_.try_emplace(v, next_serial_++); }

  void use_var(const Var* v, Tick at) {
    if (auto i = out_.find(v)) {
      out_.last[*i] = std::max(out_.last[*i], at);
      return;
    }
    if (const auto* r = redirect_.find(v))
      for (std::size_t i : *r) out_.last[i] = std::max(out_.last[i], at);
  }

  void use_expr(const ExprPtr& e, Tick at) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::Var: use_var(e->as<VarExpr>()->var.get(), at); break;
      case ExprKind::Call: {
        const auto* c = e->as<Call>();
        for (const auto& a : c->args) use_expr(a, at);
        for (const auto& kw : c->kwargs) use_expr(kw.value, at);
        break;
      }
      case ExprKind::List:
        for (const auto& x : e->as<ListExpr>()->elems) use_expr(x, at);
        break;
      case ExprKind::Tuple:
        for (const auto& x : e->as<TupleExpr>()->elems) use_expr(x, at);
        break;
      case ExprKind::Binary:
        use_expr(e->as<BinaryExpr>()->lhs, at);
        use_expr(e->as<BinaryExpr>()->rhs, at);
        break;
      case ExprKind::Unary: use_expr(e->as<UnaryExpr>()->operand, at); break;
      case ExprKind::Subscript:
        use_expr(e->as<SubscriptExpr>()->value, at);
        use_expr(e->as<SubscriptExpr>()->index, at);
        break;
      default: break;
    }
  }

  /// The tracked values whose buffers `v` lives in.
  std::vector<std::size_t> resolve(const Var* v) const {
    if (auto i = out_.find(v)) return {*i};
    if (const auto* r = redirect_.find(v)) return *r;
    return {};
  }
  /// The branch-local family members `v` stands for.
  std::vector<std::size_t> family_of(const Var* v) const {
    if (auto i = out_.find(v)) return {*i};
    if (const auto* m = family_members_.find(v)) return *m;
    return {};
  }
  bool defined_between(const Var* v, std::uint64_t from, std::uint64_t to) const {
    const std::uint64_t* s = serial_.find(v);
    return s && *s >= from && *s < to;
  }

  static void unique(std::vector<std::size_t>& xs) {
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  }

  void walk(const StmtPtr& s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const auto& c : s->as<SeqStmts>()->stmts) walk(c);
        break;
      case StmtKind::Assign: {
        const auto* a = s->as<AssignStmt>();
        const Tick at = order_++;
        use_expr(a->value, at);
        note_def(a->var.get());
        if (tile_of(a->var)) track(a->var, at, a);
        break;
      }
      case StmtKind::Eval: use_expr(s->as<EvalStmt>()->value, order_++); break;
      case StmtKind::Alloc: note_def(s->as<AllocStmt>()->var.get()); break;
      case StmtKind::Yield: {
        const Tick at = order_++;
        for (const auto& v : s->as<YieldStmt>()->values) use_expr(v, at);
        break;
      }
      case StmtKind::Return: {
        const Tick at = order_++;
        for (const auto& v : s->as<ReturnStmt>()->values) use_expr(v, at);
        break;
      }
      case StmtKind::If: walk_if(*s->as<IfStmt>()); break;
      case StmtKind::For: {
        const auto* l = s->as<ForStmt>();
        use_expr(l->start, order_);
        use_expr(l->stop, order_);
        use_expr(l->step, order_);
        for (const auto& ia : l->iter_args) use_expr(ia.init, order_);
        note_def(l->loop_var.get());
        walk_loop(l->iter_args, nullptr, l->body, l->return_vars);
        break;
      }
      case StmtKind::While: {
        const auto* w = s->as<WhileStmt>();
        for (const auto& ia : w->iter_args) use_expr(ia.init, order_);
        walk_loop(w->iter_args, &w->condition, w->body, w->return_vars);
        break;
      }
    }
  }

  void walk_loop(const std::vector<IterArg>& iter_args, const ExprPtr* condition, const StmtPtr& body,
                 const std::vector<VarPtr>& return_vars) {
    for (const auto& ia : iter_args) note_def(ia.var.get());
    const Tick first = order_;
    if (condition) use_expr(*condition, order_);
    walk(body);
    if (order_ > first) out_.loops.emplace_back(first, order_++);  // the back-edge point
    for (std::size_t i = 0; i < return_vars.size(); ++i) {
      note_def(return_vars[i].get());
      if (i < iter_args.size())
        if (auto init = as_var(iter_args[i].init)) {
          auto r = resolve(init.get());
          if (!r.empty()) redirect_[return_vars[i].get()] = std::move(r);
        }
    }
  }

  void walk_if(const IfStmt& s) {
    use_expr(s.condition, order_);
    const std::uint64_t then_from = next_serial_;
    walk(s.then_body);
    const std::uint64_t else_from = next_serial_;
    walk(s.else_body);
    const std::uint64_t else_to = next_serial_;
    const YieldStmt* ty = terminating_yield(s.then_body);
    const YieldStmt* ey = terminating_yield(s.else_body);
    auto value = [](const YieldStmt* y, std::size_t i) -> VarPtr {
      return y && i < y->values.size() ? as_var(y->values[i]) : nullptr;
    };
    for (std::size_t i = 0; i < s.return_vars.size(); ++i) {
      const Var* phi = s.return_vars[i].get();
      note_def(phi);
      const VarPtr t = value(ty, i), e = value(ey, i);
      std::vector<std::size_t> members, uses;
      if (t && defined_between(t.get(), then_from, else_from)) {
        auto m = family_of(t.get());
        members.insert(members.end(), m.begin(), m.end());
        auto r = resolve(t.get());
        uses.insert(uses.end(), r.begin(), r.end());
      }
      if (e && defined_between(e.get(), else_from, else_to)) {
        auto m = family_of(e.get());
        members.insert(members.end(), m.begin(), m.end());
        auto r = resolve(e.get());
        uses.insert(uses.end(), r.begin(), r.end());
      }
      // The phi takes the then value's MemRef (else the else value's): keep
      // that buffer live while the phi is, wherever the value was defined.
      const VarPtr owner = t && var_memref(t) ? t : e;
      if (owner) {
        auto r = resolve(owner.get());
        uses.insert(uses.end(), r.begin(), r.end());
      }
      unique(members);
      unique(uses);
      const std::uint32_t family = next_family_++;
      for (std::size_t m : members) out_.families[m].push_back(family);
      if (!members.empty()) family_members_[phi] = std::move(members);
      if (!uses.empty()) redirect_[phi] = std::move(uses);
    }
  }

  /// last = max(last, end of every loop whose first point lies in (def, last]);
  /// loops nest or are disjoint, so one range-maximum query per value reaches
  /// the fixpoint of "for every loop".
  void extend_over_loops() {
    auto& loops = out_.loops;
    if (loops.empty()) return;
    std::sort(loops.begin(), loops.end());
    const std::size_t n = loops.size();
    std::vector<std::vector<Tick>> table{std::vector<Tick>(n)};  // sparse table of loop ends
    for (std::size_t i = 0; i < n; ++i) table[0][i] = loops[i].second;
    for (std::size_t k = 1; (std::size_t{1} << k) <= n; ++k) {
      const std::size_t half = std::size_t{1} << (k - 1);
      std::vector<Tick> row(n - (std::size_t{1} << k) + 1);
      for (std::size_t i = 0; i < row.size(); ++i) row[i] = std::max(table[k - 1][i], table[k - 1][i + half]);
      table.push_back(std::move(row));
    }
    auto range_max = [&](std::size_t lo, std::size_t hi) {  // [lo, hi)
      std::size_t k = 0;
      while ((std::size_t{2} << k) <= hi - lo) ++k;
      return std::max(table[k][lo], table[k][hi - (std::size_t{1} << k)]);
    };
    for (std::size_t v = 0; v < out_.vars.size(); ++v) {
      const Tick d = out_.def[v], l = out_.last[v];
      if (l <= d) continue;
      auto lo = std::upper_bound(loops.begin(), loops.end(), std::pair<Tick, Tick>{d, max_tick});
      auto hi = std::upper_bound(loops.begin(), loops.end(), std::pair<Tick, Tick>{l, max_tick});
      if (lo >= hi) continue;
      out_.last[v] = std::max(l, range_max(static_cast<std::size_t>(lo - loops.begin()),
                                           static_cast<std::size_t>(hi - loops.begin())));
    }
  }

  static constexpr Tick max_tick = std::numeric_limits<Tick>::max();

  Lifetimes& out_;
  Tick order_ = 0;
  std::uint64_t next_serial_ = 0;
  std::uint32_t next_family_ = 0;
  PointerMap<const Var*, std::uint64_t> serial_;
  PointerMap<const Var*, std::vector<std::size_t>> redirect_;
  PointerMap<const Var*, std::vector<std::size_t>> family_members_;
};

[[nodiscard]] PTO_MEM_PYPTO_INLINE Lifetimes compute_lifetimes(const Function& f, const LifetimeOptions& options = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Lifetimes compute_lifetimes(const Function& f, const LifetimeOptions& options) {
  Lifetimes out;
  LifetimeWalk(out).run(f, options);
  return out;
}
#endif

}  // namespace pto_mem::pypto::passes
