// The allocations of one function as a generic Problem, built by
// core/make_problem.hpp through the Buffer and ArenaPolicy traits, the way
// any user's buffers are:
//
//     std::vector<SpaceBuffer> buffers;  // one per allocation, id = position
//     buffers.push_back({0, 16384, space_alignment(ctx, MemorySpace::Vec), MemorySpace::Vec, {1, 4}});
//     auto built = make_problem(buffers, SpaceArenas{ctx.soc, &reserve, capacity_of});
//
// Buffer i of the range is problem.buffers[i], labelled by its id in decimal
// (the tie-break order reads the labels). Every memory space that holds an
// allocation is one arena, ascending space (built.arena_keys[k] is arena k's
// space), named by the space, with the capacity the caller gives and the
// space's reserved windows: the reserve_buffer floor and the SoC's own.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/pypto/passes/reserve_buffer.hpp"

namespace pto_mem::pypto::passes {

/// One allocation as core/buffer.hpp reads it; its arena is its memory space.
struct SpaceBuffer {
  std::size_t id = 0;  ///< its label: its position among the allocations
  Addr size = 0;
  Addr alignment = 1;
  MemorySpace arena = MemorySpace::Vec;
  Interval lifetime{0, 1};
};

/// Memory spaces as arenas (an ArenaPolicy over MemorySpace keys).
struct SpaceArenas {
  const SocPolicy* soc = nullptr;
  const ReserveResolution* reserve = nullptr;
  std::function<Addr(MemorySpace)> capacity_of;  ///< asked once per space that holds an allocation

  [[nodiscard]] std::string name(MemorySpace s) const { return std::string(to_string(s)); }
  [[nodiscard]] std::optional<Addr> capacity(MemorySpace s) const { return capacity_of(s); }
  [[nodiscard]] std::vector<AddrRange> reserved(MemorySpace s) const {
    return arena_reserved_ranges(soc, s, reserve->floor(s));
  }
};

static_assert(check_buffer<SpaceBuffer>());
static_assert(check_policy<SpaceArenas, MemorySpace>());

}  // namespace pto_mem::pypto::passes
