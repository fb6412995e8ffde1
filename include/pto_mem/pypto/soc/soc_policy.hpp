// What a SoC says about its on-chip memory: a model of the generic
// ArenaPolicy concept keyed by MemorySpace, plus the two facts the tile IR
// needs beyond it: the L0C (Acc) M-row alignment used in tile sizes, and the
// direct transfer routes the reuse-penalty recognizer maps to pipes.
//
// A SocPolicy is plain data, so a new chip is a new value (see soc/policies.hpp
// and examples/pypto/custom_soc.cpp); `from_arena_policy` reads any other
// ArenaPolicy model into one.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/core/arena_policy.hpp"
#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/data_type.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"

namespace pto_mem::pypto {

/// L0C M-row alignment: the penultimate dim of an Acc tile is rounded up to
/// `int32_rows` for INT32 accumulators and `other_rows` otherwise (SPEC.md §1.7).
struct AccRowAlignment {
  Addr int32_rows = 16;
  Addr other_rows = 16;
};

struct SocPolicy {
  std::string soc_name;     ///< "a2a3", "a5", "none"
  std::string description;  ///< "Ascend 910B"
  /// False for "no backend": no capacity checks, no reuse-penalty recognizer.
  bool configured = true;
  /// Bytes per space; nullopt = unknown or absent (never checked).
  std::array<std::optional<Addr>, memory_space_count> capacities{};
  /// Byte alignment of every buffer start (32 on every Ascend space).
  Addr address_alignment = 32;
  AccRowAlignment acc_rows;
  /// routes[s] bit d: a direct transfer s -> d exists.
  std::array<std::uint16_t, memory_space_count> routes{};
  /// Windows no tile may use, per space (a function's system.reserve_buffer).
  std::array<std::vector<AddrRange>, memory_space_count> reserved_windows{};

  // ---- the ArenaPolicy model (arena key = MemorySpace) ----------------------------
  /// DDR is off-chip and ScalarLocal holds arrays: neither is placed.
  [[nodiscard]] bool planned(MemorySpace s) const noexcept {
    return s != MemorySpace::DDR && s != MemorySpace::ScalarLocal;
  }
  [[nodiscard]] std::optional<Addr> capacity(MemorySpace s) const noexcept {
    return configured ? capacities[index_of(s)] : std::nullopt;
  }
  [[nodiscard]] const std::vector<AddrRange>& reserved(MemorySpace s) const noexcept {
    return reserved_windows[index_of(s)];
  }
  [[nodiscard]] Addr alignment(MemorySpace) const noexcept { return address_alignment; }
  [[nodiscard]] std::string name(MemorySpace s) const { return std::string(to_string(s)); }

  // ---- tile-IR facts -----------------------------------------------------------------
  /// Rows the M dim of an Acc tile of `acc_dtype` is padded to.
  [[nodiscard]] Addr acc_m_alignment(DataType acc_dtype) const noexcept {
    return acc_dtype == DataType::INT32 ? acc_rows.int32_rows : acc_rows.other_rows;
  }
  [[nodiscard]] bool has_route(MemorySpace from, MemorySpace to) const noexcept {
    return (routes[index_of(from)] >> index_of(to)) & 1u;
  }

  // ---- building one ------------------------------------------------------------------
  SocPolicy& capacity(MemorySpace s, std::optional<Addr> bytes) {
    capacities[index_of(s)] = bytes;
    return *this;
  }
  SocPolicy& route(MemorySpace from, std::initializer_list<MemorySpace> to) {
    for (auto d : to) routes[index_of(from)] = static_cast<std::uint16_t>(routes[index_of(from)] | (1u << index_of(d)));
    return *this;
  }
  /// Adds a reserved window (e.g. from system.reserve_buffer).
  SocPolicy& reserve(MemorySpace s, AddrRange window) {
    reserved_windows[index_of(s)].push_back(window);
    return *this;
  }
};

static_assert(ArenaPolicy<SocPolicy, MemorySpace>);

/// Reads any ArenaPolicy model keyed by MemorySpace into a SocPolicy (so the
/// tile-IR passes can use it). The policy's alignment of Vec is taken as the
/// address alignment; Acc rows and routes are given explicitly.
template <class P>
  requires ArenaPolicy<P, MemorySpace>
[[nodiscard]] SocPolicy from_arena_policy(const P& policy, std::string soc_name, AccRowAlignment acc_rows,
                                          std::vector<std::pair<MemorySpace, MemorySpace>> routes = {}) {
  using T = arena_policy_traits<P>;
  SocPolicy out;
  out.soc_name = std::move(soc_name);
  out.description = out.soc_name;
  out.acc_rows = acc_rows;
  out.address_alignment = T::alignment(policy, MemorySpace::Vec);
  bool any_capacity = false;
  for (MemorySpace s : all_memory_spaces) {
    if (!T::planned(policy, s)) continue;
    out.capacities[index_of(s)] = T::capacity(policy, s);
    any_capacity |= out.capacities[index_of(s)].has_value();
    for (const auto& r : T::reserved(policy, s)) out.reserve(s, r);
  }
  out.configured = any_capacity;
  for (const auto& [from, to] : routes) out.route(from, {to});
  return out;
}

}  // namespace pto_mem::pypto
