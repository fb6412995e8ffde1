// The DSA-RP search space over the generic Problem: dense
// node numbers (= positions in problem.buffers), explicit separation partners,
// aggregated soft weights and incident weights. Interference (the implicit
// hard edges) is never materialised: it follows from lifetimes, and the
// occupancy tree answers it per time window.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

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
  std::vector<std::uint32_t> rank;   ///< id order, for tie-breaks (id_ranks)
  Adjacency<std::uint32_t> separated;  ///< explicit separation partners, deduplicated, ascending
  Adjacency<SoftEdge> soft;            ///< aggregated soft weights, ascending partner
  std::vector<Weight> incident;        ///< saturating sum of a node's soft weights
  bool has_soft = false;
  // Per arena (problem.arenas order).
  std::vector<Addr> capacity;
  std::vector<std::vector<AddrRange>> reserved;  ///< as given (their ends are candidates)
};

/// True when two nodes may never share bytes: same arena and co-live, or
/// explicitly separated.
[[nodiscard]] inline bool hard_adjacent(const SearchSpace& s, std::uint32_t i, std::uint32_t j) {
  if (s.arena[i] == s.arena[j] && s.begin[i] < s.end[j] && s.begin[j] < s.end[i]) return true;
  auto [b, e] = s.separated.of(i);
  return std::binary_search(b, e, j);
}

/// Builds the search space. Precondition: validate(p) reported nothing, so
/// every name resolves and every pair lies in one arena.
[[nodiscard]] inline SearchSpace build_search_space(const Problem& p) {
  const ProblemIndex index(p, names_buffers(p));  // ids: only the constraints' names
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

  auto node = [&](const std::string& id) { return static_cast<std::uint32_t>(*index.buffer(id)); };

  // Explicit separations: both directions, duplicates collapse.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> seps;
  for (const auto& sep : p.separations) {
    const auto a = node(sep.a), b = node(sep.b);
    if (a == b) continue;
    seps.emplace_back(a, b);
    seps.emplace_back(b, a);
  }
  std::sort(seps.begin(), seps.end());
  seps.erase(std::unique(seps.begin(), seps.end()), seps.end());
  s.separated.start.assign(s.n + 1, 0);
  for (const auto& [a, b] : seps) ++s.separated.start[a + 1];
  for (std::size_t i = 0; i < s.n; ++i) s.separated.start[i + 1] += s.separated.start[i];
  s.separated.items.reserve(seps.size());
  for (const auto& [a, b] : seps) s.separated.items.push_back(b);

  // Soft weights per canonical node pair; zero weights and hard pairs are
  // dropped before aggregation.
  std::map<std::pair<std::uint32_t, std::uint32_t>, Weight> pairs;
  for (const auto& pen : p.penalties) {
    if (pen.weight == 0) continue;
    const auto a = node(pen.a), b = node(pen.b);
    if (a == b || hard_adjacent(s, a, b)) continue;
    auto& w = pairs[{std::min(a, b), std::max(a, b)}];
    w = saturating_add(w, pen.weight);
  }
  s.has_soft = !pairs.empty();
  s.soft.start.assign(s.n + 1, 0);
  for (const auto& [ab, w] : pairs) {
    ++s.soft.start[ab.first + 1];
    ++s.soft.start[ab.second + 1];
  }
  for (std::size_t i = 0; i < s.n; ++i) s.soft.start[i + 1] += s.soft.start[i];
  s.soft.items.resize(s.soft.start[s.n]);
  std::vector<std::size_t> fill(s.soft.start.begin(), s.soft.start.end() - 1);
  s.incident.assign(s.n, 0);
  for (const auto& [ab, w] : pairs) {
    s.soft.items[fill[ab.first]++] = {ab.second, w};
    s.soft.items[fill[ab.second]++] = {ab.first, w};
    s.incident[ab.first] = saturating_add(s.incident[ab.first], w);
    s.incident[ab.second] = saturating_add(s.incident[ab.second], w);
  }
  // Walking pairs in ascending order leaves each list ascending by partner.
  return s;
}

}  // namespace pto_mem::dsa
