// The seeded shuffle of DSA-RP's random restarts, written out so that a
// result never depends on the standard library.
//
// std::shuffle and std::uniform_int_distribution are implementation-defined:
// PyPTO's restarts reproduce only with libstdc++ (GCC >= 11), and one of its
// own tests fails under libc++. This is that exact algorithm —
// Lemire's nearly divisionless bounded draw on the 128-bit product, then
// Fisher–Yates two positions per draw — so every compiler gives the same
// orders. The engine (std::mt19937_64) is fully specified by the standard.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <random>
#include <tuple>
#include <utility>
#include <vector>

namespace pto_mem {

/// A generator whose every output is a uniform 64-bit word (mt19937_64).
template <class G>
concept FullRange64Generator = std::uniform_random_bit_generator<std::remove_reference_t<G>> &&
    std::remove_reference_t<G>::min()
== 0 && std::remove_reference_t<G>::max() == std::numeric_limits<std::uint64_t>::max();

namespace detail {

/// The full 128-bit product a * b as (high, low) words, portable (no __int128).
[[nodiscard]] constexpr std::pair<std::uint64_t, std::uint64_t> multiply_wide(std::uint64_t a,
                                                                              std::uint64_t b) noexcept {
  const std::uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo;
  const std::uint64_t hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi;
  const std::uint64_t hi_hi = a_hi * b_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffffu) + lo_hi;
  const std::uint64_t high = hi_hi + (hi_lo >> 32) + (cross >> 32);
  const std::uint64_t low = (cross << 32) | (lo_lo & 0xffffffffu);
  return {high, low};
}

}  // namespace detail

/// A uniform integer in [0, n), n >= 1: Lemire's method exactly as libstdc++
/// draws it (same number of engine calls, same result).
template <FullRange64Generator G>
[[nodiscard]] std::uint64_t uniform_below(G& g, std::uint64_t n) {
  auto [high, low] = detail::multiply_wide(static_cast<std::uint64_t>(g()), n);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // (2^64 - n) mod n
    while (low < threshold) std::tie(high, low) = detail::multiply_wide(static_cast<std::uint64_t>(g()), n);
  }
  return high;
}

/// Shuffles v in place the way libstdc++'s std::shuffle does with a 64-bit
/// engine: two positions per draw whenever n * n fits in 64 bits (always, for
/// realistic sizes), one position per draw otherwise.
template <class T, FullRange64Generator G>
void paired_shuffle(std::vector<T>& v, G& g) {
  using std::swap;
  const std::uint64_t n = v.size();
  if (n <= 1) return;
  if (std::numeric_limits<std::uint64_t>::max() / n < n) {
    for (std::uint64_t i = 1; i < n; ++i) swap(v[i], v[uniform_below(g, i + 1)]);
    return;
  }
  std::uint64_t i = 1;
  if (n % 2 == 0) {
    swap(v[1], v[uniform_below(g, 2)]);
    i = 2;
  }
  while (i < n) {
    const std::uint64_t r = i + 1;  // position i draws from [0, i], position i+1 from [0, i+1]
    const std::uint64_t x = uniform_below(g, r * (r + 1));
    swap(v[i], v[x / (r + 1)]);
    ++i;
    swap(v[i], v[x % (r + 1)]);
    ++i;
  }
}

}  // namespace pto_mem
