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
#include <string_view>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/preorder.hpp"
#include "pto_mem/algorithms/exact/sections.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

/// Range "raise to at least h" and range maximum over section floors, as a
/// bottom-up segment tree: tag_[x] is a raise that covered all of node x,
/// max_[x] the largest value known under x. A position's value is the
/// largest tag on its path, so a query takes the maxima of the canonical
/// nodes of [lo, hi) and the tags above the two boundary leaves (every
/// ancestor of a canonical node is one of those).
class FloorTree {
 public:
  explicit FloorTree(std::size_t n) {
    size_ = 1;
    while (size_ < std::max<std::size_t>(n, 1)) size_ <<= 1;
    max_.assign(2 * size_, 0);
    tag_.assign(2 * size_, 0);
  }
  void raise(std::size_t lo, std::size_t hi, Addr h) {
    if (lo >= hi) return;
    for (std::size_t a = lo + size_, b = hi + size_; a < b; a >>= 1, b >>= 1) {
      if (a & 1) {
        tag_[a] = std::max(tag_[a], h);
        max_[a] = std::max(max_[a], h);
        ++a;
      }
      if (b & 1) {
        --b;
        tag_[b] = std::max(tag_[b], h);
        max_[b] = std::max(max_[b], h);
      }
    }
    // Every ancestor of a boundary leaf holds a raised position. The two
    // paths meet at the leaves' lowest common ancestor; above it they are one.
    std::size_t x = (lo + size_) >> 1, y = (hi - 1 + size_) >> 1;
    for (; x != y; x >>= 1, y >>= 1) {
      max_[x] = std::max(max_[x], h);
      max_[y] = std::max(max_[y], h);
    }
    for (; x != 0; x >>= 1) max_[x] = std::max(max_[x], h);
  }
  [[nodiscard]] Addr max(std::size_t lo, std::size_t hi) const {
    if (lo >= hi) return 0;
    Addr r = 0;
    for (std::size_t a = lo + size_, b = hi + size_; a < b; a >>= 1, b >>= 1) {
      if (a & 1) r = std::max(r, max_[a++]);
      if (b & 1) r = std::max(r, max_[--b]);
    }
    std::size_t x = (lo + size_) >> 1, y = (hi - 1 + size_) >> 1;  // leaves at one depth: they meet
    for (; x != y; x >>= 1, y >>= 1) r = std::max(r, std::max(tag_[x], tag_[y]));
    for (; x != 0; x >>= 1) r = std::max(r, tag_[x]);
    return r;
  }

 private:
  std::size_t size_;
  std::vector<Addr> max_, tag_;
};

/// A binary min-heap of (key, rank) whose top can be replaced in place: a
/// stale top is re-keyed with one sift instead of a pop and a push.
class KeyHeap {
 public:
  using Key = std::pair<Addr, std::uint32_t>;
  explicit KeyHeap(std::vector<Key> keys) : h_(std::move(keys)) {
    for (std::size_t i = h_.size() / 2; i-- > 0;) sift_down(i);
  }
  [[nodiscard]] bool empty() const noexcept { return h_.empty(); }
  [[nodiscard]] const Key& top() const noexcept { return h_.front(); }
  void replace_top(Key k) {
    h_.front() = k;
    sift_down(0);
  }
  void pop() {
    h_.front() = h_.back();
    h_.pop_back();
    if (!h_.empty()) sift_down(0);
  }

 private:
  void sift_down(std::size_t i) {
    const Key k = h_[i];
    const std::size_t n = h_.size();
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && h_[c + 1] < h_[c]) ++c;
      if (!(h_[c] < k)) break;
      h_[i] = h_[c];
      i = c;
    }
    h_[i] = k;
  }
  std::vector<Key> h_;
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
  std::vector<std::uint32_t> by_rank(n);
  for (std::uint32_t i = 0; i < n; ++i) by_rank[rank[i]] = i;
  std::vector<KeyHeap::Key> init;  // (lowest offset, rank)
  init.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Addr m = lowest(i);
    if (m == max_addr) return std::nullopt;
    init.push_back({m, rank[i]});
  }
  KeyHeap heap(std::move(init));
  std::uint64_t pops = 0;
  while (!heap.empty()) {
    if ((++pops & 0x3FFu) == 0) {
      // A dive counts as one node per 1024 pops (the workers' clock, exact.hpp).
      if (limits.meter) limits.meter->count();
      if ((pops & 0xFFFFu) == 0 && limits.out_of_time()) return std::nullopt;
    }
    const auto [key, r] = heap.top();
    const std::uint32_t i = by_rank[r];
    const Addr m = lowest(i);  // keys only grow: a stale key is a lower bound
    if (m == max_addr) return std::nullopt;
    if (m != key) {
      heap.replace_top({m, r});
      continue;
    }
    heap.pop();
    off[i] = m;
    floors.raise(sec.first[i], sec.last[i], m + sp.items[i].size);
  }
  return score(sp, std::move(off));
}

}  // namespace pto_mem::exact
