// The greedy's restarts under a budget: a deadline stops
// the passes (counted, never timed), the orders are made lazily, and their
// deduplication -- once quadratic in the number of restarts -- keeps exactly
// the list a plain pairwise comparison keeps.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/dsa_rp/orders.hpp"
#include "pto_mem/algorithms/dsa_rp/paired_shuffle.hpp"
#include "pto_mem/planner.hpp"

using namespace pto_mem;

namespace {

Problem budget_random_problem(std::mt19937_64& rng, std::size_t n, bool with_penalty) {
  Problem p;
  p.arenas.push_back({0, "a", 1u << 20, {}});
  for (std::size_t i = 0; i < n; ++i) {
    const Tick b = static_cast<Tick>(rng() % 20);
    p.buffers.push_back(
        {"b" + std::to_string(i), 16 + rng() % 200, 1, 0, {b, b + 1 + static_cast<Tick>(rng() % 8)}});
  }
  if (with_penalty)  // two buffers never live at once
    for (std::size_t i = 1; i < n; ++i) {
      const auto& x = p.buffers[0].lifetime;
      const auto& y = p.buffers[i].lifetime;
      if (x.end <= y.begin || y.end <= x.begin) {
        p.penalties.push_back({0, static_cast<BufferId>(i), 3});
        break;
      }
    }
  return p;
}

std::int64_t extra(const Statistics& s, const std::string& key) {
  for (const auto& [k, v] : s.extra)
    if (k == key) return v;
  return -1;
}

}  // namespace

TEST_CASE("greedy: a deadline already past runs only the first-fit pass, and still answers") {
  std::mt19937_64 rng(7);
  for (bool penalty : {false, true}) {
    const Problem p = budget_random_problem(rng, 30, penalty);
    GreedyOptions o;
    o.restarts = 1000000000;  // a thousand million: only a budget can end this
    o.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    const GreedyResult r = canonical_greedy(p, o);
    CAPTURE(penalty);
    REQUIRE(r.placement);
    CHECK(r.status == Status::feasible);
    CHECK(r.statistics.first_fit_feasible);
    CHECK(r.statistics.orders_evaluated ==
          (p.penalties.empty() ? 1u : 0u));  // the first-fit pass is order 0 only without penalties
    CHECK(extra(r.statistics, "stopped_by_deadline") == 1);
    CHECK(validate(p, *r.placement).empty());
  }
}

TEST_CASE("greedy: without a deadline every restart runs; with a far deadline the same answer") {
  std::mt19937_64 rng(11);
  const Problem p = budget_random_problem(rng, 25, true);
  GreedyOptions plain;
  plain.restarts = 40;
  GreedyOptions far = plain;
  far.deadline = std::chrono::steady_clock::now() + std::chrono::hours(1);
  const GreedyResult a = canonical_greedy(p, plain);
  const GreedyResult b = canonical_greedy(p, far);
  REQUIRE(a.placement);
  REQUIRE(b.placement);
  CHECK(a.placement->offsets == b.placement->offsets);
  CHECK(a.orders == b.orders);
  CHECK(a.statistics.orders_evaluated == b.statistics.orders_evaluated);
  CHECK(extra(a.statistics, "stopped_by_deadline") == -1);
  CHECK(extra(b.statistics, "stopped_by_deadline") == -1);
}

TEST_CASE("plan: strategies greedy and portfolio pass their time limit to the greedy restarts") {
  std::mt19937_64 rng(3);
  const Problem p = budget_random_problem(rng, 20, false);
  for (const Strategy strategy : {Strategy::greedy, Strategy::portfolio}) {
    PlanOptions o;
    o.strategy = strategy;
    o.restarts = static_cast<std::size_t>(-1);  // would never end without the budget
    o.time_limit_s = 1e-9;                      // past before the first restart
    const PlanResult r = plan(p, o);
    CAPTURE(to_string(strategy));
    CHECK(r.placement);
    CHECK(r.stopped_by == StopReason::deadline);
  }
}

TEST_CASE("dsa orders: deduplication by key keeps exactly the pairwise-compared list") {
  std::mt19937_64 rng(5);
  for (std::size_t n : {1u, 2u, 3u, 4u, 7u}) {
    const Problem p = budget_random_problem(rng, n, n > 2);
    const dsa::SearchSpace space = dsa::build_search_space(p);
    const std::size_t restarts = 600;  // with few buffers most shuffles repeat an earlier order
    const auto fast = dsa::dsa_orders(space, 42, restarts);
    // The reference: every order made first, then each compared with all kept.
    std::vector<dsa::NamedOrder> all{{"size", dsa::size_order(space)},
                                     {"birth", dsa::birth_order(space)},
                                     {"incident-weight", dsa::incident_weight_order(space)}};
    std::mt19937_64 engine(42);
    dsa::Order working = all.back().order;
    for (std::size_t r = 1; r <= restarts; ++r) {
      paired_shuffle(working, engine);
      all.push_back({"restart " + std::to_string(r), working});
    }
    std::vector<dsa::NamedOrder> reference;
    for (auto& o : all) dsa::append_unique(reference, o.name, o.order);
    CAPTURE(n);
    REQUIRE(fast.size() == reference.size());
    for (std::size_t k = 0; k < fast.size(); ++k) {
      CHECK(fast[k].name == reference[k].name);
      CHECK(fast[k].order == reference[k].order);
    }
  }
}
