// The ArenaPolicy concept: what an SoC says about each on-chip memory space.
// One policy per chip; no algorithm changes when a chip is added.
#pragma once

#include <concepts>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <vector>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

/// Customisation point. The primary template forwards to member functions
///
///     bool planned(A) const;                      // false: off-chip, never placed
///     std::optional<Addr> capacity(A) const;      // nullopt: no capacity check
///     range-of-AddrRange reserved(A) const;       // windows no buffer may touch
///     Addr alignment(A) const;                    // address alignment in the arena
///     std::string name(A) const;                  // for reports and diagnostics
///
/// Specialise it to read a policy type that spells these differently.
template <class P>
struct arena_policy_traits {
  template <class A>
  static bool planned(const P& p, const A& a)
    requires requires { { p.planned(a) } -> std::convertible_to<bool>; }
  {
    return p.planned(a);
  }
  template <class A>
  static std::optional<Addr> capacity(const P& p, const A& a)
    requires requires { { p.capacity(a) } -> std::convertible_to<std::optional<Addr>>; }
  {
    return p.capacity(a);
  }
  template <class A>
  static std::vector<AddrRange> reserved(const P& p, const A& a)
    requires requires { { p.reserved(a) } -> std::ranges::input_range; }
  {
    std::vector<AddrRange> out;
    for (const auto& r : p.reserved(a)) out.push_back(AddrRange{r.begin, r.end});
    return out;
  }
  template <class A>
  static Addr alignment(const P& p, const A& a)
    requires requires { { p.alignment(a) } -> std::convertible_to<Addr>; }
  {
    return p.alignment(a);
  }
  template <class A>
  static std::string name(const P& p, const A& a)
    requires requires { { p.name(a) } -> std::convertible_to<std::string>; }
  {
    return p.name(a);
  }
};

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
  bool planned(const A&) const { return true; }
  template <class A>
  std::optional<Addr> capacity(const A&) const { return std::nullopt; }
  template <class A>
  std::vector<AddrRange> reserved(const A&) const { return {}; }
  template <class A>
  Addr alignment(const A&) const { return alignment_bytes; }
  template <class A>
  std::string name(const A& a) const {
    if constexpr (std::integral<A>) return "arena" + std::to_string(a);
    else if constexpr (std::is_enum_v<A>) return "arena" + std::to_string(static_cast<long long>(a));
    else return std::string(a);
  }
};

}  // namespace pto_mem
