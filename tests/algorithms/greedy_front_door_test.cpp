// The `greedy` strategy through pto_mem::plan: options mapping, statistics,
// the pipeline relaxation and PH-DSA-001, honest statuses.
#include <doctest/doctest.h>

#include <algorithm>

#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;
using pto_mem::test::mentions;

namespace {
Problem three_in_128() {
  Problem p;
  p.arenas = {{0, "Vec", 128, {}}};
  p.buffers = {{"0", 64, 32, 0, {0, 2}}, {"1", 64, 32, 0, {2, 4}}, {"2", 64, 32, 0, {3, 5}}};
  return p;
}
bool has_code(const Diagnostics& ds, const std::string& code) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.code == code; });
}
}  // namespace

TEST_CASE("greedy is a listed strategy and plans through the front door") {
  const auto names = strategies();
  CHECK(std::find(names.begin(), names.end(), "greedy") != names.end());
  auto p = three_in_128();
  PlanOptions o;
  o.strategy = "greedy";
  const auto r = plan(p, o);
  INFO(dump(r.diagnostics));
  REQUIRE(r.fits());
  CHECK(r.status == Status::optimal);  // peak 128 = lower bound, no penalty
  CHECK(r.strategy == "greedy");
  CHECK(r.statistics.orders_evaluated >= 1);
  CHECK(r.statistics.first_fit_feasible);
  CHECK(validate(p, *r.placement).empty());
  REQUIRE(r.lower_bound.size() == 1);
  CHECK(r.lower_bound[0] == 128);
}

TEST_CASE("compat options reach the solver: S8 needs restarts to reach peak 12") {
  Problem p;
  p.arenas = {{0, "pool", 13, {}}};
  p.buffers = {
      {"0", 5, 1, 0, {4, 8}}, {"1", 5, 1, 0, {5, 8}}, {"2", 2, 1, 0, {5, 8}}, {"3", 6, 1, 0, {3, 5}}};
  PlanOptions o;
  o.strategy = "greedy";
  o.compat_pypto = true;
  auto r = plan(p, o);
  REQUIRE(r.fits());
  CHECK(r.objective.max_peak == 12);
  CHECK(r.statistics.orders_evaluated == 5);
  CHECK(r.statistics.candidates_evaluated == 40);
  CHECK(r.statistics.selected_order == 1);
  o.restarts = 0;
  r = plan(p, o);
  REQUIRE(r.fits());
  CHECK(r.objective.max_peak == 13);
  CHECK(r.placement->offsets == std::vector<std::optional<Addr>>{6, 0, 11, 0});
}

TEST_CASE("the front door relaxes pipeline-only separations, validates against what was solved, and hints") {
  auto p = three_in_128();
  const test::BufferIds id{p};
  p.separations = {{id("0"), id("1"), reason_pipeline_stage}, {id("0"), id("2"), reason_semantic_no_alias}};
  PlanOptions o;
  o.strategy = "greedy";
  o.compat_pypto = true;
  const auto r = plan(p, o);
  INFO(dump(r.diagnostics));
  REQUIRE(r.fits());
  CHECK(r.status == Status::feasible);  // a relaxed pair is paid for
  CHECK(r.objective.penalty == 1);
  CHECK(has_code(r.diagnostics, "PH-DSA-001"));
  CHECK_FALSE(has_errors(r.diagnostics));
  // The strict problem is not satisfied (the pair overlaps); the relaxed one is.
  CHECK_FALSE(validate(p, *r.placement).empty());
  CHECK(validate(relax_separations_to_penalties(p, pipeline_pairs(p), 1), *r.placement).empty());
}

TEST_CASE("a bounded-search failure is no_fit, worded as such") {
  auto p = three_in_128();
  const test::BufferIds id{p};
  p.separations = {{id("0"), id("1")}, {id("0"), id("2")}};
  PlanOptions o;
  o.strategy = "greedy";
  const auto r = plan(p, o);
  CHECK(r.status == Status::no_fit);
  CHECK_FALSE(r.placement);
  CHECK(mentions(r.diagnostics, "does not prove"));
  for (const auto& d : r.diagnostics) CHECK(d.message.find("infeasible") == std::string::npos);
}

TEST_CASE("greedy plans must-alias groups and declared allocations through alias unification") {
  auto p = three_in_128();
  const test::BufferIds id{p};
  p.arenas[0].capacity = 256;
  p.must_alias = {{{{id("0"), 0}, {id("1"), 0}}}};  // one allocation live [0, 4)
  p.buffers.push_back({"decl", 64, 32, 0, {0, 5}});
  p.buffers.push_back({"slot1", 32, 32, 0, {1, 2}});
  p.declared = {{id("decl"), 2, 32, {{id("slot1"), 1}}}};
  PlanOptions o;
  o.strategy = "greedy";
  const auto r = plan(p, o);
  INFO(dump(r.diagnostics));
  REQUIRE(r.fits());
  CHECK(validate(p, *r.placement).empty());
  CHECK(*r.placement->offsets[0] == *r.placement->offsets[1]);
  CHECK(*r.placement->offsets[4] == *r.placement->offsets[3] + 32);

  // The solver itself still refuses them: unification belongs to the front door.
  GreedyOptions direct;
  const auto g = canonical_greedy(p, direct);
  CHECK(g.status == Status::unsupported);
  CHECK(mentions(g.diagnostics, "must-alias", "unify"));
}

TEST_CASE("invalid problems stop before the solver") {
  auto p = three_in_128();
  p.buffers[0].size = 0;
  PlanOptions o;
  o.strategy = "greedy";
  const auto r = plan(p, o);
  CHECK(r.status == Status::invalid_input);
  CHECK(r.statistics.orders_evaluated == 0);
}
