#include <doctest/doctest.h>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;
using pto_mem::test::mentions;

namespace {
Problem arena_of(Addr capacity = 1024) {
  Problem p;
  p.arenas = {{0, "Vec", capacity, {}}};
  return p;
}
const BufferSpec& by_name(const Problem& p, const std::string& name) {
  return p.buffers[test::buffer_id(p, name)];
}
}  // namespace

TEST_CASE("alias: a problem without groups is its own reduction") {
  auto p = arena_of();
  const test::BufferIds id{p};
  p.buffers = {{"a", 64, 32, 0, {0, 4}}, {"b", 32, 1, 0, {2, 6}}};
  p.separations = {{id("b"), id("a")}, {id("a"), id("b")}};
  p.penalties = {};
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  CHECK(u.problem.buffers.size() == 2);
  CHECK(u.problem.separations.size() == 2);  // kept as given
  CHECK(u.allocation_of == std::vector<std::size_t>{0, 1});
  CHECK(u.member_offset == std::vector<Addr>{0, 0});
  const auto back = expand_placement(u, Placement{{0, 64}});
  CHECK(back.offsets == std::vector<std::optional<Addr>>{0, 64});
}

TEST_CASE("alias: a group becomes one allocation spanning its members, offsets kept") {
  auto p = arena_of();
  const test::BufferIds id{p};
  // root r (64 B), a view v 32 B at offset 32 living later, an unrelated x.
  p.buffers = {{"x", 16, 32, 0, {0, 2}}, {"r", 64, 32, 0, {1, 3}}, {"v", 48, 32, 0, {3, 7}}};
  p.must_alias = {{{{id("r"), 0}, {id("v"), 32}}}};
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  REQUIRE(u.problem.buffers.size() == 2);
  CHECK(u.problem.buffers[0].name == "x");
  const auto& g = u.problem.buffers[1];
  CHECK(g.name == "r");  // the first member in problem order
  CHECK(g.size == 80);   // max(0 + 64, 32 + 48)
  CHECK(g.alignment == 32);
  CHECK(g.lifetime == Interval{1, 7});  // hull
  CHECK(u.allocation_of == std::vector<std::size_t>{0, 1, 1});
  CHECK(u.member_offset == std::vector<Addr>{0, 0, 32});
  const auto back = expand_placement(u, Placement{{0, 32}});
  CHECK(back.offsets == std::vector<std::optional<Addr>>{0, 32, 64});
  CHECK(validate(p, back).empty());
}

TEST_CASE("alias: groups sharing a buffer are tied together; a group may start below its members") {
  auto p = arena_of();
  const test::BufferIds id{p};
  p.buffers = {{"a", 8, 1, 0, {0, 2}}, {"b", 8, 1, 0, {0, 2}}, {"c", 8, 1, 0, {1, 4}}};
  // Group 0 starts 8 bytes below a; group 1 puts c 4 bytes above b's group start.
  p.must_alias = {{{{id("a"), 8}, {id("b"), 12}}}, {{{id("b"), 0}, {id("c"), 4}}}};
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  REQUIRE(u.problem.buffers.size() == 1);
  // Positions relative to group 0's start: a 8, b 12, c 16; the start itself is byte 0.
  CHECK(u.member_offset == std::vector<Addr>{8, 12, 16});
  CHECK(u.problem.buffers[0].size == 24);
  const auto back = expand_placement(u, Placement{{0}});
  CHECK(validate(p, back).empty());
}

TEST_CASE("alias: one buffer at two offsets is an error naming it") {
  auto p = arena_of();
  const test::BufferIds id{p};
  p.buffers = {{"a", 8, 1, 0, {0, 2}}, {"b", 8, 1, 0, {0, 2}}};
  p.must_alias = {{{{id("a"), 0}, {id("b"), 4}}}, {{{id("a"), 0}, {id("b"), 8}}}};
  const auto u = unify_aliases(p);
  INFO(dump(u.diagnostics));
  CHECK_FALSE(u.ok());
  CHECK(mentions(u.diagnostics, "'b'", "two different offsets relative to 'a'", "8 and 4 bytes",
                 "must-alias group"));
}

TEST_CASE("alias: alignment makes every member aligned, with leading bytes when needed") {
  auto p = arena_of();
  const test::BufferIds id{p};
  // root r aligned 32 at offset 0; w aligned 64 at offset 32 -> the group
  // start must sit at 32 mod 64.
  p.buffers = {{"r", 96, 32, 0, {0, 4}}, {"w", 64, 64, 0, {0, 4}}};
  p.must_alias = {{{{id("r"), 0}, {id("w"), 32}}}};
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  const auto& g = u.problem.buffers[0];
  CHECK(g.alignment == 64);
  CHECK(u.member_offset == std::vector<Addr>{32, 64});
  CHECK(g.size == 32 + 96);
  for (Addr at : {0, 64, 128}) CHECK(validate(p, expand_placement(u, Placement{{at}})).empty());

  SUBCASE("odd alignments combine by least common multiple") {
    p.buffers = {{"r", 12, 3, 0, {0, 4}}, {"w", 10, 5, 0, {0, 4}}};
    p.must_alias = {{{{id("r"), 0}, {id("w"), 2}}}};
    const auto v = unify_aliases(p);
    REQUIRE(v.ok());
    // x ≡ 0 (mod 3) and x + 2 ≡ 0 (mod 5): x ≡ 3 (mod 15).
    CHECK(v.problem.buffers[0].alignment == 15);
    CHECK(v.member_offset == std::vector<Addr>{3, 5});
    for (Addr at : {0, 15, 30}) CHECK(validate(p, expand_placement(v, Placement{{at}})).empty());
  }
  SUBCASE("contradicting offsets and alignments are an error naming both members") {
    p.buffers = {{"r", 8, 2, 0, {0, 4}}, {"w", 8, 2, 0, {0, 4}}};
    p.must_alias = {{{{id("r"), 0}, {id("w"), 1}}}};
    const auto v = unify_aliases(p);
    INFO(dump(v.diagnostics));
    CHECK_FALSE(v.ok());
    CHECK(mentions(v.diagnostics, "'r'", "'w'", "cannot both be aligned"));
  }
}

TEST_CASE("alias: a declared allocation is one closed allocation with its bindings on their slots") {
  auto p = arena_of(4096);
  const test::BufferIds id{p};
  p.buffers = {{"other", 64, 32, 0, {0, 10}},
               {"ping", 128, 32, 0, {0, 3}},
               {"buf", 256, 32, 0, {0, 10}},
               {"pong", 100, 32, 0, {2, 5}},
               {"late", 64, 32, 0, {20, 30}}};
  p.declared = {{id("buf"), 2, 128, {{id("ping"), 0}, {id("pong"), 1}}}};
  p.separations = {{id("late"), id("other"), reason_pipeline_stage}};
  REQUIRE(validate(p).empty());
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  REQUIRE(u.problem.buffers.size() == 3);
  const auto& d = u.problem.buffers[1];
  CHECK(d.name == "buf");
  CHECK(d.size == 256);
  CHECK(u.closed == std::vector<bool>{false, true, false});
  CHECK(u.member_offset[1] == 0);    // ping: slot 0
  CHECK(u.member_offset[3] == 128);  // pong: slot 1
  // Closed: it lives over the arena's whole horizon, so even `late` (never
  // co-live with it) cannot share its bytes.
  CHECK(d.lifetime == Interval{0, 30});
  REQUIRE(u.problem.separations.size() == 1);
  CHECK(buffer_label(u.problem, u.problem.separations[0].a) == "other");
  CHECK(buffer_label(u.problem, u.problem.separations[0].b) == "late");
  CHECK(u.problem.separations[0].reasons == reason_pipeline_stage);

  SUBCASE("or, on request, by separations from every other allocation (PyPTO's DSA-RP form)") {
    const auto s = unify_aliases(p, UnifyOptions{.closed_by_separations = true});
    REQUIRE(s.ok());
    CHECK(s.problem.buffers[1].lifetime == Interval{0, 10});
    REQUIRE(s.problem.separations.size() == 3);
    CHECK(buffer_label(s.problem, s.problem.separations[0].a) == "other");
    CHECK(buffer_label(s.problem, s.problem.separations[0].b) == "buf");
    CHECK(s.problem.separations[0].reasons == reason_declared_allocation);
    CHECK(buffer_label(s.problem, s.problem.separations[1].a) == "other");
    CHECK(buffer_label(s.problem, s.problem.separations[1].b) == "late");
    CHECK(s.problem.separations[1].reasons == reason_pipeline_stage);
    CHECK(buffer_label(s.problem, s.problem.separations[2].a) == "buf");
    CHECK(buffer_label(s.problem, s.problem.separations[2].b) == "late");
    CHECK(validate(s.problem).empty());
  }
  const auto back = expand_placement(u, Placement{{0, 64, 320}});
  INFO(dump(validate(p, back)));
  CHECK(validate(p, back).empty());
}

TEST_CASE("alias: a separation inside one allocation is an error naming both buffers") {
  auto p = arena_of();
  const test::BufferIds id{p};
  p.buffers = {{"a", 8, 1, 0, {0, 2}}, {"b", 8, 1, 0, {0, 2}}, {"c", 8, 1, 0, {0, 2}}};
  p.must_alias = {{{{id("a"), 0}, {id("b"), 0}}}};
  p.separations = {{id("b"), id("a")}};
  const auto u = unify_aliases(p);
  CHECK_FALSE(u.ok());
  CHECK(mentions(u.diagnostics, "separation ('b', 'a')", "must alias"));
}

TEST_CASE("alias: penalties map onto allocations, inside one dropped, duplicates added") {
  auto p = arena_of();
  const test::BufferIds id{p};
  p.buffers = {{"a", 8, 1, 0, {0, 2}},
               {"b", 8, 1, 0, {2, 4}},
               {"c", 8, 1, 0, {4, 6}},
               {"d", 8, 1, 0, {6, 8}},
               {"e", 8, 1, 0, {0, 2}}};
  p.must_alias = {{{{id("a"), 0}, {id("b"), 0}}}};  // allocation a = [0, 4)
  p.penalties = {{id("a"), id("b"), 5},             // inside one allocation: dropped
                 {id("d"), id("a"), 2},             // -> (a, d)
                 {id("b"), id("d"), 3},             // -> (a, d): 2 + 3
                 {id("c"), id("a"), 0},             // zero total: dropped
                 {id("e"), id("c"), 1},             // kept
                 {id("b"), id("e"),
                  4}};  // b and e are disjoint, but allocation a [0,4) and e [0,2) are co-live: dropped
  REQUIRE(validate(p).empty());
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  REQUIRE(u.problem.penalties.size() == 2);
  CHECK(buffer_label(u.problem, u.problem.penalties[0].a) == "a");
  CHECK(buffer_label(u.problem, u.problem.penalties[0].b) == "d");
  CHECK(u.problem.penalties[0].weight == 5);
  CHECK(buffer_label(u.problem, u.problem.penalties[1].a) == "c");
  CHECK(buffer_label(u.problem, u.problem.penalties[1].b) == "e");
  CHECK(u.problem.penalties[1].weight == 1);
  CHECK(validate(u.problem).empty());
}

TEST_CASE("alias: the reduced problem is deterministic and valid") {
  auto p = arena_of(1 << 20);
  const test::BufferIds id{p};
  p.arenas.push_back({1, "Mat", 1 << 20, {{0, 64}}});
  p.buffers = {
      {"z", 64, 32, 1, {0, 5}}, {"y", 32, 32, 1, {3, 9}}, {"x", 32, 32, 0, {0, 2}}, {"w", 64, 32, 0, {1, 3}}};
  p.must_alias = {{{{id("z"), 0}, {id("y"), 32}}}, {{{id("w"), 0}, {id("x"), 0}}}};
  p.separations = {{id("x"), id("w")}};
  CHECK_FALSE(unify_aliases(p).ok());
  p.separations.clear();
  const auto u1 = unify_aliases(p);
  const auto u2 = unify_aliases(p);
  REQUIRE(u1.ok());
  CHECK(validate(u1.problem).empty());
  CHECK(u1.problem.buffers.size() == 2);
  CHECK(by_name(u1.problem, "z").size == 64);
  CHECK(by_name(u1.problem, "x").size == 64);
  CHECK(u1.member_offset == u2.member_offset);
  CHECK(u1.allocation_of == u2.allocation_of);
}

TEST_CASE("alias: a view of a slot binding lands inside that slot; joined declarations must not overlap") {
  auto p = arena_of(4096);
  const test::BufferIds id{p};
  p.buffers = {{"d", 128, 32, 0, {0, 10}}, {"x", 64, 32, 0, {1, 4}}, {"v", 32, 16, 0, {2, 5}}};
  p.declared = {{id("d"), 2, 64, {{id("x"), 1}}}};
  p.must_alias = {{{{id("x"), 0}, {id("v"), 16}}}};
  REQUIRE(validate(p).empty());
  const auto u = unify_aliases(p);
  REQUIRE(u.ok());
  REQUIRE(u.problem.buffers.size() == 1);
  CHECK(u.member_offset == std::vector<Addr>{0, 64, 80});
  CHECK(u.closed == std::vector<bool>{true});
  CHECK(validate(p, expand_placement(u, Placement{{96}})).empty());

  SUBCASE("two declarations tied into one allocation at overlapping bytes") {
    p.buffers.push_back({"e", 64, 32, 0, {0, 10}});
    p.declared.push_back({id("e"), 1, 64, {}});
    p.must_alias.push_back({{{id("d"), 0}, {id("e"), 32}}});
    const auto w = unify_aliases(p);
    CHECK_FALSE(w.ok());
    CHECK(mentions(w.diagnostics, "declared allocations 'd' and 'e'", "overlap"));
  }
}
