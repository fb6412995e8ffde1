// The canonical dive: the first path of the exact search without a capacity
// -- repeatedly place the unplaced buffer that can sit lowest (ties by a
// static order) at that lowest offset. Without backtracking it is a
// heuristic ("lowest offset first", a best-fit skyline), but it scales: the
// section floors live in a segment tree and the buffers in a heap whose keys
// only grow, so a dive costs O((n + stale pops) log n) with no conflict lists.
// The exact search uses it for parts too large to search, and as an
// incumbent.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <queue>
#include <string_view>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/preorder.hpp"
#include "pto_mem/algorithms/exact/sections.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

/// Range "raise to at least h" and range maximum over section floors.
class FloorTree {
 public:
  explicit FloorTree(std::size_t n) : n_(std::max<std::size_t>(n, 1)) {
    size_ = 1;
    while (size_ < n_) size_ <<= 1;
    max_.assign(2 * size_, 0);
    lazy_.assign(2 * size_, 0);
  }
  void raise(std::size_t lo, std::size_t hi, Addr h) { raise(1, 0, size_, lo, hi, h); }
  [[nodiscard]] Addr max(std::size_t lo, std::size_t hi) const { return query(1, 0, size_, lo, hi); }

 private:
  void raise(std::size_t node, std::size_t l, std::size_t r, std::size_t lo, std::size_t hi, Addr h) {
    if (hi <= l || r <= lo) return;
    if (lo <= l && r <= hi) {
      max_[node] = std::max(max_[node], h);
      lazy_[node] = std::max(lazy_[node], h);
      return;
    }
    const std::size_t mid = (l + r) / 2;
    raise(2 * node, l, mid, lo, hi, h);
    raise(2 * node + 1, mid, r, lo, hi, h);
    max_[node] = std::max({max_[node], max_[2 * node], max_[2 * node + 1]});
  }
  [[nodiscard]] Addr query(std::size_t node, std::size_t l, std::size_t r, std::size_t lo, std::size_t hi) const {
    if (hi <= l || r <= lo) return 0;
    if (lo <= l && r <= hi) return max_[node];
    const std::size_t mid = (l + r) / 2;
    // A raise that covered this whole node applies to every part of it.
    return std::max({lazy_[node], query(2 * node, l, mid, lo, hi), query(2 * node + 1, mid, r, lo, hi)});
  }
  std::size_t n_, size_;
  std::vector<Addr> max_, lazy_;
};

/// A whole-part placement by one canonical dive, ties broken by `rank`.
/// Penalties are ignored while placing and counted in the result. nullopt
/// when some buffer does not fit under the part's capacity, or when the
/// limits (time, stop) end the dive first.
[[nodiscard]] inline std::optional<PartPlacement> skyline_dive(const Subproblem& sp, const Sections& sec,
                                                               const std::vector<std::uint32_t>& rank,
                                                               const Limits& limits) {
  const auto n = static_cast<std::uint32_t>(sp.items.size());
  FloorTree floors(sec.count);
  std::vector<Addr> off(n, max_addr);
  auto lowest = [&](std::uint32_t i) -> Addr {
    Addr h = floors.max(sec.first[i], sec.last[i]);
    for (std::uint32_t j : sp.separated[i])
      if (off[j] != max_addr) h = std::max(h, off[j] + sp.items[j].size);
    return sp.space.lowest_fit(h, sp.items[i].size, sp.items[i].alignment).value_or(max_addr);
  };
  using Key = std::pair<Addr, std::uint32_t>;  // (lowest offset, rank)
  std::priority_queue<Key, std::vector<Key>, std::greater<>> heap;
  std::vector<std::uint32_t> by_rank(n);
  for (std::uint32_t i = 0; i < n; ++i) by_rank[rank[i]] = i;
  std::vector<Key> init;
  init.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Addr m = lowest(i);
    if (m == max_addr) return std::nullopt;
    init.push_back({m, rank[i]});
  }
  heap = std::priority_queue<Key, std::vector<Key>, std::greater<>>(std::greater<>(), std::move(init));
  std::uint64_t pops = 0;
  while (!heap.empty()) {
    if ((++pops & 0xFFFFu) == 0 && limits.out_of_time()) return std::nullopt;
    const auto [key, r] = heap.top();
    heap.pop();
    const std::uint32_t i = by_rank[r];
    const Addr m = lowest(i);  // keys only grow: a stale key is a lower bound
    if (m == max_addr) return std::nullopt;
    if (m != key) {
      heap.push({m, r});
      continue;
    }
    off[i] = m;
    floors.raise(sec.first[i], sec.last[i], m + sp.items[i].size);
  }
  return score(sp, std::move(off));
}

}  // namespace pto_mem::exact
