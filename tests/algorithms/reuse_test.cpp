#include <doctest/doctest.h>

#include "pto_mem/algorithms/reuse.hpp"
#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {
using Members = std::vector<std::size_t>;

BufferSpec item(std::string name, Addr size, Tick b, Tick e, std::int64_t arena = 0) {
  return BufferSpec{std::move(name), size, 32, arena, {b, e}};
}
}  // namespace

TEST_CASE("reuse: first-fit-decreasing into the first slot every member allows; touching lifetimes share") {
  const std::vector<BufferSpec> items = {item("A", 64, 0, 4), item("B", 64, 4, 8), item("C", 32, 2, 6),
                                         item("D", 32, 6, 10), item("E", 16, 0, 1)};
  const auto r = reuse_lifetimes(items);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{0, 1});
  CHECK(r.slots[0].representative == 0);
  CHECK(r.slots[0].size == 64);
  CHECK(r.slots[0].lifetime == Interval{0, 8});
  // E (smallest) tries slot 0 first (A is live), then joins C's slot.
  CHECK(r.slots[1].members == Members{2, 3, 4});
  CHECK(r.slots[1].lifetime == Interval{0, 10});
  CHECK(r.slot_of == std::vector<std::size_t>{0, 0, 1, 1, 1});
}

TEST_CASE("reuse: ties in size go by lifetime begin, then index; a smaller item may join a larger slot") {
  const std::vector<BufferSpec> items = {item("late", 32, 8, 9), item("early", 32, 0, 9),
                                         item("big", 128, 9, 12)};
  const auto r = reuse_lifetimes(items);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{2, 1});  // big first; early touches it at 9
  CHECK(r.slots[1].members == Members{0});     // late overlaps early
}

TEST_CASE("reuse: arenas are packed independently, in ascending arena order") {
  const std::vector<BufferSpec> items = {item("m", 16, 0, 2, 5), item("v", 16, 2, 4, 1),
                                         item("w", 16, 0, 2, 1), item("n", 16, 2, 4, 5)};
  const auto r = reuse_lifetimes(items);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{2, 1});  // arena 1 first
  CHECK(r.slots[1].members == Members{0, 3});
}

TEST_CASE("reuse: a closed item keeps its slot; nothing joins it") {
  const std::vector<BufferSpec> items = {item("pinned", 64, 0, 2), item("x", 32, 4, 6), item("y", 32, 6, 8)};
  ReuseRules rules;
  rules.closed = {true, false, false};
  const auto r = reuse_lifetimes(items, rules);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].closed);
  CHECK(r.slots[0].members == Members{0});
  CHECK(r.slots[1].members == Members{1, 2});
}

TEST_CASE("reuse: forbidden pairs never share, in either direction") {
  const std::vector<BufferSpec> items = {item("in", 64, 0, 2), item("out", 64, 2, 4), item("next", 64, 4, 6)};
  ReuseRules rules;
  rules.forbidden = {{1, 0}};  // the op writing `out` reads `in`: no in-place
  const auto r = reuse_lifetimes(items, rules);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{0, 2});
  CHECK(r.slots[1].members == Members{1});
}

TEST_CASE("reuse: the phi-family exception lets branch-local sources of one value share") {
  // s_then and s_else feed one if-result; the result's later use keeps both
  // live to point 8, so their hulls overlap.
  const std::vector<BufferSpec> items = {item("s_then", 64, 2, 8), item("s_else", 64, 4, 8)};
  ReuseRules rules;
  rules.parts = {{{{2, 8}, {7}}}, {{{4, 8}, {7}}}};
  auto r = reuse_lifetimes(items, rules);
  CHECK(r.slots.size() == 1);

  SUBCASE("no common family: blocked") {
    rules.parts = {{{{2, 8}, {7}}}, {{{4, 8}, {9}}}};
    CHECK(reuse_lifetimes(items, rules).slots.size() == 2);
  }
  SUBCASE("a non-family part live at the same time: blocked") {
    rules.parts = {{{{2, 8}, {7}}}, {{{4, 8}, {7}}, {{5, 6}, {}}}};
    CHECK(reuse_lifetimes(items, rules).slots.size() == 2);
  }
  SUBCASE("a non-family part live at another time: allowed") {
    rules.parts = {{{{2, 5}, {7}}}, {{{4, 8}, {7}}, {{5, 6}, {}}}};
    CHECK(reuse_lifetimes(items, rules).slots.size() == 1);
  }
  SUBCASE("a third item with no family still needs disjoint lifetimes from every member") {
    const std::vector<BufferSpec> three = {item("s_then", 64, 2, 8), item("s_else", 64, 4, 8),
                                           item("z", 64, 0, 5), item("w", 64, 8, 9)};
    rules.parts = {{{{2, 8}, {7}}}, {{{4, 8}, {7}}}, {}, {}};
    const auto s = reuse_lifetimes(three, rules);
    REQUIRE(s.slots.size() == 2);
    CHECK(s.slots[0].members ==
          Members{2, 3});  // z opens; s_then and s_else are live with it; w touches s_*, z
    CHECK(s.slots[1].members == Members{0, 1});
  }
}

TEST_CASE("reuse: the caller's predicate is asked for every member of a slot") {
  const std::vector<BufferSpec> items = {item("a", 64, 0, 2), item("b", 32, 2, 4), item("c", 16, 4, 6)};
  std::vector<std::pair<std::size_t, std::size_t>> asked;
  auto stage_rule = [&](std::size_t c, std::size_t m) {
    asked.emplace_back(c, m);
    return !(c == 2 && m == 1);  // c may not share with b
  };
  const auto r = reuse_lifetimes(items, ReuseRules{}, stage_rule);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{0, 1});
  CHECK(r.slots[1].members == Members{2});
  CHECK(asked == std::vector<std::pair<std::size_t, std::size_t>>{{1, 0}, {2, 0}, {2, 1}});
}

namespace {
struct Value {
  unsigned vreg;
  std::size_t bytes;
  int bank;
  std::pair<int, int> live;  // inclusive statement points [def, last]
};
}  // namespace

template <>
struct pto_mem::buffer_traits<Value> {
  static unsigned id(const Value& v) { return v.vreg; }
  static std::size_t size(const Value& v) { return v.bytes; }
  static unsigned alignment(const Value&) { return 32; }
  static int arena(const Value& v) { return v.bank; }
  static const std::pair<int, int>& lifetime(const Value& v) { return v.live; }
};

TEST_CASE("reuse: a compiler's own value type, with inclusive [def, last] points (never-used values too)") {
  // PyPTO numbering: a value never used is [def, def]; touching is allowed.
  const std::vector<Value> values = {
      {1, 4096, 0, {0, 1}}, {2, 4096, 0, {1, 1}}, {3, 4096, 0, {2, 3}}, {4, 4096, 0, {0, 2}}};
  const auto r = reuse_lifetimes(values);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{0, 1, 2});  // [0,1], [1,1], [2,3] pairwise touch only
  CHECK(r.slots[1].members == Members{3});        // [0,2] overlaps [0,1], and [1,1] lies inside it
}

TEST_CASE("reuse: a problem's separations are forbidden pairs; slots placed sequentially validate") {
  Problem p;
  p.arenas = {{0, "Vec", 1024, {{0, 32}}}};
  p.buffers = {item("a", 64, 0, 2), item("b", 64, 2, 4), item("c", 16, 4, 6)};
  p.buffers[2].alignment = 48;
  const test::BufferIds id{p};
  p.separations = {{id("b"), id("a")}};
  const auto r = reuse_lifetimes(p);
  REQUIRE(r.slots.size() == 2);
  CHECK(r.slots[0].members == Members{0, 2});
  auto slots = shared_slot_problem(p, r);
  REQUIRE(slots.diagnostics.empty());
  CHECK(slots.problem.buffers[0].alignment == 96);  // lcm(32, 48)
  CHECK(slots.problem.buffers[0].size == 64);
  CHECK(slots.problem.buffers[0].lifetime == Interval{0, 6});
  REQUIRE(slots.problem.separations.size() == 1);
  const auto placed = place_sequential(slots.problem);
  REQUIRE(placed.placement);
  const auto pl = expand_slots(r, *placed.placement);
  INFO(dump(validate(p, pl)));
  CHECK(validate(p, pl).empty());
  CHECK(pl.offsets[0] == pl.offsets[2]);
}
