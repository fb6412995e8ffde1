// The shared pieces every bound, planner and check builds on, against brute
// force: the union of reserved windows, the lifetime sweep's rule, and the
// largest live member of each alias class in the max-load bound.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "pto_mem/analysis/lifetime_sweep.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/core/problem.hpp"

using namespace pto_mem;

TEST_CASE("window_union covers exactly the bytes of its windows, as the fewest sorted windows") {
  std::mt19937 g(3);
  for (int round = 0; round < 300; ++round) {
    std::vector<AddrRange> windows;
    const int n = static_cast<int>(g() % 8);
    for (int k = 0; k < n; ++k) {
      const Addr b = g() % 64, len = g() % 12;  // some empty, some touching, some overlapping
      windows.push_back({b, b + len});
    }
    std::vector<bool> byte(80, false);
    for (const auto& w : windows)
      for (Addr x = w.begin; x < w.end; ++x) byte[x] = true;
    const auto u = window_union(windows);
    std::vector<bool> covered(80, false);
    for (std::size_t k = 0; k < u.size(); ++k) {
      CHECK(!u[k].empty());
      if (k > 0) CHECK(u[k - 1].end < u[k].begin);  // sorted, disjoint, not touching
      for (Addr x = u[k].begin; x < u[k].end; ++x) covered[x] = true;
    }
    CHECK(covered == byte);
    CHECK(covered_bytes(windows) == static_cast<Addr>(std::count(byte.begin(), byte.end(), true)));
  }
}

TEST_CASE("boundary_before puts an end before a start at the same tick") {
  CHECK(boundary_before(5, false, 5, true));
  CHECK_FALSE(boundary_before(5, true, 5, false));
  CHECK(boundary_before(4, true, 5, false));
  CHECK_FALSE(boundary_before(5, false, 5, false));
}

TEST_CASE("LiveSweep lets go of every buffer that ended at or before a start, earliest first") {
  LiveSweep<int> sweep;
  sweep.enter(7, 1);
  sweep.enter(3, 2);
  sweep.enter(5, 3);
  sweep.enter(5, 0);
  std::vector<int> left;
  sweep.leave_until(5, [&](int id) { left.push_back(id); });
  CHECK(left == std::vector<int>{2, 0, 3});
  sweep.leave_until(6, [&](int id) { left.push_back(id); });
  CHECK(left.size() == 3);
  sweep.clear();
  sweep.leave_until(100, [&](int id) { left.push_back(id); });
  CHECK(left.size() == 3);
}

TEST_CASE(
    "the max-load bound takes each must-alias class's largest live member (random, against every tick)") {
  std::mt19937 g(11);
  for (int round = 0; round < 200; ++round) {
    Problem p;
    p.arenas = {{0, "a", 1 << 20, {}}};
    const int n = 1 + static_cast<int>(g() % 12);
    for (int i = 0; i < n; ++i) {
      const Tick b = g() % 20;
      p.buffers.push_back({"", 1 + g() % 50, 1, 0, {b, b + 1 + static_cast<Tick>(g() % 8)}});
    }
    // Random groups of consecutive buffers.
    std::vector<int> class_of(n, -1);
    for (int first = 0; first < n;) {
      const int len = 1 + static_cast<int>(g() % 4);
      if (len > 1 && first + len <= n) {
        MustAliasGroup group;
        for (int k = first; k < first + len; ++k) {
          group.members.push_back({static_cast<BufferId>(k), 0});
          class_of[k] = static_cast<int>(p.must_alias.size());
        }
        p.must_alias.push_back(group);
      }
      first += len;
    }
    Addr brute = 0;
    for (Tick t = 0; t < 30; ++t) {
      Addr load = 0;
      std::vector<Addr> largest(p.must_alias.size(), 0);
      for (int i = 0; i < n; ++i) {
        const auto& b = p.buffers[i];
        if (b.lifetime.begin > t || t >= b.lifetime.end) continue;
        if (class_of[i] < 0)
          load += b.size;
        else
          largest[class_of[i]] = std::max(largest[class_of[i]], b.size);
      }
      for (Addr l : largest) load += l;
      brute = std::max(brute, load);
    }
    CHECK(arena_loads(p)[0].max_load == brute);
  }
}
