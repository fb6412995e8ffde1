// Budgets at their extremes and what stopped a search: every strategy
// honours the time limit and a caller's stop, huge limits mean none, a time
// limit alone is the whole budget, and PlanResult::stopped_by says why a run
// ended.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "pto_mem/algorithms/reuse.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/core/search_control.hpp"
#include "pto_mem/planner.hpp"

namespace {

/// `n` random buffers with no capacity: the peak is minimised.
pto_mem::Problem random_problem(std::size_t n, std::uint64_t seed, pto_mem::Addr capacity = 0) {
  std::mt19937_64 g(seed);
  pto_mem::Problem p;
  p.arenas.push_back({0, "a", 0, {}});
  for (std::size_t i = 0; i < n; ++i) {
    const auto begin = static_cast<pto_mem::Tick>(g() % (n / 2 + 1));
    const auto length = static_cast<pto_mem::Tick>(1 + g() % 30);
    p.buffers.push_back({"b" + std::to_string(i), 32 * (1 + g() % 100), 32, 0, {begin, begin + length}});
  }
  p.arenas[0].capacity = capacity ? capacity : pto_mem::always_fitting_capacity(p, 0);
  return p;
}

}  // namespace

TEST_CASE("deadline_after: no deadline for 0, negative, NaN, infinite and huge budgets, exact for the rest") {
  using Clock = std::chrono::steady_clock;
  const auto now = Clock::now();
  for (double s : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e9, 1e10, 1e300})
    CHECK(pto_mem::deadline_after(now, s) == Clock::time_point::max());
  CHECK(pto_mem::deadline_after(now, 1.5) == now + std::chrono::milliseconds(1500));
  CHECK(pto_mem::deadline_after(now, 1e8) > now + std::chrono::hours(24 * 365));
}

TEST_CASE("a NaN or negative time limit is invalid input, a huge one is no limit") {
  const auto p = random_problem(60, 1);
  for (double bad : {std::nan(""), -1.0, -1e-9}) {
    pto_mem::PlanOptions o;
    o.time_limit_s = bad;
    const auto r = pto_mem::plan(p, o);
    CHECK(r.status == pto_mem::Status::invalid_input);
    CHECK_FALSE(r.diagnostics.empty());
  }
  pto_mem::PlanOptions none;
  none.node_limit = 0;
  const auto reference = pto_mem::plan(p, none);
  REQUIRE(reference.fits());
  CHECK(reference.stopped_by == pto_mem::StopReason::completed);
  for (double huge : {1e10, 1e300, std::numeric_limits<double>::infinity()}) {
    CAPTURE(huge);
    pto_mem::PlanOptions o;
    o.time_limit_s = huge;  // alone: the whole budget, so no node limit either
    const auto r = pto_mem::plan(p, o);
    REQUIRE(r.fits());
    CHECK(r.stopped_by == pto_mem::StopReason::completed);
    CHECK(r.placement->offsets == reference.placement->offsets);
  }
}

TEST_CASE("a node limit that runs out is reported as such, with the best placement so far") {
  const auto p = random_problem(3000, 2);
  pto_mem::PlanOptions o;
  o.node_limit = 3;
  const auto r = pto_mem::plan(p, o);
  REQUIRE(r.fits());
  CHECK(r.status == pto_mem::Status::feasible);
  CHECK(r.stopped_by == pto_mem::StopReason::node_limit);
  CHECK(pto_mem::validate_placement(p, *r.placement).empty());
}

TEST_CASE("a stop requested before the run: every strategy ends at once, interrupted, with a valid answer") {
  const auto p = random_problem(2000, 3);
  for (auto strategy : {pto_mem::Strategy::greedy, pto_mem::Strategy::exact, pto_mem::Strategy::portfolio,
                        pto_mem::Strategy::reuse}) {
    CAPTURE(std::string(pto_mem::to_string(strategy)));
    std::stop_source stop;
    stop.request_stop();
    pto_mem::PlanOptions o;
    o.strategy = strategy;
    o.node_limit = 0;
    o.stop = stop.get_token();
    const auto r = pto_mem::plan(p, o);
    CHECK(r.stopped_by == pto_mem::StopReason::interrupted);
    CHECK_FALSE(pto_mem::is_error(r.status));
    if (r.placement) CHECK(pto_mem::validate_placement(p, *r.placement).empty());
  }
}

TEST_CASE("reuse honours its deadline: what is left when it passes keeps bytes of its own") {
  const auto p = random_problem(500, 4);
  const auto full = pto_mem::reuse_lifetimes(p);
  CHECK_FALSE(full.cut_short);
  pto_mem::ReuseCut past;
  past.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  const auto cut = pto_mem::reuse_lifetimes(p, {}, past);
  CHECK(cut.cut_short);
  CHECK(cut.slots.size() == p.buffers.size());  // the first check comes before the first item: nothing shared
  CHECK(full.slots.size() < p.buffers.size());

  pto_mem::PlanOptions o;
  o.strategy = pto_mem::Strategy::reuse;
  o.time_limit_s = 1e-9;  // passed before the packing starts
  const auto r = pto_mem::plan(p, o);
  REQUIRE(r.fits());  // no capacity: every placement fits
  CHECK(r.stopped_by == pto_mem::StopReason::deadline);
  CHECK(pto_mem::validate_placement(p, *r.placement).empty());
}

TEST_CASE("progress reports carry the penalty, never a peak below the proved bound, and end at the answer") {
  auto p = random_problem(80, 5);
  for (std::size_t i = 0; i + 1 < p.buffers.size(); i += 7)
    if (!pto_mem::interferes(p.buffers[i].lifetime, p.buffers[i + 1].lifetime))
      p.penalties.push_back({static_cast<pto_mem::BufferId>(i), static_cast<pto_mem::BufferId>(i + 1), 3});
  std::vector<pto_mem::SearchProgress> seen;
  pto_mem::PlanOptions o;
  o.progress = [&](const pto_mem::SearchProgress& s) { seen.push_back(s); };
  const auto r = pto_mem::plan(p, o);
  REQUIRE(r.fits());
  REQUIRE_FALSE(seen.empty());
  for (const auto& s : seen) {
    CHECK(s.best_peak > 0);
    CHECK(s.proved_bound <= s.best_peak);
    CHECK(s.gap() >= 0.0);
  }
  CHECK(seen.back().best_peak == r.objective.total_peak);
  CHECK(seen.back().best_penalty == r.objective.penalty);
}
