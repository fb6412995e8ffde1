// The Buffer concept: one allocation request (size, alignment, arena,
// lifetime, identity). Read through buffer_traits so a compiler's own struct
// models it without being copied into ours.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pto_mem/core/lifetime.hpp"
#include "pto_mem/core/numeric.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// A buffer without an id of its own: it is named by its position in the
/// range it is planned from ("3" is the fourth buffer).
struct no_id_t {
  friend constexpr bool operator==(no_id_t, no_id_t) = default;
};
inline constexpr no_id_t no_id{};

/// One customisation point per property, each with a default, so a user
/// overrides only what differs from the defaults. Specialise the one you need
/// with a `static get(const B&)`:
///
///     template <> struct pto_mem::buffer_lifetime_traits<MyTile> {
///       static std::pair<int, int> get(const MyTile& t) { return {t.first, t.last + 1}; }
///     };
///
/// | property  | default                                        | required type           |
/// |-----------|------------------------------------------------|-------------------------|
/// | id        | data member `id`; else a string-like `name`; else the position (no_id) | integral or
/// string-like | | size      | data member `size`                             | integral (bytes)        | |
/// alignment | data member `alignment`; else 1                | integral                | | arena     | data
/// member `arena`; else 0 (one arena)        | totally ordered, copyable | | lifetime  | data member
/// `lifetime`                         | models Lifetime         |
template <class B>
struct buffer_id_traits {
  static constexpr decltype(auto) get(const B& b) {
    if constexpr (requires { b.id; })
      return (b.id);
    else if constexpr (requires {
                         { b.name } -> std::convertible_to<std::string_view>;
                       })
      return (b.name);
    else
      return no_id;
  }
};
template <class B>
struct buffer_size_traits {
  static constexpr auto get(const B& b) requires requires { b.size; }
  { return b.size; }
};
template <class B>
struct buffer_alignment_traits {
  static constexpr auto get(const B& b) {
    if constexpr (requires { b.alignment; })
      return b.alignment;
    else
      return 1;
  }
};
template <class B>
struct buffer_arena_traits {
  static constexpr decltype(auto) get(const B& b) {
    if constexpr (requires { b.arena; })
      return (b.arena);
    else
      return 0;
  }
};
template <class B>
struct buffer_lifetime_traits {
  static constexpr decltype(auto) get(const B& b) requires requires { b.lifetime; }
  { return (b.lifetime); }
};

/// All five properties at once. The primary template asks the per-property
/// traits above; a full specialisation (the older way) still works:
///
///     template <> struct pto_mem::buffer_traits<MyValue> {
///       static unsigned id(const MyValue& v) { return v.vreg; }
///       static std::size_t size(const MyValue& v) { return v.bytes; }
///       static unsigned alignment(const MyValue&) { return 32; }
///       static int arena(const MyValue& v) { return v.bank; }
///       static const MyRange& lifetime(const MyValue& v) { return v.live; }
///     };
template <class B>
struct buffer_traits {
  static constexpr decltype(auto) id(const B& b) requires requires { buffer_id_traits<B>::get(b); }
  { return buffer_id_traits<B>::get(b); }
  static constexpr decltype(auto) size(const B& b) requires requires { buffer_size_traits<B>::get(b); }
  { return buffer_size_traits<B>::get(b); }
  static constexpr decltype(auto) alignment(const B& b) requires requires {
    buffer_alignment_traits<B>::get(b);
  }
  { return buffer_alignment_traits<B>::get(b); }
  static constexpr decltype(auto) arena(const B& b) requires requires { buffer_arena_traits<B>::get(b); }
  { return buffer_arena_traits<B>::get(b); }
  static constexpr decltype(auto) lifetime(const B& b) requires requires {
    buffer_lifetime_traits<B>::get(b);
  }
  { return buffer_lifetime_traits<B>::get(b); }
};

/// Buffer ids are integers or strings; either way they are reported by name.
/// no_id_t: the buffer is named by its position in the range.
template <class T>
concept BufferIdLike = std::integral<std::remove_cvref_t<T>> ||
    std::convertible_to<const T&, std::string_view> || std::same_as<std::remove_cvref_t<T>, no_id_t>;

/// Arena keys: integers, enums or any totally ordered value the policy knows.
template <class T>
concept ArenaKey = std::totally_ordered<std::remove_cvref_t<T>> && std::copyable<std::remove_cvref_t<T>>;

template <class B>
concept Buffer = requires(const B& b) {
  { buffer_traits<B>::id(b) } -> BufferIdLike;
  { buffer_traits<B>::size(b) } -> std::integral;
  { buffer_traits<B>::alignment(b) } -> std::integral;
  { buffer_traits<B>::arena(b) } -> ArenaKey;
  { buffer_traits<B>::lifetime(b) } -> Lifetime;
};

template <Buffer B>
using buffer_arena_t = std::remove_cvref_t<decltype(buffer_traits<B>::arena(std::declval<const B&>()))>;

/// The id of a buffer as text, the form every diagnostic and file uses; a
/// buffer without an id (no_id) is named by `position`, its place in the range.
template <Buffer B>
[[nodiscard]] std::string buffer_id_string(const B& b, std::size_t position = 0) {
  const auto& id = buffer_traits<B>::id(b);
  using Id = std::remove_cvref_t<decltype(id)>;
  if constexpr (std::same_as<Id, no_id_t>) {
    return std::to_string(position);
  } else if constexpr (std::integral<Id>) {
    return std::to_string(id);
  } else {
    return std::string(std::string_view(id));
  }
}

/// A user's integral value as a signed 64-bit number, so that a negative size
/// is reported as negative (not wrapped, not clamped); values above INT64_MAX
/// saturate there.
template <std::integral T>
[[nodiscard]] constexpr std::int64_t as_signed(T v) noexcept {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<std::int64_t>(v);
  } else {
    return v > static_cast<std::make_unsigned_t<std::int64_t>>(INT64_MAX) ? INT64_MAX
                                                                          : static_cast<std::int64_t>(v);
  }
}
template <Buffer B>
[[nodiscard]] constexpr std::int64_t buffer_size_signed(const B& b) {
  return as_signed(buffer_traits<B>::size(b));
}
template <Buffer B>
[[nodiscard]] constexpr std::int64_t buffer_alignment_signed(const B& b) {
  return as_signed(buffer_traits<B>::alignment(b));
}

/// Size and alignment as byte counts. A negative value from a signed user
/// type becomes 0 here; make_problem reports it as the negative number it is.
template <Buffer B>
[[nodiscard]] constexpr Addr buffer_size(const B& b) {
  const auto v = buffer_traits<B>::size(b);
  if constexpr (std::is_signed_v<decltype(v)>) {
    if (v < 0) return 0;
  }
  return static_cast<Addr>(v);
}
template <Buffer B>
[[nodiscard]] constexpr Addr buffer_alignment(const B& b) {
  const auto v = buffer_traits<B>::alignment(b);
  if constexpr (std::is_signed_v<decltype(v)>) {
    if (v < 0) return 0;
  }
  return static_cast<Addr>(v);
}
template <Buffer B>
[[nodiscard]] constexpr decltype(auto) buffer_arena(const B& b) {
  return buffer_traits<B>::arena(b);
}
template <Buffer B>
[[nodiscard]] constexpr Interval buffer_lifetime(const B& b) {
  return to_interval(buffer_traits<B>::lifetime(b));
}

/// The optional structure of a buffer, each read only when the user asks
/// for it by a data member of the matching type or by specialising the trait
/// (`static ... get(const B&)`):
///
/// | property         | default                                   | required type                         |
/// |------------------|-------------------------------------------|---------------------------------------|
/// | live             | data member `live`; else one interval     | a range of Lifetime (sorted, disjoint)|
/// | pin              | data member `pin`; else none              | std::optional of an integral offset, or
/// std::optional<pto_mem::Pin> | | candidate_arenas | data member `candidate_arenas`; else none | a range of
/// arena keys, most preferred first |
///
/// A data member of another type under one of these names is not read.
template <class B>
struct buffer_live_traits {};
template <class B>
struct buffer_pin_traits {};
template <class B>
struct buffer_candidate_arenas_traits {};

namespace detail {
template <class L>
concept LifetimeRange = std::ranges::input_range<const L&> && Lifetime<std::ranges::range_value_t<const L&>>;
template <class T>
struct optional_value {};
template <class T>
struct optional_value<std::optional<T>> {
  using type = T;
};
template <class P>
concept PinLike = requires {
  typename optional_value<std::remove_cvref_t<P>>::type;
}
&&(std::integral<typename optional_value<std::remove_cvref_t<P>>::type> ||
   std::same_as<typename optional_value<std::remove_cvref_t<P>>::type, Pin>);
}  // namespace detail

/// The live intervals of `b` (empty: its lifetime is the only one).
template <class B>
[[nodiscard]] std::vector<Interval> buffer_live(const B& b) {
  std::vector<Interval> out;
  auto read = [&](const auto& range) {
    for (const auto& l : range) out.push_back(to_interval(l));
  };
  if constexpr (requires { buffer_live_traits<B>::get(b); })
    read(buffer_live_traits<B>::get(b));
  else if constexpr (requires { requires detail::LifetimeRange<decltype(b.live)>; })
    read(b.live);
  return out;
}

/// The pin of `b`, if any.
template <class B>
[[nodiscard]] std::optional<Pin> buffer_pin(const B& b) {
  auto read = [](const auto& pin) -> std::optional<Pin> {
    if (!pin) return std::nullopt;
    if constexpr (std::same_as<std::remove_cvref_t<decltype(*pin)>, Pin>)
      return *pin;
    else
      return Pin{static_cast<Addr>(*pin), false};
  };
  if constexpr (requires { buffer_pin_traits<B>::get(b); })
    return read(buffer_pin_traits<B>::get(b));
  else if constexpr (requires { requires detail::PinLike<decltype(b.pin)>; })
    return read(b.pin);
  else
    return std::nullopt;
}

/// Calls `f(key)` for each candidate arena of `b`, most preferred first
/// (nothing when it has none).
template <class B, class F>
void for_each_candidate_arena(const B& b, F&& f) {
  if constexpr (requires { buffer_candidate_arenas_traits<B>::get(b); }) {
    for (const auto& k : buffer_candidate_arenas_traits<B>::get(b)) f(k);
  } else if constexpr (requires { b.candidate_arenas; }) {
    if constexpr (std::ranges::input_range<decltype(b.candidate_arenas)>)
      for (const auto& k : b.candidate_arenas) f(k);
  }
}

/// Checks at compile time that B models Buffer, one property at a time, and
/// says what to write when it does not. Call it where you plan
/// (`static_assert(pto_mem::check_buffer<MyTile>());`); plan() calls it too.
template <class B>
consteval bool check_buffer() {
  using T = buffer_traits<B>;
  constexpr bool has_id = requires(const B& b) { T::id(b); };
  constexpr bool has_size = requires(const B& b) { T::size(b); };
  constexpr bool has_alignment = requires(const B& b) { T::alignment(b); };
  constexpr bool has_arena = requires(const B& b) { T::arena(b); };
  constexpr bool has_lifetime = requires(const B& b) { T::lifetime(b); };
  static_assert(has_size,
                "pto_mem::check_buffer<B>: no `size` accessor. Give B an integral data member `size`, or "
                "specialise pto_mem::buffer_size_traits<B> with `static <integral> get(const B&)` (bytes).");
  static_assert(
      has_lifetime,
      "pto_mem::check_buffer<B>: no `lifetime` accessor. Give B a data member `lifetime`, or specialise "
      "pto_mem::buffer_lifetime_traits<B> with `static <Lifetime> get(const B&)` returning "
      "half-open [begin, end), e.g. std::pair<int, int>{first, last + 1}.");
  static_assert(has_id,
                "pto_mem::check_buffer<B>: buffer_traits<B> has no `id`; specialise "
                "pto_mem::buffer_id_traits<B> (or drop the buffer_traits specialisation's other members).");
  static_assert(has_alignment,
                "pto_mem::check_buffer<B>: buffer_traits<B> has no `alignment`; specialise "
                "pto_mem::buffer_alignment_traits<B> with `static <integral> get(const B&)`.");
  static_assert(has_arena,
                "pto_mem::check_buffer<B>: buffer_traits<B> has no `arena`; specialise "
                "pto_mem::buffer_arena_traits<B> with `static <ordered key> get(const B&)`.");
  if constexpr (has_size)
    static_assert(
        std::integral<std::remove_cvref_t<decltype(T::size(std::declval<const B&>()))>>,
        "pto_mem::check_buffer<B>: `size` must return an integral byte count; change the member's type "
        "or specialise pto_mem::buffer_size_traits<B> to convert it.");
  if constexpr (has_alignment)
    static_assert(std::integral<std::remove_cvref_t<decltype(T::alignment(std::declval<const B&>()))>>,
                  "pto_mem::check_buffer<B>: `alignment` must return an integral byte count; specialise "
                  "pto_mem::buffer_alignment_traits<B> to convert it.");
  if constexpr (has_id)
    static_assert(
        BufferIdLike<decltype(T::id(std::declval<const B&>()))>,
        "pto_mem::check_buffer<B>: `id` must return an integer or something convertible to "
        "std::string_view; specialise pto_mem::buffer_id_traits<B>, or return pto_mem::no_id to name "
        "buffers by their position.");
  if constexpr (has_arena)
    static_assert(
        ArenaKey<decltype(T::arena(std::declval<const B&>()))>,
        "pto_mem::check_buffer<B>: `arena` must return a totally ordered, copyable key (an enum, an "
        "integer, a string); specialise pto_mem::buffer_arena_traits<B>.");
  if constexpr (has_lifetime)
    static_assert(
        Lifetime<decltype(T::lifetime(std::declval<const B&>()))>,
        "pto_mem::check_buffer<B>: `lifetime` must model pto_mem::Lifetime: integral `begin`/`end` "
        "members, a std::pair of integers, or a type with a pto_mem::lifetime_traits<L> specialisation "
        "(static Tick begin(const L&), end(const L&)); a std::pair<double, double> is none of these.");
  return Buffer<B>;
}

}  // namespace pto_mem
