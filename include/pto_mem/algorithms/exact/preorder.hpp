// Static orders of the buffers of a subproblem. The search breaks ties
// between buffers that could sit at the same lowest offset by this order, and
// a few different orders are tried in turn (each under a growing node budget)
// because one order can be lucky where another is not. An order is spelled as
// letters, each a key compared largest-first, in MiniMalloc's notation:
//   W width (lifetime length)   A area (size x width)   T largest section total
//   Z size   L start   U end   C sections spanned   O interfering buffers
// Ties fall back to the buffer's position in the problem.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <vector>

#include "pto_mem/algorithms/exact/sections.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

struct ItemFeatures {
  Addr width = 0, area = 0, total = 0, size = 0;
  Tick start = 0, end = 0;
  std::uint64_t sections = 0, overlaps = 0;
};

/// Features of every item; `degree[i]` counts the buffers interfering with i.
[[nodiscard]] inline std::vector<ItemFeatures> item_features(const Subproblem& sp, const Sections& s,
                                                             const std::vector<std::uint64_t>& degree) {
  std::vector<Addr> total(s.count, 0);
  // Section totals by a difference array over each item's section run.
  std::vector<Addr> add(s.count + 1, 0), sub(s.count + 1, 0);
  for (std::size_t i = 0; i < sp.items.size(); ++i) {
    add[s.first[i]] = saturating_add(add[s.first[i]], sp.items[i].size);
    sub[s.last[i]] = saturating_add(sub[s.last[i]], sp.items[i].size);
  }
  Addr run = 0;
  for (std::uint32_t k = 0; k < s.count; ++k) {
    run -= std::min(run, sub[k]);  // items whose run ended before k
    run = saturating_add(run, add[k]);
    total[k] = run;
  }
  // Range maximum of section totals per item: a sparse table keeps it O(n log n).
  std::vector<std::vector<Addr>> table{total};
  for (std::size_t w = 1; (std::size_t{1} << w) <= total.size(); ++w) {
    const auto& prev = table.back();
    std::vector<Addr> next(total.size() - (std::size_t{1} << w) + 1);
    for (std::size_t k = 0; k < next.size(); ++k)
      next[k] = std::max(prev[k], prev[k + (std::size_t{1} << (w - 1))]);
    table.push_back(std::move(next));
  }
  auto range_max = [&](std::uint32_t lo, std::uint32_t hi) {
    std::size_t w = 0;
    while ((std::size_t{2} << w) <= hi - lo) ++w;
    return std::max(table[w][lo], table[w][hi - (std::size_t{1} << w)]);
  };
  std::vector<ItemFeatures> f(sp.items.size());
  for (std::size_t i = 0; i < sp.items.size(); ++i) {
    const auto& it = sp.items[i];
    f[i].width = static_cast<Addr>(it.lifetime.end - it.lifetime.begin);
    f[i].area = checked_mul(f[i].width, it.size).value_or(max_addr);
    f[i].total = range_max(s.first[i], s.last[i]);
    f[i].size = it.size;
    f[i].start = it.lifetime.begin;
    f[i].end = it.lifetime.end;
    f[i].sections = s.last[i] - s.first[i];
    f[i].overlaps = degree.empty() ? 0 : degree[i];
  }
  return f;
}

/// Sorts `items` into the order spelled by `keys` (ties: smaller index first).
inline void order_items(std::vector<std::uint32_t>& items, const std::vector<ItemFeatures>& f,
                        std::string_view keys) {
  auto cmp = [](auto x, auto y) { return x > y ? 1 : (x < y ? -1 : 0); };
  auto first = [&](std::uint32_t a, std::uint32_t b) {
    for (char c : keys) {
      int r = 0;
      switch (c) {
        case 'W': r = cmp(f[a].width, f[b].width); break;
        case 'A': r = cmp(f[a].area, f[b].area); break;
        case 'T': r = cmp(f[a].total, f[b].total); break;
        case 'Z': r = cmp(f[a].size, f[b].size); break;
        case 'L': r = cmp(f[a].start, f[b].start); break;
        case 'U': r = cmp(f[a].end, f[b].end); break;
        case 'C': r = cmp(f[a].sections, f[b].sections); break;
        case 'O': r = cmp(f[a].overlaps, f[b].overlaps); break;
        default: break;
      }
      if (r != 0) return r > 0;
    }
    return a < b;
  };
  std::sort(items.begin(), items.end(), first);
}

/// rank[i] = position of item i in the order spelled by `keys`.
[[nodiscard]] inline std::vector<std::uint32_t> preorder_ranks(const std::vector<ItemFeatures>& f,
                                                               std::string_view keys) {
  std::vector<std::uint32_t> order(f.size());
  std::iota(order.begin(), order.end(), std::uint32_t{0});
  order_items(order, f, keys);
  std::vector<std::uint32_t> rank(f.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) rank[order[k]] = k;
  return rank;
}

/// The orders the search tries in turn (MiniMalloc's three, in the order
/// that needed the fewest nodes on the minimalloc suite); the portfolio's
/// second worker starts one further down the list.
[[nodiscard]] inline const std::vector<std::string_view>& search_orders() {
  static const std::vector<std::string_view> orders{"TWA", "TAW", "WAT"};
  return orders;
}

}  // namespace pto_mem::exact
