#include <doctest/doctest.h>

#include "pto_mem/analysis/interference.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "test_support.hpp"

using namespace pto_mem;

namespace {
Problem one_arena(std::vector<BufferSpec> bs, Addr cap = 1000) {
  Problem p;
  p.arenas = {{0, "a", cap, {}}};
  p.buffers = std::move(bs);
  return p;
}
}  // namespace

TEST_CASE("max load counts what is live at one instant; touching lifetimes do not add") {
  auto p = one_arena({{"a", 10, 1, 0, {0, 2}}, {"b", 20, 1, 0, {2, 4}}, {"c", 5, 1, 0, {1, 3}}});
  auto loads = arena_loads(p);
  REQUIRE(loads.size() == 1);
  CHECK(loads[0].max_load == 25);  // b + c at tick 2 (a ended)
  CHECK(loads[0].max_live == 2);
  CHECK(loads[0].lower_bound == 25);
}

TEST_CASE("reserved windows raise the lower bound by their union and their end") {
  auto p = one_arena({{"a", 10, 1, 0, {0, 2}}});
  p.arenas[0].reserved = {{0, 8}, {4, 12}, {100, 110}};
  auto loads = arena_loads(p);
  CHECK(loads[0].reserved_bytes == 22);
  CHECK(loads[0].reserved_end == 110);
  CHECK(loads[0].lower_bound == 110);
  p.arenas[0].reserved = {{0, 8}};
  CHECK(arena_loads(p)[0].lower_bound == 18);
}

TEST_CASE("arenas are bounded separately") {
  Problem p;
  p.arenas = {{0, "x", 100, {}}, {1, "y", 100, {}}};
  p.buffers = {{"a", 10, 1, 0, {0, 2}}, {"b", 20, 1, 1, {0, 2}}, {"c", 30, 1, 1, {1, 2}}};
  auto loads = arena_loads(p);
  CHECK(loads[0].max_load == 10);
  CHECK(loads[1].max_load == 50);
  CHECK(loads[1].buffers == 2);
}

TEST_CASE("must-alias members count once, with the largest live member") {
  auto p = one_arena({{"root", 64, 1, 0, {0, 4}}, {"view", 32, 1, 0, {2, 6}}, {"other", 8, 1, 0, {0, 6}}});
  const test::BufferIds id{p};
  p.must_alias = {{{{id("root"), 0}, {id("view"), 32}}}};
  auto loads = arena_loads(p);
  CHECK(loads[0].max_load == 72);  // root(64) + other(8); the view shares root's storage
}

TEST_CASE("a declared allocation's bytes are closed over the whole horizon") {
  auto p = one_arena({{"decl", 64, 1, 0, {5, 6}}, {"x", 16, 1, 0, {0, 2}}});
  p.declared = {{test::buffer_id(p, "decl"), 2, 32, {}}};
  CHECK(arena_loads(p)[0].max_load == 80);
}

TEST_CASE("interfering pairs come from a sweep and match the all-pairs definition") {
  std::vector<BufferSpec> bs;
  unsigned seed = 12345;
  auto rnd = [&](int m) {
    seed = seed * 1103515245u + 12345u;
    return static_cast<int>((seed >> 16) % static_cast<unsigned>(m));
  };
  for (int i = 0; i < 200; ++i) {
    const int b = rnd(50);
    bs.push_back({std::to_string(i), 1, 1, rnd(2), {b, b + 1 + rnd(10)}});
  }
  Problem p;
  p.arenas = {{0, "", 10, {}}, {1, "", 10, {}}};
  p.buffers = bs;
  std::set<std::pair<std::size_t, std::size_t>> sweep, brute;
  for (auto [a, b] : interfering_pairs(p)) sweep.insert({std::min(a, b), std::max(a, b)});
  for (std::size_t i = 0; i < bs.size(); ++i)
    for (std::size_t j = i + 1; j < bs.size(); ++j)
      if (bs[i].arena == bs[j].arena && interferes(bs[i].lifetime, bs[j].lifetime)) brute.insert({i, j});
  CHECK(sweep == brute);
  CHECK(interfering_pairs(p).size() == brute.size());  // each pair once
}
