// The HazardRoute concept: which hardware pipe touches a buffer at an access,
// so a planner can price a physical reuse that makes two pipes wait on each
// other. Unknown routes price nothing (the reuse-penalty recognizer reads
// "no pipe" as "do not penalise").
#pragma once

#include <concepts>
#include <optional>

namespace pto_mem {

/// What an operation does to the memory of an operand or result.
enum class AccessEvidence {
  no_access,   ///< metadata only (views, allocation markers): no pipe touches memory
  functional,  ///< a real read or write by the pipe the route names
  unknown,     ///< cannot tell: the buffer is poisoned for pricing
};

/// Customisation point; the primary template forwards to members
/// `evidence(op)` and `pipe(op)` and the nested `pipe_type`.
template <class R>
struct hazard_route_traits {
  using pipe_type = typename R::pipe_type;
  template <class Op>
  static AccessEvidence evidence(const R& r, const Op& op) requires requires {
    { r.evidence(op) } -> std::convertible_to<AccessEvidence>;
  }
  { return r.evidence(op); }
  template <class Op>
  static std::optional<pipe_type> pipe(const R& r, const Op& op) requires requires {
    { r.pipe(op) } -> std::convertible_to<std::optional<pipe_type>>;
  }
  { return r.pipe(op); }
};

/// Pipes are small opaque values (an enum is typical); totally ordered so
/// that the recognizer buckets them in a deterministic order.
template <class R, class Op>
concept HazardRoute = requires(const R& r, const Op& op) {
  typename hazard_route_traits<R>::pipe_type;
  requires std::totally_ordered<typename hazard_route_traits<R>::pipe_type>;
  { hazard_route_traits<R>::evidence(r, op) } -> std::same_as<AccessEvidence>;
  {
    hazard_route_traits<R>::pipe(r, op)
    } -> std::same_as<std::optional<typename hazard_route_traits<R>::pipe_type>>;
};

}  // namespace pto_mem
