// Interfering pairs (same arena, overlapping lifetimes) by a sweep over time:
// O(n log n + E) for E pairs, never all-pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <numeric>
#include <vector>

#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// Sorts buffer indices into sweep order: by arena, then lifetime start,
/// then problem position (deterministic).
inline void sort_by_arena_then_start(const Problem& p, std::vector<std::size_t>& order) {
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = p.buffers[a];
    const auto& y = p.buffers[b];
    if (x.arena != y.arena) return x.arena < y.arena;
    if (x.lifetime.begin != y.lifetime.begin) return x.lifetime.begin < y.lifetime.begin;
    return a < b;
  });
}

/// Calls f(i, j) once for every unordered pair of buffers (problem indices,
/// i != j) in the same arena whose lifetimes overlap. The pair is passed as
/// (earlier-starting, later-starting); order between calls is deterministic.
template <class F>
void for_each_interfering_pair(const Problem& p, F&& f) {
  std::vector<std::size_t> order(p.buffers.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  sort_by_arena_then_start(p, order);
  std::multimap<Tick, std::size_t> active;  // end -> buffer
  std::int64_t arena = 0;
  bool first = true;
  for (std::size_t i : order) {
    const auto& b = p.buffers[i];
    if (first || b.arena != arena) {
      active.clear();
      arena = b.arena;
      first = false;
    }
    active.erase(active.begin(), active.upper_bound(b.lifetime.begin));
    if (b.lifetime.end <= b.lifetime.begin) continue;  // malformed: interferes with nothing
    for (const auto& [end, j] : active) f(j, i);
    active.emplace(b.lifetime.end, i);
  }
}

/// The interfering pairs as a list (see for_each_interfering_pair).
[[nodiscard]] inline std::vector<std::pair<std::size_t, std::size_t>> interfering_pairs(const Problem& p) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for_each_interfering_pair(p, [&](std::size_t a, std::size_t b) { out.emplace_back(a, b); });
  return out;
}

}  // namespace pto_mem
