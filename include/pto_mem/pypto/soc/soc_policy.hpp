// What a SoC says about its on-chip memory: a model of the generic
// ArenaPolicy concept keyed by MemorySpace, plus the facts the tile IR needs
// beyond it: the L0C (Acc) M-row alignment used in tile sizes, and the direct
// transfer routes the reuse-penalty recognizer maps to pipes.
//
// The backend's allocator decisions are data too: which spaces are allocated
// (planned), how an address in each is aligned, and in what order the
// sequential planner places a space's allocations (placement_order).
//
// A SocPolicy is plain data, so a new chip is a new value (see soc/policies.hpp,
// soc/soc_file.hpp for a JSON description, examples/pypto/custom_soc.cpp);
// `from_arena_policy` reads any other ArenaPolicy model into one.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/core/arena_policy.hpp"
#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/data_type.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"

namespace pto_mem::pypto {

/// L0C M-row alignment: the penultimate dim of an Acc tile is rounded up to
/// `int32_rows` for INT32 accumulators and `other_rows` otherwise.
struct AccRowAlignment {
  Addr int32_rows = 16;
  Addr other_rows = 16;
};

/// The order in which AllocateMemoryAddr's sequential (PYPTO) planner places
/// the allocations of one space, each at the aligned cursor. (DSA_RP searches
/// its own orders; PTOAS leaves addresses to ptoas.)
enum class PlacementOrder : std::uint8_t {
  name,             ///< MemRef base name, string order (PyPTO: `mem_vec_10` before `mem_vec_2`)
  first_seen,       ///< program order of the first tile on the allocation
  size_descending,  ///< largest allocation first, ties by name
};

[[nodiscard]] constexpr std::string_view to_string(PlacementOrder o) noexcept {
  switch (o) {
    case PlacementOrder::name: return "name";
    case PlacementOrder::first_seen: return "first_seen";
    case PlacementOrder::size_descending: return "size_descending";
  }
  return "name";
}

[[nodiscard]] constexpr std::optional<PlacementOrder> parse_placement_order(std::string_view s) noexcept {
  for (auto o : {PlacementOrder::name, PlacementOrder::first_seen, PlacementOrder::size_descending})
    if (to_string(o) == s) return o;
  return std::nullopt;
}

/// What the placement order compares: an allocation's base name, its bytes,
/// and its first-appearance index in the function.
struct PlacementKey {
  std::string_view name;
  Addr bytes = 0;
  std::size_t first_seen = 0;
};

/// Bit per space: every space but DDR (off-chip) and ScalarLocal (arrays).
[[nodiscard]] constexpr std::uint16_t on_chip_spaces() noexcept {
  std::uint16_t m = 0;
  for (MemorySpace s : all_memory_spaces)
    if (s != MemorySpace::DDR && s != MemorySpace::ScalarLocal)
      m = static_cast<std::uint16_t>(m | (1u << index_of(s)));
  return m;
}

struct SocPolicy {
  std::string soc_name;     ///< "a2a3", "a5", "none"
  std::string description;  ///< "Ascend 910B"
  /// False for "no backend": no capacity checks, no reuse-penalty recognizer.
  bool configured = true;
  /// Bytes per space; nullopt = unknown or absent (never checked).
  std::array<std::optional<Addr>, memory_space_count> capacities{};
  /// Byte alignment of every buffer start (32 on every Ascend space), and of
  /// the sequential planner's cursor.
  Addr address_alignment = 32;
  /// Per-space alignment; 0 = address_alignment.
  std::array<Addr, memory_space_count> space_alignment{};
  /// Bit per space: the spaces the backend allocates (tiles elsewhere get no address).
  std::uint16_t planned_spaces = on_chip_spaces();
  PlacementOrder placement_order = PlacementOrder::name;
  AccRowAlignment acc_rows;
  /// routes[s] bit d: a direct transfer s -> d exists.
  std::array<std::uint16_t, memory_space_count> routes{};
  /// Windows no tile may use, per space (a function's system.reserve_buffer).
  std::array<std::vector<AddrRange>, memory_space_count> reserved_windows{};

  // ---- the ArenaPolicy model (arena key = MemorySpace) ----------------------------
  /// By default DDR (off-chip) and ScalarLocal (arrays) are not placed.
  [[nodiscard]] bool planned(MemorySpace s) const noexcept { return (planned_spaces >> index_of(s)) & 1u; }
  [[nodiscard]] std::optional<Addr> capacity(MemorySpace s) const noexcept {
    return configured ? capacities[index_of(s)] : std::nullopt;
  }
  [[nodiscard]] const std::vector<AddrRange>& reserved(MemorySpace s) const noexcept {
    return reserved_windows[index_of(s)];
  }
  [[nodiscard]] Addr alignment(MemorySpace s) const noexcept {
    const Addr a = space_alignment[index_of(s)];
    return a != 0 ? a : address_alignment;
  }
  [[nodiscard]] std::string name(MemorySpace s) const { return std::string(to_string(s)); }

  // ---- tile-IR facts -----------------------------------------------------------------
  /// Rows the M dim of an Acc tile of `acc_dtype` is padded to.
  [[nodiscard]] Addr acc_m_alignment(DataType acc_dtype) const noexcept {
    return acc_dtype == DataType::INT32 ? acc_rows.int32_rows : acc_rows.other_rows;
  }
  [[nodiscard]] bool has_route(MemorySpace from, MemorySpace to) const noexcept {
    return (routes[index_of(from)] >> index_of(to)) & 1u;
  }
  /// True when allocation `a` is placed before `b` (a strict weak order).
  [[nodiscard]] bool places_before(const PlacementKey& a, const PlacementKey& b) const noexcept {
    switch (placement_order) {
      case PlacementOrder::first_seen: return a.first_seen < b.first_seen;
      case PlacementOrder::size_descending:
        if (a.bytes != b.bytes) return a.bytes > b.bytes;
        break;
      case PlacementOrder::name: break;
    }
    return a.name != b.name ? a.name < b.name : a.first_seen < b.first_seen;
  }

  // ---- building one ------------------------------------------------------------------
  SocPolicy& capacity(MemorySpace s, std::optional<Addr> bytes) {
    capacities[index_of(s)] = bytes;
    return *this;
  }
  SocPolicy& route(MemorySpace from, std::initializer_list<MemorySpace> to) {
    for (auto d : to)
      routes[index_of(from)] = static_cast<std::uint16_t>(routes[index_of(from)] | (1u << index_of(d)));
    return *this;
  }
  /// Whether the backend allocates space `s`.
  SocPolicy& plan(MemorySpace s, bool yes = true) {
    const auto bit = static_cast<std::uint16_t>(1u << index_of(s));
    planned_spaces = static_cast<std::uint16_t>(yes ? (planned_spaces | bit) : (planned_spaces & ~bit));
    return *this;
  }
  /// Address alignment of space `s` (0: address_alignment).
  SocPolicy& align(MemorySpace s, Addr bytes) {
    space_alignment[index_of(s)] = bytes;
    return *this;
  }
  /// Adds a reserved window (e.g. from system.reserve_buffer).
  SocPolicy& reserve(MemorySpace s, AddrRange window) {
    reserved_windows[index_of(s)].push_back(window);
    return *this;
  }
};

static_assert(ArenaPolicy<SocPolicy, MemorySpace>);

/// The reserved ranges of one arena of a kernel: the SoC's windows in `space`
/// plus `[0, floor)` (the function's system.reserve_buffer floor), sorted and
/// merged so that no two overlap.
[[nodiscard]] inline std::vector<AddrRange> arena_reserved_ranges(const SocPolicy* soc, MemorySpace space,
                                                                  Addr floor) {
  std::vector<AddrRange> all;
  if (floor > 0) all.push_back({0, floor});
  if (soc)
    for (const auto& r : soc->reserved(space))
      if (!r.empty()) all.push_back(r);
  std::sort(all.begin(), all.end());
  std::vector<AddrRange> out;
  for (const auto& r : all)
    if (!out.empty() && r.begin <= out.back().end)
      out.back().end = std::max(out.back().end, r.end);
    else
      out.push_back(r);
  return out;
}

/// Reads any ArenaPolicy model keyed by MemorySpace into a SocPolicy (so the
/// tile-IR passes can use it): which spaces it plans, each one's capacity,
/// alignment and reserved windows. The policy's alignment of Vec is also the
/// address (cursor) alignment. The placement order is the policy's
/// `placement_order()` when it has one (the generic concept does not ask for
/// it), else `order`. Acc rows and routes are given explicitly.
template <class P>
requires ArenaPolicy<P, MemorySpace>
[[nodiscard]] SocPolicy from_arena_policy(const P& policy, std::string soc_name, AccRowAlignment acc_rows,
                                          std::vector<std::pair<MemorySpace, MemorySpace>> routes = {},
                                          PlacementOrder order = PlacementOrder::name) {
  using T = arena_policy_traits<P>;
  SocPolicy out;
  out.soc_name = std::move(soc_name);
  out.description = out.soc_name;
  out.acc_rows = acc_rows;
  out.address_alignment = T::alignment(policy, MemorySpace::Vec);
  out.placement_order = order;
  if constexpr (requires {
                  { policy.placement_order() } -> std::convertible_to<PlacementOrder>;
                })
    out.placement_order = policy.placement_order();
  bool any_capacity = false;
  out.planned_spaces = 0;
  for (MemorySpace s : all_memory_spaces) {
    if (!T::planned(policy, s)) continue;
    out.plan(s).align(s, T::alignment(policy, s));
    out.capacities[index_of(s)] = T::capacity(policy, s);
    any_capacity |= out.capacities[index_of(s)].has_value();
    for (const auto& r : T::reserved(policy, s)) out.reserve(s, r);
  }
  out.configured = any_capacity;
  for (const auto& [from, to] : routes) out.route(from, {to});
  return out;
}

}  // namespace pto_mem::pypto
