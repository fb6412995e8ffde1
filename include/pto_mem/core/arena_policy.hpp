// The ArenaPolicy concept: what an SoC says about each on-chip memory space.
// One policy per chip; no algorithm changes when a chip is added.
#pragma once

#include <concepts>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

/// The default name of arena `a`: "arena3" for integers and enums, the text
/// itself for string-like keys; nullopt for other key types (the policy must
/// then say).
template <class A>
[[nodiscard]] std::optional<std::string> default_arena_name(const A& a) {
  if constexpr (std::integral<A>)
    return "arena" + std::to_string(a);
  else if constexpr (std::is_enum_v<A>)
    return "arena" + std::to_string(static_cast<long long>(a));
  else if constexpr (std::is_convertible_v<const A&, std::string_view>)
    return std::string(std::string_view(a));
  else
    return std::nullopt;
}

namespace detail {

template <class T>
struct capacity_value {
  using type = T;
};
template <class T>
struct capacity_value<std::optional<T>> {
  using type = T;
};
/// The number type of a capacity as a policy returns it: T for T and for
/// std::optional<T>.
template <class T>
using capacity_value_t = typename capacity_value<std::remove_cvref_t<T>>::type;

/// The number type of P's own `capacity(a)` (Addr when it has none).
template <class P, class A>
struct policy_capacity_value {
  using type = Addr;
};
template <class P, class A>
requires requires(const P& p, const A& a) { p.capacity(a); }
struct policy_capacity_value<P, A> {
  using type = capacity_value_t<decltype(std::declval<const P&>().capacity(std::declval<const A&>()))>;
};

/// A capacity is a whole number of bytes: a floating-point type cannot say one.
template <class V>
inline constexpr bool whole_capacity = !std::is_floating_point_v<V>;

}  // namespace detail

/// Customisation point. The primary template forwards to the members a
/// policy has and gives a default for each it does not, so a policy states
/// only what differs:
///
///     bool planned(A) const;                      // default true; false: off-chip, never placed
///     std::optional<Addr> capacity(A) const;      // default nullopt: no capacity (the peak is minimised)
///                                                 // (any integer type, or an optional of one: a negative
///                                                 // value is reported by make_problem and plan(), naming
///                                                 // the arena; a floating-point type does not compile)
///     range-of-AddrRange reserved(A) const;       // default none: windows no buffer may touch
///     Addr alignment(A) const;                    // default 1: address alignment in the arena
///     std::string name(A) const;                  // default "arena<k>" or the key's text
///
/// Specialise it to read a policy type that spells these differently.
/// check_policy<P, A>() says at compile time what a member gets wrong.
template <class P>
struct arena_policy_traits {
  template <class A>
  static bool planned(const P& p, const A& a) {
    if constexpr (requires { p.planned(a); })
      return p.planned(a);
    else
      return true;
  }
  /// std::optional of the policy's own number type, so that a negative value
  /// of a signed type stays visible (make_problem reports it) instead of
  /// wrapping around to 2^64 - 1.
  template <class A>
  static auto capacity(const P& p, const A& a) {
    if constexpr (requires { p.capacity(a); }) {
      using R = std::remove_cvref_t<decltype(p.capacity(a))>;
      using V = detail::capacity_value_t<R>;
      static_assert(
          detail::whole_capacity<V>,
          "pto_mem::arena_policy_traits<P>::capacity: `capacity(a)` returns a floating-point number, but a "
          "capacity is a whole number of bytes; return std::optional<pto_mem::Addr> (nullopt: no "
          "capacity), or specialise pto_mem::arena_policy_traits<P>.");
      if constexpr (std::is_integral_v<V> && std::is_same_v<R, std::optional<V>>)
        return p.capacity(a);
      else if constexpr (std::is_integral_v<V> && std::is_same_v<R, V>)
        return std::optional<V>(p.capacity(a));
      else
        return std::optional<Addr>(p.capacity(a));
    } else {
      return std::optional<Addr>();
    }
  }
  template <class A>
  static std::vector<AddrRange> reserved(const P& p, const A& a) {
    std::vector<AddrRange> out;
    if constexpr (requires { p.reserved(a); })
      for (const auto& r : p.reserved(a)) out.push_back(AddrRange{r.begin, r.end});
    return out;
  }
  template <class A>
  static Addr alignment(const P& p, const A& a) {
    if constexpr (requires { p.alignment(a); })
      return p.alignment(a);
    else
      return 1;
  }
  template <class A>
  static std::string name(const P& p, const A& a) {
    if constexpr (requires { p.name(a); })
      return p.name(a);
    else
      return default_arena_name(a).value_or(std::string("arena"));
  }
};

/// Checks at compile time that P is a policy for arena keys A, member by
/// member, and says what to change when it is not. plan() calls it.
template <class P, class A>
consteval bool check_policy() {
  using Pc = const P&;
  using Ac = const A&;
  constexpr bool own_planned = requires(Pc p, Ac a) { p.planned(a); };
  constexpr bool own_capacity = requires(Pc p, Ac a) { p.capacity(a); };
  constexpr bool own_reserved = requires(Pc p, Ac a) { p.reserved(a); };
  constexpr bool own_alignment = requires(Pc p, Ac a) { p.alignment(a); };
  constexpr bool own_name = requires(Pc p, Ac a) { p.name(a); };
  constexpr bool planned_ok = !own_planned || requires(Pc p, Ac a) {
    { p.planned(a) } -> std::convertible_to<bool>;
  };
  constexpr bool capacity_ok = !own_capacity || requires(Pc p, Ac a) {
    { p.capacity(a) } -> std::convertible_to<std::optional<Addr>>;
  };
  constexpr bool reserved_ok = !own_reserved || requires(Pc p, Ac a) {
    { p.reserved(a) } -> std::ranges::input_range;
  };
  constexpr bool alignment_ok = !own_alignment || requires(Pc p, Ac a) {
    { p.alignment(a) } -> std::convertible_to<Addr>;
  };
  constexpr bool name_ok = own_name ? requires(Pc p, Ac a) {
    { p.name(a) } -> std::convertible_to<std::string>;
  }
                                    : (std::integral<A> || std::is_enum_v<A> || std::is_convertible_v<Ac, std::string_view>);
                                    static_assert(
                                        planned_ok,
                                        "pto_mem::check_policy<P, A>: `planned(a)` must return bool (false: "
                                        "the arena is off-chip "
                                        "and never placed); or specialise pto_mem::arena_policy_traits<P>.");
                                    static_assert(capacity_ok,
                                                  "pto_mem::check_policy<P, A>: `capacity(a)` must return "
                                                  "std::optional<pto_mem::Addr> "
                                                  "(bytes; nullopt: no limit); or specialise "
                                                  "pto_mem::arena_policy_traits<P>.");
                                    constexpr bool capacity_whole =
                                        !own_capacity || !capacity_ok ||
                                        detail::whole_capacity<
                                            typename detail::policy_capacity_value<P, A>::type>;
                                    static_assert(
                                        capacity_whole,
                                        "pto_mem::check_policy<P, A>: `capacity(a)` returns a floating-point "
                                        "number, but a "
                                        "capacity is a whole number of bytes; return "
                                        "std::optional<pto_mem::Addr> (nullopt: "
                                        "no limit), or specialise pto_mem::arena_policy_traits<P>.");
                                    static_assert(reserved_ok,
                                                  "pto_mem::check_policy<P, A>: `reserved(a)` must return a "
                                                  "range of pto_mem::AddrRange (or "
                                                  "of anything with `begin`/`end` byte members); or "
                                                  "specialise pto_mem::arena_policy_traits<P>.");
                                    static_assert(alignment_ok,
                                                  "pto_mem::check_policy<P, A>: `alignment(a)` must return "
                                                  "an integral byte count; or "
                                                  "specialise pto_mem::arena_policy_traits<P>.");
                                    static_assert(name_ok || own_name,
                                                  "pto_mem::check_policy<P, A>: the arena key type has no "
                                                  "default name (it is not an integer, an enum "
                                                  "or a string); give the policy `std::string name(A) "
                                                  "const`, or specialise "
                                                  "pto_mem::arena_policy_traits<P>.");
                                    static_assert(
                                        name_ok || !own_name,
                                        "pto_mem::check_policy<P, A>: `name(a)` must return something "
                                        "convertible to "
                                        "std::string; or specialise pto_mem::arena_policy_traits<P>.");
                                    return planned_ok && capacity_ok && capacity_whole && reserved_ok &&
                                           alignment_ok && name_ok;
}

template <class P, class A>
concept ArenaPolicy = requires(const P& p, const A& a) {
  { arena_policy_traits<P>::planned(p, a) } -> std::convertible_to<bool>;
  { arena_policy_traits<P>::capacity(p, a) } -> std::convertible_to<std::optional<Addr>>;
  { arena_policy_traits<P>::reserved(p, a) } -> std::convertible_to<std::vector<AddrRange>>;
  { arena_policy_traits<P>::alignment(p, a) } -> std::convertible_to<Addr>;
  { arena_policy_traits<P>::name(p, a) } -> std::convertible_to<std::string>;
};

/// A policy for users without a chip: every arena is planned, has no capacity
/// limit and no reserved window; addresses are aligned to `alignment_bytes`.
struct UnboundedArenaPolicy {
  Addr alignment_bytes = 1;
  template <class A>
  bool planned(const A&) const {
    return true;
  }
  template <class A>
  std::optional<Addr> capacity(const A&) const {
    return std::nullopt;
  }
  template <class A>
  std::vector<AddrRange> reserved(const A&) const {
    return {};
  }
  template <class A>
  Addr alignment(const A&) const {
    return alignment_bytes;
  }
  template <class A>
  std::string name(const A& a) const {
    return default_arena_name(a).value_or(std::string("arena"));
  }
};

}  // namespace pto_mem
