// Penalties kept as a rule (ImplicitPenalties) against the same pairs listed:
// the recognizer's compressed relation holds exactly the pairs of the listing
// recognizer, and the canonical greedy and the DSA-RP driver place, score
// and count candidates exactly alike whether the pairs come as a rule or as
// a list -- on random problems, in compat and fast mode, with relaxation.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp.hpp"
#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/dsa_rp/placed_penalties.hpp"
#include "pto_mem/algorithms/reuse_penalties.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "test_support.hpp"

using namespace pto_mem;

namespace implicit_penalties_test {

std::uint64_t below(std::mt19937_64& g, std::uint64_t n) { return n == 0 ? 0 : g() % n; }

using Pair = std::pair<std::size_t, std::size_t>;

std::vector<Pair> keys(const std::vector<ReusePenalty>& v) {
  std::vector<Pair> out;
  for (const auto& e : v) out.emplace_back(e.a, e.b);
  return out;
}

/// A random problem with a random rule over its buffers. `fitting`: the
/// rule's lifetimes are the problem's (inclusive ends) and each group sits in
/// one arena, as the recognizer builds it; otherwise anything goes and the
/// search space must fall back to listing.
struct RuleCase {
  Problem listed;  // every pair in penalties
  Problem ruled;   // only the explicit penalties
  ImplicitPenalties rule;
};

RuleCase random_case(std::mt19937_64& g, bool fitting, std::size_t n_max) {
  RuleCase c;
  Problem& p = c.ruled;
  const std::size_t arenas = 1 + below(g, 2);
  const std::size_t n = 1 + below(g, n_max);
  const Tick horizon = static_cast<Tick>(2 + below(g, n + 4));
  const Addr unit = std::array<Addr, 3>{16, 32, 48}[below(g, 3)];
  for (std::size_t a = 0; a < arenas; ++a) {
    Arena arena{static_cast<std::int64_t>(a), "a" + std::to_string(a), unit * (3 + below(g, 6)), {}};
    if (below(g, 5) == 0) arena.reserved.push_back({unit, unit + unit / 2});
    p.arenas.push_back(arena);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Tick b = static_cast<Tick>(below(g, static_cast<std::uint64_t>(horizon)));
    const Tick e = b + 1 + static_cast<Tick>(below(g, 1 + below(g, 2) * 4));
    const Addr size = unit * (1 + below(g, 2)) - (below(g, 4) == 0 ? unit / 2 : 0);
    p.buffers.push_back({std::to_string(i),
                         size,
                         below(g, 3) == 0 ? Addr{32} : Addr{16},
                         static_cast<std::int64_t>(below(g, arenas)),
                         {b, e}});
  }
  // The rule.
  ImplicitPenalties& r = c.rule;
  r.kinds = static_cast<std::uint32_t>(1 + below(g, 3));
  r.ordered.resize(static_cast<std::size_t>(r.kinds) * r.kinds);
  for (auto& x : r.ordered) x = below(g, 3) != 0 ? 1 : 0;
  const std::uint32_t groups = static_cast<std::uint32_t>(1 + below(g, 3));
  for (std::size_t i = 0; i < n; ++i) {
    const auto& b = p.buffers[i];
    // Fitting groups never mix arenas: group = arena * groups + k.
    const std::uint32_t k = static_cast<std::uint32_t>(below(g, groups));
    r.group.push_back(below(g, 6) == 0 ? ImplicitPenalties::none
                                       : (fitting ? static_cast<std::uint32_t>(b.arena) * groups + k : k));
    r.kind.push_back(static_cast<std::uint32_t>(below(g, r.kinds)));
    if (fitting) {
      r.begin.push_back(b.lifetime.begin);
      r.end.push_back(b.lifetime.end - 1);
    } else {
      const Tick x = static_cast<Tick>(below(g, static_cast<std::uint64_t>(horizon)));
      r.begin.push_back(x);
      r.end.push_back(x + static_cast<Tick>(below(g, 3)));
    }
  }
  // Removed: some rule pairs, and pairs the rule does not make (ignored).
  for (std::size_t k = 0; k < n && n > 1; ++k)
    if (below(g, 3) == 0) {
      const std::size_t a = below(g, n), b = below(g, n);
      if (a != b) r.removed.emplace_back(std::min(a, b), std::max(a, b));
    }
  std::sort(r.removed.begin(), r.removed.end());
  r.removed.erase(std::unique(r.removed.begin(), r.removed.end()), r.removed.end());

  auto co_live = [&](std::size_t a, std::size_t b) {
    const auto &x = p.buffers[a].lifetime, &y = p.buffers[b].lifetime;
    return x.begin < y.end && y.begin < x.end;
  };
  auto same_arena = [&](std::size_t a, std::size_t b) { return p.buffers[a].arena == p.buffers[b].arena; };
  // Separations, some of them pipeline-only (the driver may relax those).
  for (std::size_t k = 0; k < n / 3; ++k) {
    const std::size_t a = below(g, n), b = below(g, n);
    if (a == b || !same_arena(a, b)) continue;
    p.separations.push_back(
        {static_cast<BufferId>(a), static_cast<BufferId>(b),
         below(g, 2) == 0 ? std::uint8_t{reason_pipeline_stage} : std::uint8_t{reason_explicit}});
  }
  // Explicit penalties on lifetime-disjoint pairs of one arena, some on rule pairs.
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t a = below(g, n), b = below(g, n);
    if (a == b || !same_arena(a, b) || co_live(a, b)) continue;
    p.penalties.push_back({static_cast<BufferId>(a), static_cast<BufferId>(b), 1 + below(g, 3)});
  }
  c.listed = p;
  for (const auto& [a, b] : implicit_pairs(r))
    if (same_arena(a, b) && !co_live(a, b))
      c.listed.penalties.push_back({static_cast<BufferId>(a), static_cast<BufferId>(b), 1});
  // Shuffle the listed penalties: their order must not matter.
  std::shuffle(c.listed.penalties.begin(), c.listed.penalties.end(), g);
  return c;
}

void same_result(const GreedyResult& want, const GreedyResult& got) {
  REQUIRE(got.status == want.status);
  CHECK(got.orders == want.orders);
  CHECK(got.statistics.candidates_evaluated == want.statistics.candidates_evaluated);
  CHECK(got.statistics.orders_evaluated == want.statistics.orders_evaluated);
  CHECK(got.statistics.selected_order == want.statistics.selected_order);
  CHECK(got.statistics.first_fit_feasible == want.statistics.first_fit_feasible);
  CHECK(got.statistics.selected_first_fit == want.statistics.selected_first_fit);
  CHECK(got.statistics.extra == want.statistics.extra);
  REQUIRE(got.placement.has_value() == want.placement.has_value());
  if (!want.placement) return;
  CHECK(got.placement->offsets == want.placement->offsets);
  CHECK(got.objective.penalty == want.objective.penalty);
  CHECK(got.objective.total_peak == want.objective.total_peak);
  CHECK(got.objective.max_peak == want.objective.max_peak);
}

}  // namespace implicit_penalties_test

using namespace implicit_penalties_test;

TEST_CASE("TickCounter counts like a sorted list, across chunk splits") {
  std::mt19937_64 g(5);
  for (int round = 0; round < 20; ++round) {
    dsa::TickCounter c;
    std::vector<Tick> all;
    const std::size_t n = below(g, 3000);
    const Tick spread = static_cast<Tick>(1 + below(g, 2000));
    for (std::size_t k = 0; k < n; ++k) {
      const Tick t = static_cast<Tick>(below(g, static_cast<std::uint64_t>(spread)));
      c.insert(t);
      all.push_back(t);
      if (k % 97 == 0 || k + 1 == n) {
        const Tick q = static_cast<Tick>(below(g, static_cast<std::uint64_t>(spread) + 2)) - 1;
        const auto lo =
            static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](Tick x) { return x < q; }));
        const auto hi =
            static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](Tick x) { return x > q; }));
        CHECK(c.below(q) == lo);
        CHECK(c.above(q) == hi);
      }
    }
    c.clear();
    CHECK(c.below(spread + 1) == 0);
    CHECK(c.above(-1) == 0);
  }
}

TEST_CASE("property: the compressed relation holds exactly the recognizer's pairs") {
  enum class Pipe { A, B, C };
  std::mt19937_64 g(20261207);
  std::size_t ruled = 0, listed = 0, removed = 0;
  for (int round = 0; round < 3000; ++round) {
    CAPTURE(round);
    std::vector<BufferSpec> allocs;
    const std::size_t n = 1 + below(g, round % 10 == 0 ? 60 : 16);
    const bool ordered_trace = below(g, 2) == 0;  // orders follow lifetimes, as an IR walk gives them
    for (std::size_t i = 0; i < n; ++i) {
      const Tick def = static_cast<Tick>(below(g, 14));
      allocs.push_back({"a" + std::to_string(i),
                        64,
                        32,
                        static_cast<std::int64_t>(below(g, 2)),
                        {def, def + static_cast<Tick>(below(g, 5))}});
    }
    std::vector<AccessEvent<Pipe>> events;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = 1 + below(g, 3);
      const std::uint32_t region = below(g, 4) == 0 ? 1 + static_cast<std::uint32_t>(below(g, 2)) : 0;
      for (std::size_t e = 0; e < k; ++e) {
        AccessEvent<Pipe> ev;
        ev.allocation = i;
        const auto& life = allocs[i].lifetime;
        ev.order = ordered_trace ? static_cast<std::uint64_t>(life.begin) +
                                       below(g, static_cast<std::uint64_t>(life.end - life.begin) + 1)
                                 : below(g, 18);
        if (e == 0 && ordered_trace) ev.order = static_cast<std::uint64_t>(life.begin);
        ev.write = e == 0 || below(g, 2) == 0;
        if (below(g, 12) != 0) ev.pipe = static_cast<Pipe>(below(g, 3));
        ev.region = below(g, 20) == 0 ? 3 : region;
        ev.in_loop = ev.region != 0;
        ev.whole = below(g, 15) != 0;
        events.push_back(ev);
      }
    }
    std::vector<Pair> separated;
    for (std::size_t s = 0; s < n / 3; ++s) separated.emplace_back(below(g, n), below(g, n));
    auto want = recognize_reuse_penalties(allocs, events, separated);
    std::sort(want.begin(), want.end(), [](const ReusePenalty& x, const ReusePenalty& y) {
      return std::pair(x.a, x.b) < std::pair(y.a, y.b);
    });
    const ReusePenaltyRelation got = recognize_reuse_penalty_relation(allocs, events, separated);
    CHECK(keys(got.pairs()) == keys(want));
    CHECK(got.size() == want.size());
    for (const auto& e : got.pairs()) CHECK(e.weight == 1);
    for (const auto& e : got.listed) CHECK_FALSE(got.implicit.in_rule(e.a, e.b));  // disjoint from the rule
    for (const auto& [a, b] : got.implicit.removed) CHECK(got.implicit.in_rule(a, b));
    for (std::size_t a = 0; a < n; ++a)  // contains() answers pair by pair
      for (std::size_t b = 0; b < n; ++b) {
        const bool listed_pair = std::ranges::any_of(got.listed, [&](const ReusePenalty& e) {
          return e.a == std::min(a, b) && e.b == std::max(a, b);
        });
        const bool in_want = std::ranges::any_of(
            want, [&](const ReusePenalty& e) { return e.a == std::min(a, b) && e.b == std::max(a, b); });
        CHECK((got.implicit.contains(a, b) || listed_pair) == in_want);
      }
    ruled += implicit_pair_count(got.implicit);
    listed += got.listed.size();
    removed += got.implicit.removed.size();
  }
  MESSAGE("rule pairs " << ruled << ", listed " << listed << ", removed " << removed);
  CHECK(ruled > 5000);
  CHECK(listed > 500);
  CHECK(removed > 200);
}

TEST_CASE("property: a rule and the same pairs listed place, score and count alike") {
  std::mt19937_64 g(424242);
  std::size_t feasible = 0, no_fit = 0, with_penalty = 0, fallback = 0;
  for (int round = 0; round < 2500; ++round) {
    CAPTURE(round);
    const bool fitting = round % 4 != 0;
    const RuleCase c = random_case(g, fitting, round % 25 == 0 ? 120 : 24);
    GreedyOptions o;
    o.compat_pypto = round % 2 == 0;
    o.seed = below(g, 3);
    o.restarts = below(g, 5);
    o.bucket_events = std::array<std::uint32_t, 3>{0, 2, 128}[below(g, 3)];
    o.trusted = true;                    // a non-fitting rule may pair co-live buffers; both sides drop those
    if (round % 7 == 0) o.cut_from = 0;  // passes with a limit track the running penalty
    if (round % 11 == 0) {
      o.threads = 2;
      o.parallel_from = 0;
    }
    const GreedyResult want = canonical_greedy(c.listed, o);
    const GreedyResult got = canonical_greedy(c.ruled, o, &c.rule);
    same_result(want, got);
    if (!fitting) fallback += dsa::detail::rule_fits(dsa::build_search_space(c.ruled), c.rule) ? 0 : 1;
    if (want.placement) {
      ++feasible;
      if (want.objective.penalty > 0) ++with_penalty;
      CHECK_FALSE(has_errors(validate(c.listed, *got.placement)));
      CHECK(evaluate_objective(c.listed, *got.placement).penalty == got.objective.penalty);
    } else {
      ++no_fit;
    }
  }
  MESSAGE("feasible " << feasible << " (with penalty " << with_penalty << "), no fit " << no_fit
                      << ", rules listed instead " << fallback);
  CHECK(feasible > 800);
  CHECK(with_penalty > 300);
  CHECK(no_fit > 100);
  CHECK(fallback > 50);
}

TEST_CASE("property: the DSA-RP driver relaxes and counts alike with a rule") {
  std::mt19937_64 g(99001);
  std::size_t relaxed = 0;
  for (int round = 0; round < 1500; ++round) {
    CAPTURE(round);
    const RuleCase c = random_case(g, true, 24);
    GreedyOptions o;
    o.compat_pypto = true;
    o.trusted = true;
    const DsaRpResult want = plan_dsa_rp(c.listed, o);
    const DsaRpResult got = plan_dsa_rp(c.ruled, o, &c.rule);
    same_result(want.greedy, got.greedy);
    CHECK(got.relaxable_pairs == want.relaxable_pairs);
    CHECK(got.overlapping_pairs == want.overlapping_pairs);
    CHECK(got.relaxed.has_value() == want.relaxed.has_value());
    relaxed += want.relaxed ? 1 : 0;
  }
  MESSAGE("relaxed " << relaxed);
  CHECK(relaxed > 50);
}

TEST_CASE("a long run of one kind: every earlier buffer is a partner, a few byte ranges hold them") {
  // 3000 buffers one after another, each paying against every other: the
  // rule holds 4.5 million pairs; the listed problem would too. Compare with
  // a listed copy on a prefix small enough to list, and check the large one
  // against its own rule pair by pair on a sample.
  for (std::size_t n : {300u, 3000u}) {
    CAPTURE(n);
    Problem p;
    p.arenas.push_back({0, "Vec", 4 * 1024, {}});  // four slots: buckets grow past a chunk
    ImplicitPenalties r;
    r.kinds = 2;
    r.ordered = {1, 1, 0, 1};  // kind 1 then kind 0 is free
    for (std::size_t i = 0; i < n; ++i) {
      const Tick t = static_cast<Tick>(2 * i);
      p.buffers.push_back({std::to_string(i), 1024, 32, 0, {t, t + 2 + static_cast<Tick>(i % 3 == 0)}});
      r.group.push_back(0);
      r.kind.push_back(static_cast<std::uint32_t>(i % 2));
      r.begin.push_back(t);
      r.end.push_back(t + 1 + static_cast<Tick>(i % 3 == 0));
    }
    GreedyOptions o;
    o.compat_pypto = true;
    o.trusted = true;
    const GreedyResult got = canonical_greedy(p, o, &r);
    REQUIRE(got.placement);
    CHECK_FALSE(has_errors(validate(p, *got.placement)));
    // The penalty the objective reports, counted pair by pair.
    Weight paid = 0;
    for (const auto& [a, b] : implicit_pairs(r))
      if (overlaps(AddrRange{*got.placement->offsets[a], *got.placement->offsets[a] + 1024},
                   AddrRange{*got.placement->offsets[b], *got.placement->offsets[b] + 1024}))
        ++paid;
    CHECK(got.objective.penalty == paid);
    if (n <= 300) {
      Problem listed = p;
      for (const auto& [a, b] : implicit_pairs(r))
        listed.penalties.push_back({static_cast<BufferId>(a), static_cast<BufferId>(b), 1});
      same_result(canonical_greedy(listed, o), got);
    }
  }
}
