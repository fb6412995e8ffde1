// Integer vocabulary of the model and the overflow-checked arithmetic every
// layer uses: an address computation that overflows is reported, never wrapped.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace pto_mem {

/// Byte addresses, sizes, alignments and capacities.
using Addr = std::uint64_t;
/// Program points (lifetime ticks).
using Tick = std::int64_t;
/// Soft-penalty weights; sums saturate.
using Weight = std::uint64_t;

inline constexpr Addr max_addr = std::numeric_limits<Addr>::max();

/// `a + b`, or nullopt when it does not fit in 64 bits.
[[nodiscard]] constexpr std::optional<Addr> checked_add(Addr a, Addr b) noexcept {
  if (a > max_addr - b) return std::nullopt;
  return a + b;
}

/// `a * b`, or nullopt when it does not fit in 64 bits.
[[nodiscard]] constexpr std::optional<Addr> checked_mul(Addr a, Addr b) noexcept {
  if (a != 0 && b > max_addr / a) return std::nullopt;
  return a * b;
}

/// `a + b` clamped to the largest value (weights, peak sums).
[[nodiscard]] constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
  return a > max_addr - b ? max_addr : a + b;
}

/// Smallest multiple of `alignment` that is >= x; any positive alignment, not
/// only powers of two. nullopt when the result does not fit, or alignment is 0.
[[nodiscard]] constexpr std::optional<Addr> align_up(Addr x, Addr alignment) noexcept {
  if (alignment == 0) return std::nullopt;
  const Addr rem = x % alignment;
  if (rem == 0) return x;
  return checked_add(x, alignment - rem);
}

/// Half-open byte range [begin, end).
struct AddrRange {
  Addr begin = 0;
  Addr end = 0;
  [[nodiscard]] constexpr Addr size() const noexcept { return end > begin ? end - begin : 0; }
  [[nodiscard]] constexpr bool empty() const noexcept { return end <= begin; }
  friend constexpr bool operator==(const AddrRange&, const AddrRange&) = default;
  friend constexpr auto operator<=>(const AddrRange&, const AddrRange&) = default;
};

/// True when two non-empty byte ranges share at least one byte.
[[nodiscard]] constexpr bool overlaps(const AddrRange& a, const AddrRange& b) noexcept {
  return !a.empty() && !b.empty() && a.begin < b.end && b.begin < a.end;
}

}  // namespace pto_mem
