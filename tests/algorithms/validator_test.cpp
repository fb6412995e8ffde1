#include <doctest/doctest.h>

#include <random>
#include <set>

#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;
using pto_mem::test::mentions;

namespace {
Problem base() {
  Problem p;
  p.arenas = {{0, "Vec", 256, {}}};
  p.buffers = {{"a", 64, 32, 0, {0, 4}}, {"b", 64, 32, 0, {2, 6}}, {"c", 32, 1, 0, {6, 8}}};
  return p;
}
Placement at(std::initializer_list<std::optional<Addr>> offs) { return Placement{offs}; }
}  // namespace

TEST_CASE("a well-formed problem and a valid placement produce no diagnostics") {
  auto p = base();
  CHECK(validate(p).empty());
  CHECK(validate(p, at({0, 64, 0})).empty());
}

TEST_CASE("validate(problem) names every malformed input") {
  Problem p;
  p.arenas = {{0, "Vec", 0, {{8, 4}}}, {0, "dup", 64, {{0, 128}}}};
  p.buffers = {{"a", 0, 0, 0, {3, 3}}, {"a", 8, 1, 7, {-1, 2}}, {"b", 8, 1, 0, {5, 2}}};
  const test::BufferIds id{p};
  p.separations = {{id("a"), 26}, {id("b"), id("b")}};
  p.penalties = {{id("a"), 14, 1}};
  auto ds = validate(p);
  INFO(dump(ds));
  CHECK(mentions(ds, "arena 0", "duplicate arena id"));
  CHECK(mentions(ds, "capacity is 0"));
  CHECK(mentions(ds, "reserved window [8, 4)", "empty or reversed"));
  CHECK(mentions(ds, "reserved window [0, 128)", "past the capacity 64"));
  CHECK_FALSE(mentions(ds, "duplicate id"));  // names are labels: the readers check a file's names are unique
  CHECK(mentions(ds, "'a'", "size is 0"));
  CHECK(mentions(ds, "'a'", "alignment is 0"));
  CHECK(mentions(ds, "'a'", "lifetime [3, 3)", "empty or reversed"));
  CHECK(mentions(ds, "'a'", "lifetime [-1, 2)", "negative"));
  CHECK(mentions(ds, "'b'", "lifetime [5, 2)"));
  CHECK(mentions(ds, "unknown arena 7"));
  CHECK(mentions(ds, "separation ('a', '#26')", "names buffer 26", "the problem has 3 buffers"));
  CHECK(mentions(ds, "separation", "same buffer twice"));
  CHECK(mentions(ds, "penalty ('a', '#14')", "names buffer 14", "the problem has 3 buffers"));
}

TEST_CASE(
    "a buffer's name is only a label: unnamed buffers are named by their index, repeated names are no "
    "error") {
  auto p = base();
  const test::BufferIds id{p};
  p.buffers[1].name.clear();  // buffer 1 is labelled "1"
  p.buffers[2].name = "a";    // a second 'a'
  CHECK(validate(p).empty());
  p.separations = {{id("a"), 1}};
  auto ds = validate(p, at({0, 32, 0}));
  INFO(dump(ds));
  CHECK(mentions(ds, "'a' [0, 64) live [0, 4)", "'1' [32, 96) live [2, 6)", "overlap in bytes [32, 64)"));
  p.penalties = {{1, 2, 1}};
  CHECK(validate(p).empty());
  CHECK(evaluate_objective(p, at({0, 64, 64})).penalty == 1);  // the second 'a' shares bytes with buffer 1
  p.buffers[1].size = 0;
  CHECK(mentions(validate(p), "buffer '1'", "size is 0"));
  // The separation binds the first 'a' only: the second may share buffer 1's bytes.
  p.buffers[1].size = 64;
  CHECK(validate(p, at({0, 64, 64})).empty());
}

TEST_CASE("penalties must join lifetime-compatible buffers of one arena, and weights must not overflow") {
  auto p = base();
  const test::BufferIds id{p};
  p.arenas.push_back({1, "Mat", 64, {}});
  p.buffers.push_back({"m", 8, 1, 1, {0, 1}});
  p.penalties = {
      {id("a"), id("b"), 1}, {id("a"), id("m"), 1}, {id("a"), id("c"), max_addr}, {id("a"), id("c"), 2}};
  auto ds = validate(p);
  INFO(dump(ds));
  CHECK(mentions(ds, "penalty ('a', 'b')", "live at the same time"));
  CHECK(mentions(ds, "penalty ('a', 'm')", "different arenas"));
  CHECK(mentions(ds, "overflows 64 bits"));
}

TEST_CASE("must-alias groups and declared allocations are checked") {
  auto p = base();
  const test::BufferIds id{p};
  p.must_alias = {{{{id("a"), 0}, {id("b"), 0}}}, {{{3, 0}}}};  // buffer 3 does not exist
  p.separations = {{id("a"), id("b")}};
  auto ds = validate(p);
  INFO(dump(ds));
  CHECK(mentions(ds, "must-alias group 1", "names buffer 3", "the problem has 3 buffers"));
  p.must_alias.pop_back();
  ds = validate(p);
  CHECK(mentions(ds, "separation ('a', 'b')", "must alias"));

  auto q = base();
  const test::BufferIds qid{q};
  q.buffers.push_back({"decl", 96, 32, 0, {0, 8}});
  q.declared = {{qid("decl"), 2, 64, {{qid("a"), 0}, {qid("b"), 0}, {qid("c"), 5}}}};
  ds = validate(q);
  INFO(dump(ds));
  CHECK(mentions(ds, "'decl'", "has 96 bytes but 2 slots of 64 need 128"));
  CHECK(mentions(ds, "'a' and 'b' are both bound to slot 0", "live at the same time"));
  CHECK(mentions(ds, "'c' is bound to slot 5", "only 2 slots"));
}

TEST_CASE("validate(problem, placement) reports each violation with buffers and bytes") {
  auto p = base();
  const test::BufferIds id{p};
  p.arenas[0].reserved = {{224, 256}};
  SUBCASE("missing offset") { CHECK(mentions(validate(p, at({0, std::nullopt, 0})), "'b' has no offset")); }
  SUBCASE("misaligned") {
    CHECK(mentions(validate(p, at({0, 65, 0})), "'b' at offset 65 is not aligned to 32"));
  }
  SUBCASE("capacity") {
    auto ds = validate(p, at({0, 64, 240}));
    CHECK(mentions(ds, "'c' at [240, 272) exceeds the capacity 256", "by 16 bytes"));
    CHECK(mentions(ds, "'c'", "overlaps the reserved window [224, 256)"));
  }
  SUBCASE("overflow") { CHECK(mentions(validate(p, at({0, 64, max_addr - 3})), "overflows 64 bits")); }
  SUBCASE("interference") {
    auto ds = validate(p, at({0, 32, 0}));
    INFO(dump(ds));
    CHECK(mentions(ds, "'a' [0, 64) live [0, 4)", "'b' [32, 96) live [2, 6)", "overlap in bytes [32, 64)"));
    CHECK(ds.size() == 1);  // c is not live with a: sharing bytes is fine
  }
  SUBCASE("separation") {
    p.separations = {{id("a"), id("c")}};
    CHECK(
        mentions(validate(p, at({0, 64, 32})), "separated buffers 'a'", "'c'", "overlap in bytes [32, 64)"));
  }
  SUBCASE("must-alias members share one base") {
    p.must_alias = {{{{id("a"), 0}, {id("b"), 32}}}};
    CHECK(validate(p, at({0, 32, 128})).empty());  // overlap allowed: one allocation
    CHECK(mentions(validate(p, at({0, 64, 128})), "puts the group at 32", "puts it at 0"));
  }
  SUBCASE("declared slots and closed declarations") {
    p.buffers.push_back({"decl", 64, 32, 0, {0, 8}});
    p.declared = {{id("decl"), 2, 32, {{id("c"), 1}}}};
    CHECK(validate(p, at({64, 128, 32, 0})).empty());
    CHECK(mentions(validate(p, at({64, 128, 0, 0})), "'c' at 0 is not on its slot 1 (offset 32)"));
    auto ds = validate(p, at({32, 128, 32, 0}));
    CHECK(mentions(ds, "'a' [32, 96)", "overlaps the declared allocation 'decl'"));
  }
}

TEST_CASE("property: the sweep finds exactly the overlapping co-live pairs of a brute-force check") {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 300; ++round) {
    Problem p;
    p.arenas = {{0, "", 1 << 20, {}}, {1, "", 1 << 20, {}}};
    const int n = 1 + static_cast<int>(rng() % 25);
    Placement pl;
    for (int i = 0; i < n; ++i) {
      const Tick b = static_cast<Tick>(rng() % 20);
      p.buffers.push_back({std::to_string(i),
                           1 + rng() % 40,
                           1,
                           static_cast<std::int64_t>(rng() % 2),
                           {b, b + 1 + static_cast<Tick>(rng() % 8)}});
      pl.offsets.push_back(rng() % 120);
    }
    std::size_t expected = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) {
        const auto& x = p.buffers[static_cast<std::size_t>(i)];
        const auto& y = p.buffers[static_cast<std::size_t>(j)];
        const Addr ox = *pl.offsets[static_cast<std::size_t>(i)];
        const Addr oy = *pl.offsets[static_cast<std::size_t>(j)];
        if (x.arena == y.arena && interferes(x.lifetime, y.lifetime) &&
            overlaps({ox, ox + x.size}, {oy, oy + y.size}))
          ++expected;
      }
    const auto ds = validate(p, pl);
    CHECK(ds.size() == std::min<std::size_t>(expected, 100));
  }
}

TEST_CASE("objective: peaks from reserved ends and buffer tops; penalties only when bytes overlap") {
  auto p = base();
  const test::BufferIds id{p};
  p.arenas.push_back({1, "Mat", 1000, {{0, 500}}});
  p.penalties = {{id("a"), id("c"), 3}, {id("a"), id("c"), 0}, {id("b"), id("c"), 2}};
  auto o = evaluate_objective(p, at({0, 64, 32}));
  CHECK(o.peak_by_arena == std::vector<Addr>{128, 500});
  CHECK(o.total_peak == 628);
  CHECK(o.max_peak == 500);
  CHECK(o.penalty == 3);  // c [32,64) overlaps a [0,64); b [64,128) does not touch c
}
