// Builds the default Problem from any range of user buffers (through the
// Buffer concept) and an ArenaPolicy. The user's structs are read, not
// required to be ours; buffer i of the range becomes problem.buffers[i], so
// placement.offsets[i] answers for the user's i-th buffer.
#pragma once

#include <algorithm>
#include <map>
#include <numeric>
#include <ranges>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/arena_policy.hpp"
#include "pto_mem/core/buffer.hpp"
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
[[nodiscard]] inline Addr combined_alignment(Addr buffer, Addr arena) noexcept {
  if (buffer == 0) return 0;
  if (arena <= 1) return buffer;
  return checked_mul(buffer / std::gcd(buffer, arena), arena).value_or(max_addr);
}

namespace detail {
/// Repeated ids become "<id>#<position>" so that distinct objects never
/// collide, whatever the user named them; unique ids are kept as they are.
inline void make_ids_unique(Problem& p, const std::vector<std::size_t>& position) {
  std::unordered_map<std::string, std::size_t> count;
  for (const auto& b : p.buffers) ++count[b.id];
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (count[p.buffers[i].id] > 1) p.buffers[i].id += "#" + std::to_string(position[i]);
}
}  // namespace detail

/// Every arena key used by a buffer becomes one arena, ordered by key; arenas
/// the policy does not plan are left out together with their buffers. An arena
/// without a capacity gets always_fitting_capacity (core/problem.hpp). A
/// buffer without an id is named by its position in the range; repeated ids
/// get "#<position>" appended.
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
  std::vector<bool> unlimited;
  for (auto& [k, id] : arena_ids) {
    id = next++;
    Arena a;
    a.id = id;
    a.name = PT::name(policy, k);
    a.reserved = PT::reserved(policy, k);
    const auto cap = PT::capacity(policy, k);
    unlimited.push_back(!cap.has_value());
    a.capacity = cap.value_or(0);  // 0 = set to always_fitting_capacity below
    out.problem.arenas.push_back(std::move(a));
    out.arena_keys.push_back(k);
  }

  std::vector<std::size_t> position;  // of each problem buffer in the range
  std::size_t i = 0;
  for (auto it = std::ranges::begin(buffers); it != std::ranges::end(buffers); ++it, ++i) {
    const auto& b = *it;
    auto found = arena_ids.find(buffer_arena(b));
    if (found == arena_ids.end()) {
      out.buffer_index.emplace_back(std::nullopt);
      continue;
    }
    const auto k = static_cast<std::size_t>(found->second);
    BufferSpec s;
    s.id = buffer_id_string(b, i);
    s.size = buffer_size(b);
    const auto arena_name = "'" + out.problem.arenas[k].name + "'";
    if (const auto v = buffer_size_signed(b); v < 0)
      out.diagnostics.push_back(error("buffer '" + s.id + "' (in arena " + arena_name + "): size is " +
                                      std::to_string(v) + ", a negative byte count; sizes must be > 0"));
    if (const auto v = buffer_alignment_signed(b); v < 0)
      out.diagnostics.push_back(error("buffer '" + s.id + "' (in arena " + arena_name + "): alignment is " +
                                      std::to_string(v) + ", a negative byte count; alignments must be > 0"));
    const Addr arena_align = PT::alignment(policy, out.arena_keys[k]);
    s.alignment = combined_alignment(buffer_alignment(b), arena_align);
    s.arena = found->second;
    s.lifetime = buffer_lifetime(b);
    out.buffer_index.emplace_back(out.problem.buffers.size());
    out.problem.buffers.push_back(std::move(s));
    position.push_back(i);
  }
  detail::make_ids_unique(out.problem, position);
  for (std::size_t k = 0; k < out.problem.arenas.size(); ++k)
    if (unlimited[k]) out.problem.arenas[k].capacity = always_fitting_capacity(out.problem, out.problem.arenas[k].id);
  return out;
}

}  // namespace pto_mem
