// On-chip memory spaces of the tile IR. The enum values are
// PyPTO's, so pool ids and orderings derived from them match upstream.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pto_mem::pypto {

enum class MemorySpace : std::uint8_t {
  DDR = 0,
  Vec = 1,    ///< UB
  Mat = 2,    ///< L1
  Left = 3,   ///< L0A
  Right = 4,  ///< L0B
  Acc = 5,    ///< L0C
  Bias = 6,
  ScalarLocal = 7,  ///< arrays; never gets a MemRef
  LeftScale = 8,
  RightScale = 9,
};

inline constexpr std::size_t memory_space_count = 10;

inline constexpr std::array<MemorySpace, memory_space_count> all_memory_spaces = {
    MemorySpace::DDR,       MemorySpace::Vec,       MemorySpace::Mat,  MemorySpace::Left,
    MemorySpace::Right,     MemorySpace::Acc,       MemorySpace::Bias, MemorySpace::ScalarLocal,
    MemorySpace::LeftScale, MemorySpace::RightScale};

[[nodiscard]] constexpr std::size_t index_of(MemorySpace s) noexcept { return static_cast<std::size_t>(s); }

/// The spelling used in the text format, diagnostics and reports.
[[nodiscard]] constexpr std::string_view to_string(MemorySpace s) noexcept {
  constexpr std::array<std::string_view, memory_space_count> names = {
      "DDR", "Vec", "Mat", "Left", "Right", "Acc", "Bias", "ScalarLocal", "LeftScale", "RightScale"};
  return index_of(s) < names.size() ? names[index_of(s)] : std::string_view("?");
}

/// Lower-case form used in generated base names (`mem_vec_3`, `mem_acc_7`).
[[nodiscard]] constexpr std::string_view lowercase_name(MemorySpace s) noexcept {
  constexpr std::array<std::string_view, memory_space_count> names = {
      "ddr", "vec", "mat", "left", "right", "acc", "bias", "scalarlocal", "leftscale", "rightscale"};
  return index_of(s) < names.size() ? names[index_of(s)] : std::string_view("?");
}

[[nodiscard]] constexpr std::optional<MemorySpace> parse_memory_space(std::string_view name) noexcept {
  for (MemorySpace s : all_memory_spaces)
    if (to_string(s) == name) return s;
  return std::nullopt;
}

/// Left, Right, Acc, Bias, LeftScale, RightScale: the cube's L0 buffers.
[[nodiscard]] constexpr bool is_l0(MemorySpace s) noexcept {
  switch (s) {
    case MemorySpace::Left:
    case MemorySpace::Right:
    case MemorySpace::Acc:
    case MemorySpace::Bias:
    case MemorySpace::LeftScale:
    case MemorySpace::RightScale: return true;
    default: return false;
  }
}

}  // namespace pto_mem::pypto
