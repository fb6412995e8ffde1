// The objective of a placement: per-arena peaks, their sum and
// maximum, and the weight of the penalties whose buffers overlap in bytes.
#pragma once

#include <algorithm>
#include <vector>

#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// peak(arena) starts at the highest reserved end (or 0) and rises to every
/// placed buffer's offset + size (ends that overflow are skipped), in the
/// arena the placement chose for it (Placement::arenas, else its own).
/// Penalties are read from the raw list: duplicates count, unknown or
/// unplaced ends, pairs in two arenas and pairs live at the same time add
/// nothing. Spill sums each buffer's position among its candidate arenas.
[[nodiscard]] inline Objective evaluate_objective(const Problem& p, const Placement& pl) {
  const ProblemIndex index(p);
  const bool plain = is_plain(p);
  Objective o;
  o.peak_by_arena.assign(p.arenas.size(), 0);
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    for (const auto& r : p.arenas[k].reserved) o.peak_by_arena[k] = std::max(o.peak_by_arena[k], r.end);
  auto offset = [&](std::size_t i) -> std::optional<Addr> {
    return i < pl.offsets.size() ? pl.offsets[i] : std::nullopt;
  };
  auto arena_of = [&](std::size_t i) { return i < pl.arenas.size() ? pl.arenas[i] : p.buffers[i].arena; };
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const auto off = offset(i);
    const auto k = index.arena(arena_of(i));
    if (!off || !k) continue;
    if (auto end = checked_add(*off, p.buffers[i].size))
      o.peak_by_arena[*k] = std::max(o.peak_by_arena[*k], *end);
    const auto& c = p.buffers[i].candidate_arenas;
    if (const auto at = std::find(c.begin(), c.end(), arena_of(i)); at != c.end())
      o.spill += static_cast<std::uint64_t>(at - c.begin());
  }
  for (Addr peak : o.peak_by_arena) {
    o.total_peak = saturating_add(o.total_peak, peak);
    o.max_peak = std::max(o.max_peak, peak);
  }
  for (const auto& pen : p.penalties) {
    const auto a = index.buffer(pen.a);
    const auto b = index.buffer(pen.b);
    if (!a || !b) continue;
    const auto oa = offset(*a);
    const auto ob = offset(*b);
    const auto& ba = p.buffers[*a];
    const auto& bb = p.buffers[*b];
    // A structured problem's penalties join buffers never live together (the validator's rule).
    if (!oa || !ob || arena_of(*a) != arena_of(*b) || (plain && interferes(ba.lifetime, bb.lifetime)))
      continue;
    const auto ea = checked_add(*oa, ba.size);
    const auto eb = checked_add(*ob, bb.size);
    if (!ea || !eb) continue;
    if (overlaps(AddrRange{*oa, *ea}, AddrRange{*ob, *eb})) o.penalty = saturating_add(o.penalty, pen.weight);
  }
  return o;
}

}  // namespace pto_mem
