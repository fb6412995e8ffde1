// What the fast (non-compat) canonical greedy adds after PyPTO's orders:
// one more fixed order and a deterministic peak-driven walk over orders.
// Each extra pass can only replace the incumbent when it is strictly better,
// so the fast mode is never worse than the compat mode.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/orders.hpp"
#include "pto_mem/algorithms/dsa_rp/search_space.hpp"

namespace pto_mem::dsa {

/// Contention order: buffers that share their lifetime with the most bytes
/// first (then larger, then id). Contention counts every buffer of the same
/// arena whose lifetime overlaps, itself included, by prefix sums over the
/// sorted births and deaths: O(n log n), no pairs listed.
[[nodiscard]] inline Order contention_order(const SearchSpace& s) {
  struct End {
    Tick tick;
    Addr size;
    std::uint32_t node;
  };
  const std::size_t arenas = s.capacity.size();
  std::vector<std::vector<End>> births(arenas), deaths(arenas);
  for (std::uint32_t i = 0; i < s.n; ++i) {
    births[s.arena[i]].push_back({s.begin[i], s.size[i], i});
    deaths[s.arena[i]].push_back({s.end[i], s.size[i], i});
  }
  // Overlapping i = born before i ends, minus those dead by the time i
  // starts. Both sums come from one merge of the birth and death lists
  // (each sorted by tick; ties in any order give the same sums).
  std::vector<Addr> born_before_end(s.n), dead_by_begin(s.n);  // saturating sums
  auto by_tick = [](const End& x, const End& y) { return x.tick < y.tick; };
  for (std::size_t a = 0; a < arenas; ++a) {
    auto &b = births[a], &d = deaths[a];
    std::sort(b.begin(), b.end(), by_tick);
    std::sort(d.begin(), d.end(), by_tick);
    Addr sum = 0;
    std::size_t k = 0;
    for (const End& e : d) {  // deaths by tick: births strictly before each end
      for (; k < b.size() && b[k].tick < e.tick; ++k) sum = saturating_add(sum, b[k].size);
      born_before_end[e.node] = sum;
    }
    sum = 0;
    k = 0;
    for (const End& e : b) {  // births by tick: deaths at or before each begin
      for (; k < d.size() && d[k].tick <= e.tick; ++k) sum = saturating_add(sum, d[k].size);
      dead_by_begin[e.node] = sum;
    }
  }
  std::vector<Addr> contention(s.n);
  for (std::size_t i = 0; i < s.n; ++i) {
    const Addr in = born_before_end[i], out = dead_by_begin[i];
    contention[i] =
        in > out ? in - out : 0;  // saturated sums may not subtract exactly; the order stays total
  }
  return detail::sorted_nodes(s, [&](std::uint32_t i) {
    return std::tuple{detail::descending(contention[i]), detail::descending(s.size[i]), s.rank[i]};
  });
}

/// One step of the peak-driven walk: the buffers whose top reaches their
/// arena's peak move to the front (keeping their relative order), the rest
/// follow in order. Placed first, the buffers that set the peak get the
/// lowest room, and the others fill around them.
[[nodiscard]] inline Order peak_first(const SearchSpace& s, const Order& order,
                                      const std::vector<Addr>& offset) {
  std::vector<Addr> peak(s.capacity.size(), 0);
  for (std::size_t i = 0; i < s.n; ++i) peak[s.arena[i]] = std::max(peak[s.arena[i]], offset[i] + s.size[i]);
  Order next;
  next.reserve(order.size());
  for (std::uint32_t i : order)
    if (offset[i] + s.size[i] == peak[s.arena[i]]) next.push_back(i);
  for (std::uint32_t i : order)
    if (offset[i] + s.size[i] != peak[s.arena[i]]) next.push_back(i);
  return next;
}

/// Workers for the fixed passes (threads == 0: one per hardware thread).
[[nodiscard]] inline std::size_t pass_workers(unsigned threads, bool small_problem, std::size_t passes) {
  if (small_problem) return 1;
  const std::size_t wanted = threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : threads;
  return std::min(wanted, passes);
}

/// A 64-bit fingerprint of an order (the FNV-1a half of order_key), to
/// notice when the walk comes back to an order it has already placed. A
/// collision would only end the walk early; it cannot change a placement.
[[nodiscard]] inline std::uint64_t fingerprint(const Order& order) { return order_key(order).first; }

/// How many walk steps the fast mode takes: up to 64, fewer on large
/// problems so that the whole solve stays within a few passes' time there
/// (a step is one pass). Depends only on the problem size: deterministic.
[[nodiscard]] inline std::size_t walk_steps(std::size_t buffers) {
  constexpr std::size_t placements = 100000;  // buffer placements the walk may spend
  return std::min<std::size_t>(64, placements / std::max<std::size_t>(buffers, 1));
}

}  // namespace pto_mem::dsa
