// Sweeps over time, the one home of their rule and their parts.
//
// Lifetimes are half-open: a buffer live over [2, 5) and one live over
// [5, 8) are never live together, so a tick-5 end and a tick-5 start do not
// meet. Every sweep here keeps that rule in one of two shapes:
//
//  * boundaries: each lifetime gives a start and an end event, visited in
//    time order with ends first at a tick (boundary_before). The max-load
//    bound sums bytes this way.
//  * starts: buffers visited in start order (per arena:
//    sort_by_arena_then_start), each meeting the ones still live when it
//    starts; LiveSweep lets go of every live buffer whose lifetime ended at
//    or before that start. Interference, the validator and the DSA-RP
//    self-check walk this way.
//
// The pieces are small on purpose: each caller keeps its own record of who
// is live (a set ordered by offset, a list), because that record is what
// makes its walk fast, and asks this header only when buffers come and go.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// The order of lifetime boundaries: by tick, and at one tick every end
/// before every start ([a, b) and [b, c) are never live together).
[[nodiscard]] constexpr bool boundary_before(Tick a, bool a_starts, Tick b, bool b_starts) noexcept {
  if (a != b) return a < b;
  return a_starts < b_starts;
}

/// Sorts buffer indices into sweep order: by arena, then lifetime start,
/// then problem position (deterministic).
inline void sort_by_arena_then_start(const Problem& p, std::vector<std::size_t>& order) {
  // Sorts copied keys: a comparator that reads two BufferSpecs per call
  // misses the cache on large problems. Same order (total).
  using Key = std::tuple<std::int64_t, Tick, std::size_t>;
  std::vector<Key> keys;
  keys.reserve(order.size());
  for (std::size_t i : order) keys.emplace_back(p.buffers[i].arena, p.buffers[i].lifetime.begin, i);
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 0; k < keys.size(); ++k) order[k] = std::get<2>(keys[k]);
}

/// The live buffers of a sweep in start order, by the tick their lifetimes
/// end: enter() each buffer after its start, and before the next one starts
/// at tick t, leave_until(t, f) calls f(id) for every buffer that ended at
/// or before t, earliest end first (ties: smaller id first). A binary heap:
/// O(log live) a buffer.
template <class Id = std::size_t>
class LiveSweep {
 public:
  void enter(Tick end, Id id) { ends_.push({end, id}); }

  template <class Leave>
  void leave_until(Tick t, Leave&& leave) {
    for (; !ends_.empty() && ends_.top().first <= t; ends_.pop()) leave(ends_.top().second);
  }

  /// Forgets every live buffer (a new arena begins).
  void clear() { ends_ = {}; }

 private:
  using Expiry = std::pair<Tick, Id>;
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> ends_;
};

}  // namespace pto_mem
