// The portfolio (strategy `portfolio`, the default of pto_mem::plan): a fast
// greedy first; when it does not fit, or sits above the lower bound, the
// exact search runs under the time budget, seeded with the greedy placement
// (so the answer is never worse than the greedy's). On a machine with more
// than one core a second worker searches with other static orders and the
// first one to prove its answer stops the other.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

#include "pto_mem/algorithms/exact.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/skyline_dive.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/analysis/lower_bound.hpp"

namespace pto_mem {

struct PortfolioOptions {
  double time_limit_s = 10.0;    ///< budget of the exact stage; <= 0 means none
  std::uint64_t node_limit = 0;  ///< search nodes of the exact stage; 0 = none
  unsigned threads = 0;          ///< 0 = two workers when the machine has more than one core
  std::stop_token stop;
};

namespace exact {

/// The greedy stage: per part, the best first-fit placement over a few
/// orders (first_fit.hpp) for parts of up to 2000 buffers, one area-first
/// canonical dive (skyline_dive.hpp) for larger ones; nothing when some part
/// does not fit.
/// TODO(lead): switch to the DSA-RP canonical greedy (canonical_greedy.hpp)
/// once it is on main; the exact stage only needs some valid placement.
[[nodiscard]] inline std::optional<Placement> greedy_placement(const Problem& p) {
  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  for (const auto& sp : decompose(p)) {
    std::optional<PartPlacement> best;
    if (sp.items.size() <= 2000) {
      best = first_fit_incumbent(sp);
    } else {
      std::vector<Interval> lifetimes;
      lifetimes.reserve(sp.items.size());
      for (const auto& it : sp.items) lifetimes.push_back(it.lifetime);
      const Sections sec = sweep_sections(lifetimes, false);
      best = skyline_dive(sp, sec, preorder_ranks(item_features(sp, sec, {}), "A"), Limits{});
    }
    if (!best) return std::nullopt;
    for (std::size_t i = 0; i < sp.items.size(); ++i) pl.offsets[sp.items[i].buffer] = best->offsets[i];
  }
  return pl;
}

}  // namespace exact

/// Greedy, then (if needed) the exact search; see the header.
[[nodiscard]] inline ExactResult solve_portfolio(const Problem& p, const PortfolioOptions& o = {}) {
  ExactResult r;
  r.diagnostics = validate(p);
  if (has_errors(r.diagnostics)) return r;
  if (auto d = exact::unsupported(p); !d.empty()) {
    r.diagnostics = std::move(d);
    return r;
  }
  const auto start = exact::Clock::now();
  std::optional<Placement> greedy = exact::greedy_placement(p);
  if (greedy && validate(p, *greedy).empty()) {
    const Objective obj = evaluate_objective(p, *greedy);
    const auto loads = arena_loads(p);
    bool at_bound = obj.penalty == 0;
    for (std::size_t a = 0; a < loads.size() && at_bound; ++a) at_bound = obj.peak_by_arena[a] <= loads[a].lower_bound;
    if (at_bound) {  // nothing to improve: the greedy is provably optimal
      r.status = Status::optimal;
      r.placement = std::move(greedy);
      r.penalty_proven = true;
      for (const auto& l : loads) r.lower_bound.push_back(l.lower_bound);
      r.statistics.set("portfolio_stage", 0);
      return r;
    }
  } else {
    greedy.reset();
  }
  ExactOptions eo;
  eo.mode = ExactMode::minimise;
  // The budget covers both stages: the exact stage gets what the greedy left
  // (at least a millisecond, so that "no limit" stays distinguishable).
  eo.time_limit_s = o.time_limit_s;
  if (o.time_limit_s > 0)
    eo.time_limit_s = std::max(1e-3, o.time_limit_s - std::chrono::duration<double>(exact::Clock::now() - start).count());
  eo.node_limit = o.node_limit;
  eo.threads = o.threads;
  eo.incumbent = std::move(greedy);
  eo.stop = o.stop;
  r = solve_exact(p, eo);
  r.statistics.set("portfolio_stage", 1);
  return r;
}

}  // namespace pto_mem
