// The orders DSA-RP tries: size, birth and incident-weight
// orders, then seeded restarts that shuffle the incident-weight order
// cumulatively, then deduplication. Every key ends in the buffer id, so each
// order is total and independent of the sort algorithm.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/paired_shuffle.hpp"
#include "pto_mem/algorithms/dsa_rp/search_space.hpp"

namespace pto_mem::dsa {

using Order = std::vector<std::uint32_t>;

namespace detail {
/// The nodes sorted by key(node) ascending. Sorting copies of the keys
/// beats a comparator that reads three arrays at random (100k nodes: a
/// third of the time). Every key ends in the id rank, so the order is total
/// and does not depend on the sort algorithm.
template <class Key>
Order sorted_nodes(const SearchSpace& s, Key key) {
  using Entry = std::pair<decltype(key(std::uint32_t{0})), std::uint32_t>;
  std::vector<Entry> entries(s.n);
  for (std::uint32_t i = 0; i < s.n; ++i) entries[i] = Entry{key(i), i};
  std::sort(entries.begin(), entries.end());
  Order o(s.n);
  for (std::size_t k = 0; k < s.n; ++k) o[k] = entries[k].second;
  return o;
}
/// Descending as an ascending key.
[[nodiscard]] constexpr std::uint64_t descending(std::uint64_t v) noexcept { return ~v; }
}  // namespace detail

/// O1: size descending, then birth ascending, then id. Also first fit's order.
[[nodiscard]] inline Order size_order(const SearchSpace& s) {
  return detail::sorted_nodes(s, [&](std::uint32_t i) {
    return std::tuple{detail::descending(s.size[i]), s.begin[i], s.rank[i]};
  });
}

/// O2: birth ascending, then id.
[[nodiscard]] inline Order birth_order(const SearchSpace& s) {
  return detail::sorted_nodes(s, [&](std::uint32_t i) { return std::pair{s.begin[i], s.rank[i]}; });
}

/// O3: incident soft weight descending, then size descending, then id.
[[nodiscard]] inline Order incident_weight_order(const SearchSpace& s) {
  return detail::sorted_nodes(s, [&](std::uint32_t i) {
    return std::tuple{detail::descending(s.incident[i]), detail::descending(s.size[i]), s.rank[i]};
  });
}

/// A named order; `name` is what reports show for the selected order.
struct NamedOrder {
  std::string name;
  Order order;
};

/// Two independent 64-bit hashes of an order: deduplication compares these
/// instead of every order with every order before it (which made R restarts
/// cost O(R^2) comparisons). Two different orders share both with
/// probability about 2^-128.
[[nodiscard]] inline std::pair<std::uint64_t, std::uint64_t> order_key(const Order& o) noexcept {
  std::uint64_t h1 = 0xcbf29ce484222325ull;  // FNV-1a
  std::uint64_t h2 = 0x9e3779b97f4a7c15ull ^ o.size();
  for (std::uint32_t i : o) {
    h1 = (h1 ^ i) * 0x100000001b3ull;
    h2 = (h2 ^ (i + 0x7f4a7c15u)) * 0xff51afd7ed558ccdull;  // a second multiplier, a second offset
    h2 ^= h2 >> 29;
  }
  return {h1, h2};
}

/// The deduplicated DSA-RP orders one at a time: O1, O2, O3, then
/// `restarts` shuffles of O3 from one mt19937_64(seed) engine, each
/// shuffling the previous restart's result. An order equal to
/// an earlier one is skipped (first wins); the engine draws do not depend
/// on that. Orders are made only when asked for, so a caller with a time
/// budget stops generating when it stops placing, and memory stays O(n)
/// whatever the number of restarts.
class OrderStream {
 public:
  OrderStream(const SearchSpace& s, std::uint64_t seed, std::size_t restarts)
      : space_(s), engine_(seed), restarts_(restarts) {}

  /// The next order not seen before, or nullopt after the last restart.
  [[nodiscard]] std::optional<NamedOrder> next() {
    while (true) {
      NamedOrder o;
      if (fixed_ == 0)
        o = {"size", size_order(space_)};
      else if (fixed_ == 1)
        o = {"birth", birth_order(space_)};
      else if (fixed_ == 2) {
        o = {"incident-weight", incident_weight_order(space_)};
        working_ = o.order;
      } else if (restart_ < restarts_) {
        ++restart_;
        paired_shuffle(working_, engine_);
        o = {"restart " + std::to_string(restart_), working_};
      } else {
        return std::nullopt;
      }
      if (fixed_ < 3) ++fixed_;
      if (seen_.insert(order_key(o.order)).second) {
        ++produced_;
        return o;
      }
    }
  }

  /// `o` under `name` unless it equals an order produced before.
  [[nodiscard]] std::optional<NamedOrder> extra(std::string name, Order o) {
    if (!seen_.insert(order_key(o)).second) return std::nullopt;
    return NamedOrder{std::move(name), std::move(o)};
  }

  /// Orders next() has returned so far.
  [[nodiscard]] std::size_t produced() const noexcept { return produced_; }

 private:
  const SearchSpace& space_;
  std::mt19937_64 engine_;
  std::size_t restarts_;
  std::size_t restart_ = 0;
  int fixed_ = 0;
  std::size_t produced_ = 0;
  Order working_;
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen_;
};

/// Appends `o` unless an identical order is already listed (first wins).
inline void append_unique(std::vector<NamedOrder>& list, std::string name, Order o) {
  for (const auto& kept : list)
    if (kept.order == o) return;
  list.push_back({std::move(name), std::move(o)});
}

/// Every order of OrderStream at once (tests and small callers).
[[nodiscard]] inline std::vector<NamedOrder> dsa_orders(const SearchSpace& s, std::uint64_t seed,
                                                        std::size_t restarts) {
  std::vector<NamedOrder> unique;
  OrderStream stream(s, seed, restarts);
  while (auto o = stream.next()) unique.push_back(std::move(*o));
  return unique;
}

}  // namespace pto_mem::dsa
