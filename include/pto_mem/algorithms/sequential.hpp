// Sequential placement (PyPTO's default after MemoryReuse):
// per arena, a bump pointer over the buffers in a deterministic order,
// starting above the reserved windows; each buffer at the cursor aligned up
// to its alignment, the cursor then moved past it (and aligned again when the
// policy asks for it, as PyPTO's Align(base + slot)). No reuse: every buffer
// gets bytes of its own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

struct SequentialOptions {
  /// Placement order within an arena: true when buffer `a` (an index into
  /// problem.buffers) goes before buffer `b`; a strict weak order. Empty: id
  /// order (numeric when every id is an integer, else lexicographic, as
  /// id_ranks), ties by problem order. PyPTO sorts by MemRef name.
  std::function<bool(std::size_t a, std::size_t b)> before;
  /// The cursor is aligned up to this after each buffer (PyPTO: 32). 1 = the
  /// cursor stays at the buffer's end; each buffer is aligned either way.
  Addr cursor_alignment = 1;
};

/// What one arena needed; `fits` tells whether it stayed within capacity.
struct SequentialArenaUsage {
  Addr reserved_end = 0;  ///< the cursor starts here (highest reserved end)
  Addr high_water = 0;    ///< the final cursor: reserved floor plus every buffer
  bool fits = true;
};

struct SequentialResult {
  std::optional<Placement> placement;       ///< nullopt when some arena overflows
  std::vector<SequentialArenaUsage> usage;  ///< aligned with problem.arenas
  Diagnostics diagnostics;                  ///< one error per overflowing arena
};

/// The default order: ascending id (id_ranks), ties by problem order.
[[nodiscard]] inline std::function<bool(std::size_t, std::size_t)> id_order(const Problem& p) {
  auto rank = std::make_shared<std::vector<std::uint32_t>>(id_ranks(p));
  return [rank](std::size_t a, std::size_t b) { return (*rank)[a] < (*rank)[b]; };
}

/// Places every buffer at bytes of its own, per arena in `options.before`
/// order. A buffer fits when offset + size <= capacity; an arena that
/// overflows gets one error naming the arena, the bytes it needs, its
/// capacity and its reserved bytes, and the result has no placement. Buffers
/// whose arena is unknown are left unplaced (the validator reports them).
/// Must-alias groups and declared allocations are not read here: unify them
/// first (algorithms/alias.hpp), as plan() does.
[[nodiscard]] inline SequentialResult place_sequential(const Problem& p,
                                                       const SequentialOptions& options = {}) {
  SequentialResult out;
  const std::function<bool(std::size_t, std::size_t)> before = options.before ? options.before : id_order(p);
  std::map<std::int64_t, std::size_t> arena_index;  // first occurrence wins, as ProblemIndex
  for (std::size_t k = 0; k < p.arenas.size(); ++k) arena_index.try_emplace(p.arenas[k].id, k);
  std::vector<std::vector<std::size_t>> by_arena(p.arenas.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (auto it = arena_index.find(p.buffers[i].arena); it != arena_index.end())
      by_arena[it->second].push_back(i);

  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  out.usage.resize(p.arenas.size());
  bool fits = true;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    const Arena& arena = p.arenas[k];
    auto& use = out.usage[k];
    for (const auto& r : arena.reserved) use.reserved_end = std::max(use.reserved_end, r.end);
    auto& order = by_arena[k];
    std::stable_sort(order.begin(), order.end(), before);

    std::optional<Addr> cursor = use.reserved_end;
    bool within = true;  // every end so far <= capacity
    for (std::size_t i : order) {
      const auto& b = p.buffers[i];
      const auto at = cursor ? align_up(*cursor, std::max<Addr>(b.alignment, 1)) : std::nullopt;
      const auto end = at ? checked_add(*at, b.size) : std::nullopt;
      cursor = end ? align_up(*end, std::max<Addr>(options.cursor_alignment, 1)) : std::nullopt;
      if (!end) break;
      pl.offsets[i] = *at;
      within = within && *end <= arena.capacity;
    }
    use.high_water = cursor.value_or(max_addr);
    use.fits = cursor.has_value() && within;
    if (use.fits) continue;
    fits = false;
    std::string msg = "arena " + std::to_string(arena.id) +
                      (arena.name.empty() ? "" : " (" + arena.name + ")") + ": sequential placement of " +
                      std::to_string(order.size()) + " buffers needs " +
                      (cursor ? std::to_string(*cursor) + " bytes" : std::string("more than 2^64 bytes")) +
                      " but the capacity is " + std::to_string(arena.capacity) + " bytes";
    if (use.reserved_end > 0)
      msg += "; the first " + std::to_string(use.reserved_end) +
             " bytes are reserved, so buffers are placed above them";
    msg +=
        ". Sequential placement gives every buffer its own bytes: try strategy 'reuse' or 'greedy', "
        "or shrink the buffers";
    out.diagnostics.push_back(error(std::move(msg)));
  }
  if (fits) out.placement = std::move(pl);
  return out;
}

}  // namespace pto_mem
