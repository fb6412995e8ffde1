// Builds the default Problem from any range of user buffers (through the
// Buffer concept) and an ArenaPolicy. The user's structs are read, not
// required to be ours; buffer i of the range becomes problem.buffers[i], so
// placement.offsets[i] answers for the user's i-th buffer.
//
// The template over the user's types only reads each object and each arena
// key into plain records (detail::ProblemRecords); building the Problem from
// them (ids, alignments, diagnostics, capacities) is one non-template
// function, compiled once in pto_mem::compiled (core/make_problem_impl.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <ranges>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "pto_mem/core/arena_policy.hpp"
#include "pto_mem/core/buffer.hpp"
#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// The arena keys of a built problem, in arena order (keys[k] is arenas[k]).
template <class Key>
struct ProblemWithKeys {
  Problem problem;
  std::vector<Key> arena_keys;
  /// For each user buffer: its index in problem.buffers, or nullopt when its
  /// arena is not planned (off-chip memory).
  std::vector<std::optional<std::size_t>> buffer_index;
  /// What the user's values get wrong that the Problem cannot show (a
  /// negative size is reported as negative here; the problem holds 0).
  Diagnostics diagnostics;
};

/// The alignment that satisfies both the buffer and its arena: their least
/// common multiple (any positive integers, not only powers of two). A zero
/// buffer alignment stays 0 so that the validator reports it.
[[nodiscard]] PTO_MEM_PLAN_INLINE Addr combined_alignment(Addr buffer, Addr arena) noexcept;

namespace detail {

/// One planned arena as the policy describes it, in key order.
struct ArenaRecord {
  std::string name;
  std::optional<Addr> capacity;  ///< nullopt: always_fitting_capacity
  /// The policy gave a negative capacity (a signed type): reported by
  /// build_problem, naming the arena; `capacity` is then nullopt.
  std::optional<std::intmax_t> negative_capacity;
  std::vector<AddrRange> reserved;
  Addr alignment = 1;
};

/// One user buffer as the traits read it.
struct BufferRecord {
  static constexpr std::size_t not_planned = static_cast<std::size_t>(-1);
  std::string name;                 ///< buffer_id_string (repeats are made unique later)
  std::int64_t size = 0;            ///< signed, so that a negative size is reported as negative
  std::int64_t alignment = 0;       ///< signed, likewise
  Addr size_bytes = 0;              ///< buffer_size: what the Problem holds
  Addr alignment_bytes = 0;         ///< buffer_alignment, before the arena's rule
  std::size_t arena = not_planned;  ///< index into ProblemRecords::arenas
  Interval lifetime;
  std::vector<Interval> live;                 ///< buffer_live (empty: the lifetime)
  std::optional<Pin> pin;                     ///< buffer_pin
  std::vector<std::size_t> candidate_arenas;  ///< indices into ProblemRecords::arenas, planned ones only
};

struct ProblemRecords {
  std::vector<ArenaRecord> arenas;
  std::vector<BufferRecord> buffers;
};

/// ProblemWithKeys without the keys.
struct BuiltProblem {
  Problem problem;
  std::vector<std::optional<std::size_t>> buffer_index;
  Diagnostics diagnostics;
};

/// The Problem the records describe: arena k has id k; a buffer's alignment
/// is combined with its arena's; repeated names become "<name>#<position>";
/// negative sizes, alignments and capacities are diagnosed; an arena without
/// a capacity gets always_fitting_capacity.
[[nodiscard]] PTO_MEM_PLAN_INLINE BuiltProblem build_problem(ProblemRecords records);

/// Puts the capacity the traits read (an optional of the policy's own number
/// type) into `r`: a negative value of a signed type is kept aside to be
/// reported, not wrapped around to a huge capacity.
template <class T>
void read_capacity(const std::optional<T>& c, ArenaRecord& r) {
  static_assert(
      whole_capacity<T>,
      "pto_mem::arena_policy_traits<P>::capacity: returns a floating-point number, but a capacity is a "
      "whole number of bytes; return std::optional<pto_mem::Addr> (nullopt: no capacity).");
  if (!c) return;
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    if (*c < 0) {
      r.negative_capacity = static_cast<std::intmax_t>(*c);
      return;
    }
  }
  if constexpr (std::is_integral_v<T>)
    r.capacity = static_cast<Addr>(*c);
  else
    r.capacity = std::optional<Addr>(*c);
}
template <class T>
void read_capacity(const T& c, ArenaRecord& r) {  // a specialised trait that returns a plain value
  read_capacity(std::optional<T>(c), r);
}

/// Reads the user's range through the traits and the policy into records
/// (and the planned arena keys, in key order).
template <class R, class Policy, class Key>
ProblemRecords read_records(const R& buffers, const Policy& policy, std::vector<Key>& keys) {
  using PT = arena_policy_traits<Policy>;
  // Every distinct key, sorted, and whether the policy plans it (asked once per key).
  std::vector<Key> seen;
  std::vector<char> planned;
  auto see = [&](const Key& k) {
    auto at = std::lower_bound(seen.begin(), seen.end(), k, std::less<Key>{});
    if (at != seen.end() && !std::less<Key>{}(k, *at)) return;
    const auto pos = at - seen.begin();
    const bool p = PT::planned(policy, k);
    seen.insert(at, k);
    planned.insert(planned.begin() + pos, p ? 1 : 0);
  };
  for (const auto& b : buffers) {
    see(buffer_arena(b));
    for_each_candidate_arena(b, [&](const auto& k) { see(static_cast<const Key&>(k)); });
  }
  ProblemRecords out;
  std::vector<std::size_t> index_of(seen.size(), BufferRecord::not_planned);
  for (std::size_t k = 0; k < seen.size(); ++k) {
    if (!planned[k]) continue;
    index_of[k] = out.arenas.size();
    ArenaRecord& a = out.arenas.emplace_back();
    a.name = PT::name(policy, seen[k]);
    read_capacity(PT::capacity(policy, seen[k]), a);
    a.reserved = PT::reserved(policy, seen[k]);
    a.alignment = PT::alignment(policy, seen[k]);
    keys.push_back(seen[k]);
  }
  std::size_t i = 0;
  for (auto it = std::ranges::begin(buffers); it != std::ranges::end(buffers); ++it, ++i) {
    const auto& b = *it;
    const auto at = std::lower_bound(seen.begin(), seen.end(), buffer_arena(b), std::less<Key>{});
    BufferRecord& r = out.buffers.emplace_back();
    r.arena = index_of[static_cast<std::size_t>(at - seen.begin())];
    if (r.arena == BufferRecord::not_planned) continue;
    r.name = buffer_id_string(b, i);
    r.size = buffer_size_signed(b);
    r.alignment = buffer_alignment_signed(b);
    r.size_bytes = buffer_size(b);
    r.alignment_bytes = buffer_alignment(b);
    r.lifetime = buffer_lifetime(b);
    r.live = buffer_live(b);
    r.pin = buffer_pin(b);
    for_each_candidate_arena(b, [&](const auto& k) {
      const auto c = std::lower_bound(seen.begin(), seen.end(), static_cast<const Key&>(k), std::less<Key>{});
      const std::size_t idx = index_of[static_cast<std::size_t>(c - seen.begin())];
      if (idx != BufferRecord::not_planned)
        r.candidate_arenas.push_back(idx);  // an unplanned candidate is not offered
    });
  }
  return out;
}

}  // namespace detail

/// Every arena key used by a buffer becomes one arena, ordered by key; arenas
/// the policy does not plan are left out together with their buffers. An arena
/// without a capacity gets always_fitting_capacity (core/problem.hpp); a
/// negative capacity (a signed type) is an error in `diagnostics` naming the
/// arena, and a floating-point capacity type does not compile. A
/// buffer without an id is named by its position in the range; repeated ids
/// get "#<position>" appended.
template <std::ranges::forward_range R, class Policy>
requires Buffer<std::ranges::range_value_t<R>> &&
    ArenaPolicy<Policy, buffer_arena_t<std::ranges::range_value_t<R>>>
[[nodiscard]] auto make_problem(const R& buffers, const Policy& policy) {
  using Key = buffer_arena_t<std::ranges::range_value_t<R>>;
  ProblemWithKeys<Key> out;
  detail::BuiltProblem built = detail::build_problem(detail::read_records(buffers, policy, out.arena_keys));
  out.problem = std::move(built.problem);
  out.buffer_index = std::move(built.buffer_index);
  out.diagnostics = std::move(built.diagnostics);
  return out;
}

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/core/make_problem_impl.hpp"
#endif
