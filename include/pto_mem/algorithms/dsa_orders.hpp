// The orders DSA-RP tries (SPEC.md §2.4): size, birth and incident-weight
// orders, then seeded restarts that shuffle the incident-weight order
// cumulatively, then deduplication. Every key ends in the buffer id, so each
// order is total and independent of the sort algorithm.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_search_space.hpp"
#include "pto_mem/algorithms/paired_shuffle.hpp"

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
  return detail::sorted_nodes(s, [&](std::uint32_t i) { return std::tuple{detail::descending(s.size[i]), s.begin[i], s.rank[i]}; });
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

/// Appends `o` unless an identical order is already listed (first wins).
inline void append_unique(std::vector<NamedOrder>& list, std::string name, Order o) {
  for (const auto& kept : list)
    if (kept.order == o) return;
  list.push_back({std::move(name), std::move(o)});
}

/// The deduplicated DSA-RP order list: O1, O2, O3, then `restarts` shuffles
/// of O3 from one mt19937_64(seed) engine; each restart shuffles the
/// previous restart's result (SPEC.md §2.4). Deduplication happens after all
/// orders are generated, so the engine draws do not depend on it.
[[nodiscard]] inline std::vector<NamedOrder> dsa_orders(const SearchSpace& s, std::uint64_t seed, std::size_t restarts) {
  std::vector<NamedOrder> all;
  all.push_back({"size", size_order(s)});
  all.push_back({"birth", birth_order(s)});
  all.push_back({"incident-weight", incident_weight_order(s)});
  std::mt19937_64 engine(seed);
  Order working = all.back().order;
  for (std::size_t r = 1; r <= restarts; ++r) {
    paired_shuffle(working, engine);
    all.push_back({"restart " + std::to_string(r), working});
  }
  std::vector<NamedOrder> unique;
  for (auto& o : all) append_unique(unique, std::move(o.name), std::move(o.order));
  return unique;
}

}  // namespace pto_mem::dsa
