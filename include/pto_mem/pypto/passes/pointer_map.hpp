// A flat hash map keyed by pointer identity (variables, MemRefs), for the
// passes' per-variable tables. std::unordered_map allocates a node per entry;
// on a 10k-statement kernel those allocations were most of InferTileMemory-
// Space's and InitMemRef's time (bench/pypto_pipeline_bench.cpp). Open
// addressing with linear probing, power-of-two capacity, at most half full;
// no erase (the passes never remove an entry). Iteration order is the slot
// order, which depends on addresses: use it only where order does not matter.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace pto_mem::pypto {

template <class K, class V>
class PointerMap {
  static_assert(std::is_pointer_v<K>, "PointerMap is keyed by pointers");

 public:
  PointerMap() = default;
  explicit PointerMap(std::size_t expected) { reserve(expected); }

  [[nodiscard]] std::size_t size() const noexcept { return size_ + (null_ ? 1 : 0); }
  [[nodiscard]] bool empty() const noexcept { return size() == 0; }

  void reserve(std::size_t n) {
    std::size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }

  // The lookups are forced inline and their rare paths (the null key, growing)
  // kept out of line: called, with the growth path inlined, try_emplace spent
  // more instructions saving and restoring registers than probing (callgrind,
  // 10k-statement pipeline).

  /// The value of `k`, or null.
  [[nodiscard, gnu::always_inline]] V* find(K k) noexcept {
    if (!k) [[unlikely]]
      return null_ ? &*null_ : nullptr;
    if (slots_.empty()) return nullptr;
    for (std::size_t i = index(k);; i = (i + 1) & mask()) {
      if (slots_[i].first == k) return &slots_[i].second;
      if (!slots_[i].first) return nullptr;
    }
  }
  [[nodiscard]] const V* find(K k) const noexcept { return const_cast<PointerMap*>(this)->find(k); }
  [[nodiscard]] bool contains(K k) const noexcept { return find(k) != nullptr; }

  /// Inserts (k, v) unless k is present; the entry and whether it is new.
  [[gnu::always_inline]] std::pair<V*, bool> try_emplace(K k, V v = V{}) {
    if (!k) [[unlikely]]
      return emplace_null(std::move(v));
    if (2 * (size_ + 1) > slots_.size()) [[unlikely]]
      grow();
    for (std::size_t i = index(k);; i = (i + 1) & mask()) {
      if (slots_[i].first == k) return {&slots_[i].second, false};
      if (!slots_[i].first) {
        slots_[i] = {k, std::move(v)};
        ++size_;
        return {&slots_[i].second, true};
      }
    }
  }
  V& operator[](K k) { return *try_emplace(k).first; }
  /// Inserts or overwrites.
  void set(K k, V v) { *try_emplace(k).first = std::move(v); }

  /// Calls fn(key, value) on every entry.
  template <class F>
  void for_each(F&& fn) const {
    if (null_) fn(K{}, *null_);
    for (const auto& s : slots_)
      if (s.first) fn(s.first, s.second);
  }

 private:
  [[nodiscard]] std::size_t mask() const noexcept { return slots_.size() - 1; }
  [[nodiscard]] std::size_t index(K k) const noexcept {
    // Fibonacci hashing of the address (objects are at least 8-byte aligned).
    const auto a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(k));
    return static_cast<std::size_t>(((a >> 3) * 0x9E3779B97F4A7C15ull) >> 20) & mask();
  }
  /// The null key lives beside the table (a null slot marks a free one).
  [[gnu::noinline]] std::pair<V*, bool> emplace_null(V v) {
    if (null_) return {&*null_, false};
    null_.emplace(std::move(v));
    return {&*null_, true};
  }
  [[gnu::noinline]] void grow() { rehash(slots_.empty() ? 16 : 2 * slots_.size()); }
  /// Moves every entry into a table of `cap` slots, in slot order and with
  /// the probing try_emplace does (so the new slot order is the one
  /// re-inserting would give), without its duplicate and growth checks.
  void rehash(std::size_t cap) {
    std::vector<std::pair<K, V>> old(cap);
    old.swap(slots_);
    const std::size_t m = mask();
    for (auto& s : old)
      if (s.first) {
        std::size_t i = index(s.first);
        while (slots_[i].first) i = (i + 1) & m;
        slots_[i] = {s.first, std::move(s.second)};
      }
  }

  std::vector<std::pair<K, V>> slots_;
  std::size_t size_ = 0;   ///< entries in slots_
  std::optional<V> null_;  ///< the null key's value
};

/// A set of pointers.
template <class K>
class PointerSet {
 public:
  /// True when `k` was not in the set.
  bool insert(K k) { return map_.try_emplace(k, true).second; }
  [[nodiscard]] bool contains(K k) const noexcept { return map_.contains(k); }
  [[nodiscard]] std::size_t size() const noexcept { return map_.size(); }
  void reserve(std::size_t n) { map_.reserve(n); }

 private:
  PointerMap<K, bool> map_;
};

}  // namespace pto_mem::pypto
