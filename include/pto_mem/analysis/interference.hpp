// Interfering pairs (same arena, overlapping lifetimes) by a sweep over time:
// O(n log n + E) for E pairs, never all-pairs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <numeric>
#include <tuple>
#include <vector>

#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// Sorts buffer indices into sweep order: by arena, then lifetime start,
/// then problem position (deterministic).
inline void sort_by_arena_then_start(const Problem& p, std::vector<std::size_t>& order) {
  // Sorts copied keys: a comparator that reads two BufferSpecs per call
  // misses the cache on large problems. Same order (total).
  using Key = std::tuple<std::int64_t, Tick, std::size_t>;
  std::vector<Key> keys;
  keys.reserve(order.size());
  for (std::size_t i : order) keys.emplace_back(p.buffers[i].arena, p.buffers[i].lifetime.begin, i);
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 0; k < keys.size(); ++k) order[k] = std::get<2>(keys[k]);
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
