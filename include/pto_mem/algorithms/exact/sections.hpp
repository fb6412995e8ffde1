// Time sections of a set of lifetimes: the cross-sections taken just before
// a lifetime ends after at least one has begun. They are the maximal sets of
// buffers live together (the cliques of the interval graph), in time order, so
// every buffer lives in a contiguous run of sections and two buffers interfere
// exactly when they share a section. The exact search bounds each section
// ("what must still be placed here fits above its floor") and cuts the time
// axis where no unplaced buffer crosses from one section to the next.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pto_mem/core/lifetime.hpp"

namespace pto_mem::exact {

struct Sections {
  std::vector<std::uint32_t> first;  ///< per buffer: its first section
  std::vector<std::uint32_t> last;   ///< per buffer: one past its last section
  /// Per section: its members (only when asked for; large instances skip them).
  std::vector<std::vector<std::uint32_t>> members;
  /// crossing[k]: buffers live in both section k and k + 1 (size = count - 1).
  std::vector<std::uint32_t> crossing;
  std::uint32_t count = 0;
};

/// Sweeps the lifetimes (half-open; touching lifetimes do not interfere).
/// O(n log n), plus the total membership when `with_members`.
[[nodiscard]] inline Sections sweep_sections(const std::vector<Interval>& lifetimes, bool with_members) {
  const auto n = static_cast<std::uint32_t>(lifetimes.size());
  Sections s;
  s.first.assign(n, 0);
  s.last.assign(n, 0);
  struct Event {
    Tick tick;
    bool starts;
    std::uint32_t item;
  };
  std::vector<Event> events;
  events.reserve(2 * static_cast<std::size_t>(n));
  for (std::uint32_t i = 0; i < n; ++i) {
    events.push_back({lifetimes[i].begin, true, i});
    events.push_back({lifetimes[i].end, false, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.tick != b.tick) return a.tick < b.tick;
    if (a.starts != b.starts) return !a.starts;  // ends first: [a, b) and [b, c) never meet
    return a.item < b.item;
  });
  std::vector<std::uint32_t> active;      // live buffers
  std::vector<std::uint32_t> slot(n, 0);  // position in `active`
  bool grew = false;                      // a start since the last section
  for (const Event& e : events) {
    if (e.starts) {
      slot[e.item] = static_cast<std::uint32_t>(active.size());
      active.push_back(e.item);
      s.first[e.item] = s.count;
      grew = true;
      continue;
    }
    if (grew) {  // the live set is maximal now: record it before it shrinks
      if (with_members) s.members.push_back(active);
      ++s.count;
      grew = false;
    }
    s.last[e.item] = s.count;
    const std::uint32_t moved = active.back();
    active[slot[e.item]] = moved;
    slot[moved] = slot[e.item];
    active.pop_back();
  }
  s.crossing.assign(s.count > 0 ? s.count - 1 : 0, 0);
  // Difference array: a buffer in sections [f, l) crosses the cuts f .. l-2.
  std::vector<std::int64_t> diff(s.count + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (s.last[i] - s.first[i] < 2) continue;
    ++diff[s.first[i]];
    --diff[s.last[i] - 1];
  }
  std::int64_t run = 0;
  for (std::uint32_t k = 0; k + 1 < s.count; ++k) {
    run += diff[k];
    s.crossing[k] = static_cast<std::uint32_t>(run);
  }
  return s;
}

}  // namespace pto_mem::exact
