// The Buffer concept: one allocation request (size, alignment, arena,
// lifetime, identity). Read through buffer_traits so a compiler's own struct
// models it without being copied into ours.
#pragma once

#include <concepts>
#include <string>
#include <string_view>
#include <type_traits>

#include "pto_mem/core/lifetime.hpp"
#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

/// Customisation point. The primary template reads data members named `id`,
/// `size`, `alignment`, `arena` and `lifetime`. Specialise it for other shapes:
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
  static constexpr decltype(auto) id(const B& b)
    requires requires { b.id; }
  {
    return (b.id);
  }
  static constexpr auto size(const B& b)
    requires requires { requires std::integral<std::remove_cvref_t<decltype(b.size)>>; }
  {
    return b.size;
  }
  static constexpr auto alignment(const B& b)
    requires requires { requires std::integral<std::remove_cvref_t<decltype(b.alignment)>>; }
  {
    return b.alignment;
  }
  static constexpr decltype(auto) arena(const B& b)
    requires requires { b.arena; }
  {
    return (b.arena);
  }
  static constexpr decltype(auto) lifetime(const B& b)
    requires requires { requires Lifetime<std::remove_cvref_t<decltype(b.lifetime)>>; }
  {
    return (b.lifetime);
  }
};

/// Buffer ids are integers or strings; either way they are reported by name.
template <class T>
concept BufferIdLike =
    std::integral<std::remove_cvref_t<T>> || std::convertible_to<const T&, std::string_view>;

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

/// The id of a buffer as text, the form every diagnostic and file uses.
template <Buffer B>
[[nodiscard]] std::string buffer_id_string(const B& b) {
  const auto& id = buffer_traits<B>::id(b);
  if constexpr (std::integral<std::remove_cvref_t<decltype(id)>>) {
    return std::to_string(id);
  } else {
    return std::string(std::string_view(id));
  }
}

/// Size and alignment as byte counts. A negative value from a signed user
/// type becomes 0, which the validator then rejects by name.
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

}  // namespace pto_mem
