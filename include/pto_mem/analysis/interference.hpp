// Interfering pairs (same arena, overlapping lifetimes) by a sweep over time
// (analysis/lifetime_sweep.hpp): O(n log n + E) for E pairs, never all-pairs.
#pragma once

#include <cstddef>
#include <numeric>
#include <utility>
#include <vector>

#include "pto_mem/analysis/lifetime_sweep.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// Calls f(i, j) once for every unordered pair of buffers (problem indices,
/// i != j) in the same arena whose lifetimes overlap. The pair is passed as
/// (earlier-starting, later-starting); order between calls is deterministic.
template <class F>
void for_each_interfering_pair(const Problem& p, F&& f) {
  std::vector<std::size_t> order(p.buffers.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  sort_by_arena_then_start(p, order);
  LiveSweep<std::size_t> sweep;
  std::vector<std::size_t> live;                       // the live buffers, in no particular order
  std::vector<std::size_t> slot(p.buffers.size(), 0);  // each live buffer's position in `live`
  auto leave = [&](std::size_t j) {
    live[slot[j]] = live.back();
    slot[live.back()] = slot[j];
    live.pop_back();
  };
  std::int64_t arena = 0;
  bool first = true;
  for (std::size_t i : order) {
    const auto& b = p.buffers[i];
    if (first || b.arena != arena) {
      sweep.clear();
      live.clear();
      arena = b.arena;
      first = false;
    }
    sweep.leave_until(b.lifetime.begin, leave);
    if (b.lifetime.end <= b.lifetime.begin) continue;  // malformed: interferes with nothing
    for (std::size_t j : live) f(j, i);
    slot[i] = live.size();
    live.push_back(i);
    sweep.enter(b.lifetime.end, i);
  }
}

/// The interfering pairs as a list (see for_each_interfering_pair).
[[nodiscard]] inline std::vector<std::pair<std::size_t, std::size_t>> interfering_pairs(const Problem& p) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for_each_interfering_pair(p, [&](std::size_t a, std::size_t b) { out.emplace_back(a, b); });
  return out;
}

}  // namespace pto_mem
