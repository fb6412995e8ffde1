// The exact search against a brute-force enumerator that tries every offset
// (not only canonical ones), so it also checks the canonical-completeness
// argument with alignment, reserved windows, separations and penalties.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "guillotine.hpp"
#include "pto_mem/algorithms/exact.hpp"
#include "pto_mem/algorithms/exact/free_space.hpp"
#include "pto_mem/algorithms/exact/sections.hpp"
#include "pto_mem/algorithms/exact/skyline_dive.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/portfolio.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;
using pto_mem::test::mentions;

namespace {

using Triple = std::tuple<Weight, Addr, Addr>;  // penalty, total peak, max peak (Objective's order)

Triple exact_triple(const Objective& o) { return {o.penalty, o.total_peak, o.max_peak}; }

/// Every offset of every buffer, depth first, pruned only by validity and by
/// the partial objective (which only grows). Returns the least objective.
class BruteForce {
 public:
  explicit BruteForce(const Problem& p)
      : p_(p), index_(p), off_(p.buffers.size(), 0), set_(p.buffers.size(), false) {}

  std::optional<Triple> solve() {
    std::vector<Addr> peak(p_.arenas.size(), 0);
    for (std::size_t a = 0; a < p_.arenas.size(); ++a)
      for (const auto& w : p_.arenas[a].reserved) peak[a] = std::max(peak[a], w.end);
    dfs(0, 0, peak);
    return best_;
  }

 private:
  bool conflict(std::size_t i, std::size_t j) const {
    const auto& a = p_.buffers[i];
    const auto& b = p_.buffers[j];
    if (a.arena != b.arena) return false;
    if (interferes(a.lifetime, b.lifetime)) return true;
    for (const auto& s : p_.separations)
      if ((s.a == i && s.b == j) || (s.a == j && s.b == i)) return true;
    return false;
  }
  static Triple score(Weight pen, const std::vector<Addr>& peak) {
    Addr total = 0, mx = 0;
    for (Addr x : peak) {
      total += x;
      mx = std::max(mx, x);
    }
    return {pen, total, mx};
  }
  void dfs(std::size_t i, Weight pen, std::vector<Addr>& peak) {
    if (best_ && score(pen, peak) >= *best_) return;
    if (i == p_.buffers.size()) {
      best_ = score(pen, peak);
      return;
    }
    const auto& b = p_.buffers[i];
    const std::size_t a = *index_.arena(b.arena);
    const Arena& arena = p_.arenas[a];
    for (Addr x = 0; x + b.size <= arena.capacity; x += b.alignment) {
      bool ok = true;
      for (const auto& w : arena.reserved) ok = ok && !overlaps({x, x + b.size}, w);
      for (std::size_t j = 0; j < i && ok; ++j)
        if (conflict(i, j) && overlaps({x, x + b.size}, {off_[j], off_[j] + p_.buffers[j].size})) ok = false;
      if (!ok) continue;
      Weight add = 0;
      for (const auto& pn : p_.penalties) {
        const std::size_t u = pn.a, v = pn.b;
        const std::size_t other = u == i ? v : (v == i ? u : SIZE_MAX);
        if (other == SIZE_MAX || other >= i) continue;
        if (overlaps({x, x + b.size}, {off_[other], off_[other] + p_.buffers[other].size})) add += pn.weight;
      }
      off_[i] = x;
      const Addr old = peak[a];
      peak[a] = std::max(peak[a], x + b.size);
      dfs(i + 1, pen + add, peak);
      peak[a] = old;
    }
  }

  const Problem& p_;
  ProblemIndex index_;
  std::vector<Addr> off_;
  std::vector<bool> set_;
  std::optional<Triple> best_;
};

/// Small random problems: 1-2 arenas, odd alignments, a reserved window,
/// separations and penalties; sizes and capacities small enough to enumerate.
Problem exact_random_problem(std::mt19937_64& rng, std::size_t max_buffers) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  Problem p;
  const std::size_t arenas = pick(1, 4) == 4 ? 2 : 1;
  for (std::size_t a = 0; a < arenas; ++a) {
    Arena ar{static_cast<std::int64_t>(a), "a" + std::to_string(a), pick(5, 12), {}};
    if (pick(0, 2) == 0) {
      const Addr b = pick(0, ar.capacity - 2);
      ar.reserved.push_back({b, b + pick(1, 2)});
    }
    p.arenas.push_back(ar);
  }
  const std::size_t n = pick(1, max_buffers);
  static constexpr Addr aligns[] = {1, 1, 1, 2, 3, 4};
  for (std::size_t i = 0; i < n; ++i) {
    const Tick b = static_cast<Tick>(pick(0, 5));
    p.buffers.push_back({"b" + std::to_string(i),
                         pick(1, 4),
                         aligns[pick(0, 5)],
                         static_cast<std::int64_t>(pick(0, arenas - 1)),
                         {b, b + static_cast<Tick>(pick(1, 3))}});
  }
  for (std::size_t k = pick(0, 2); k > 0 && n > 1; --k) {
    const auto i = pick(0, n - 1), j = pick(0, n - 1);
    if (i != j && p.buffers[i].arena == p.buffers[j].arena)
      p.separations.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j)});
  }
  for (std::size_t k = pick(0, 6); k > 0 && n > 1; --k) {
    const auto i = pick(0, n - 1), j = pick(0, n - 1);
    if (i != j && p.buffers[i].arena == p.buffers[j].arena &&
        !interferes(p.buffers[i].lifetime, p.buffers[j].lifetime))
      p.penalties.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j), pick(1, 5)});
  }
  return p;
}

/// Problems rich in identical buffers (same size, alignment, lifetime) whose
/// separations and penalties are often mirrored, so that the twin symmetry
/// breaking applies with links; and penalty pairs heavy enough to act as
/// separations when the budget is small, with buffers live across their gap.
Problem twin_problem(std::mt19937_64& rng, std::size_t max_buffers) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  Problem p;
  Arena ar{0, "a", pick(6, 12), {}};
  if (pick(0, 3) == 0) ar.reserved.push_back({0, pick(1, 2)});
  p.arenas.push_back(ar);
  static constexpr Addr aligns[] = {1, 1, 2, 3};
  struct Shape {
    Addr size, align;
    Interval life;
  };
  std::vector<Shape> shapes;
  for (std::size_t k = pick(2, 4); k > 0; --k) {
    const Tick b = static_cast<Tick>(pick(0, 6));
    shapes.push_back({pick(1, 3), aligns[pick(0, 3)], {b, b + static_cast<Tick>(pick(1, 4))}});
  }
  const std::size_t n = pick(2, max_buffers);
  for (std::size_t i = 0; i < n; ++i) {
    const Shape& sh = shapes[pick(0, shapes.size() - 1)];
    p.buffers.push_back({"b" + std::to_string(i), sh.size, sh.align, 0, sh.life});
  }
  auto disjoint = [&](std::size_t i, std::size_t j) {
    return !interferes(p.buffers[i].lifetime, p.buffers[j].lifetime);
  };
  for (std::size_t k = pick(0, 4); k > 0; --k) {
    const auto i = pick(0, n - 1), j = pick(0, n - 1), m = pick(0, n - 1);
    if (i == j) continue;
    const bool sep = pick(0, 2) == 0;
    const Weight w = pick(1, 3);
    // Mirror the link from i onto a twin of i (m) half of the time.
    for (std::size_t from : {i, m}) {
      if (from == j || (from == m && (pick(0, 1) == 0 || m == i))) continue;
      if (sep)
        p.separations.push_back({static_cast<BufferId>(from), static_cast<BufferId>(j)});
      else if (disjoint(from, j))
        p.penalties.push_back({static_cast<BufferId>(from), static_cast<BufferId>(j), w});
    }
  }
  // Tight: a little above the max-load bound, so links often cost peak or penalty.
  p.arenas[0].capacity = std::max<Addr>(arena_loads(p)[0].lower_bound + pick(0, 3), p.arenas[0].capacity / 2);
  return p;
}

/// Time blocks joined only by one buffer live across all of them, each
/// block tight enough that its penalty pairs often must overlap: once the
/// long buffer is placed the blocks are separate pieces of one part that
/// share the penalty budget.
Problem paying_blocks(std::mt19937_64& rng) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  Problem p;
  p.arenas.push_back({0, "a", 0, {}});
  const std::size_t blocks = pick(2, 3);
  p.buffers.push_back({"long", pick(1, 2), 1, 0, {0, static_cast<Tick>(10 * blocks)}});
  for (std::size_t k = 0; k < blocks; ++k) {
    const std::size_t first = p.buffers.size();
    for (std::size_t i = pick(2, 3); i > 0; --i) {
      const Tick b = static_cast<Tick>(10 * k + pick(0, 3));
      p.buffers.push_back({"k" + std::to_string(k) + "_" + std::to_string(i),
                           pick(1, 3),
                           1,
                           0,
                           {b, b + static_cast<Tick>(pick(1, 2))}});
    }
    for (std::size_t i = first; i < p.buffers.size(); ++i)
      for (std::size_t j = i + 1; j < p.buffers.size(); ++j)
        if (!interferes(p.buffers[i].lifetime, p.buffers[j].lifetime) && pick(0, 2) != 0)
          p.penalties.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j), pick(1, 4)});
  }
  p.arenas[0].capacity = arena_loads(p)[0].lower_bound + pick(0, 1);
  return p;
}

ExactOptions unlimited(ExactMode mode) {
  ExactOptions o;
  o.mode = mode;
  o.time_limit_s = 0;  // no deadline: these searches are tiny and must complete
  o.threads = 1;
  return o;
}

Problem exact_guillotine(std::mt19937_64& rng, Addr capacity, Tick horizon, std::size_t pieces, Addr grain) {
  return test::guillotine_puzzle(rng, capacity, horizon, pieces, grain);
}

}  // namespace

TEST_CASE("sections are the maximal live sets, in time order, and buffers span contiguous runs") {
  // a [0,4)  b [2,6)  c [5,8)  d [8,9): live sets {a,b} {b,c} {d}
  const std::vector<Interval> ls{{0, 4}, {2, 6}, {5, 8}, {8, 9}};
  const auto s = exact::sweep_sections(ls, true);
  REQUIRE(s.count == 3);
  CHECK(s.first == std::vector<std::uint32_t>{0, 0, 1, 2});
  CHECK(s.last == std::vector<std::uint32_t>{1, 2, 2, 3});
  CHECK(s.crossing == std::vector<std::uint32_t>{1, 0});  // only b crosses from the first to the second
  auto sorted = [](std::vector<std::uint32_t> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  CHECK(sorted(s.members[0]) == std::vector<std::uint32_t>{0, 1});
  CHECK(sorted(s.members[1]) == std::vector<std::uint32_t>{1, 2});
}

TEST_CASE("lowest_fit skips reserved windows and aligns to any positive alignment") {
  const exact::FreeSpace f(100, {{10, 20}, {15, 30}, {50, 52}});
  CHECK(f.lowest_fit(0, 10, 1) == Addr{0});
  CHECK(f.lowest_fit(0, 11, 1) == Addr{30});  // does not fit below the merged window [10, 30)
  CHECK(f.lowest_fit(5, 4, 3) == Addr{6});
  CHECK(f.lowest_fit(5, 5, 3) == Addr{30});    // [6, 11) hits the window; 30 is a multiple of 3
  CHECK(f.lowest_fit(31, 20, 7) == Addr{56});  // 35 would run into [50, 52)
  CHECK(f.lowest_fit(0, 101, 1) == std::nullopt);
  CHECK(f.lowest_fit(90, 8, 4) == Addr{92});
  CHECK(f.lowest_fit(90, 9, 4) == std::nullopt);
  CHECK(f.usable_above(0) == 100 - 20 - 2);
  CHECK(f.usable_above(25) == 75 - 5 - 2);
}

TEST_CASE("the floor tree answers range maxima after range raises like a plain array") {
  std::mt19937_64 rng(17);
  for (std::size_t n : {1u, 2u, 5u, 64u, 100u}) {
    exact::FloorTree tree(n);
    std::vector<Addr> plain(n, 0);
    for (int op = 0; op < 2000; ++op) {
      const std::size_t lo = rng() % n, hi = lo + 1 + rng() % (n - lo);
      if (rng() % 2 == 0) {
        const Addr h = rng() % 1000;
        tree.raise(lo, hi, h);
        for (std::size_t k = lo; k < hi; ++k) plain[k] = std::max(plain[k], h);
      } else {
        CHECK(tree.max(lo, hi) == *std::max_element(plain.begin() + static_cast<std::ptrdiff_t>(lo),
                                                    plain.begin() + static_cast<std::ptrdiff_t>(hi)));
      }
    }
  }
}

TEST_CASE("canonical dives give valid placements") {
  std::mt19937_64 rng(23);
  int dived = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Problem p = exact_random_problem(rng, 10);
    for (auto& a : p.arenas) a.capacity *= 4;  // room for a greedy dive
    for (const auto& sp : exact::decompose(p)) {
      std::vector<Interval> ls;
      for (const auto& it : sp.items) ls.push_back(it.lifetime);
      const auto sec = exact::sweep_sections(ls, false);
      for (const char* order : {"A", "TWA", "L"}) {
        const auto d =
            exact::skyline_dive(sp, sec, exact::preorder_ranks(exact::item_features(sp, sec, {}), order), {});
        if (!d) continue;
        ++dived;
        CHECK(exact::fits(sp, d->offsets, sp.space));
        // The independent validator agrees (the part's buffers at their offsets, the rest unplaced).
        Problem q = p;
        q.buffers.clear();
        q.separations.clear();
        q.penalties.clear();
        Placement pl;
        std::vector<std::optional<BufferId>> in_q(p.buffers.size());  // p's buffer -> its id in q
        for (std::size_t i = 0; i < sp.items.size(); ++i) {
          in_q[sp.items[i].buffer] = static_cast<BufferId>(q.buffers.size());
          q.buffers.push_back(p.buffers[sp.items[i].buffer]);
          pl.offsets.push_back(d->offsets[i]);
        }
        for (const auto& sep : p.separations)
          if (in_q[sep.a] && in_q[sep.b]) q.separations.push_back({*in_q[sep.a], *in_q[sep.b], sep.reasons});
        INFO(dump(validate(q, pl)));
        CHECK(validate(q, pl).empty());
      }
    }
  }
  CHECK(dived > 300);
}

TEST_CASE("exact search finds the brute-force optimum on small random problems") {
  std::mt19937_64 rng(20240611);
  int infeasible = 0, with_penalty = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Problem p = exact_random_problem(rng, trial < 300 ? 7 : 10);
    INFO("trial " << trial);
    REQUIRE(validate(p).empty());
    const auto truth = BruteForce(p).solve();
    const auto r = solve_exact(p, unlimited(ExactMode::minimise));
    INFO(dump(r.diagnostics));
    if (!truth) {
      ++infeasible;
      CHECK(r.status == Status::infeasible);
      CHECK_FALSE(r.placement);
      continue;
    }
    REQUIRE(r.status == Status::optimal);
    REQUIRE(r.placement);
    CHECK(validate(p, *r.placement).empty());
    const auto obj = evaluate_objective(p, *r.placement);
    CHECK(exact_triple(obj) == *truth);
    if (std::get<0>(*truth) > 0) ++with_penalty;
    // Fit mode: a valid placement with the least penalty.
    const auto f = solve_exact(p, unlimited(ExactMode::fit));
    REQUIRE(f.placement);
    CHECK(validate(p, *f.placement).empty());
    CHECK(evaluate_objective(p, *f.placement).penalty == std::get<0>(*truth));
    CHECK((f.status == Status::feasible || f.status == Status::optimal));
    if (f.status == Status::optimal) CHECK(exact_triple(evaluate_objective(p, *f.placement)) == *truth);
  }
  // The generator must exercise both answers and the penalty objective.
  CHECK(infeasible > 10);
  CHECK(with_penalty > 10);
}

TEST_CASE(
    "plan reports proved terms honestly: a proved penalty is the least, a proved peak the least, the bound "
    "below both") {
  std::mt19937_64 rng(20261207);
  int penalty_proofs = 0, cut = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Problem p = exact_random_problem(rng, 8);
    INFO("trial " << trial);
    const auto truth = BruteForce(p).solve();
    for (const Strategy strategy :
         {Strategy::portfolio, Strategy::exact, Strategy::greedy, Strategy::reuse}) {
      for (const Goal goal : {Goal::fit, Goal::minimise}) {
        for (const std::uint64_t nodes : {std::uint64_t{0}, std::uint64_t{3}}) {
          PlanOptions o;
          o.strategy = strategy;
          o.goal = goal;
          o.node_limit = nodes;
          const PlanResult r = plan(p, o);
          CAPTURE(to_string(strategy));
          if (!r.placement) {
            CHECK_FALSE(r.proved.penalty);
            CHECK_FALSE(r.proved.peak);
            continue;
          }
          REQUIRE(truth);  // a placement exists, so the brute force found one
          const auto [penalty, total_peak, max_peak] = *truth;
          CHECK(r.proved.penalty_bound <= penalty);
          if (r.proved.penalty) {
            ++penalty_proofs;
            CHECK(r.objective.penalty == penalty);
            CHECK(r.proved.penalty_bound == penalty);
          }
          // A proved peak is the least of any placement, so no more than the
          // least among the penalty-optimal ones.
          if (r.proved.peak) CHECK(r.objective.total_peak <= total_peak);
          CHECK((r.status == Status::optimal) == (r.proved.penalty && r.proved.peak));
          // A complete search settles the penalty whatever the goal.
          if (nodes == 0 && (strategy == Strategy::exact || strategy == Strategy::portfolio)) {
            CHECK(r.stopped_by == StopReason::completed);
            CHECK(r.proved.penalty);
          }
          if (r.stopped_by == StopReason::node_limit) ++cut;
        }
      }
    }
  }
  CHECK(penalty_proofs > 100);
  CHECK(cut > 10);
}

TEST_CASE("exact search finds the brute-force optimum with twins, mirrored links and heavy penalties") {
  // Exercises the twin symmetry breaking with separations and penalties, the
  // separation cliques, penalty pairs turned hard by a small budget, and time
  // cuts in parts with penalties.
  std::mt19937_64 rng(4242);
  int infeasible = 0, with_penalty = 0, linked_twins = 0, penalised = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Problem p = twin_problem(rng, trial < 300 ? 7 : 8);
    INFO("trial " << trial);
    REQUIRE(validate(p).empty());
    if (!p.separations.empty() || !p.penalties.empty()) ++linked_twins;
    if (!p.penalties.empty()) ++penalised;
    const auto truth = BruteForce(p).solve();
    const auto r = solve_exact(p, unlimited(ExactMode::minimise));
    INFO(dump(r.diagnostics));
    if (!truth) {
      ++infeasible;
      CHECK(r.status == Status::infeasible);
      continue;
    }
    REQUIRE(r.status == Status::optimal);
    REQUIRE(r.placement);
    CHECK(validate(p, *r.placement).empty());
    CHECK(exact_triple(evaluate_objective(p, *r.placement)) == *truth);
    CHECK(r.lower_bound[0] <= std::get<1>(*truth));
    if (std::get<0>(*truth) > 0) ++with_penalty;
  }
  CHECK(infeasible > 10);
  CHECK(with_penalty >= 5);  // least penalty above zero: rare, as penalties are usually avoidable
  CHECK(penalised > 100);
  CHECK(linked_twins > 200);
}

namespace {

/// Runs the canonical search on every part of `p` at `capacity` in `order`,
/// with or without the failure memo, to the end. Returns whether every part
/// fitted, and the whole placement when they did (for the validator).
struct MemoRun {
  bool all_found = true;
  std::uint64_t hits = 0;
  std::optional<Placement> placement;
};
MemoRun run_parts(const Problem& p, Addr capacity, std::string_view order, bool memo) {
  MemoRun out;
  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  for (const auto& sp : exact::decompose(p)) {
    exact::CanonicalSearch cs(sp);
    cs.use_failure_memo(memo);
    exact::Limits limits;
    // Two runs, as a probe resumes: the second one reuses what the first
    // learned (its hits are not counted: the first may have failed at the root).
    for (int twice = 0; twice < 2; ++twice) {
      exact::Budget b(limits, 0);
      const auto o = cs.run(capacity, max_addr, order, b);
      REQUIRE(o != exact::Outcome::aborted);
      if (twice == 0) out.hits += cs.memo_hits();
      if (o == exact::Outcome::infeasible)
        out.all_found = false;
      else
        for (std::size_t i = 0; i < sp.items.size(); ++i) pl.offsets[sp.items[i].buffer] = cs.solution()[i];
    }
  }
  if (out.all_found) out.placement = std::move(pl);
  return out;
}

Problem without_penalties(Problem p) {
  p.penalties.clear();
  return p;
}

}  // namespace

TEST_CASE("the failure memo never changes what a complete search proves") {
  // Small penalty-free problems (where the memo is on) at their brute-force
  // optimum and one byte below it, and guillotine puzzles at and below their
  // capacity: with and without the memo, in every order, the search must
  // agree with the brute force, and every fit must pass the validator.
  std::mt19937_64 rng(16016);
  std::uint64_t hits = 0;
  int checked = 0, below_refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    INFO("trial " << trial);
    const bool puzzle = trial % 4 == 3;
    const Problem p =
        puzzle ? exact_guillotine(rng, 16 + rng() % 12, 24, 10 + rng() % 10, 1)
               : without_penalties(trial % 2 == 0 ? exact_random_problem(rng, 8) : twin_problem(rng, 8));
    if (p.arenas.size() != 1) continue;
    REQUIRE(validate(p).empty());
    // A puzzle's optimum is its capacity (a perfect packing); else ask the brute force.
    const auto truth = puzzle ? std::optional<Triple>(Triple{0, p.arenas[0].capacity, p.arenas[0].capacity})
                              : BruteForce(p).solve();
    if (!truth) continue;
    const Addr best = std::get<1>(*truth);
    Addr window_end = 0;
    for (const auto& w : p.arenas[0].reserved) window_end = std::max(window_end, w.end);
    ++checked;
    for (std::string_view order : {"TWA", "TAW", "WAT", "U"}) {
      for (bool memo : {false, true}) {
        Problem at = p;
        at.arenas[0].capacity = best;
        const MemoRun fit = run_parts(at, best, order, memo);
        CHECK(fit.all_found);
        if (fit.placement) CHECK(validate(at, *fit.placement).empty());
        hits += fit.hits;
        if (best > window_end && best > 0) {
          const MemoRun below = run_parts(at, best - 1, order, memo);
          CHECK_FALSE(below.all_found);
          below_refused += !below.all_found;
          hits += below.hits;
        }
      }
    }
  }
  CHECK(checked > 200);
  CHECK(below_refused > 500);
  CHECK(hits > 10);  // the memo answered some nodes (the next case exercises it far more)
}

TEST_CASE("the failure memo agrees with the search without it on tight random problems") {
  // Tight random problems (up to 18 buffers, some with alignment 2 or a
  // separation): in every order, with and without the memo, the complete
  // search must give the same answer, and every fit must pass the validator.
  std::mt19937_64 rng(1616);
  std::uint64_t hits = 0;
  int fits = 0, refused = 0;
  for (int trial = 0; trial < 100; ++trial) {
    INFO("trial " << trial);
    // Tight random problems: the capacity is the max-load bound, so whether
    // anything fits takes a real search.
    Problem p;
    p.arenas.push_back({0, "a", 0, {}});
    const std::size_t n = 12 + rng() % 7;
    for (std::size_t i = 0; i < n; ++i) {
      const Tick b = static_cast<Tick>(rng() % 12);
      p.buffers.push_back({"b" + std::to_string(i),
                           1 + rng() % 6,
                           trial % 3 == 0 ? Addr{1} + rng() % 2 : Addr{1},
                           0,
                           {b, b + 1 + static_cast<Tick>(rng() % 6)}});
    }
    if (trial % 5 == 0) p.separations.push_back({0, 1});
    const Addr width = arena_loads(p)[0].lower_bound;
    p.arenas[0].capacity = width;
    std::optional<bool> answer;
    for (std::string_view order : {"TWA", "WAT", "U"})
      for (bool memo : {false, true}) {
        const MemoRun r = run_parts(p, width, order, memo);
        if (!answer) answer = r.all_found;
        CHECK(r.all_found == *answer);
        if (r.placement) CHECK(validate(p, *r.placement).empty());
        hits += r.hits;
      }
    (*answer ? fits : refused) += 1;
  }
  CHECK(fits > 50);
  CHECK(refused >= 3);
  CHECK(hits > 10000);
}

TEST_CASE("time cuts in a part with penalties keep the least total penalty") {
  std::mt19937_64 rng(808);
  int paying = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const Problem p = paying_blocks(rng);
    INFO("trial " << trial);
    REQUIRE(validate(p).empty());
    const auto truth = BruteForce(p).solve();
    REQUIRE(truth);
    const auto r = solve_exact(p, unlimited(ExactMode::minimise));
    INFO(dump(r.diagnostics));
    REQUIRE(r.status == Status::optimal);
    CHECK(validate(p, *r.placement).empty());
    CHECK(exact_triple(evaluate_objective(p, *r.placement)) == *truth);
    if (std::get<0>(*truth) > 0) ++paying;
  }
  CHECK(paying > 25);
}

TEST_CASE("tiny node budgets never yield a false proof") {
  std::mt19937_64 rng(7);
  int unknown = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const Problem p = exact_random_problem(rng, 9);
    const auto truth = BruteForce(p).solve();
    for (std::uint64_t limit : {1u, 3u, 10u, 40u}) {
      INFO("trial " << trial << " node limit " << limit);
      auto o = unlimited(ExactMode::minimise);
      o.node_limit = limit;
      const auto r = solve_exact(p, o);
      INFO(dump(r.diagnostics));
      switch (r.status) {
        case Status::optimal:
          REQUIRE(truth);
          REQUIRE(r.placement);
          CHECK(exact_triple(evaluate_objective(p, *r.placement)) == *truth);
          break;
        case Status::feasible:
          REQUIRE(truth);
          REQUIRE(r.placement);
          CHECK(validate(p, *r.placement).empty());
          CHECK(exact_triple(evaluate_objective(p, *r.placement)) >= *truth);
          break;
        case Status::infeasible: CHECK_FALSE(truth); break;
        case Status::no_fit:
          ++unknown;
          CHECK_FALSE(r.placement);
          CHECK(mentions(r.diagnostics, "no fit found within the budget", "not a proof"));
          break;
        case Status::invalid_input:
        case Status::unsupported:
        case Status::internal_error: FAIL("unexpected " << to_string(r.status)); break;
      }
      if (truth && r.placement) {
        // The reported bound is a real bound.
        const auto obj = evaluate_objective(p, *r.placement);
        Addr total_lb = 0;
        for (Addr lb : r.lower_bound) total_lb += lb;
        CHECK(total_lb <= std::get<1>(*truth));
        CHECK(total_lb <= obj.total_peak);
      }
    }
  }
  // Perfect packings defeat the first-fit incumbent, so small budgets end
  // without a fit: that must be said as such, never as "infeasible".
  for (int trial = 0; trial < 20; ++trial) {
    const Problem p = exact_guillotine(rng, 40, 40, 24, 1);
    for (std::uint64_t limit : {1u, 10u, 100u}) {
      auto o = unlimited(ExactMode::fit);
      o.node_limit = limit;
      const auto r = solve_exact(p, o);
      INFO("puzzle " << trial << " node limit " << limit << "\n" << dump(r.diagnostics));
      CHECK(r.status != Status::infeasible);
      if (r.status == Status::no_fit) {
        ++unknown;
        CHECK(mentions(r.diagnostics, "no fit found within the budget", "not a proof"));
      } else {
        REQUIRE(r.placement);
        CHECK(validate(p, *r.placement).empty());
      }
    }
  }
  CHECK(unknown > 0);
}

TEST_CASE("guillotine puzzles fit exactly at their capacity") {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 40; ++trial) {
    const Addr grain = trial % 2 == 0 ? 1 : 4;
    const Problem p = exact_guillotine(rng, 32 * grain, 40, 10 + static_cast<std::size_t>(trial % 15), grain);
    INFO("trial " << trial);
    const auto r = solve_exact(p, unlimited(ExactMode::fit));
    INFO(dump(r.diagnostics));
    REQUIRE(r.status == Status::optimal);  // the max load is the capacity, so a fit is optimal
    CHECK(validate(p, *r.placement).empty());
    CHECK(evaluate_objective(p, *r.placement).max_peak == 32 * grain);
  }
}

TEST_CASE("a guillotine puzzle one byte short is proved infeasible") {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 10; ++trial) {
    Problem p = exact_guillotine(rng, 24, 30, 12, 1);
    p.arenas[0].capacity = 23;
    const auto r = solve_exact(p, unlimited(ExactMode::fit));
    CHECK(r.status == Status::infeasible);
    CHECK(mentions(r.diagnostics, "no placement fits", "proved"));
  }
}

TEST_CASE("must-alias groups and declared allocations are refused until unified") {
  Problem p;
  p.arenas = {{0, "a", 64, {}}};
  p.buffers = {{"x", 8, 1, 0, {0, 2}}, {"y", 8, 1, 0, {1, 3}}};
  const test::BufferIds id{p};
  p.must_alias = {{{{id("x"), 0}, {id("y"), 0}}}};
  const auto r = solve_exact(p);
  CHECK(r.status == Status::unsupported);
  CHECK(mentions(r.diagnostics, "alias unification"));
}

TEST_CASE("minimise mode tightens from both sides and reports the proved gap") {
  // Three buffers live together need 12 bytes; a fourth, separated from all,
  // forces 16. The max load says 12; the search proves 16.
  Problem p;
  p.arenas = {{0, "a", 64, {}}};
  p.buffers = {
      {"a", 4, 1, 0, {0, 2}}, {"b", 4, 1, 0, {0, 2}}, {"c", 4, 1, 0, {0, 2}}, {"d", 4, 1, 0, {5, 6}}};
  const test::BufferIds id{p};
  p.separations = {{id("d"), id("a")}, {id("d"), id("b")}, {id("d"), id("c")}};
  const auto r = solve_exact(p, unlimited(ExactMode::minimise));
  REQUIRE(r.status == Status::optimal);
  CHECK(evaluate_objective(p, *r.placement).max_peak == 16);
  CHECK(r.lower_bound[0] == 16);
}

TEST_CASE("an invalid incumbent is ignored, a valid one is kept or beaten") {
  Problem p;
  p.arenas = {{0, "a", 16, {{0, 2}}}};
  p.buffers = {{"a", 4, 2, 0, {0, 3}}, {"b", 4, 2, 0, {1, 4}}, {"c", 6, 1, 0, {3, 5}}};
  const auto truth = BruteForce(p).solve();
  REQUIRE(truth);
  auto o = unlimited(ExactMode::minimise);
  for (const Placement& seed : {Placement{{2, 4, 8}},      // a and b overlap
                                Placement{{0, 6, 10}},     // a in the reserved window
                                Placement{{3, 8, 2}},      // a misaligned
                                Placement{{12, 2, 6}}}) {  // a past the capacity
    o.incumbent = seed;
    const auto r = solve_exact(p, o);
    REQUIRE(r.status == Status::optimal);
    CHECK(validate(p, *r.placement).empty());
    CHECK(exact_triple(evaluate_objective(p, *r.placement)) == *truth);
  }
  o.incumbent = Placement{{2, 6, 10}};  // valid, peak 16
  o.node_limit = 1;
  const auto r = solve_exact(p, o);
  REQUIRE(r.placement);
  CHECK(validate(p, *r.placement).empty());
  CHECK(evaluate_objective(p, *r.placement).max_peak <= 16);
}

TEST_CASE("a problem without buffers is trivially optimal") {
  Problem p;
  p.arenas = {{0, "a", 16, {{4, 8}}}};
  const auto r = solve_exact(p, unlimited(ExactMode::minimise));
  REQUIRE(r.status == Status::optimal);
  REQUIRE(r.placement);
  CHECK(r.placement->offsets.empty());
  CHECK(r.lower_bound == std::vector<Addr>{8});
}

TEST_CASE("a buffer larger than the usable bytes is proved infeasible at once") {
  Problem p;
  p.arenas = {{0, "a", 16, {{4, 8}}}};
  p.buffers = {{"big", 9, 1, 0, {0, 1}}};
  const auto r = solve_exact(p, unlimited(ExactMode::fit));
  CHECK(r.status == Status::infeasible);
}

TEST_CASE("several arenas and time blocks are solved apart") {
  Problem p;
  p.arenas = {{0, "a", 10, {}}, {1, "b", 10, {{0, 2}}}};
  p.buffers = {{"a1", 5, 1, 0, {0, 2}},
               {"a2", 5, 1, 0, {1, 3}},   // block 1 of arena a
               {"a3", 10, 1, 0, {3, 4}},  // block 2 of arena a
               {"b1", 4, 2, 1, {0, 5}},
               {"b2", 4, 2, 1, {2, 3}}};  // arena b, above its window
  const auto r = solve_exact(p, unlimited(ExactMode::minimise));
  REQUIRE(r.status == Status::optimal);
  CHECK(validate(p, *r.placement).empty());
  const auto o = evaluate_objective(p, *r.placement);
  CHECK(o.peak_by_arena == std::vector<Addr>{10, 10});
  CHECK(r.statistics.extra.size() > 0);
}

TEST_CASE("two workers agree with one on what is proved") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 30; ++trial) {
    const Problem p = exact_random_problem(rng, 8);
    auto one = unlimited(ExactMode::minimise);
    auto two = one;
    two.threads = 2;
    const auto a = solve_exact(p, one);
    const auto b = solve_exact(p, two);
    CHECK(a.status == b.status);
    if (a.placement && b.placement)
      CHECK(exact_triple(evaluate_objective(p, *a.placement)) ==
            exact_triple(evaluate_objective(p, *b.placement)));
  }
}

TEST_CASE("the portfolio is plan's default and is never worse than its greedy") {
  CHECK(PlanOptions{}.strategy == Strategy::portfolio);
  const auto names = strategies();
  CHECK(std::find(names.begin(), names.end(), "exact") != names.end());
  CHECK(std::find(names.begin(), names.end(), "portfolio") != names.end());
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 60; ++trial) {
    const Problem p = exact_random_problem(rng, 8);
    PlanOptions o;
    o.threads = 1;
    const auto r = plan(p, o);
    const auto greedy = exact::greedy_placement(p);
    INFO(dump(r.diagnostics));
    if (greedy && validate(p, *greedy).empty()) {
      REQUIRE(r.fits());
      CHECK_FALSE(exact_triple(evaluate_objective(p, *greedy)) < exact_triple(r.objective));
    }
    if (r.fits()) CHECK(validate(p, *r.placement).empty());
    const auto truth = BruteForce(p).solve();
    CHECK(r.fits() == truth.has_value());
    if (truth && r.status == Status::optimal) CHECK(exact_triple(r.objective) == *truth);
  }
}

TEST_CASE("plan with strategy exact reports infeasible only with a proof") {
  Problem p;
  p.arenas = {{0, "a", 10, {}}};
  p.buffers = {{"a", 6, 1, 0, {0, 2}}, {"b", 5, 1, 0, {1, 3}}};
  PlanOptions o;
  o.strategy = "exact";
  o.threads = 1;
  const auto r = plan(p, o);
  CHECK(r.status == Status::infeasible);
  CHECK_FALSE(r.placement);
}

TEST_CASE("the MiniMalloc example fits at its capacity of 12") {
  // benchmarks/examples/input.12.csv, restated: id, lower, upper, size.
  Problem p;
  p.arenas = {{0, "mem", 12, {}}};
  p.buffers = {{"b1", 4, 1, 0, {0, 3}},
               {"b2", 4, 1, 0, {3, 9}},
               {"b3", 4, 1, 0, {0, 9}},
               {"b4", 4, 1, 0, {9, 21}},
               {"b5", 4, 1, 0, {0, 21}}};
  const auto r = solve_exact(p, unlimited(ExactMode::fit));
  REQUIRE(r.status == Status::optimal);
  CHECK(validate(p, *r.placement).empty());
}

TEST_CASE("probes between the bounds: the approach halves toward the incumbent, the spread covers the rest") {
  std::mt19937_64 rng(20261205);
  for (int trial = 0; trial < 2000; ++trial) {
    const Addr granule = Addr{1} << std::uniform_int_distribution<int>(0, 12)(rng);
    const Addr lo = std::uniform_int_distribution<Addr>(0, 1u << 20)(rng) * granule;
    // Gaps of a few granules (every target visited) up to far more than 64.
    const Addr span = trial % 2 == 0 ? std::uniform_int_distribution<Addr>(1, 70)(rng)
                                     : std::uniform_int_distribution<Addr>(1, 1u << 24)(rng);
    const Addr hi = lo + span * granule + (trial % 3 == 0 ? granule / 2 : 0);
    // The targets: capacities strictly between lo and hi, whole granules below hi.
    Addr m = 0;
    for (Addr step = Addr{1} << 40; step > 0; step /= 2)  // the largest m with hi - m granules > lo
      if (m + step <= (hi - lo) / granule && hi - (m + step) * granule > lo) m += step;
    const auto valid = [&](Addr t) { return t > lo && t < hi && (hi - t) % granule == 0; };
    std::vector<Addr> approach;
    for (std::uint64_t pos = 1; pos <= 70; ++pos)
      if (const auto t = exact::approach_target(lo, hi, granule, pos)) {
        INFO("lo ", lo, " hi ", hi, " granule ", granule, " pos ", pos, " target ", *t);
        REQUIRE(valid(*t));
        approach.push_back(*t);
      }
    std::vector<Addr> spread;
    for (std::uint64_t pos = 1; pos <= exact::spread_positions + 1; ++pos)
      if (const auto t = exact::spread_target(lo, hi, granule, pos)) {
        REQUIRE(valid(*t));
        spread.push_back(*t);
      }
    if (m == 0) {
      CHECK(approach.empty());
      CHECK(spread.empty());
      continue;
    }
    // The approach: halfway first, strictly closer each time, one granule below hi last.
    REQUIRE_FALSE(approach.empty());
    const Addr first_j = (hi - approach.front()) / granule;
    CHECK(first_j >= m / 2);
    CHECK(first_j <= m / 2 + 1);
    CHECK(std::is_sorted(approach.begin(), approach.end()));
    CHECK(std::adjacent_find(approach.begin(), approach.end()) == approach.end());
    CHECK(approach.back() == hi - granule);
    // The spread repeats neither itself nor the approach; with m <= 64 both cover every target.
    std::vector<Addr> all = approach;
    all.insert(all.end(), spread.begin(), spread.end());
    std::sort(all.begin(), all.end());
    CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
    if (m <= exact::spread_positions)
      CHECK(all.size() == m);
    else
      CHECK(spread.size() + approach.size() >= exact::spread_positions);
  }
  CHECK_FALSE(exact::approach_target(10, 10, 1, 1));
  CHECK_FALSE(exact::approach_target(10, 11, 1, 1));  // no capacity strictly between
  CHECK(exact::approach_target(10, 12, 1, 1) == Addr{11});
  CHECK_FALSE(exact::approach_target(10, 12, 1, 2));
}

namespace {

/// A part too large for the complete search (more than
/// exact::searchable_buffers buffers) whose dives are still quick: short
/// lifetimes, so few interfering pairs.
Problem many_buffers_problem(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p;
  p.arenas = {{0, "mem", Addr{1} << 40, {}}};
  const std::size_t n = exact::searchable_buffers + 500;
  for (std::size_t i = 0; i < n; ++i) {
    const Tick begin = static_cast<Tick>(rng() % 4000);
    const Tick length = static_cast<Tick>(1 + rng() % 40);
    p.buffers.push_back({"b" + std::to_string(i), 1 + rng() % 1000, 1, 0, {begin, begin + length}});
  }
  return p;
}

std::int64_t statistic(const Statistics& s, std::string_view key) {
  for (const auto& [k, v] : s.extra)
    if (k == key) return v;
  return -1;
}

}  // namespace

TEST_CASE(
    "randomised dives: an order fixed by the dive's number, valid placements, two lanes give one lane's "
    "answer, fits fixed orders miss") {
  // The ranks: a permutation, the same for the same number, another for another.
  {
    std::vector<exact::ItemFeatures> f(50);
    for (std::size_t i = 0; i < f.size(); ++i) f[i].area = (i * 37) % 11;
    for (std::uint64_t k = 0; k < 20; ++k) {
      auto rank = exact::random_dive_rank(f, k);
      CHECK(rank == exact::random_dive_rank(f, k));
      CHECK(rank != exact::random_dive_rank(f, k + 1));
      CHECK(rank == exact::random_dive_rank(f, k, 0));
      CHECK(rank != exact::random_dive_rank(f, k, 1));  // another seed, other draws
      std::sort(rank.begin(), rank.end());
      for (std::uint32_t i = 0; i < rank.size(); ++i) CHECK(rank[i] == i);
    }
  }
  const Problem p = many_buffers_problem(7);
  const auto parts = exact::decompose(p);
  REQUIRE(parts.size() == 1);
  const auto& part = parts[0];
  // The first fixed order's dive, which the search starts from.
  std::vector<Interval> ls;
  for (const auto& it : part.items) ls.push_back(it.lifetime);
  const auto sec = exact::sweep_sections(ls, false);
  const auto dive_start = std::chrono::steady_clock::now();
  const auto first = exact::skyline_dive(
      part, sec, exact::preorder_ranks(exact::item_features(part, sec, {}), exact::dive_orders()[0]), {});
  const double dive_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - dive_start).count();
  REQUIRE(first);
  const Addr bound = arena_loads(p)[0].lower_bound;
  // One lane, six dives; two lanes, three turns of two: dive k is a function
  // of k alone and the lanes' results are kept in the dives' order, so the
  // incumbents agree byte for byte.
  exact::PartSolver one(part, 0);
  REQUIRE_FALSE(one.searchable());
  one.offer(*first);
  exact::LanePool pool;
  exact::PartSolver two(part, 0, &pool);
  two.offer(*first);
  const exact::Limits limits;
  for (int k = 0; k < 6; ++k) CHECK(one.random_dive(limits));
  for (int k = 0; k < 3; ++k) CHECK(two.random_dive(limits));
  CHECK(one.random_dives() == 6);
  CHECK(two.random_dives() == 6);
  REQUIRE(one.state().best);
  REQUIRE(two.state().best);
  CHECK(one.state().best->offsets == two.state().best->offsets);
  CHECK(one.state().best->peak <= first->peak);
  CHECK(one.state().best->peak >= bound);
  // The independent validator agrees.
  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  for (std::size_t i = 0; i < part.items.size(); ++i)
    pl.offsets[part.items[i].buffer] = one.state().best->offsets[i];
  INFO(dump(validate(p, pl)));
  CHECK(validate(p, pl).empty());
  // Through solve_exact under a deadline: the time after the first dive
  // goes to randomised dives (first) and window searches in turn; any
  // answer is valid. The deadline leaves room for several dives on slow
  // builds too (sanitizers): four times what the first dive took here.
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    ExactOptions o;
    o.mode = ExactMode::minimise;
    o.time_limit_s = std::max(1.0, 4 * dive_s);
    o.threads = threads;
    const auto r = solve_exact(p, o);
    REQUIRE(r.placement);
    CHECK(validate(p, *r.placement).empty());
    CHECK(statistic(r.statistics, "exact_random_dives") > 0);
    const Addr peak = evaluate_objective(p, *r.placement).max_peak;
    CHECK(peak <= first->peak);
    CHECK((r.status == Status::optimal) == (peak == bound));
  }
  // Goal fit under a capacity no fixed order's dive fits: randomised dives
  // look for a fit; the answer is a valid fit or no_fit, never a proof.
  Addr fixed_best = max_addr;
  for (auto order : exact::dive_orders())
    if (auto d = exact::skyline_dive(part, sec,
                                     exact::preorder_ranks(exact::item_features(part, sec, {}), order), {}))
      fixed_best = std::min(fixed_best, d->peak);
  Problem tight = p;
  tight.arenas[0].capacity = fixed_best - 1;
  ExactOptions o = unlimited(ExactMode::fit);
  o.node_limit = 10000;  // the fixed dives (about 6,000 nodes: a dive counts one per 1024 pops) and a few
                         // randomised ones
  const auto r = solve_exact(tight, o);
  MESSAGE("goal fit below every fixed dive: " << statistic(r.statistics, "exact_random_dives")
                                              << " randomised dives, "
                                              << std::string(r.placement ? "a fit" : "no fit"));
  CHECK(statistic(r.statistics, "exact_random_dives") > 0);
  CHECK((r.status == Status::feasible || r.status == Status::optimal || r.status == Status::no_fit));
  if (r.placement) {
    CHECK(validate(tight, *r.placement).empty());
    CHECK(evaluate_objective(tight, *r.placement).max_peak < fixed_best);
  }
}

TEST_CASE(
    "on large parts with penalties the portfolio pays less than its greedy, the same under a node budget") {
  // Parts of at least penalty_lns_first_items buffers with many reuse
  // penalties: the penalty windows run between the penalty probes. Under a
  // node budget the answer is a function of the input (the same twice, and
  // with two workers as with one), valid, never worse than the greedy, and
  // on these problems cheaper.
  std::mt19937_64 rng(310032);
  int cheaper = 0, tried = 0;
  for (int trial = 0; trial < 4; ++trial) {
    INFO("trial " << trial);
    Problem p;
    p.arenas.push_back({0, "a", 0, {}});
    const std::size_t n = 160;
    for (std::size_t i = 0; i < n; ++i) {
      const Tick b = static_cast<Tick>(rng() % 200);
      p.buffers.push_back(
          {"b" + std::to_string(i), 1 + rng() % 16, 1, 0, {b, b + 1 + static_cast<Tick>(rng() % 30)}});
    }
    for (std::size_t k = 0; k < 30 * n; ++k) {
      const auto i = rng() % n, j = rng() % n;
      if (i != j && !interferes(p.buffers[i].lifetime, p.buffers[j].lifetime))
        p.penalties.push_back(
            {static_cast<BufferId>(i), static_cast<BufferId>(j), static_cast<Weight>(1 + rng() % 3)});
    }
    // The capacity: the greedy's peak without the penalties (as the lifted
    // MiniMalloc instances take the first fit's), so that keeping penalty
    // partners apart is tight.
    {
      Problem q = p;
      q.penalties.clear();
      q.arenas[0].capacity = max_addr / 4;
      const auto g = exact::greedy_placement(q);
      REQUIRE(g);
      p.arenas[0].capacity = evaluate_objective(q, *g).total_peak;
    }
    REQUIRE(validate(p).empty());
    const auto greedy = exact::greedy_placement(p);
    if (!greedy || evaluate_objective(p, *greedy).penalty == 0) continue;
    ++tried;
    std::optional<Objective> first;
    for (unsigned threads : {1u, 1u, 2u}) {
      PlanOptions o;
      o.goal = Goal::fit;
      o.threads = threads;
      o.time_limit_s = 0;
      o.node_limit = 40000;
      const auto r = plan(p, o);
      REQUIRE(r.fits());
      CHECK(validate(p, *r.placement).empty());
      CHECK(r.objective.penalty <= evaluate_objective(p, *greedy).penalty);
      if (!first)
        first = r.objective;
      else
        CHECK(r.objective.penalty == first->penalty);
    }
    cheaper += first->penalty < evaluate_objective(p, *greedy).penalty;
  }
  CHECK(tried >= 2);
  CHECK(cheaper == tried);
}

TEST_CASE("node budget: a dive of a part too large to search starts only when the nodes left pay for it") {
  const Problem p = many_buffers_problem(11);  // one part, too large to search
  const auto parts = exact::decompose(p);
  REQUIRE(parts.size() == 1);
  REQUIRE_FALSE(exact::PartSolver(parts[0], 0).searchable());
  const std::uint64_t estimate =
      parts[0].items.size() / 64;  // before the first dive: one node per 64 buffers
  const auto greedy = exact::greedy_placement(p);
  REQUIRE(greedy);
  auto run = [&](std::uint64_t node_limit) {
    PortfolioOptions o;
    o.goal = Goal::minimise;
    o.time_limit_s = 0;
    o.node_limit = node_limit;
    o.threads = 1;
    return solve_portfolio(p, o);
  };
  // Too few nodes for one dive: none runs, the budget is reported as what
  // stopped the search, and the answer is the greedy's placement.
  const auto short_budget = run(estimate - 1);
  REQUIRE(short_budget.placement);
  CHECK(statistic(short_budget.statistics, "exact_nodes") == 0);
  CHECK(short_budget.stopped_by == StopReason::node_limit);
  CHECK(short_budget.placement->offsets == greedy->offsets);
  // Enough for the estimate: the dive runs (to its end) and is counted.
  const auto paid = run(estimate);
  REQUIRE(paid.placement);
  CHECK(statistic(paid.statistics, "exact_nodes") > 0);
  CHECK(validate(p, *paid.placement).size() == 0);
  CHECK(evaluate_objective(p, *paid.placement).total_peak <= evaluate_objective(p, *greedy).total_peak);
  // Under a node budget the answer repeats.
  const auto again = run(estimate);
  CHECK(again.placement->offsets == paid.placement->offsets);
  CHECK(statistic(again.statistics, "exact_nodes") == statistic(paid.statistics, "exact_nodes"));
}
