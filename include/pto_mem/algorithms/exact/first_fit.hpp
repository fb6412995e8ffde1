// A small first-fit incumbent for one subproblem: each buffer, in a few
// classic orders, at the lowest canonical offset clear of the placed buffers
// it conflicts with. It seeds the exact search when no better incumbent (the
// DSA-RP canonical greedy, via the portfolio) is supplied; it is not meant to
// compete with that greedy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <vector>

#include "pto_mem/algorithms/exact/free_space.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

/// Offsets per item plus what they cost.
struct PartPlacement {
  std::vector<Addr> offsets;
  Addr peak = 0;       ///< highest end, at least the highest reserved end
  Weight penalty = 0;  ///< weight of the penalty pairs overlapping in bytes
  [[nodiscard]] bool better_than(const PartPlacement& o) const noexcept {
    return penalty != o.penalty ? penalty < o.penalty : peak < o.peak;
  }
};

/// Peak and penalty of a complete placement of `sp` (no validity check).
[[nodiscard]] inline PartPlacement score(const Subproblem& sp, std::vector<Addr> offsets) {
  PartPlacement p;
  for (const auto& w : sp.space.windows()) p.peak = std::max(p.peak, w.end);
  for (std::size_t i = 0; i < sp.items.size(); ++i) p.peak = std::max(p.peak, offsets[i] + sp.items[i].size);
  for (std::size_t i = 0; i < sp.items.size(); ++i)
    for (const auto& l : sp.penalties[i])
      if (l.other > i && offsets[i] < offsets[l.other] + sp.items[l.other].size &&
          offsets[l.other] < offsets[i] + sp.items[i].size)
        p.penalty = saturating_add(p.penalty, l.weight);
  p.offsets = std::move(offsets);
  return p;
}

/// True when `offsets` is a valid placement of `sp` under `space` (capacity,
/// windows, alignment, no overlap of conflicting items). O(n log n + pairs).
[[nodiscard]] inline bool fits(const Subproblem& sp, const std::vector<Addr>& offsets,
                               const FreeSpace& space) {
  const std::size_t n = sp.items.size();
  if (offsets.size() != n) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& it = sp.items[i];
    if (offsets[i] % it.alignment != 0) return false;
    const auto end = checked_add(offsets[i], it.size);
    if (!end || *end > space.capacity()) return false;
    for (const auto& w : space.windows())
      if (overlaps(AddrRange{offsets[i], *end}, w)) return false;
    if (!sp.blocked.empty())
      for (const auto& r : sp.blocked[i])
        if (overlaps(AddrRange{offsets[i], *end}, r)) return false;
    for (std::uint32_t j : sp.separated[i])
      if (overlaps(AddrRange{offsets[i], *end}, AddrRange{offsets[j], offsets[j] + sp.items[j].size}))
        return false;
  }
  // Interference: sweep by start time. The live buffers are pairwise
  // disjoint (else we stopped), so kept in a set ordered by offset, a new
  // buffer overlaps one of them iff it overlaps a neighbour. O(n log n).
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return sp.items[a].lifetime.begin < sp.items[b].lifetime.begin ||
           (sp.items[a].lifetime.begin == sp.items[b].lifetime.begin && a < b);
  });
  std::set<std::pair<Addr, std::uint32_t>> live;  // (offset, item)
  std::multimap<Tick, std::uint32_t> ends;        // end -> item
  for (std::uint32_t i : order) {
    for (auto e = ends.begin(); e != ends.end() && e->first <= sp.items[i].lifetime.begin; e = ends.erase(e))
      live.erase({offsets[e->second], e->second});
    const auto pos = live.lower_bound({offsets[i], 0});
    if (pos != live.end() && pos->first < offsets[i] + sp.items[i].size) return false;
    if (pos != live.begin()) {
      const auto prev = std::prev(pos);
      if (prev->first + sp.items[prev->second].size > offsets[i]) return false;
    }
    live.emplace(offsets[i], i);
    ends.emplace(sp.items[i].lifetime.end, i);
  }
  return true;
}

namespace detail {

/// First fit in `order`: lowest offset clear of windows and of the placed
/// buffers that interfere with (or are separated from) each buffer. The
/// placed interfering buffers are found by a time index over the placed ones.
inline std::optional<std::vector<Addr>> first_fit(const Subproblem& sp,
                                                  const std::vector<std::uint32_t>& order,
                                                  const FreeSpace& space, bool avoid_penalties) {
  const std::size_t n = sp.items.size();
  std::vector<Addr> off(n, max_addr);
  std::vector<std::uint32_t> placed;  // in placement order
  std::vector<AddrRange> busy;
  for (std::uint32_t i : order) {
    const auto& it = sp.items[i];
    busy.clear();
    for (std::uint32_t j : placed)
      if (interferes(it.lifetime, sp.items[j].lifetime)) busy.push_back({off[j], off[j] + sp.items[j].size});
    for (std::uint32_t j : sp.separated[i])
      if (off[j] != max_addr) busy.push_back({off[j], off[j] + sp.items[j].size});
    if (!sp.blocked.empty()) busy.insert(busy.end(), sp.blocked[i].begin(), sp.blocked[i].end());
    std::vector<AddrRange> soft;
    if (avoid_penalties)
      for (const auto& l : sp.penalties[i])
        if (off[l.other] != max_addr) soft.push_back({off[l.other], off[l.other] + sp.items[l.other].size});
    std::sort(busy.begin(), busy.end());
    auto lowest_clear = [&](const std::vector<AddrRange>& ranges, bool sorted) -> std::optional<Addr> {
      std::vector<AddrRange> rs = ranges;
      if (!sorted) std::sort(rs.begin(), rs.end());
      Addr h = 0;
      for (;;) {
        auto x = space.lowest_fit(h, it.size, it.alignment);
        if (!x) return std::nullopt;
        bool moved = false;
        for (const auto& r : rs)
          if (r.begin < *x + it.size && *x < r.end) {
            h = r.end;
            moved = true;
            break;
          }
        if (!moved) return x;
      }
    };
    std::optional<Addr> x;
    if (!soft.empty()) {
      std::vector<AddrRange> both = busy;
      both.insert(both.end(), soft.begin(), soft.end());
      x = lowest_clear(both, false);
    }
    if (!x) x = lowest_clear(busy, true);
    if (!x) return std::nullopt;
    off[i] = *x;
    placed.push_back(i);
  }
  return off;
}

}  // namespace detail

/// The best first-fit placement of `sp` under its capacity over a few orders
/// (size, start, area, lifetime length; penalty-blind and penalty-averse), or
/// nothing when none fits. Quadratic: meant for the parts the exact search
/// handles.
[[nodiscard]] inline std::optional<PartPlacement> first_fit_incumbent(const Subproblem& sp) {
  const std::size_t n = sp.items.size();
  std::vector<std::vector<std::uint32_t>> orders;
  std::vector<std::uint32_t> base(n);
  std::iota(base.begin(), base.end(), std::uint32_t{0});
  auto by = [&](auto key) {
    auto o = base;
    std::stable_sort(o.begin(), o.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) > key(b); });
    orders.push_back(std::move(o));
  };
  auto width = [&](std::uint32_t i) { return sp.items[i].lifetime.end - sp.items[i].lifetime.begin; };
  by([&](std::uint32_t i) { return sp.items[i].size; });
  by([&](std::uint32_t i) { return -sp.items[i].lifetime.begin; });
  by([&](std::uint32_t i) {
    return checked_mul(sp.items[i].size, static_cast<Addr>(width(i))).value_or(max_addr);
  });
  by(width);
  std::optional<PartPlacement> best;
  for (const auto& o : orders)
    for (bool avoid : {false, true}) {
      if (avoid && !sp.has_penalties()) continue;
      auto off = detail::first_fit(sp, o, sp.space, avoid);
      if (!off) continue;
      auto p = score(sp, std::move(*off));
      if (!best || p.better_than(*best)) best = std::move(p);
    }
  return best;
}

}  // namespace pto_mem::exact
