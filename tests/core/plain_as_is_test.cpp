// plan() places a problem without must-alias groups, declarations or
// separations between arenas as it is, without building its unification
// (which would be the identity). The same problem with a one-member
// must-alias group added (which unifies to the same buffers, so it takes
// the unification path) must get the same placement, status and objective
// from every strategy.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

/// One or two arenas (with a capacity or without), separations inside an
/// arena, some penalties, alignments 1, 8 or 32.
Problem random_plain_problem(std::mt19937& rng) {
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  Problem p;
  const unsigned arenas = 1 + pick(2);
  for (unsigned k = 0; k < arenas; ++k)
    p.arenas.push_back({static_cast<std::int64_t>(k), "A" + std::to_string(k), 0, {}});
  const unsigned n = 3 + pick(14);
  for (unsigned i = 0; i < n; ++i) {
    BufferSpec b;
    b.size = 8 * (1 + pick(16));
    b.alignment = std::array<Addr, 3>{1, 8, 32}[pick(3)];
    b.arena = static_cast<std::int64_t>(pick(arenas));
    const Tick begin = pick(10);
    b.lifetime = {begin, begin + 1 + pick(6)};
    p.buffers.push_back(b);
  }
  // Without a capacity (the peak is minimised) or a tight one (a fit is asked for).
  for (auto& a : p.arenas) {
    a.capacity = always_fitting_capacity(p, a.id);
    if (pick(2) == 0) a.capacity = std::max<Addr>(64, a.capacity / 2);
  }
  for (unsigned k = pick(4); k > 0; --k) {
    const BufferId a = pick(n), b = pick(n);
    if (a != b && p.buffers[a].arena == p.buffers[b].arena) p.separations.push_back({a, b, reason_explicit});
  }
  for (unsigned k = pick(4); k > 0; --k) {
    const BufferId a = pick(n), b = pick(n);
    const auto &x = p.buffers[a].lifetime, &y = p.buffers[b].lifetime;
    if (a != b && (x.end <= y.begin || y.end <= x.begin)) p.penalties.push_back({a, b, 1 + pick(3)});
  }
  return p;
}

}  // namespace

TEST_CASE("a plain problem placed as is gets what its unification (the identity) gets, in every strategy") {
  std::mt19937 rng(20261208);
  for (int round = 0; round < 60; ++round) {
    const Problem p = random_plain_problem(rng);
    Problem grouped = p;
    grouped.must_alias.push_back({{{static_cast<BufferId>(rng() % p.buffers.size()), 0}}});
    for (Strategy s :
         {Strategy::sequential, Strategy::reuse, Strategy::greedy, Strategy::exact, Strategy::portfolio}) {
      CAPTURE(round);
      CAPTURE(to_string(s));
      PlanOptions o;
      o.strategy = s;
      o.threads = 1;
      const PlanResult as_is = plan(p, o);
      const PlanResult unified = plan(grouped, o);
      REQUIRE_MESSAGE(as_is.status == unified.status, (dump(as_is.diagnostics) + dump(unified.diagnostics)));
      CHECK(as_is.objective.total_peak == unified.objective.total_peak);
      CHECK(as_is.objective.penalty == unified.objective.penalty);
      REQUIRE(as_is.placement.has_value() == unified.placement.has_value());
      if (as_is.placement) {
        CHECK(as_is.placement->offsets == unified.placement->offsets);
        CHECK(as_is.placement->arenas == unified.placement->arenas);
      }
    }
  }
}
