// The front door over a user's own objects: per-property traits with
// defaults, constraints naming the objects, offsets written back, typed
// strategies, deterministic fast defaults, and errors that say what to fix.
#include <doctest/doctest.h>

#include <cstdint>
#include <list>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "pto_mem/planner.hpp"
#include "test_support.hpp"

namespace fd {
enum class Space { ub, l1, gm };  // gm: off-chip
// Other member names and integer types; inclusive last use; no id at all.
struct Tile {
  std::int32_t bytes = 0;
  std::int32_t first = 0, last = 0;
  Space space = Space::ub;
  std::optional<std::uint32_t> offset;  // written back by plan()
};
// Only what differs from the defaults: no reserved(), no alignment().
struct Chip {
  pto_mem::Addr ub = 1024;
  bool planned(Space s) const { return s != Space::gm; }
  std::optional<pto_mem::Addr> capacity(Space s) const {
    if (s == Space::ub) return ub;
    return std::nullopt;  // L1: no limit, its peak is minimised
  }
  std::string name(Space s) const { return s == Space::ub ? "UB" : s == Space::l1 ? "L1" : "GM"; }
};
// A type that already has `size`, `arena` and `lifetime`-like members except one.
struct Value {
  std::uint64_t size = 0;
  int arena = 0;
  int def = 0, last_use = 0;
};
}  // namespace fd

template <>
struct pto_mem::buffer_size_traits<fd::Tile> {
  static std::int32_t get(const fd::Tile& t) { return t.bytes; }
};
template <>
struct pto_mem::buffer_arena_traits<fd::Tile> {
  static fd::Space get(const fd::Tile& t) { return t.space; }
};
template <>
struct pto_mem::buffer_lifetime_traits<fd::Tile> {
  static std::pair<int, int> get(const fd::Tile& t) { return {t.first, t.last + 1}; }
};
// Value: only the lifetime is spelt differently; size, arena and (default) alignment are read as they are.
template <>
struct pto_mem::buffer_lifetime_traits<fd::Value> {
  static std::pair<int, int> get(const fd::Value& v) { return {v.def, v.last_use + 1}; }
};

static_assert(pto_mem::check_buffer<fd::Tile>());
static_assert(pto_mem::check_buffer<fd::Value>());
static_assert(pto_mem::check_policy<fd::Chip, fd::Space>());
static_assert(pto_mem::Buffer<fd::Value>);

using pto_mem::Addr;
using pto_mem::test::mentions;

namespace {
bool apart(const fd::Tile& a, const fd::Tile& b) {
  return *a.offset + static_cast<Addr>(a.bytes) <= *b.offset ||
         *b.offset + static_cast<Addr>(b.bytes) <= *a.offset;
}
}  // namespace

TEST_CASE("front door: constraints name the user's objects, offsets are written back") {
  using fd::Space;
  std::vector<fd::Tile> tiles = {
      {256, 0, 1, Space::ub, {}},   // 0: q
      {256, 2, 3, Space::ub, {}},   // 1: k (lifetime-disjoint from q)
      {128, 0, 3, Space::ub, {}},   // 2: whole
      {64, 0, 3, Space::ub, {}},    // 3: half, aliased into whole at 64
      {512, 0, 9, Space::l1, {}},   // 4: weights
      {4096, 0, 9, Space::gm, {}},  // 5: off-chip
  };
  auto& q = tiles[0];
  auto& k = tiles[1];
  pto_mem::Constraints<fd::Tile> c;
  c.separate(q, k).alias({tiles[2], {tiles[3], 64}});
  const auto plan = pto_mem::plan(tiles, fd::Chip{}, c, {}, &fd::Tile::offset);
  INFO(pto_mem::test::dump(plan.result.diagnostics));
  REQUIRE(plan.fits());
  for (std::size_t i = 0; i < 5; ++i) {
    REQUIRE(tiles[i].offset.has_value());
    CHECK(plan.offsets[i] == Addr{*tiles[i].offset});
  }
  CHECK_FALSE(tiles[5].offset.has_value());  // off-chip: never placed
  CHECK(apart(q, k));                        // the separation holds though their lifetimes are disjoint
  CHECK(*tiles[3].offset == *tiles[2].offset + 64);
  CHECK(apart(q, tiles[2]));
  // Ids: none given, so each buffer is named by its place in the range.
  CHECK(pto_mem::buffer_label(plan.model.problem, 0) == "0");
  CHECK(plan.model.problem.arenas[0].name == "UB");
}

TEST_CASE("front door: a callback receives offsets; any forward range; penalties and declarations") {
  using fd::Space;
  std::list<fd::Tile> tiles;
  for (int i = 0; i < 4; ++i) tiles.push_back({100, i, i, Space::ub, {}});  // all disjoint in time
  tiles.push_back({200, 0, 3, Space::ub, {}});  // the declaration (2 slots of 100)
  auto it = tiles.begin();
  const fd::Tile& a = *it++;
  const fd::Tile& b = *it++;
  const fd::Tile& x = *it++;
  const fd::Tile& y = *it++;
  const fd::Tile& ring = *it;
  pto_mem::Constraints<fd::Tile> c;
  c.penalise(a, b, 5).declare(ring, 2, 100, {{x, 0}, {y, 1}});
  std::vector<std::pair<const fd::Tile*, Addr>> seen;
  const auto plan = pto_mem::plan(tiles, fd::Chip{}, c, pto_mem::PlanOptions{},
                                  [&](const fd::Tile& t, Addr off) { seen.emplace_back(&t, off); });
  INFO(pto_mem::test::dump(plan.result.diagnostics));
  REQUIRE(plan.fits());
  REQUIRE(seen.size() == 5);
  auto off = [&](const fd::Tile& t) {
    for (const auto& [p, o] : seen)
      if (p == &t) return o;
    FAIL("no offset");
    return Addr{0};
  };
  CHECK(off(x) == off(ring));
  CHECK(off(y) == off(ring) + 100);
  CHECK(plan.result.objective.penalty == 0);  // a and b were kept apart: there is room
  CHECK((off(a) + 100 <= off(b) || off(b) + 100 <= off(a)));
}

TEST_CASE("front door: a constraint naming a copy, not an element, is an error that says so") {
  std::vector<fd::Tile> tiles = {{64, 0, 1, fd::Space::ub, {}}, {64, 0, 1, fd::Space::ub, {}}};
  const fd::Tile copy = tiles[0];
  pto_mem::Constraints<fd::Tile> c;
  c.separate(copy, tiles[1]);
  const auto plan = pto_mem::plan(tiles, fd::Chip{}, c);
  CHECK(plan.result.status == pto_mem::Status::invalid_input);
  CHECK(mentions(plan.result.diagnostics, "separation #0", "not an element", "not copies"));
  CHECK_FALSE(plan.offsets[0].has_value());
}

TEST_CASE("front door: one customisation point per property, the rest default") {
  const std::vector<fd::Value> values = {{64, 0, 0, 2}, {32, 0, 1, 3}, {16, 1, 0, 0}};
  const auto plan = pto_mem::plan(values, pto_mem::UnboundedArenaPolicy{});
  REQUIRE(plan.fits());
  CHECK(plan.model.problem.buffers[0].lifetime ==
        pto_mem::Interval{0, 3});                       // inclusive last use read by the trait
  CHECK(plan.model.problem.buffers[0].alignment == 1);  // default alignment
  CHECK(plan.model.problem.arenas.size() == 2);
  CHECK(plan.model.problem.arenas[1].name == "arena1");
  // A BufferSpec's name is its id through the front door; repeated ones
  // never collide: they are told apart by position.
  const std::vector<pto_mem::BufferSpec> once = {{"t", 8, 1, 0, {0, 2}}, {"u", 8, 1, 0, {1, 3}}};
  const auto kept = pto_mem::plan(once, pto_mem::UnboundedArenaPolicy{});
  REQUIRE(kept.fits());
  CHECK(kept.model.problem.buffers[0].name == "t");
  CHECK(kept.model.problem.buffers[1].name == "u");
  const std::vector<pto_mem::BufferSpec> named = {{"t", 8, 1, 0, {0, 2}}, {"t", 8, 1, 0, {1, 3}}};
  const auto twice = pto_mem::plan(named, pto_mem::UnboundedArenaPolicy{});
  REQUIRE(twice.fits());
  CHECK(twice.model.problem.buffers[0].name == "t#0");
  CHECK(twice.model.problem.buffers[1].name == "t#1");
}

TEST_CASE("front door: a negative size is reported as negative, with the arena's name") {
  std::vector<fd::Tile> tiles = {{-5, 0, 1, fd::Space::ub, {}}, {64, 0, 1, fd::Space::ub, {}}};
  const auto plan = pto_mem::plan(tiles, fd::Chip{}, {}, {}, &fd::Tile::offset);
  CHECK(plan.result.status == pto_mem::Status::invalid_input);
  CHECK(mentions(plan.result.diagnostics, "buffer '0'", "'UB'", "size is -5"));
  CHECK_FALSE(tiles[1].offset.has_value());  // nothing is written unless the plan fits
}

TEST_CASE("status: invalid_input, unsupported and internal_error are told apart") {
  using pto_mem::Status;
  for (Status s : {Status::invalid_input, Status::unsupported, Status::internal_error}) {
    CHECK(pto_mem::is_error(s));
    CHECK(pto_mem::status_from_string(pto_mem::to_string(s)) == s);
  }
  CHECK_FALSE(pto_mem::is_error(Status::no_fit));
  pto_mem::Problem p;
  p.arenas = {{0, "Vec", 64, {}}};
  p.buffers = {{"a", 0, 1, 0, {0, 2}}};
  CHECK(pto_mem::plan(p).status == Status::invalid_input);
}

TEST_CASE("a max-load no-fit says at which program point which live buffers need how many bytes") {
  pto_mem::Problem p;
  p.arenas = {{0, "UB", 10000, {{0, 1000}}}};
  p.buffers = {{"a", 4000, 1, 0, {0, 20}},
               {"b", 5000, 1, 0, {10, 30}},
               {"c", 5080, 1, 0, {17, 18}},
               {"d", 9000, 1, 0, {40, 50}}};
  for (pto_mem::Strategy s :
       {pto_mem::Strategy::sequential, pto_mem::Strategy::greedy, pto_mem::Strategy::portfolio}) {
    pto_mem::PlanOptions o;
    o.strategy = s;
    const auto r = pto_mem::plan(p, o);
    CHECK(r.status == pto_mem::Status::infeasible);  // a proof, whatever the strategy
    CHECK(mentions(r.diagnostics, "arena 'UB'", "at program point 17", "a, b, c need 14,080 bytes",
                   "(+ 1,000 reserved)", "capacity 10,000", "max-load bound"));
  }
}

namespace {
// A 200-buffer kernel: random lifetimes and sizes in one arena with a capacity.
std::vector<pto_mem::BufferSpec> kernel(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<pto_mem::BufferSpec> out;
  for (int i = 0; i < 200; ++i) {
    const auto begin = static_cast<pto_mem::Tick>(g() % 400);
    const auto len = static_cast<pto_mem::Tick>(1 + g() % 40);
    out.push_back({"t" + std::to_string(i), 32 * (1 + g() % 64), 32, 0, {begin, begin + len}});
  }
  return out;
}
}  // namespace

TEST_CASE("defaults: deterministic (a node budget, no clock, one thread) and the same answer every run") {
  const pto_mem::PlanOptions d;
  CHECK(d.strategy == pto_mem::Strategy::portfolio);
  CHECK(d.time_limit_s == 0);
  CHECK_FALSE(d.node_limit.has_value());  // the default budget, scaled with the problem
  CHECK_FALSE(d.threads.has_value());     // one search thread; two for the greedy's passes
  CHECK(pto_mem::default_node_limit(200) == 250000);
  CHECK(pto_mem::default_node_limit(2000) == 250000);
  CHECK(pto_mem::default_node_limit(10000) == 50000);
  CHECK(pto_mem::default_node_limit(100000) == 20000);
  CHECK(pto_mem::default_node_limit(1000000) == 2000);
  for (std::size_t n = 1; n < 10000000; n = n * 3 / 2 + 1)  // never grows with the problem
    CHECK(pto_mem::default_node_limit(n + 1) <= pto_mem::default_node_limit(n));
  CHECK_FALSE(d.goal.has_value());
  const auto buffers = kernel(7);
  const auto unbounded = pto_mem::plan(buffers, pto_mem::UnboundedArenaPolicy{32});
  REQUIRE(unbounded.fits());
  const auto again = pto_mem::plan(buffers, pto_mem::UnboundedArenaPolicy{32});
  CHECK(again.offsets == unbounded.offsets);
  // The search stayed within the node budget (no clock involved).
  for (const auto& [key, value] : unbounded.result.statistics.extra)
    if (key == "exact_nodes")
      CHECK(static_cast<std::uint64_t>(value) <= pto_mem::default_node_limit(buffers.size()));
}

TEST_CASE("defaults: the goal is the question the problem asks, as in the tool") {
  const auto buffers = kernel(11);
  // No capacity anywhere: the peak is minimised (the exact stage runs unless the greedy is at the bound).
  const auto model = pto_mem::make_problem(buffers, pto_mem::UnboundedArenaPolicy{32});
  pto_mem::Problem capped = model.problem;
  capped.arenas[0].capacity = capped.arenas[0].capacity - 1;  // now a capacity of its own: a fit suffices
  const auto fit = pto_mem::plan(capped);
  REQUIRE(fit.fits());
  pto_mem::PlanOptions fit_asked;
  fit_asked.goal = pto_mem::Goal::fit;
  const auto explicit_fit = pto_mem::plan(capped, fit_asked);
  CHECK(fit.placement->offsets == explicit_fit.placement->offsets);
  const auto minimised = pto_mem::plan(model.problem);
  pto_mem::PlanOptions min_asked;
  min_asked.goal = pto_mem::Goal::minimise;
  CHECK(pto_mem::plan(model.problem, min_asked).placement->offsets == minimised.placement->offsets);
}

TEST_CASE("options: the progress callback reports the best peak and the proved bound; a stop is honoured") {
  const auto buffers = kernel(3);
  std::vector<pto_mem::SearchProgress> seen;
  pto_mem::PlanOptions o;
  o.goal = pto_mem::Goal::minimise;
  o.progress = [&](const pto_mem::SearchProgress& p) { seen.push_back(p); };
  const auto r = pto_mem::plan(buffers, pto_mem::UnboundedArenaPolicy{32}, o);
  REQUIRE(r.fits());
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back().best_peak == r.result.objective.total_peak);
  for (const auto& p : seen) CHECK(p.proved_bound <= p.best_peak);
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i].best_peak <= seen[i - 1].best_peak);

  std::stop_source stop;
  stop.request_stop();  // stopped before it starts: the greedy placement comes back, unproved
  pto_mem::PlanOptions s;
  s.goal = pto_mem::Goal::minimise;
  s.node_limit = 0;
  s.stop = stop.get_token();
  const auto stopped = pto_mem::plan(buffers, pto_mem::UnboundedArenaPolicy{32}, s);
  CHECK(stopped.fits());
}
