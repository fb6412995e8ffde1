// The forced-overlap penalty bound (exact/penalty_bound.hpp) against a brute
// force that tries every offset: the bound is never above the least penalty
// of a fitting placement, and the planner's proved penalty terms agree.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/exact/penalty_bound.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;

namespace {

/// The least penalty of any placement that fits (every aligned offset of
/// every buffer), or nullopt when none fits.
class LeastPenaltyBrute {
 public:
  explicit LeastPenaltyBrute(const Problem& p) : p_(p), off_(p.buffers.size(), 0) {}
  std::optional<Weight> solve() {
    dfs(0, 0);
    return best_;
  }

 private:
  bool hard(std::size_t i, std::size_t j) const {
    if (p_.buffers[i].arena != p_.buffers[j].arena) return false;
    if (interferes(p_.buffers[i].lifetime, p_.buffers[j].lifetime)) return true;
    for (const auto& s : p_.separations)
      if ((s.a == i && s.b == j) || (s.a == j && s.b == i)) return true;
    return false;
  }
  Weight paid(std::size_t i) const {  // penalties between i and the buffers before it that overlap it
    Weight w = 0;
    for (const auto& pen : p_.penalties) {
      const std::size_t a = static_cast<std::size_t>(pen.a), b = static_cast<std::size_t>(pen.b);
      const std::size_t other = a == i ? b : b == i ? a : SIZE_MAX;
      if (other == SIZE_MAX || other >= i || p_.buffers[other].arena != p_.buffers[i].arena) continue;
      if (overlaps({off_[i], off_[i] + p_.buffers[i].size},
                   {off_[other], off_[other] + p_.buffers[other].size}))
        w += pen.weight;
    }
    return w;
  }
  void dfs(std::size_t i, Weight pen) {
    if (best_ && pen >= *best_) return;
    if (i == p_.buffers.size()) {
      best_ = pen;
      return;
    }
    const auto& b = p_.buffers[i];
    const Arena* arena = nullptr;
    for (const auto& a : p_.arenas)
      if (a.id == b.arena) arena = &a;
    for (Addr x = 0; x + b.size <= arena->capacity; x += b.alignment) {
      bool ok = true;
      for (const auto& w : arena->reserved) ok = ok && !overlaps({x, x + b.size}, w);
      off_[i] = x;
      for (std::size_t j = 0; ok && j < i; ++j)
        ok = !hard(i, j) || !overlaps({x, x + b.size}, {off_[j], off_[j] + p_.buffers[j].size});
      if (ok) dfs(i + 1, pen + paid(i));
    }
  }
  const Problem& p_;
  std::vector<Addr> off_;
  std::optional<Weight> best_;
};

/// Few buffers, dense penalties, a capacity that keeps only some of them
/// apart: the bound has forced overlaps to find.
Problem crowded_problem(std::mt19937_64& rng) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  Problem p;
  Arena ar{0, "a", pick(4, 9), {}};
  if (pick(0, 3) == 0) {
    const Addr b = pick(0, ar.capacity - 2);
    ar.reserved.push_back({b, b + 1});
  }
  p.arenas.push_back(ar);
  const std::size_t n = pick(3, 8);
  static constexpr Addr aligns[] = {1, 1, 1, 2};
  for (std::size_t i = 0; i < n; ++i) {
    const Tick b = static_cast<Tick>(pick(0, 9));
    p.buffers.push_back(
        {"b" + std::to_string(i), pick(1, 4), aligns[pick(0, 3)], 0, {b, b + static_cast<Tick>(pick(1, 2))}});
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      if (interferes(p.buffers[i].lifetime, p.buffers[j].lifetime)) continue;
      const auto roll = pick(0, 9);
      if (roll < 6)
        p.penalties.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j), pick(1, 3)});
      else if (roll == 6)
        p.separations.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j)});
    }
  return p;
}

}  // namespace

TEST_CASE("the forced-overlap penalty bound is never above the brute-force least penalty") {
  std::mt19937_64 rng(20261208);
  int positive = 0, tight = 0, fitting = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const Problem p = crowded_problem(rng);
    INFO("trial " << trial);
    REQUIRE(validate(p).empty());
    const auto truth = LeastPenaltyBrute(p).solve();
    if (!truth) continue;
    ++fitting;
    Weight bound = 0;
    for (const auto& sp : exact::decompose(p)) {
      // Any target: a bound that reaches it says only "at least the target".
      for (const Weight target : {Weight{1}, Weight{2}, *truth, ~Weight{0}}) {
        const auto b = exact::penalty_lower_bound(sp, target);
        CHECK(b.value <= target);
      }
      bound += exact::penalty_lower_bound(sp, ~Weight{0}).value;
    }
    CHECK(bound <= *truth);
    positive += bound > 0;
    tight += bound > 0 && bound == *truth;

    // The planner: a proved penalty is the least, the bound below it, under
    // tiny and default budgets alike.
    for (const std::uint64_t nodes : {std::uint64_t{0}, std::uint64_t{5}}) {
      PlanOptions o;
      o.strategy = Strategy::exact;
      o.goal = Goal::fit;
      o.node_limit = nodes;
      const PlanResult r = plan(p, o);
      if (!r.placement) {  // a tiny budget may find none; then nothing is claimed
        CHECK(nodes != 0);
        CHECK_FALSE(r.proved.penalty);
        continue;
      }
      CHECK(r.proved.penalty_bound <= *truth);
      CHECK(r.objective.penalty >= *truth);
      if (r.proved.penalty) {
        CHECK(r.objective.penalty == *truth);
        CHECK(r.proved.penalty_bound == *truth);
      }
    }
  }
  // The generator must give the bound work: fits with forced overlaps, some
  // of them closed by the bound alone.
  CHECK(fitting > 300);
  CHECK(positive > 50);
  CHECK(tight > 30);
}

TEST_CASE("the penalty bound proves the least penalty of a slot puzzle the search alone finds hard") {
  // Nine lifetime-disjoint buffers of 4 bytes, pairwise penalised, in 11
  // bytes: at most two are pairwise apart anywhere (three need 12 bytes), so
  // the buffers split into two groups that each overlap pairwise -- at least
  // 6 + 10 = 16 pairs overlap. The forced-overlap bound finds exactly that.
  Problem p;
  p.arenas.push_back({0, "a", 11, {}});
  for (int i = 0; i < 9; ++i) p.buffers.push_back({"b" + std::to_string(i), 4, 1, 0, {2 * i, 2 * i + 1}});
  for (int i = 0; i < 9; ++i)
    for (int j = i + 1; j < 9; ++j)
      p.penalties.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j), 1});
  const auto parts = exact::decompose(p);
  REQUIRE(parts.size() == 1);
  const auto b = exact::penalty_lower_bound(parts[0], ~Weight{0});
  CHECK(b.value == 16);
  CHECK(b.complete);
  const PlanResult r = plan(p);
  REQUIRE(r.placement);
  CHECK(r.objective.penalty == 16);
  CHECK(r.proved.penalty);
  CHECK(r.proved.penalty_bound == 16);
}
