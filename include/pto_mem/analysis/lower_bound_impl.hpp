// The definition behind analysis/lower_bound.hpp: the max-load sweep.
// Included by lower_bound.hpp in header-only mode; compiled once into
// pto_mem::compiled (src/planner.cpp) otherwise.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <boost/icl/interval_map.hpp>

#include "pto_mem/analysis/lifetime_sweep.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/analysis/structured_bound.hpp"

namespace pto_mem {

namespace detail {

/// A lifetime boundary: `bytes` and `buffers` (0 or 1) start or stop
/// being live at `tick`. One event carries both counts, so one sort serves
/// the max load and the max live count.
struct LoadEvent {
  Tick tick;
  bool starts;
  Addr bytes;
  std::uint32_t buffers;
  friend bool operator<(const LoadEvent& a, const LoadEvent& b) {
    return boundary_before(a.tick, a.starts, b.tick, b.starts);
  }
};

/// The largest live bytes and live count. Ties (equal tick and kind) may be
/// visited in any order: within them the counts only rise or only fall.
inline void sweep(std::vector<LoadEvent>& events, Addr& max_bytes, std::size_t& max_buffers) {
  std::sort(events.begin(), events.end());
  Addr live = 0;
  std::size_t count = 0;
  for (const auto& e : events) {
    if (e.starts) {
      live = saturating_add(live, e.bytes);
      count += e.buffers;
    } else {
      live -= std::min(live, e.bytes);
      count -= e.buffers;
    }
    max_bytes = std::max(max_bytes, live);
    max_buffers = std::max(max_buffers, count);
  }
}

}  // namespace detail

PTO_MEM_PLAN_INLINE std::vector<ArenaLoad> arena_loads(const Problem& p) {
  if (!is_plain(p)) return structured_arena_loads(p);  // live intervals, exclusions, pins, candidates, graphs
  const ProblemIndex index(p);
  const AliasClasses classes = alias_classes(p, index);
  const std::size_t na = p.arenas.size();
  std::vector<ArenaLoad> out(na);
  std::vector<std::vector<detail::LoadEvent>> events(na);
  if (na == 1) events[0].reserve(2 * p.buffers.size());
  std::vector<Tick> lo(na, 0), hi(na, 0);
  std::vector<bool> seen(na, false);

  auto arena_of = [&](const BufferSpec& b) { return index.arena(b.arena); };
  auto well_formed = [](const BufferSpec& b) { return b.lifetime.begin < b.lifetime.end; };

  std::vector<bool> is_declared(p.buffers.size(), false);
  for (const auto& d : p.declared)
    if (auto i = index.buffer(d.buffer)) is_declared[*i] = true;

  std::vector<std::vector<std::size_t>> members(classes.count);
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const auto& b = p.buffers[i];
    auto k = arena_of(b);
    if (!k || !well_formed(b)) continue;
    ++out[*k].buffers;
    if (!seen[*k]) {
      lo[*k] = b.lifetime.begin;
      hi[*k] = b.lifetime.end;
      seen[*k] = true;
    }
    lo[*k] = std::min(lo[*k], b.lifetime.begin);
    hi[*k] = std::max(hi[*k], b.lifetime.end);
    // A class member counts as a live buffer here; its bytes come from the class below.
    const bool own_bytes = !(classes.grouped[i] || is_declared[i]);
    if (!own_bytes) members[classes.class_of[i]].push_back(i);
    events[*k].push_back({b.lifetime.begin, true, own_bytes ? b.size : Addr{0}, 1});
    events[*k].push_back({b.lifetime.end, false, own_bytes ? b.size : Addr{0}, 1});
  }

  // A class occupies, at each instant, at least its largest live member:
  // an interval map keeps, per stretch of time, the largest member live
  // there (stretches with the same largest merge; none where no member
  // lives), and each stretch adds what the largest exceeds the class's
  // declaration by.
  using LargestLive =
      boost::icl::interval_map<Tick, Addr, boost::icl::partial_absorber, std::less, boost::icl::inplace_max>;
  for (const auto& group : members) {
    if (group.empty()) continue;
    const auto k = *arena_of(p.buffers[group[0]]);
    Addr closed = 0;  // a declaration's size holds over the arena's whole horizon
    LargestLive largest;
    for (std::size_t i : group) {
      const auto& b = p.buffers[i];
      if (arena_of(b) != k) continue;  // malformed class; the validator reports it
      if (is_declared[i]) closed = std::max(closed, b.size);
      largest +=
          std::make_pair(boost::icl::interval<Tick>::right_open(b.lifetime.begin, b.lifetime.end), b.size);
    }
    for (const auto& [when, bytes] : largest) {
      if (bytes <= closed) continue;
      events[k].push_back({boost::icl::first(when), true, bytes - closed, 0});
      events[k].push_back({boost::icl::last_next(when), false, bytes - closed, 0});
    }
    if (closed > 0) {
      events[k].push_back({lo[k], true, closed, 0});
      events[k].push_back({hi[k], false, closed, 0});
    }
  }

  for (std::size_t k = 0; k < na; ++k) {
    auto& a = out[k];
    detail::sweep(events[k], a.max_load, a.max_live);
    const std::vector<AddrRange> reserved = window_union(p.arenas[k].reserved);
    for (const auto& r : reserved) a.reserved_bytes = saturating_add(a.reserved_bytes, r.size());
    if (!reserved.empty()) a.reserved_end = reserved.back().end;
    a.lower_bound = std::max(a.reserved_end, saturating_add(a.max_load, a.reserved_bytes));
  }
  return out;
}

}  // namespace pto_mem
