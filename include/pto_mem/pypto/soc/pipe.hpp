// The hardware pipes of an Ascend core. A reuse of one
// buffer by another is free when both hand-off accesses are on the same pipe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pto_mem::pypto {

enum class Pipe : std::uint8_t {
  MTE1,  ///< L1 -> L0 transfer
  MTE2,  ///< GM -> UB / L1
  MTE3,  ///< UB -> GM (and UB -> L1 on A5)
  M,     ///< cube
  V,     ///< vector
  S,     ///< scalar
  FIX,   ///< L0C write-out
  ALL,
};

inline constexpr std::size_t pipe_count = 8;

[[nodiscard]] constexpr std::string_view to_string(Pipe p) noexcept {
  constexpr std::array<std::string_view, pipe_count> names = {"MTE1", "MTE2", "MTE3", "M",
                                                              "V",    "S",    "FIX",  "ALL"};
  return names[static_cast<std::size_t>(p)];
}

[[nodiscard]] constexpr std::optional<Pipe> parse_pipe(std::string_view s) noexcept {
  for (std::size_t i = 0; i < pipe_count; ++i)
    if (to_string(static_cast<Pipe>(i)) == s) return static_cast<Pipe>(i);
  return std::nullopt;
}

}  // namespace pto_mem::pypto
