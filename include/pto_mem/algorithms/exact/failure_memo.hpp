// Learning from failed subtrees: a table of search states whose subtree was
// searched to the end without a fit, so that the same state reached along
// another path (the same blocks stacked in another order) is not searched
// again. docs/exact.md ("Failure memo") proves when a state may be looked up:
// a state is the set U of unplaced buffers of the current piece with the
// lowest offset m(u) of each, the piece (its buffers, hence its static ranks)
// and the run (capacity, penalty budget, order); two nodes with the same
// state have the same canonical completions, and a subtree that failed under
// key k also fails under any later key.
//
// A state is stored as a 128-bit hash (two independent 64-bit sums of mixed
// (buffer, m) terms), so a lookup costs O(1) and the table a fixed number of
// bytes. Two different states share a hash with probability about 2^-128 per
// pair -- a wrong "no fit" would need such a collision between states of one
// run; the table holds at most 2^20 states.
#pragma once

#include <cstdint>
#include <vector>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem::exact {

/// A 128-bit state hash; sums of terms, so a state is updated term by term.
struct StateHash {
  std::uint64_t a = 0, b = 0;
  friend bool operator==(const StateHash&, const StateHash&) = default;
  void add(const StateHash& t) noexcept {
    a += t.a;
    b += t.b;
  }
  void sub(const StateHash& t) noexcept {
    a -= t.a;
    b -= t.b;
  }
};

[[nodiscard]] inline std::uint64_t mix64(std::uint64_t z) noexcept {  // splitmix64's finaliser
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The half of state_term that depends on the item alone (the search keeps
/// it per item and finishes the term with state_term_from).
[[nodiscard]] inline std::uint64_t state_item_hash(std::uint64_t tag, std::uint64_t item) noexcept {
  return mix64(tag ^ (item * 0xD6E8FEB86659FD93ull));
}
[[nodiscard, gnu::always_inline]] inline StateHash state_term_from(std::uint64_t item_hash,
                                                                   std::uint64_t m) noexcept {
  const std::uint64_t k = mix64(item_hash ^ m);
  return {mix64(k ^ 0x243F6A8885A308D3ull), mix64(k ^ 0x13198A2E03707344ull)};
}
/// The term of "buffer `item` is unplaced with lowest offset `m`" (tag
/// separates kinds of terms: buffers of the state, buffers of a piece).
[[nodiscard]] inline StateHash state_term(std::uint64_t tag, std::uint64_t item, std::uint64_t m) noexcept {
  return state_term_from(state_item_hash(tag, item), m);
}

/// Failed states, each with the least key (offset, rank) under which its
/// subtree failed and the static order that ranked it. A failure under
/// (x, r) in one order implies one under every key with a higher offset in
/// any order, and under every later key in the same order. Direct-mapped: a
/// new failure replaces an older one in its slot (forgetting is always
/// safe), so the table never grows; it is allocated at the first store.
class FailureMemo {
 public:
  /// One stored failure, as a log keeps it (part_solver.hpp hands the
  /// failures one lane learned to the other).
  struct Entry {
    StateHash hash;
    Addr x;
    std::uint64_t order;
    std::int32_t r;
  };
  /// When set, every failure stored is also appended here.
  std::vector<Entry>* log = nullptr;

  /// Sized for a part of `items` buffers: 64 slots a buffer, 2^10 to 2^18
  /// slots (32 bytes each).
  explicit FailureMemo(std::size_t items = 0) {
    std::size_t want = std::size_t{1} << 10;
    while (want < (std::size_t{1} << 18) && want < 64 * items) want <<= 1;
    mask_ = want - 1;
  }

  /// True when state `h` is known to fail below the key (x, r) of order `order`.
  [[nodiscard]] bool failed(const StateHash& h, Addr x, std::int64_t r, std::uint64_t order) const noexcept {
    if (slots_.empty()) return false;
    const Slot& s = slots_[h.a & mask_];
    return s.epoch == epoch_ && s.hash == h && covers(s, x, r, order);
  }

  /// State `h`'s subtree below the key (x, r) of order `order` was searched
  /// to the end without a fit.
  void store(const StateHash& h, Addr x, std::int64_t r, std::uint64_t order) {
    if (slots_.empty()) slots_.resize(mask_ + 1);
    Slot& s = slots_[h.a & mask_];
    if (s.epoch == epoch_ && s.hash == h && covers(s, x, r, order)) return;  // already knows as much
    s = {h, x, order, static_cast<std::int32_t>(r), epoch_};
    if (log) log->push_back({h, x, order, static_cast<std::int32_t>(r)});
  }
  void store(const Entry& e) { store(e.hash, e.x, e.r, e.order); }

  /// Forgets everything (in O(1): entries of older epochs are ignored).
  void clear() noexcept { ++epoch_; }

 private:
  struct Slot {
    StateHash hash;
    Addr x = 0;
    std::uint64_t order = 0;
    std::int32_t r = 0;       // ranks are below the part's size (at most 20000 buffers) or -1
    std::uint32_t epoch = 0;  // the entry holds only when this is the table's epoch
  };
  [[nodiscard]] static bool covers(const Slot& s, Addr x, std::int64_t r, std::uint64_t order) noexcept {
    return s.x < x || (s.x == x && s.order == order && s.r <= r);
  }
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::uint32_t epoch_ = 1;
};

}  // namespace pto_mem::exact
