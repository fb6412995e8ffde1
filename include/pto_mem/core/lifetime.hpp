// The Lifetime concept: a half-open interval [begin, end) of program points.
// A compiler's own lifetime type models it by specialising lifetime_traits,
// the way Boost.Graph reads a graph through traits and property maps.
#pragma once

#include <concepts>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

/// The default lifetime model: half-open [begin, end).
struct Interval {
  Tick begin = 0;
  Tick end = 0;
  friend constexpr bool operator==(const Interval&, const Interval&) = default;
  friend constexpr auto operator<=>(const Interval&, const Interval&) = default;
};

/// Customisation point. The primary template reads integral data members named
/// `begin` and `end`; specialise it for other shapes:
///
///     template <> struct pto_mem::lifetime_traits<MyRange> {
///       static Tick begin(const MyRange& r) { return r.first_point; }
///       static Tick end(const MyRange& r) { return r.last_point + 1; }
///     };
template <class L>
struct lifetime_traits {
  static constexpr Tick begin(const L& l) requires requires {
    requires std::integral<std::remove_cvref_t<decltype(l.begin)>>;
  }
  { return static_cast<Tick>(l.begin); }
  static constexpr Tick end(const L& l) requires requires {
    requires std::integral<std::remove_cvref_t<decltype(l.end)>>;
  }
  { return static_cast<Tick>(l.end); }
};

/// std::pair<integral, integral> is a lifetime [first, second).
template <std::integral A, std::integral B>
struct lifetime_traits<std::pair<A, B>> {
  static constexpr Tick begin(const std::pair<A, B>& p) { return static_cast<Tick>(p.first); }
  static constexpr Tick end(const std::pair<A, B>& p) { return static_cast<Tick>(p.second); }
};

template <class L>
concept Lifetime = requires(const std::remove_cvref_t<L>& l) {
  { lifetime_traits<std::remove_cvref_t<L>>::begin(l) } -> std::convertible_to<Tick>;
  { lifetime_traits<std::remove_cvref_t<L>>::end(l) } -> std::convertible_to<Tick>;
};

template <Lifetime L>
[[nodiscard]] constexpr Tick lifetime_begin(const L& l) {
  return static_cast<Tick>(lifetime_traits<std::remove_cvref_t<L>>::begin(l));
}
template <Lifetime L>
[[nodiscard]] constexpr Tick lifetime_end(const L& l) {
  return static_cast<Tick>(lifetime_traits<std::remove_cvref_t<L>>::end(l));
}

/// The lifetime as the default model type.
template <Lifetime L>
[[nodiscard]] constexpr Interval to_interval(const L& l) {
  return Interval{lifetime_begin(l), lifetime_end(l)};
}

/// A lifetime is well formed when it is non-empty and starts at or after 0.
template <Lifetime L>
[[nodiscard]] constexpr bool is_valid_lifetime(const L& l) {
  return lifetime_begin(l) >= 0 && lifetime_begin(l) < lifetime_end(l);
}

/// Two lifetimes interfere when they share a point; touching ([a, b) and
/// [b, c)) does not interfere: the reader of b finishes before the writer.
template <Lifetime A, Lifetime B>
[[nodiscard]] constexpr bool interferes(const A& a, const B& b) {
  return lifetime_begin(a) < lifetime_end(b) && lifetime_begin(b) < lifetime_end(a);
}

}  // namespace pto_mem
