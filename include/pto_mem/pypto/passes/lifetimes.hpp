// Live ranges of tile values: a tile is live from the point that defines it
// to the point of its last use. MemoryReuse and the DSA-RP allocation plan
// both read them.
//
//     a = tile.load(x, ...)      # 0   a: [0, 3]
//     for i in range(4):
//         b = tile.add(a, a)     # 1   b: [1, 1]
//         yield_()               # 2
//                                # 3   back edge: a is read again next trip
//     c = tile.exp(x)            # 4   c: [4, 4] (may take a's or b's buffer)
//
// The points are FunctionIndex's (function_index.hpp): every assignment,
// expression statement, yield and return takes the next point, and every
// loop whose body took one takes a back-edge point; an if condition and a
// loop's init values are read at the next free point without taking one. A
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
// Cost: one pass over the index's records (the walk is the index's), plus
// O(log L) per tracked value for loop extension.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

struct Lifetimes {
  /// Tracked tiles in definition order (parameters first when tracked).
  std::vector<VarPtr> vars;
  std::vector<Tick> def;  ///< inclusive statement points
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

/// Lifetimes from a FunctionIndex: its definitions and reads replayed in
/// walk order (the index's points are the lifetime numbering).
class LifetimeWalk {
 public:
  explicit LifetimeWalk(Lifetimes& out) : out_(out) {}

  void run(const FunctionIndex& index, const Function& f, const LifetimeOptions& options) {
    assert(index.built_from(f));
    const std::size_t expected = defined_estimate(f);
    out_.index_.reserve(expected);
    out_.vars.reserve(expected);
    out_.def.reserve(expected);
    out_.last.reserve(expected);
    out_.families.reserve(expected);
    out_.def_stmt.reserve(expected);
    index_ = &index;
    const auto& uses = index.uses();
    std::size_t u = 0;
    auto reads_until = [&](std::size_t end) {
      for (; u < end; ++u)
        if (!uses[u].attribute) use_var(uses[u].var, uses[u].at);  // loop attributes are no reads of a tile
    };
    std::size_t param = 0;
    for (const auto& d : index.defs()) {
      reads_until(d.uses_before);
      if (!d.holder) {  // a parameter
        const VarPtr& p = f.params[param++].var;
        if (options.params_at_zero && tile_of(p) && var_space(p) != MemorySpace::DDR) track(p, 0, nullptr);
      } else if (const auto* a = d.holder->as<AssignStmt>()) {
        if (tile_of(a->var)) track(a->var, d.at, a);
      } else if (const auto* l = d.holder->as<ForStmt>()) {
        loop_result(d, l->iter_args, l->return_vars);
      } else if (const auto* w = d.holder->as<WhileStmt>()) {
        loop_result(d, w->iter_args, w->return_vars);
      } else if (const auto* i = d.holder->as<IfStmt>()) {
        phi(d, *i);
      }
    }
    reads_until(uses.size());
    out_.points = index.point_count();
    for (const auto& l : index.loops())
      if (l.back_edge >= 0) out_.loops.emplace_back(l.first, l.back_edge);
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

  void use_var(const Var* v, Tick at) {
    if (auto i = out_.find(v)) {
      out_.last[*i] = std::max(out_.last[*i], at);
      return;
    }
    if (const auto* r = redirect_.find(v))
      for (std::size_t i : *r) out_.last[i] = std::max(out_.last[i], at);
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
  /// Whether `v` is (first) defined inside arm `arm` of `s`.
  bool defined_in_arm(const Var* v, const IfStmt& s, std::size_t arm) const {
    const FunctionIndex::Def* d = index_->def(v);
    if (!d) return false;
    for (const auto& e : d->path)
      if (e.stmt == &s && e.child == arm) return true;
    return false;
  }

  static void unique(std::vector<std::size_t>& xs) {
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  }

  /// A definition by a loop: a return var lives in its init's buffer (the
  /// loop var and the iter-args are no buffers of their own).
  void loop_result(const FunctionIndex::Def& d, const std::vector<IterArg>& iter_args,
                   const std::vector<VarPtr>& return_vars) {
    for (std::size_t i = 0; i < return_vars.size(); ++i) {
      if (return_vars[i].get() != d.var) continue;
      if (i < iter_args.size())
        if (auto init = as_var(iter_args[i].init)) {
          auto r = resolve(init.get());
          if (!r.empty()) redirect_[d.var] = std::move(r);
        }
      return;
    }
  }

  /// An if's phi: its family and the buffers its reads count for.
  void phi(const FunctionIndex::Def& d, const IfStmt& s) {
    std::size_t slot = 0;
    while (slot < s.return_vars.size() && s.return_vars[slot].get() != d.var) ++slot;
    if (slot == s.return_vars.size()) return;
    const YieldStmt* ty = terminating_yield(s.then_body);
    const YieldStmt* ey = terminating_yield(s.else_body);
    auto value = [](const YieldStmt* y, std::size_t i) -> VarPtr {
      return y && i < y->values.size() ? as_var(y->values[i]) : nullptr;
    };
    const Var* phi = d.var;
    const VarPtr t = value(ty, slot), e = value(ey, slot);
    std::vector<std::size_t> members, uses;
    if (t && defined_in_arm(t.get(), s, 0)) {
      auto m = family_of(t.get());
      members.insert(members.end(), m.begin(), m.end());
      auto r = resolve(t.get());
      uses.insert(uses.end(), r.begin(), r.end());
    }
    if (e && defined_in_arm(e.get(), s, 1)) {
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
  const FunctionIndex* index_ = nullptr;
  std::uint32_t next_family_ = 0;
  PointerMap<const Var*, std::vector<std::size_t>> redirect_;
  PointerMap<const Var*, std::vector<std::size_t>> family_members_;
};

/// The lifetimes of `f`, read from `index` (built from `f` as it is now).
[[nodiscard]] PTO_MEM_PYPTO_INLINE Lifetimes compute_lifetimes(const FunctionIndex& index, const Function& f,
                                                               const LifetimeOptions& options = {});
/// Same, building the index.
[[nodiscard]] PTO_MEM_PYPTO_INLINE Lifetimes compute_lifetimes(const Function& f,
                                                               const LifetimeOptions& options = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Lifetimes compute_lifetimes(const FunctionIndex& index, const Function& f,
                                                               const LifetimeOptions& options) {
  Lifetimes out;
  LifetimeWalk(out).run(index, f, options);
  return out;
}
[[nodiscard]] PTO_MEM_PYPTO_INLINE Lifetimes compute_lifetimes(const Function& f,
                                                               const LifetimeOptions& options) {
  const FunctionIndex index(f);
  return compute_lifetimes(index, f, options);
}
#endif

}  // namespace pto_mem::pypto::passes
