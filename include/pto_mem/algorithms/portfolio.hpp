// The portfolio (strategy `portfolio`, the default of pto_mem::plan): the
// library's DSA-RP canonical greedy first (the same solver as strategy
// `greedy`); then, when the goal asks for more, the exact search under the
// time budget, seeded with the greedy placement -- so the answer is never
// worse than the greedy's. Goals: `fit` stops at the first placement under
// every capacity (with the least penalty); `minimise` also drives every
// arena's peak towards its lower bound. On a machine with more than one core
// a second worker searches with other static orders; the workers meet at
// fixed node counts, so the answer does not depend on thread timing.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/exact.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/analysis/lower_bound.hpp"

namespace pto_mem {

struct PortfolioOptions {
  Goal goal = Goal::minimise;
  double time_limit_s = 10.0;    ///< budget of both stages; <= 0 means none
  std::uint64_t node_limit = 0;  ///< search nodes of the exact stage; 0 = none
  unsigned threads = 0;          ///< 0 = two workers when the machine has more than one core
  std::uint64_t seed = 0;        ///< the greedy's seeded restarts and the exact stage's randomised dives
  std::size_t restarts = 4;
  std::stop_token stop;
  ProgressCallback progress = {};  ///< after the greedy stage, then as the exact stage improves
  /// The caller has validated the problem (pto_mem::plan has): skip that
  /// check here and in the exact stage (a second at a million buffers).
  bool trusted = false;
};

namespace exact {

/// The greedy stage: the DSA-RP canonical greedy (dsa_rp/canonical_greedy.hpp) with
/// every separation hard, as strategy `greedy` runs it first; nothing when
/// it finds no fit. (Strategy `greedy` may then relax pipeline-only
/// separations into penalties; the portfolio never does: it places the
/// problem as given.)
[[nodiscard]] inline std::optional<Placement> greedy_placement(const Problem& p,
                                                               const PortfolioOptions& o = {},
                                                               bool* stopped_by_deadline = nullptr) {
  GreedyOptions g;
  g.seed = o.seed;
  g.restarts = o.restarts;
  g.trusted = true;  // the portfolio validated the problem and validates the placement
  g.threads = o.threads;
  if (has_deadline(o.time_limit_s))  // the greedy stage spends the budget too (its restarts stop at it)
    g.deadline = deadline_after<exact::Clock>(exact::Clock::now(), o.time_limit_s);
  g.stop = o.stop;
  auto r = canonical_greedy(p, g);
  if (stopped_by_deadline)
    for (const auto& [k, v] : r.statistics.extra)
      *stopped_by_deadline = *stopped_by_deadline || (k == "stopped_by_deadline" && v != 0);
  // The greedy checks every incumbent itself; an untrusting caller gets the
  // independent validator too (pto_mem::plan validates the final placement).
  if (!r.placement || (!o.trusted && validate(p, *r.placement).size() != 0)) return std::nullopt;
  return std::move(r.placement);
}

}  // namespace exact

/// Greedy, then (if the goal asks for more) the exact search; see the header.
[[nodiscard]] inline ExactResult solve_portfolio(const Problem& p, const PortfolioOptions& o = {}) {
  ExactResult r;
  if (!o.trusted) r.diagnostics = validate(p);
  if (has_errors(r.diagnostics)) return r;
  if (auto d = exact::unsupported(p); !d.empty()) {
    r.diagnostics = std::move(d);
    r.status = Status::unsupported;
    return r;
  }
  const auto start = exact::Clock::now();
  bool greedy_stopped = false;  // the time limit or the caller ended the greedy's restarts
  std::optional<Placement> greedy = exact::greedy_placement(p, o, &greedy_stopped);
  if (greedy) {
    const Objective obj = evaluate_objective(p, *greedy);
    const auto loads = arena_loads(p);
    if (o.progress) {
      SearchProgress sp;
      sp.best_peak = obj.total_peak;
      sp.best_penalty = obj.penalty;
      for (const auto& l : loads) sp.proved_bound = saturating_add(sp.proved_bound, l.lower_bound);
      sp.elapsed_s = std::chrono::duration<double>(exact::Clock::now() - start).count();
      o.progress(sp);
    }
    bool at_bound = obj.penalty == 0;
    Addr total_lower = 0;
    for (std::size_t a = 0; a < loads.size(); ++a) {
      at_bound = at_bound && obj.peak_by_arena[a] <= loads[a].lower_bound;
      total_lower = saturating_add(total_lower, loads[a].lower_bound);
    }
    // Nothing to improve (the greedy is provably optimal), or the goal is a
    // fit and the greedy fits paying nothing: answer at once.
    if (at_bound || (o.goal == Goal::fit && obj.penalty == 0)) {
      r.status = at_bound ? Status::optimal : Status::feasible;
      r.placement = std::move(greedy);
      r.penalty_proven = obj.penalty == 0;
      for (const auto& l : loads) r.lower_bound.push_back(l.lower_bound);
      r.statistics.set("portfolio_stage", 0);
      if (greedy_stopped)
        r.stopped_by = o.stop.stop_requested() ? StopReason::interrupted : StopReason::deadline;
      r.statistics.set("lower_bound_total",
                       static_cast<std::int64_t>(std::min<Addr>(total_lower, INT64_MAX)));
      r.statistics.set("gap_ppm", exact::gap_ppm(obj.total_peak, total_lower));
      if (!at_bound) r.diagnostics.push_back(exact::gap_note(obj.total_peak, total_lower, true, o.goal));
      return r;
    }
  }
  if (o.stop.stop_requested()) {  // the caller stopped the greedy stage: answer with what it found
    r.stopped_by = StopReason::interrupted;
    for (const auto& l : arena_loads(p)) r.lower_bound.push_back(l.lower_bound);
    if (greedy) {
      r.status = Status::feasible;
      r.placement = std::move(greedy);
    } else {
      r.status = Status::no_fit;
      r.diagnostics.push_back(
          error("no fit found before the search was interrupted; this is not a proof that none "
                "exists"));
    }
    r.statistics.set("portfolio_stage", 0);
    return r;
  }
  ExactOptions eo;
  eo.mode = o.goal;
  eo.trusted = true;  // checked above, or by the caller
  // The budget covers both stages: the exact stage gets what the greedy left
  // (at least a millisecond, so that "no limit" stays distinguishable).
  eo.time_limit_s = o.time_limit_s;
  if (has_deadline(o.time_limit_s))
    eo.time_limit_s =
        std::max(1e-3, o.time_limit_s - std::chrono::duration<double>(exact::Clock::now() - start).count());
  eo.node_limit = o.node_limit;
  eo.threads = o.threads;
  eo.seed = o.seed;
  eo.incumbent = std::move(greedy);
  eo.stop = o.stop;
  eo.progress = o.progress;
  eo.started = start;
  r = solve_exact(p, eo);
  r.statistics.set("portfolio_stage", 1);
  if (greedy_stopped && r.stopped_by == StopReason::completed)
    r.stopped_by = o.stop.stop_requested() ? StopReason::interrupted : StopReason::deadline;
  return r;
}

}  // namespace pto_mem
