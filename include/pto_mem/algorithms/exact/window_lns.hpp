// Large-neighbourhood search over time windows: lowers the peak of a
// placement of one part by searching again, exactly, the buffers of a time
// window around a buffer that reaches the peak, while every other buffer
// stays where it is.
//
// A window [ta, tb) frees every buffer whose lifetime meets it (over its
// whole lifetime, so nothing is cut); the others are *fixed*. The free
// buffers form a subproblem whose capacity is the target peak and in which
// each free buffer carries, as blocked byte ranges, the fixed buffers it
// conflicts with (lifetimes overlap, or a hard separation). The canonical
// search (search.hpp) is complete with blocked ranges, exactly as with
// reserved windows: in the gravity argument each buffer drops to the lowest
// aligned offset clear of its blocked ranges at or above the ends of its
// earlier partners, and its old offset is still a candidate. So a window
// search that finds a placement gives a valid placement of the whole part
// (the free buffers clear of each other, of the fixed ones and of the
// target); one that fails proves only that this window cannot do it with
// the rest fixed -- nothing about the part. Windows grow in time until they
// hold a given number of buffers.
//
// One round, `lower_to(target)`, takes the buffers that reach above the
// target in time order and solves a window around each in turn; every
// window it solves is kept (its buffers all end at or below the target now,
// so the peak never grows), and the round succeeds when no buffer reaches
// above the target any more. The other kind of round, `lower_band`,
// frees the buffers that end highest (the top band of the placement) and
// searches them again at once under the target.
//
// The part solver (part_solver.hpp) runs these rounds on a working copy of
// its incumbent: on parts too large for the complete search once the
// canonical dives are done, and on the others as every third tightening
// step. A round only ever offers placements; it proves nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/search.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

inline constexpr std::uint64_t searchable_pairs_lns = 400000;

class WindowLns {
 public:
  explicit WindowLns(const Subproblem& sp) : sp_(&sp), n_(static_cast<std::uint32_t>(sp.items.size())) {
    by_begin_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) by_begin_[i] = i;
    std::sort(by_begin_.begin(), by_begin_.end(), [&](std::uint32_t a, std::uint32_t b) {
      return life(a).begin != life(b).begin ? life(a).begin < life(b).begin : a < b;
    });
    for (std::uint32_t i = 0; i < n_; ++i) {
      begins_.push_back(life(i).begin);
      ends_.push_back(life(i).end);
      ticks_.push_back(life(i).begin);
      ticks_.push_back(life(i).end);
    }
    std::sort(begins_.begin(), begins_.end());
    std::sort(ends_.begin(), ends_.end());
    std::sort(ticks_.begin(), ticks_.end());
    ticks_.erase(std::unique(ticks_.begin(), ticks_.end()), ticks_.end());
    free_.assign(n_, 0);
  }

  /// Windows searched and solved so far.
  [[nodiscard]] std::uint64_t windows() const noexcept { return windows_; }
  [[nodiscard]] std::uint64_t solved() const noexcept { return solved_; }

  /// The top band: the `size` buffers of `off` that end highest (and every
  /// buffer ending as high as the last of them) are searched again at once,
  /// under `target`, the others fixed. True when that found a placement.
  bool lower_band(std::vector<Addr>& off, Addr target, const Limits& limits, std::size_t size,
                  std::uint64_t node_cap, std::string_view order) {
    std::vector<std::uint32_t> by_end(n_);
    for (std::uint32_t i = 0; i < n_; ++i) by_end[i] = i;
    auto end = [&](std::uint32_t i) { return off[i] + sp_->items[i].size; };
    std::sort(by_end.begin(), by_end.end(),
              [&](std::uint32_t a, std::uint32_t b) { return end(a) != end(b) ? end(a) > end(b) : a < b; });
    std::size_t k = std::min<std::size_t>(size, n_);
    while (k < n_ && end(by_end[k]) == end(by_end[k - 1])) ++k;
    std::vector<std::uint32_t> items(by_end.begin(), by_end.begin() + static_cast<std::ptrdiff_t>(k));
    std::sort(items.begin(), items.end());
    ++windows_;
    return solve(off, items, target, limits, node_cap, order);
  }

  /// One round (see the header): moves the buffers of `off` that end above
  /// `target` below it, window by window (about `size` buffers each, each
  /// searched under `node_cap` nodes in the static order `order`). Returns
  /// true when none ends above it any more; `off` keeps every solved window.
  bool lower_to(std::vector<Addr>& off, Addr target, const Limits& limits, std::size_t size,
                std::uint64_t node_cap, std::string_view order) {
    for (;;) {
      // The earliest buffer (by start, then index) still above the target.
      std::uint32_t top = UINT32_MAX;
      for (std::uint32_t i : by_begin_)
        if (off[i] + sp_->items[i].size > target) {
          top = i;
          break;
        }
      if (top == UINT32_MAX) return true;
      if (limits.exhausted()) return false;
      if (!solve_window(off, top, target, limits, size, node_cap, order)) return false;
    }
  }

 private:
  [[nodiscard]] const Interval& life(std::uint32_t i) const noexcept { return sp_->items[i].lifetime; }

  [[nodiscard]] std::size_t tick_index(Tick t) const noexcept {
    return static_cast<std::size_t>(std::lower_bound(ticks_.begin(), ticks_.end(), t) - ticks_.begin());
  }

  /// Buffers whose lifetimes meet [ta, tb).
  [[nodiscard]] std::size_t meeting(Tick ta, Tick tb) const noexcept {
    const auto started =
        static_cast<std::size_t>(std::lower_bound(begins_.begin(), begins_.end(), tb) - begins_.begin());
    const auto ended =
        static_cast<std::size_t>(std::upper_bound(ends_.begin(), ends_.end(), ta) - ends_.begin());
    return started - std::min(started, ended);
  }

  /// Grows [ta, tb) from buffer `top`'s lifetime, one tick each side in
  /// turn, until it meets `size` buffers or spans the part.
  [[nodiscard]] std::pair<Tick, Tick> grow(std::uint32_t top, std::size_t size) const {
    std::size_t lo = tick_index(life(top).begin), hi = tick_index(life(top).end);
    for (bool left = true; meeting(ticks_[lo], ticks_[hi]) < size && (lo > 0 || hi + 1 < ticks_.size());
         left = !left) {
      if (left && lo > 0)
        --lo;
      else if (hi + 1 < ticks_.size())
        ++hi;
      else
        --lo;
    }
    return {ticks_[lo], ticks_[hi]};
  }

  bool solve_window(std::vector<Addr>& off, std::uint32_t top, Addr target, const Limits& limits,
                    std::size_t size, std::uint64_t node_cap, std::string_view order) {
    ++windows_;
    const auto [ta, tb] = grow(top, size);
    // The free buffers, in index order.
    std::vector<std::uint32_t> items;
    for (std::uint32_t i : by_begin_) {
      if (life(i).begin >= tb) break;
      if (life(i).end > ta) items.push_back(i);
    }
    std::sort(items.begin(), items.end());
    return solve(off, items, target, limits, node_cap, order);
  }

 public:
  /// One penalty window (see the header): frees the buffers around the
  /// `pick`-th paid penalty pair of `off` (counted modulo the paid pairs, in
  /// index order) -- about `size` buffers, half around each end in time --
  /// and searches them again under `capacity` for a placement that pays less.
  /// Fixed penalty partners the window pays now stay where they are as
  /// *pinned* items (their one offset), so what the window pays them is
  /// counted; fixed partners it does not pay block their bytes (the window
  /// never starts paying them). The search's penalty budget is the window's
  /// cost less one, and each success lowers it again (at most `repeats`
  /// times). The placement outside the window is unchanged, so a success
  /// lowers the part's penalty by as much as the window's. Returns the
  /// weight saved (0: none, or no paid pair).
  Weight lower_penalty(std::vector<Addr>& off, Addr capacity, const Limits& limits, std::size_t size,
                       std::uint64_t node_cap, std::string_view order, std::uint64_t pick, int repeats = 4) {
    auto overlap = [&](std::uint32_t a, std::uint32_t b) {
      return off[a] < off[b] + sp_->items[b].size && off[b] < off[a] + sp_->items[a].size;
    };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> paid;
    for (std::uint32_t i = 0; i < n_; ++i)
      for (const auto& l : sp_->penalties[i])
        if (l.other > i && overlap(i, l.other)) paid.push_back({i, l.other});
    if (paid.empty()) return 0;
    const auto [pa, pb] = paid[pick % paid.size()];
    ++windows_;
    // Around each end e of the pair, a rectangle: e and the buffers live
    // with it that lie nearest to it in bytes (size / 2 - 1 of them) -- the
    // ones that must move for e to move.
    std::vector<std::uint32_t> items;
    std::vector<std::pair<Addr, std::uint32_t>> near_e;
    for (std::uint32_t e : {pa, pb}) {
      items.push_back(e);
      near_e.clear();
      const Addr eb = off[e], ee = off[e] + sp_->items[e].size;
      for (std::uint32_t i : by_begin_) {
        if (life(i).begin >= life(e).end) break;
        if (i == e || !interferes(life(i), life(e))) continue;
        const Addr ib = off[i], ie = off[i] + sp_->items[i].size;
        near_e.push_back({ie <= eb ? eb - ie : ib >= ee ? ib - ee : 0, i});
      }
      const std::size_t k = std::min(near_e.size(), size / 2 > 0 ? size / 2 - 1 : 0);
      std::partial_sort(near_e.begin(), near_e.begin() + static_cast<std::ptrdiff_t>(k), near_e.end());
      for (std::size_t q = 0; q < k; ++q) items.push_back(near_e[q].second);
    }
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    for (std::uint32_t i : items) free_[i] = 1;
    // Local indices: the free items first, then the pinned partners.
    std::vector<std::uint32_t> local(n_, UINT32_MAX), pinned;
    for (std::uint32_t k = 0; k < items.size(); ++k) local[items[k]] = k;
    for (std::uint32_t i : items)
      for (const auto& l : sp_->penalties[i])
        if (!free_[l.other] && local[l.other] == UINT32_MAX && overlap(i, l.other)) {
          local[l.other] = static_cast<std::uint32_t>(items.size() + pinned.size());
          pinned.push_back(l.other);
        }
    std::vector<std::uint32_t> all = items;
    all.insert(all.end(), pinned.begin(), pinned.end());
    const std::size_t m = all.size();
    Subproblem sub;
    sub.arena = sp_->arena;
    sub.space = sp_->space.with_capacity(capacity);
    for (std::uint32_t i : all) sub.items.push_back(sp_->items[i]);
    sub.separated.assign(m, {});
    sub.penalties.assign(m, {});
    sub.blocked.assign(m, {});
    Tick hull_lo = life(all.front()).begin, hull_hi = life(all.front()).end;
    for (std::uint32_t i : all) {
      hull_lo = std::min(hull_lo, life(i).begin);
      hull_hi = std::max(hull_hi, life(i).end);
    }
    // A pinned item has one offset: every other byte of the arena is blocked.
    for (std::size_t k = items.size(); k < m; ++k) {
      const std::uint32_t j = all[k];
      if (off[j] > 0) sub.blocked[k].push_back({0, off[j]});
      if (off[j] + sp_->items[j].size < capacity)
        sub.blocked[k].push_back({off[j] + sp_->items[j].size, capacity});
    }
    std::vector<std::uint32_t> near;  // fixed, not pinned, near in time
    for (std::uint32_t i : by_begin_) {
      if (life(i).begin >= hull_hi) break;
      if (life(i).end > hull_lo && local[i] == UINT32_MAX) near.push_back(i);
    }
    std::sort(near.begin(), near.end(),
              [&](std::uint32_t a, std::uint32_t b) { return off[a] != off[b] ? off[a] < off[b] : a < b; });
    Weight cost = 0;  // what the window pays now: among the free, and to the pinned
    for (std::uint32_t k = 0; k < items.size(); ++k) {
      const std::uint32_t i = items[k];
      auto& bl = sub.blocked[k];
      if (!sp_->blocked.empty()) bl = sp_->blocked[i];  // the part's own (fixed offsets)
      for (std::uint32_t j : near)
        if (interferes(life(i), life(j))) bl.push_back({off[j], off[j] + sp_->items[j].size});
      for (std::uint32_t j : sp_->separated[i]) {
        if (local[j] == UINT32_MAX)
          bl.push_back({off[j], off[j] + sp_->items[j].size});
        else if (!free_[j] || local[j] > k) {  // each pair once, both ways
          sub.separated[k].push_back(local[j]);
          sub.separated[local[j]].push_back(k);
        }
      }
      for (const auto& l : sp_->penalties[i]) {
        const std::uint32_t j = l.other;
        if (local[j] == UINT32_MAX)
          bl.push_back({off[j], off[j] + sp_->items[j].size});  // unpaid, fixed
        else if (!free_[j] || local[j] > k) {
          sub.penalties[k].push_back({local[j], l.weight});
          sub.penalties[local[j]].push_back({k, l.weight});
          if (overlap(i, j)) cost = saturating_add(cost, l.weight);
        }
      }
      std::sort(bl.begin(), bl.end());
      std::vector<AddrRange> merged;
      for (const auto& r : bl) {
        if (!merged.empty() && r.begin <= merged.back().end)
          merged.back().end = std::max(merged.back().end, r.end);
        else
          merged.push_back(r);
      }
      bl = std::move(merged);
    }
    for (std::uint32_t k = 0; k < m; ++k) {
      std::sort(sub.separated[k].begin(), sub.separated[k].end());
      std::sort(sub.penalties[k].begin(), sub.penalties[k].end(),
                [](const PenaltyLink& a, const PenaltyLink& b) { return a.other < b.other; });
    }
    for (std::uint32_t i : items) free_[i] = 0;
    if (cost == 0 || count_interfering_pairs(sub, searchable_pairs_lns) > searchable_pairs_lns) return 0;
    CanonicalSearch search(sub);
    Weight saved = 0;
    for (int r = 0; r < repeats && cost > 0 && !limits.exhausted(); ++r) {
      Budget budget(limits, node_cap);
      if (search.run(capacity, cost - 1, order, budget) != Outcome::found) break;
      for (std::uint32_t k = 0; k < items.size(); ++k) off[items[k]] = search.solution()[k];
      const Weight now = score(sub, search.solution()).penalty;
      saved += cost - now;
      cost = now;
      ++solved_;
    }
    return saved;
  }

  /// Searches `items` (sorted) again under `target`, the others fixed.
  bool solve(std::vector<Addr>& off, const std::vector<std::uint32_t>& items, Addr target,
             const Limits& limits, std::uint64_t node_cap, std::string_view order) {
    for (std::uint32_t i : items) free_[i] = 1;
    Subproblem sub;
    sub.arena = sp_->arena;
    sub.space = sp_->space.with_capacity(target);
    std::vector<std::uint32_t> local(n_, UINT32_MAX);
    for (std::uint32_t k = 0; k < items.size(); ++k) local[items[k]] = k;
    Tick hull_lo = life(items.front()).begin, hull_hi = life(items.front()).end;
    for (std::uint32_t i : items) {
      sub.items.push_back(sp_->items[i]);
      hull_lo = std::min(hull_lo, life(i).begin);
      hull_hi = std::max(hull_hi, life(i).end);
    }
    sub.separated.assign(items.size(), {});
    sub.penalties.assign(items.size(), {});
    sub.blocked.assign(items.size(), {});
    // Fixed buffers near the free ones in time: each one's bytes block the
    // free buffers it interferes with.
    std::vector<std::uint32_t> near;
    for (std::uint32_t i : by_begin_) {
      if (life(i).begin >= hull_hi) break;
      if (life(i).end > hull_lo && !free_[i]) near.push_back(i);
    }
    // In offset order, so that each free buffer's blocked ranges come out
    // sorted and merge as they come.
    std::sort(near.begin(), near.end(),
              [&](std::uint32_t a, std::uint32_t b) { return off[a] != off[b] ? off[a] < off[b] : a < b; });
    auto block = [](std::vector<AddrRange>& bl, AddrRange r) {
      if (!bl.empty() && r.begin <= bl.back().end)
        bl.back().end = std::max(bl.back().end, r.end);
      else
        bl.push_back(r);
    };
    for (std::uint32_t k = 0; k < items.size(); ++k) {
      const std::uint32_t i = items[k];
      auto& bl = sub.blocked[k];
      for (std::uint32_t j : near)
        if (interferes(life(i), life(j))) block(bl, {off[j], off[j] + sp_->items[j].size});
      bool extra = false;
      if (!sp_->blocked.empty() && !sp_->blocked[i].empty()) {  // the part's own (fixed offsets)
        bl.insert(bl.end(), sp_->blocked[i].begin(), sp_->blocked[i].end());
        extra = true;
      }
      for (std::uint32_t j : sp_->separated[i]) {
        if (free_[j])
          sub.separated[k].push_back(local[j]);
        else {
          bl.push_back({off[j], off[j] + sp_->items[j].size});
          extra = true;
        }
      }
      if (extra) {  // separation partners came out of order: sort and merge again
        std::sort(bl.begin(), bl.end());
        std::vector<AddrRange> merged;
        for (const auto& r : bl) block(merged, r);
        bl = std::move(merged);
      }
    }
    for (std::uint32_t i : items) free_[i] = 0;
    // A window too dense to search (its conflict lists grow with the pairs) is skipped.
    if (count_interfering_pairs(sub, searchable_pairs_lns) > searchable_pairs_lns) return false;
    CanonicalSearch search(sub);
    Budget budget(limits, node_cap);
    const Outcome o = search.run(target, max_addr, order, budget);
    if (o != Outcome::found) return false;
    for (std::uint32_t k = 0; k < items.size(); ++k) off[items[k]] = search.solution()[k];
    ++solved_;
    return true;
  }

  const Subproblem* sp_;
  std::uint32_t n_;
  std::vector<std::uint32_t> by_begin_;
  std::vector<Tick> begins_, ends_, ticks_;
  std::vector<std::uint8_t> free_;
  std::uint64_t windows_ = 0, solved_ = 0;
};

}  // namespace pto_mem::exact
