// The front door with the 'sequential' and 'reuse' strategies: alias groups
// and declared allocations are unified for every strategy, statuses are
// honest, and user buffer types plan through a policy.
#include <doctest/doctest.h>

#include <algorithm>

#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;
using pto_mem::test::mentions;

using Offsets = std::vector<std::optional<Addr>>;

namespace {
Problem chain() {
  Problem p;
  p.arenas = {{0, "Vec", 1024, {}}};
  // a -> b -> c, each consumed by the next: no two co-live.
  p.buffers = {{"a", 64, 32, 0, {0, 2}}, {"b", 64, 32, 0, {2, 4}}, {"c", 32, 32, 0, {4, 6}}};
  return p;
}
}  // namespace

TEST_CASE("plan: the strategies are listed, typed and parsed by name") {
  const auto names = strategies();
  CHECK(std::find(names.begin(), names.end(), "sequential") != names.end());
  CHECK(std::find(names.begin(), names.end(), "reuse") != names.end());
  // The strategy is typed: `o.strategy = "nope"` does not compile; a name
  // read at run time goes through parse_strategy.
  CHECK_FALSE(parse_strategy("nope").has_value());
  CHECK(parse_strategy("reuse") == Strategy::reuse);
  for (const auto& n : names) CHECK(to_string(*parse_strategy(n)) == n);
  PlanOptions o;
  o.strategy = "sequential";  // a literal is checked while compiling
  CHECK(o.strategy == Strategy::sequential);
}

TEST_CASE("plan: sequential gives every buffer its own bytes; reuse shares the lifetime-disjoint ones") {
  PlanOptions o;
  o.strategy = "sequential";
  const auto s = plan(chain(), o);
  INFO(dump(s.diagnostics));
  REQUIRE(s.fits());
  CHECK(s.placement->offsets == Offsets{0, 64, 128});
  CHECK(s.objective.total_peak == 160);
  CHECK(s.status == Status::feasible);  // the lower bound is 64

  o.strategy = "reuse";
  const auto r = plan(chain(), o);
  REQUIRE(r.fits());
  CHECK(r.placement->offsets == Offsets{0, 0, 0});
  CHECK(r.objective.total_peak == 64);
  CHECK(r.status == Status::optimal);  // meets the max-load lower bound
}

TEST_CASE("plan: a penalty keeps 'reuse' from claiming optimality") {
  auto p = chain();
  const test::BufferIds id{p};
  p.penalties = {{id("a"), id("b"), 1}};
  PlanOptions o;
  o.strategy = "reuse";
  const auto r = plan(p, o);
  REQUIRE(r.fits());
  CHECK(r.objective.penalty == 1);  // reuse is penalty-blind: PyPTO's MemoryReuse ignores hand-offs
  CHECK(r.status == Status::feasible);
}

TEST_CASE("plan: must-alias groups and declared allocations are unified for every strategy") {
  Problem p;
  p.arenas = {{0, "Vec", 4096, {{0, 64}}}};
  p.buffers = {{"root", 128, 32, 0, {0, 4}}, {"view", 64, 32, 0, {2, 6}},  {"decl", 256, 32, 0, {0, 20}},
               {"ping", 128, 32, 0, {1, 3}}, {"pong", 128, 32, 0, {2, 5}}, {"later", 192, 32, 0, {6, 9}},
               {"last", 64, 32, 0, {9, 12}}};
  const test::BufferIds id{p};
  p.must_alias = {{{{id("root"), 0}, {id("view"), 64}}}};
  p.declared = {{id("decl"), 2, 128, {{id("ping"), 0}, {id("pong"), 1}}}};
  REQUIRE(validate(p).empty());
  for (const Strategy strategy : {Strategy::sequential, Strategy::reuse}) {
    const std::string name(to_string(strategy));
    CAPTURE(name);
    PlanOptions o;
    o.strategy = strategy;
    const auto r = plan(p, o);
    INFO(dump(r.diagnostics));
    REQUIRE(r.fits());
    const auto& off = r.placement->offsets;
    CHECK(*off[1] == *off[0] + 64);   // view keeps its offset in root's allocation
    CHECK(*off[3] == *off[2]);        // ping on slot 0
    CHECK(*off[4] == *off[2] + 128);  // pong on slot 1
    CHECK(validate(p, *r.placement).empty());
    const auto& extra = r.statistics.extra;
    CHECK(std::find(extra.begin(), extra.end(), std::pair<std::string, std::int64_t>{"allocations", 4}) !=
          extra.end());
  }
  PlanOptions o;
  o.strategy = "reuse";
  const auto r = plan(p, o);
  const auto& off = r.placement->offsets;
  // root [0,6) is done before later [6,9): they share; the declaration shares with nothing.
  CHECK(*off[5] == *off[0]);
  CHECK(*off[6] == *off[0]);  // last [9,12) touches later
  CHECK(*off[2] != *off[0]);
  CHECK(*off[0] >= 64);
}

TEST_CASE("plan: an overflow is no_fit with the arena named, not a proof") {
  auto p = chain();
  p.arenas[0].capacity = 128;
  PlanOptions o;
  o.strategy = "sequential";
  const auto r = plan(p, o);
  CHECK(r.status == Status::no_fit);
  CHECK_FALSE(r.placement);
  CHECK(mentions(r.diagnostics, "arena 0 (Vec)", "needs 160 bytes", "capacity is 128"));
  CHECK(mentions(r.diagnostics, "does not prove"));
  o.strategy = "reuse";
  CHECK(plan(p, o).status == Status::optimal);
}

TEST_CASE("plan: unification errors make the problem invalid and name the buffers") {
  auto p = chain();
  p.buffers[1].alignment = 2;
  p.buffers[0].alignment = 2;
  const test::BufferIds id{p};
  p.must_alias = {{{{id("a"), 0}, {id("b"), 1}}}};
  PlanOptions o;
  o.strategy = "reuse";
  const auto r = plan(p, o);
  CHECK(r.status == Status::invalid_input);
  CHECK(mentions(r.diagnostics, "'a'", "'b'", "cannot both be aligned"));
}

namespace {
struct Tile {
  std::string name;
  std::uint32_t bytes;
  int space;  // 0 = DDR, 1 = Vec
  std::pair<int, int> live;
};
struct TwoSpacePolicy {
  bool planned(int space) const { return space != 0; }
  std::optional<Addr> capacity(int) const { return 1024; }
  std::vector<AddrRange> reserved(int) const { return {}; }
  Addr alignment(int) const { return 32; }
  std::string name(int space) const { return space == 0 ? "DDR" : "Vec"; }
};
}  // namespace

template <>
struct pto_mem::buffer_traits<Tile> {
  static const std::string& id(const Tile& t) { return t.name; }
  static std::uint32_t size(const Tile& t) { return t.bytes; }
  static unsigned alignment(const Tile&) { return 1; }
  static int arena(const Tile& t) { return t.space; }
  static const std::pair<int, int>& lifetime(const Tile& t) { return t.live; }
};

TEST_CASE("plan: a compiler's own tiles through a policy, reuse strategy") {
  const std::vector<Tile> tiles = {
      {"x", 100, 1, {0, 2}}, {"gm", 4096, 0, {0, 9}}, {"y", 40, 1, {2, 3}}, {"z", 10, 1, {1, 3}}};
  PlanOptions o;
  o.strategy = "reuse";
  const auto r = plan(tiles, TwoSpacePolicy{}, o);
  INFO(dump(r.result.diagnostics));
  REQUIRE(r.result.fits());
  CHECK(r.offsets[0] == 0);
  CHECK_FALSE(r.offsets[1]);   // DDR is not planned
  CHECK(r.offsets[2] == 0);    // y joins x's slot
  CHECK(r.offsets[3] == 128);  // z overlaps both: its own slot, aligned to 32 after x's 100 bytes
}
