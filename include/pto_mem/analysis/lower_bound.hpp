// The max-load lower bound per arena: no placement can have a peak below the
// largest number of bytes that must be live at one instant. An O(n log n)
// sweep over lifetime boundaries.
//
// Declared here (PTO_MEM_PLAN_INLINE, core/compiled_mode.hpp); defined in
// lower_bound_impl.hpp, included here unless PTO_MEM_COMPILED is defined
// (then compiled once in pto_mem::compiled, src/planner.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "pto_mem/analysis/alias_classes.hpp"
#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

struct ArenaLoad {
  std::size_t buffers = 0;   ///< buffers in the arena
  Addr max_load = 0;         ///< largest total size live at one instant
  std::size_t max_live = 0;  ///< largest number of buffers live at one instant
  Addr reserved_bytes = 0;   ///< bytes covered by reserved windows (their union)
  Addr reserved_end = 0;     ///< highest reserved end
  /// Every placement's peak in this arena is at least this:
  /// max(reserved_end, max_load + reserved_bytes) (peaks include reserved ends,
  /// so every window lies below the peak and beside the live buffers).
  Addr lower_bound = 0;
};

/// Loads and lower bounds, aligned with problem.arenas. Malformed buffers
/// (empty lifetime, unknown arena) are ignored; validate the problem first.
///
/// Buffers that share storage (one alias class) count once at each instant,
/// with the largest live member; a declared allocation's bytes are closed to
/// every other buffer, so they count over the whole horizon.
[[nodiscard]] PTO_MEM_PLAN_INLINE std::vector<ArenaLoad> arena_loads(const Problem& p);

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/analysis/lower_bound_impl.hpp"
#endif
