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
#include <vector>

#include "pto_mem/algorithms/dsa_search_space.hpp"
#include "pto_mem/algorithms/paired_shuffle.hpp"

namespace pto_mem::dsa {

using Order = std::vector<std::uint32_t>;

namespace detail {
template <class Less>
Order sorted_nodes(const SearchSpace& s, Less less) {
  Order o(s.n);
  std::iota(o.begin(), o.end(), std::uint32_t{0});
  std::sort(o.begin(), o.end(), less);
  return o;
}
}  // namespace detail

/// O1: size descending, then birth ascending, then id. Also first fit's order.
[[nodiscard]] inline Order size_order(const SearchSpace& s) {
  return detail::sorted_nodes(s, [&](std::uint32_t a, std::uint32_t b) {
    if (s.size[a] != s.size[b]) return s.size[a] > s.size[b];
    if (s.begin[a] != s.begin[b]) return s.begin[a] < s.begin[b];
    return s.rank[a] < s.rank[b];
  });
}

/// O2: birth ascending, then id.
[[nodiscard]] inline Order birth_order(const SearchSpace& s) {
  return detail::sorted_nodes(s, [&](std::uint32_t a, std::uint32_t b) {
    if (s.begin[a] != s.begin[b]) return s.begin[a] < s.begin[b];
    return s.rank[a] < s.rank[b];
  });
}

/// O3: incident soft weight descending, then size descending, then id.
[[nodiscard]] inline Order incident_weight_order(const SearchSpace& s) {
  return detail::sorted_nodes(s, [&](std::uint32_t a, std::uint32_t b) {
    if (s.incident[a] != s.incident[b]) return s.incident[a] > s.incident[b];
    if (s.size[a] != s.size[b]) return s.size[a] > s.size[b];
    return s.rank[a] < s.rank[b];
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
