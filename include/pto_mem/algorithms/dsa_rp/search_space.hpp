// The DSA-RP search space over the generic Problem: dense
// node numbers (= positions in problem.buffers), explicit separation partners,
// aggregated soft weights and incident weights. Interference (the implicit
// hard edges) is never materialised: it follows from lifetimes, and the
// occupancy tree answers it per time window. Unit soft pairs given as a rule
// (ImplicitPenalties) are not listed either: the search space keeps the
// rule, the few rule pairs it must not count, and each node's degree.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/implicit_penalties.hpp"
#include "pto_mem/core/numeric.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem::dsa {

struct SoftEdge {
  std::uint32_t node = 0;
  Weight weight = 0;
};

/// Compressed-sparse-row adjacency: the neighbours of node i are
/// items[start[i] .. start[i + 1]).
template <class T>
struct Adjacency {
  std::vector<std::size_t> start;
  std::vector<T> items;
  [[nodiscard]] std::pair<const T*, const T*> of(std::size_t i) const {
    return {items.data() + start[i], items.data() + start[i + 1]};
  }
  [[nodiscard]] std::size_t degree(std::size_t i) const { return start[i + 1] - start[i]; }
};

struct SearchSpace {
  std::size_t n = 0;
  // Per node (problem order).
  std::vector<std::uint32_t> arena;  ///< index into problem.arenas
  std::vector<Addr> size, alignment;
  std::vector<Tick> begin, end;
  std::vector<std::uint32_t> rank;     ///< id order, for tie-breaks (id_ranks)
  Adjacency<std::uint32_t> separated;  ///< explicit separation partners, deduplicated, ascending
  Adjacency<SoftEdge> soft;            ///< aggregated explicit soft weights, ascending partner
  /// Unit soft pairs kept as a rule, or null. A rule pair (a, b) is a soft
  /// edge of weight 1 unless b is in implicit_removed.of(a); it is never
  /// also in `soft` (an explicit penalty on a rule pair absorbs its weight).
  const ImplicitPenalties* implicit = nullptr;
  Adjacency<std::uint32_t> implicit_removed;  ///< per node: rule partners that are no edge here, ascending
  std::vector<Weight> incident;               ///< saturating sum of a node's soft weights, both kinds
  bool has_soft = false;
  // Per arena (problem.arenas order).
  std::vector<Addr> capacity;
  std::vector<std::vector<AddrRange>> reserved;  ///< as given (their ends are candidates)
};

/// Whether a and b are a soft edge through the rule.
[[nodiscard]] inline bool implicit_soft(const SearchSpace& s, std::uint32_t a, std::uint32_t b) {
  if (!s.implicit || !s.implicit->in_rule(a, b)) return false;
  auto [first, last] = s.implicit_removed.of(a);
  return !std::binary_search(first, last, b);
}

/// True when two nodes may never share bytes: same arena and co-live, or
/// explicitly separated.
[[nodiscard]] inline bool hard_adjacent(const SearchSpace& s, std::uint32_t i, std::uint32_t j) {
  if (s.arena[i] == s.arena[j] && s.begin[i] < s.end[j] && s.begin[j] < s.end[i]) return true;
  auto [b, e] = s.separated.of(i);
  return std::binary_search(b, e, j);
}

namespace detail {

/// CSR adjacency from (node, partner) pairs, sorted and unique.
inline Adjacency<std::uint32_t> adjacency(std::size_t n,
                                          std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs) {
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  Adjacency<std::uint32_t> adj;
  adj.start.assign(n + 1, 0);
  for (const auto& [a, b] : pairs) ++adj.start[a + 1];
  for (std::size_t i = 0; i < n; ++i) adj.start[i + 1] += adj.start[i];
  adj.items.reserve(pairs.size());
  for (const auto& [a, b] : pairs) adj.items.push_back(b);
  return adj;
}

/// Whether every pair the rule could make lies in one arena of the search
/// space and is lifetime-disjoint there, so that the rule never prices a
/// pair the problem keeps apart by lifetime: per group, every member that
/// ends (by the rule's lifetimes) before another begins also ends there in
/// the problem's.
inline bool rule_fits(const SearchSpace& s, const ImplicitPenalties& r) {
  if (r.size() != s.n || r.ordered.size() != static_cast<std::size_t>(r.kinds) * r.kinds) return false;
  std::vector<std::vector<std::uint32_t>> groups;
  for (std::uint32_t i = 0; i < s.n; ++i) {
    if (r.group[i] == ImplicitPenalties::none) continue;
    if (r.kind[i] >= r.kinds) return false;
    if (r.group[i] >= groups.size()) groups.resize(static_cast<std::size_t>(r.group[i]) + 1);
    groups[r.group[i]].push_back(i);
  }
  for (auto& g : groups) {
    if (g.empty()) continue;
    for (std::uint32_t i : g)
      if (s.arena[i] != s.arena[g.front()]) return false;
    std::sort(g.begin(), g.end(), [&](std::uint32_t a, std::uint32_t b) { return r.end[a] < r.end[b]; });
    std::vector<Tick> ends(g.size()), latest(g.size());  // rule ends; prefix maximum of problem ends
    for (std::size_t k = 0; k < g.size(); ++k) {
      ends[k] = r.end[g[k]];
      latest[k] = k == 0 ? s.end[g[k]] : std::max(latest[k - 1], s.end[g[k]]);
    }
    for (std::uint32_t q : g) {
      const auto before = std::lower_bound(ends.begin(), ends.end(), r.begin[q]) - ends.begin();
      if (before > 0 && latest[static_cast<std::size_t>(before - 1)] > s.begin[q]) return false;
    }
  }
  return true;
}

}  // namespace detail

/// Builds the search space. Precondition: validate(p) reported nothing, so
/// every buffer id is in range and every pair lies in one arena. `implicit`, when
/// given, adds unit soft pairs by rule over the same buffer positions; it
/// must outlive the search space. A rule whose pairs the search space
/// cannot take as they are (a pair across arenas or co-live in the
/// problem's lifetimes) is listed pair by pair instead, which is slow but
/// never wrong.
[[nodiscard]] inline SearchSpace build_search_space(const Problem& p,
                                                    const ImplicitPenalties* implicit = nullptr) {
  const ProblemIndex index(p);
  SearchSpace s;
  s.n = p.buffers.size();
  s.arena.resize(s.n);
  s.size.resize(s.n);
  s.alignment.resize(s.n);
  s.begin.resize(s.n);
  s.end.resize(s.n);
  for (std::size_t i = 0; i < s.n; ++i) {
    const auto& b = p.buffers[i];
    s.arena[i] = static_cast<std::uint32_t>(*index.arena(b.arena));
    s.size[i] = b.size;
    s.alignment[i] = b.alignment;
    s.begin[i] = b.lifetime.begin;
    s.end[i] = b.lifetime.end;
  }
  s.rank = id_ranks(p);
  for (const auto& a : p.arenas) {
    s.capacity.push_back(a.capacity);
    s.reserved.push_back(a.reserved);
  }

  auto node = [](BufferId id) { return static_cast<std::uint32_t>(id); };

  // Explicit separations: both directions, duplicates collapse.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> seps;
  for (const auto& sep : p.separations) {
    const auto a = node(sep.a), b = node(sep.b);
    if (a == b) continue;
    seps.emplace_back(a, b);
    seps.emplace_back(b, a);
  }
  s.separated = detail::adjacency(s.n, seps);

  // Soft weights per canonical node pair; zero weights and hard pairs are
  // dropped before aggregation. A sort, not a map: this list can be long.
  struct Pair {
    std::uint32_t a, b;
    Weight w;
  };
  std::vector<Pair> pairs;
  pairs.reserve(p.penalties.size());
  for (const auto& pen : p.penalties) {
    if (pen.weight == 0) continue;
    const auto a = node(pen.a), b = node(pen.b);
    if (a == b || hard_adjacent(s, a, b)) continue;
    pairs.push_back({std::min(a, b), std::max(a, b), pen.weight});
  }
  if (implicit && !detail::rule_fits(s, *implicit)) {  // list the rule's pairs instead
    for (const auto& [a, b] : implicit_pairs(*implicit)) {
      const auto x = static_cast<std::uint32_t>(a), y = static_cast<std::uint32_t>(b);
      if (s.arena[x] == s.arena[y] && !hard_adjacent(s, x, y))
        pairs.push_back({x, y, 1});  // across arenas: free
    }
    implicit = nullptr;
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const Pair& x, const Pair& y) { return std::pair(x.a, x.b) < std::pair(y.a, y.b); });
  std::size_t kept = 0;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    if (kept > 0 && pairs[kept - 1].a == pairs[k].a && pairs[kept - 1].b == pairs[k].b)
      pairs[kept - 1].w = saturating_add(pairs[kept - 1].w, pairs[k].w);
    else
      pairs[kept++] = pairs[k];
  }
  pairs.resize(kept);

  // The rule: pairs it must not count are its own removed pairs, separated
  // pairs, and pairs an explicit penalty names (that edge takes the rule's
  // unit weight, so the pair counts once).
  std::vector<std::uint64_t> rule_degree;
  if (implicit) {
    s.implicit = implicit;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> removed;
    auto remove = [&](std::uint32_t a, std::uint32_t b) {
      removed.emplace_back(a, b);
      removed.emplace_back(b, a);
    };
    for (const auto& [a, b] : implicit->removed)
      if (a < s.n && b < s.n && implicit->in_rule(a, b))
        remove(static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b));
    for (const auto& [a, b] : seps)
      if (a < b && implicit->in_rule(a, b)) remove(a, b);
    std::sort(removed.begin(), removed.end());
    removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
    const std::size_t ruled_out = removed.size();
    for (auto& e : pairs)
      if (implicit->in_rule(e.a, e.b) &&
          !std::binary_search(removed.begin(), removed.begin() + static_cast<std::ptrdiff_t>(ruled_out),
                              std::pair{e.a, e.b})) {
        e.w = saturating_add(e.w, 1);
        remove(e.a, e.b);
      }
    s.implicit_removed = detail::adjacency(s.n, std::move(removed));
    rule_degree = rule_degrees(*implicit);
  }

  s.soft.start.assign(s.n + 1, 0);
  for (const auto& e : pairs) {
    ++s.soft.start[e.a + 1];
    ++s.soft.start[e.b + 1];
  }
  for (std::size_t i = 0; i < s.n; ++i) s.soft.start[i + 1] += s.soft.start[i];
  s.soft.items.resize(s.soft.start[s.n]);
  std::vector<std::size_t> fill(s.soft.start.begin(), s.soft.start.end() - 1);
  s.incident.assign(s.n, 0);
  for (const auto& e : pairs) {
    s.soft.items[fill[e.a]++] = {e.b, e.w};
    s.soft.items[fill[e.b]++] = {e.a, e.w};
    s.incident[e.a] = saturating_add(s.incident[e.a], e.w);
    s.incident[e.b] = saturating_add(s.incident[e.b], e.w);
  }
  s.has_soft = !pairs.empty();
  if (implicit)
    for (std::size_t i = 0; i < s.n; ++i) {
      const std::uint64_t edges = rule_degree[i] - s.implicit_removed.degree(i);
      s.incident[i] = saturating_add(s.incident[i], edges);
      if (edges > 0) s.has_soft = true;
    }
  // Walking pairs in ascending order leaves each list ascending by partner.
  return s;
}

}  // namespace pto_mem::dsa
