// Builds the default Problem from any range of user buffers (through the
// Buffer concept) and an ArenaPolicy. The user's structs are read, not
// required to be ours; buffer i of the range becomes problem.buffers[i], so
// placement.offsets[i] answers for the user's i-th buffer.
#pragma once

#include <algorithm>
#include <map>
#include <numeric>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

#include "pto_mem/core/arena_policy.hpp"
#include "pto_mem/core/buffer.hpp"
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
};

/// The alignment that satisfies both the buffer and its arena: their least
/// common multiple (any positive integers, not only powers of two). A zero
/// buffer alignment stays 0 so that the validator reports it.
[[nodiscard]] inline Addr combined_alignment(Addr buffer, Addr arena) noexcept {
  if (buffer == 0) return 0;
  if (arena <= 1) return buffer;
  return checked_mul(buffer / std::gcd(buffer, arena), arena).value_or(max_addr);
}

/// Every arena key used by a buffer becomes one arena, ordered by key; arenas
/// the policy does not plan are left out together with their buffers. An arena
/// without a capacity gets one that always fits: the largest reserved end plus
/// the sum of the aligned buffer sizes (saturating).
template <std::ranges::forward_range R, class Policy>
  requires Buffer<std::ranges::range_value_t<R>> &&
           ArenaPolicy<Policy, buffer_arena_t<std::ranges::range_value_t<R>>>
[[nodiscard]] auto make_problem(const R& buffers, const Policy& policy) {
  using B = std::ranges::range_value_t<R>;
  using Key = buffer_arena_t<B>;
  using PT = arena_policy_traits<Policy>;
  ProblemWithKeys<Key> out;

  std::map<Key, std::int64_t> arena_ids;
  for (const auto& b : buffers) {
    const Key& k = buffer_arena(b);
    if (!arena_ids.contains(k) && PT::planned(policy, k)) arena_ids.emplace(k, 0);
  }
  std::int64_t next = 0;
  for (auto& [k, id] : arena_ids) {
    id = next++;
    Arena a;
    a.id = id;
    a.name = PT::name(policy, k);
    a.reserved = PT::reserved(policy, k);
    a.capacity = PT::capacity(policy, k).value_or(0);  // 0 = compute the fallback below
    out.problem.arenas.push_back(std::move(a));
    out.arena_keys.push_back(k);
  }
  std::vector<bool> unlimited(out.problem.arenas.size());
  for (std::size_t k = 0; k < out.problem.arenas.size(); ++k)
    unlimited[k] = !PT::capacity(policy, out.arena_keys[k]).has_value();
  std::vector<Addr> fallback(out.problem.arenas.size(), 0);
  for (std::size_t k = 0; k < out.problem.arenas.size(); ++k)
    for (const auto& r : out.problem.arenas[k].reserved) fallback[k] = std::max(fallback[k], r.end);

  for (const auto& b : buffers) {
    auto it = arena_ids.find(buffer_arena(b));
    if (it == arena_ids.end()) {
      out.buffer_index.emplace_back(std::nullopt);
      continue;
    }
    const auto k = static_cast<std::size_t>(it->second);
    BufferSpec s;
    s.id = buffer_id_string(b);
    s.size = buffer_size(b);
    const Addr arena_align = PT::alignment(policy, out.arena_keys[k]);
    s.alignment = combined_alignment(buffer_alignment(b), arena_align);
    s.arena = it->second;
    s.lifetime = buffer_lifetime(b);
    if (unlimited[k]) {
      const Addr padded = align_up(s.size, s.alignment).value_or(max_addr);
      fallback[k] = saturating_add(saturating_add(fallback[k], padded), s.alignment);
    }
    out.buffer_index.emplace_back(out.problem.buffers.size());
    out.problem.buffers.push_back(std::move(s));
  }
  for (std::size_t k = 0; k < out.problem.arenas.size(); ++k)
    if (unlimited[k]) out.problem.arenas[k].capacity = std::max<Addr>(fallback[k], 1);
  return out;
}

}  // namespace pto_mem
