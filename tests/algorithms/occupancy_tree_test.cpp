// The occupancy tree against brute force: for any window, the sets it returns
// cover exactly the bytes of the placed buffers whose windows overlap it, and
// for_each_top lists exactly those buffers' tops — whatever the leaf buckets.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <set>

#include "pto_mem/algorithms/dsa_rp/occupancy_tree.hpp"
#include "pto_mem/algorithms/dsa_rp/paired_shuffle.hpp"

using namespace pto_mem;
using dsa::OccupancyTree;
using dsa::RangeUnion;

namespace {

/// The union of ranges, merged (touching ranges fuse), as a sorted list.
std::vector<AddrRange> merged(std::vector<AddrRange> v) {
  std::sort(v.begin(), v.end());
  std::vector<AddrRange> out;
  for (const auto& r : v) {
    if (!out.empty() && r.begin <= out.back().end)
      out.back().end = std::max(out.back().end, r.end);
    else
      out.push_back(r);
  }
  return out;
}

}  // namespace

TEST_CASE("RangeUnion keeps a merged, sorted union") {
  RangeUnion u;
  u.add({10, 20});
  u.add({30, 40});
  u.add({20, 25});  // touches: fuses
  REQUIRE(u.size() == 2);
  CHECK(u[0] == AddrRange{10, 25});
  u.add({0, 5});
  u.add({4, 31});  // bridges everything
  REQUIRE(u.size() == 1);
  CHECK(u[0] == AddrRange{0, 40});
  u.add({1, 2});  // inside: no change
  CHECK(u.size() == 1);
  CHECK(u.first_ending_after(39) == 0);
  CHECK(u.first_ending_after(40) == 1);
}

TEST_CASE("occupancy tree sets equal the brute-force occupancy of every window") {
  std::mt19937_64 g(31337);
  for (int t = 0; t < 300; ++t) {
    CAPTURE(t);
    const std::size_t slots = 1 + uniform_below(g, 40);
    const std::size_t n = 1 + uniform_below(g, 60);
    std::vector<OccupancyTree::Window> windows;
    for (std::size_t i = 0; i < n; ++i) {
      const auto lo = static_cast<std::uint32_t>(uniform_below(g, slots));
      const auto hi = static_cast<std::uint32_t>(lo + 1 + uniform_below(g, slots - lo));
      windows.emplace_back(lo, hi);
    }
    const auto bucket = static_cast<std::uint32_t>(uniform_below(g, 6) == 0 ? 1000 : uniform_below(g, 8));
    OccupancyTree tree(slots, windows, bucket);
    for (bool tops : {false, true}) {
      tree.reset(tops);
      std::vector<std::uint32_t> order(n);
      for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
      paired_shuffle(order, g);
      std::vector<std::optional<AddrRange>> placed(n);
      for (std::uint32_t i : order) {
        // Query before placing i: compare with brute force.
        std::vector<const RangeUnion*> sets;
        tree.sets_for(i, sets);
        std::vector<AddrRange> got, want;
        for (const auto* s : sets)
          for (std::size_t k = 0; k < s->size(); ++k) got.push_back((*s)[k]);
        std::multiset<Addr> want_tops;
        for (std::uint32_t j = 0; j < n; ++j)
          if (placed[j] && windows[j].first < windows[i].second && windows[i].first < windows[j].second) {
            want.push_back(*placed[j]);
            want_tops.insert(placed[j]->end);
          }
        CHECK(merged(got) == merged(want));
        if (tops) {
          // Tops may repeat (a buffer reachable through two nodes); as sets they agree.
          std::set<Addr> got_tops;
          tree.for_each_top(i, [&](Addr top) { got_tops.insert(top); });
          CHECK(got_tops == std::set<Addr>(want_tops.begin(), want_tops.end()));
        }
        const Addr off = uniform_below(g, 200);
        placed[i] = AddrRange{off, off + 1 + uniform_below(g, 30)};
        tree.insert(i, *placed[i]);
      }
    }
  }
}

TEST_CASE("copies of an occupancy tree share its layout but not what is placed") {
  // Workers place different orders with copies of one tree: each copy must
  // answer for its own buffers only, however the other is filled.
  std::mt19937_64 g(4711);
  for (int t = 0; t < 50; ++t) {
    CAPTURE(t);
    const std::size_t slots = 1 + uniform_below(g, 30);
    const std::size_t n = 1 + uniform_below(g, 40);
    std::vector<OccupancyTree::Window> windows;
    for (std::size_t i = 0; i < n; ++i) {
      const auto lo = static_cast<std::uint32_t>(uniform_below(g, slots));
      windows.emplace_back(lo, static_cast<std::uint32_t>(lo + 1 + uniform_below(g, slots - lo)));
    }
    OccupancyTree original(slots, windows, static_cast<std::uint32_t>(uniform_below(g, 4)));
    original.reset(false);
    OccupancyTree copy = original;
    copy.reset(false);
    std::vector<std::optional<AddrRange>> in_original(n), in_copy(n);
    for (std::uint32_t i = 0; i < n; ++i) {
      // Only the original gets even buffers, only the copy odd ones.
      auto& tree = i % 2 == 0 ? original : copy;
      auto& placed = i % 2 == 0 ? in_original : in_copy;
      for (auto* which : {&original, &copy}) {
        const auto& mine = which == &original ? in_original : in_copy;
        std::vector<const RangeUnion*> sets;
        which->sets_for(i, sets);
        std::vector<AddrRange> got, want;
        for (const auto* s : sets)
          for (std::size_t k = 0; k < s->size(); ++k) got.push_back((*s)[k]);
        for (std::uint32_t j = 0; j < n; ++j)
          if (mine[j] && windows[j].first < windows[i].second && windows[i].first < windows[j].second)
            want.push_back(*mine[j]);
        CHECK(merged(got) == merged(want));
      }
      const Addr off = uniform_below(g, 100);
      placed[i] = AddrRange{off, off + 1 + uniform_below(g, 20)};
      tree.insert(i, *placed[i]);
    }
  }
}
