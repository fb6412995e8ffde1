// A set of unit reuse penalties kept as a rule instead of a list of pairs.
//
// The reuse-penalty recognizer (algorithms/reuse_penalties.hpp) pairs an allocation P
// with every later allocation Q of the same arena and structured region
// whose first write would wait on a different pipe than P's last access.
// In a long straight-line program that is every earlier allocation of the
// same kind: Θ(B²) pairs for B allocations, gigabytes as a list. Yet for
// pairs whose accesses do not interleave, the answer depends only on what
// kind of allocation each one is (its first pipe, the pipes it ends on,
// whether it sits in a loop). So the relation is stored as
//
//   * per allocation: a group (arena and region; `none` keeps it out of
//     the rule), a kind, and the lifetime the rule compares;
//   * per pair of kinds: whether an earlier allocation of the first kind and
//     a later one of the second pay a penalty;
//   * the rule's pairs that are no penalty after all (`removed`: a hard
//     separation, or accesses that interleave), sorted.
//
// The rule's pairs: a != b in one group with end(a) < begin(b) (strictly)
// and ordered(kind a, kind b), unless removed; each weighs 1. Everything the
// recognizer finds outside the rule (allocations whose lifetimes touch,
// interleaved accesses) it lists explicitly as ordinary penalties, so the
// whole relation is the rule plus a list that stays small.
//
// Memory O(B + kinds² + removed); counting, degrees and listing the pairs
// (for small relations) cost O(B log B · kinds) plus what they output.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "pto_mem/core/lifetime.hpp"
#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

struct ImplicitPenalties {
  static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();

  std::vector<std::uint32_t> group;  ///< per allocation: its group, or none (in no rule pair)
  std::vector<std::uint32_t> kind;   ///< per allocation: index below `kinds`
  std::vector<Tick> begin, end;      ///< per allocation: the lifetime the rule compares
  std::uint32_t kinds = 0;
  /// kinds x kinds, row = the earlier allocation's kind: 1 when such a pair pays.
  std::vector<std::uint8_t> ordered;
  /// Rule pairs (a < b) that are no penalty; sorted, unique.
  std::vector<std::pair<std::size_t, std::size_t>> removed;

  [[nodiscard]] std::size_t size() const noexcept { return group.size(); }

  [[nodiscard]] bool pays(std::uint32_t earlier_kind, std::uint32_t later_kind) const noexcept {
    return ordered[static_cast<std::size_t>(earlier_kind) * kinds + later_kind] != 0;
  }

  /// Whether the rule pairs a and b (before `removed` is applied).
  [[nodiscard]] bool in_rule(std::size_t a, std::size_t b) const noexcept {
    if (a == b || group[a] == none || group[a] != group[b]) return false;
    if (end[a] < begin[b]) return pays(kind[a], kind[b]);
    if (end[b] < begin[a]) return pays(kind[b], kind[a]);
    return false;
  }

  [[nodiscard]] bool is_removed(std::size_t a, std::size_t b) const noexcept {
    return std::binary_search(removed.begin(), removed.end(), std::pair{std::min(a, b), std::max(a, b)});
  }

  /// Whether a and b pay a penalty through the rule.
  [[nodiscard]] bool contains(std::size_t a, std::size_t b) const noexcept {
    return in_rule(a, b) && !is_removed(a, b);
  }
};

namespace detail::implicit {

/// Per group and kind, the members' lifetime ends and begins, sorted: the
/// rule partners of one allocation among a kind are a prefix of the ends
/// (earlier ones) and a suffix of the begins (later ones).
struct KindTimes {
  std::vector<Tick> ends, begins;
};

/// The groups' kinds: times[group * kinds + kind].
inline std::vector<KindTimes> kind_times(const ImplicitPenalties& r, std::uint32_t groups) {
  std::vector<KindTimes> t(static_cast<std::size_t>(groups) * r.kinds);
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r.group[i] == ImplicitPenalties::none) continue;
    auto& k = t[static_cast<std::size_t>(r.group[i]) * r.kinds + r.kind[i]];
    k.ends.push_back(r.end[i]);
    k.begins.push_back(r.begin[i]);
  }
  for (auto& k : t) {
    std::sort(k.ends.begin(), k.ends.end());
    std::sort(k.begins.begin(), k.begins.end());
  }
  return t;
}

inline std::uint32_t group_count(const ImplicitPenalties& r) {
  std::uint32_t g = 0;
  for (std::uint32_t x : r.group)
    if (x != ImplicitPenalties::none) g = std::max(g, x + 1);
  return g;
}

}  // namespace detail::implicit

/// Each allocation's number of rule partners, `removed` not subtracted.
[[nodiscard]] inline std::vector<std::uint64_t> rule_degrees(const ImplicitPenalties& r) {
  const std::uint32_t groups = detail::implicit::group_count(r);
  const auto times = detail::implicit::kind_times(r, groups);
  std::vector<std::uint64_t> degree(r.size(), 0);
  for (std::size_t i = 0; i < r.size(); ++i) {
    if (r.group[i] == ImplicitPenalties::none) continue;
    const std::size_t base = static_cast<std::size_t>(r.group[i]) * r.kinds;
    for (std::uint32_t k = 0; k < r.kinds; ++k) {
      const auto& t = times[base + k];
      if (r.pays(k, r.kind[i]))  // earlier partners of kind k: end < begin(i)
        degree[i] += static_cast<std::uint64_t>(std::lower_bound(t.ends.begin(), t.ends.end(), r.begin[i]) -
                                                t.ends.begin());
      if (r.pays(r.kind[i], k))  // later partners: begin > end(i)
        degree[i] += static_cast<std::uint64_t>(t.begins.end() -
                                                std::upper_bound(t.begins.begin(), t.begins.end(), r.end[i]));
    }
  }
  return degree;
}

/// The number of penalty pairs the rule makes (`removed` subtracted).
[[nodiscard]] inline std::uint64_t implicit_pair_count(const ImplicitPenalties& r) {
  std::uint64_t twice = 0;
  for (std::uint64_t d : rule_degrees(r)) twice += d;
  std::uint64_t removed = 0;
  for (const auto& [a, b] : r.removed) removed += r.in_rule(a, b) ? 1 : 0;
  return twice / 2 - removed;
}

/// Every pair the rule makes, (a, b) with a < b, ascending. Costs what it
/// lists: only for relations known to be small (or tests).
[[nodiscard]] inline std::vector<std::pair<std::size_t, std::size_t>> implicit_pairs(
    const ImplicitPenalties& r) {
  const std::uint32_t groups = detail::implicit::group_count(r);
  // Per group, members by end; each allocation pairs with a prefix of them.
  std::vector<std::vector<std::pair<Tick, std::size_t>>> by_end(groups);
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r.group[i] != ImplicitPenalties::none) by_end[r.group[i]].push_back({r.end[i], i});
  for (auto& g : by_end) std::sort(g.begin(), g.end());
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t q = 0; q < r.size(); ++q) {
    if (r.group[q] == ImplicitPenalties::none) continue;
    for (const auto& [e, p] : by_end[r.group[q]]) {
      if (e >= r.begin[q]) break;
      if (p != q && r.pays(r.kind[p], r.kind[q]) && !r.is_removed(p, q))
        out.emplace_back(std::min(p, q), std::max(p, q));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace pto_mem
