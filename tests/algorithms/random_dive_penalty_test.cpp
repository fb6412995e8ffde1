// Randomised dives on a part too large to search whose incumbent pays less
// penalty than any dive: a dive with a lower peak but a higher penalty is
// not kept (the objective is fit, penalty, peak), so it is no gain either,
// and the part runs out of dives by itself (docs/exact.md, "Randomised
// dives": "a search without any limit ends").
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pto_mem/algorithms/exact.hpp"

using namespace pto_mem;

namespace {

/// 2050 buffers live together (over 2,000,000 interfering pairs: not
/// searchable) and two large ones, X in [0, 5) and Y in [5, 10), with a
/// penalty when they share bytes. Every dive stacks X and Y on the block
/// at offsets within the block's height, so they overlap and the dive pays
/// the penalty; a bump-pointer placement pays none at a higher peak.
Problem dense_block_with_penalty() {
  Problem p;
  p.arenas = {{0, "mem", Addr{1} << 40, {}}};
  for (int i = 0; i < 2050; ++i) p.buffers.push_back({"b" + std::to_string(i), 1, 1, 0, {0, 10}});
  p.buffers.push_back({"X", 4000, 1, 0, {0, 5}});
  p.buffers.push_back({"Y", 4000, 1, 0, {5, 10}});
  const test::BufferIds id{p};
  p.penalties.push_back({id("X"), id("Y"), 1});
  return p;
}

}  // namespace

TEST_CASE(
    "randomised dives: a dive the incumbent's lower penalty rejects is no gain, and the part stops diving") {
  const Problem p = dense_block_with_penalty();
  const auto parts = exact::decompose(p);
  REQUIRE(parts.size() == 1);
  const auto& part = parts[0];
  // One lane, and two (dives k and k + 1 side by side, kept in their order).
  exact::LanePool pool;
  for (exact::LanePool* lanes : {static_cast<exact::LanePool*>(nullptr), &pool}) {
    CAPTURE(lanes != nullptr);
    exact::PartSolver s(part, 0, lanes);
    REQUIRE_FALSE(s.searchable());
    REQUIRE(part.has_penalties());
    std::vector<Addr> off(part.items.size());
    Addr at = 0;
    for (std::size_t i = 0; i < off.size(); ++i) {
      off[i] = at;
      at += part.items[i].size;
    }
    s.offer(exact::score(part, off));
    REQUIRE(s.state().best);
    REQUIRE(s.state().best->penalty == 0);
    const Addr peak = s.state().best->peak;
    const exact::Limits no_limits;
    REQUIRE(s.fit_and_penalty(no_limits));
    // Without any limit: the fixed orders' dives, the window search (nothing
    // to do with penalties), random_dive_patience randomised dives; then
    // tighten says nothing is left (70 steps when written). Before, every
    // dive's lower peak counted as a gain and it never stopped.
    int steps = 0;
    while (steps < 150 && s.tighten(no_limits)) ++steps;
    MESSAGE(steps << " steps, " << s.random_dives() << " randomised dives");
    CHECK(steps < 150);
    CHECK(s.random_dives() <= exact::random_dive_patience + 1);
    // The incumbent only ever improves in (penalty, peak): here it stays.
    CHECK(s.state().best->penalty == 0);
    CHECK(s.state().best->peak == peak);
  }
}
