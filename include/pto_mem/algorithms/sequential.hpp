// Sequential placement (PyPTO's default after reuse, SPEC.md §7.3): per
// arena, a bump pointer over the buffers in id order, starting above the
// reserved windows, each buffer at the cursor aligned up.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

struct SequentialResult {
  std::optional<Placement> placement;  ///< nullopt when some arena overflows
  Diagnostics diagnostics;
};

/// Places every buffer at its own bytes (no reuse), in id order per arena.
/// Must-alias groups and declared allocations are not handled here: unify
/// them first (algorithms/alias.hpp).
[[nodiscard]] inline SequentialResult place_sequential(const Problem& p) {
  SequentialResult out;
  const ProblemIndex index(p);
  const std::vector<std::uint32_t> rank = id_ranks(p);
  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  bool fits = true;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    const Arena& arena = p.arenas[k];
    Addr cursor = 0;
    for (const auto& r : arena.reserved) cursor = std::max(cursor, r.end);
    const Addr reserved = cursor;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (p.buffers[i].arena == arena.id) order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return rank[a] < rank[b] || (rank[a] == rank[b] && a < b);
    });
    bool overflow = false;
    for (std::size_t i : order) {
      const auto at = align_up(cursor, p.buffers[i].alignment);
      const auto end = at ? checked_add(*at, p.buffers[i].size) : std::nullopt;
      if (!end) {
        overflow = true;
        cursor = max_addr;
        break;
      }
      pl.offsets[i] = *at;
      cursor = *end;
    }
    if (overflow || cursor > arena.capacity) {
      fits = false;
      std::string msg = "arena " + std::to_string(arena.id) + (arena.name.empty() ? "" : " (" + arena.name + ")") +
                        ": sequential placement needs " + (overflow ? std::string("more than 2^64") : std::to_string(cursor)) +
                        " bytes but the capacity is " + std::to_string(arena.capacity);
      if (reserved > 0) msg += "; the first " + std::to_string(reserved) + " bytes are reserved";
      out.diagnostics.push_back(error(std::move(msg)));
    }
  }
  if (fits) out.placement = std::move(pl);
  return out;
}

}  // namespace pto_mem
