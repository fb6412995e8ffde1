// The front door: plan(problem, options) -> result. Every placement a
// strategy produces is checked by the independent validator before it is
// returned; a planner bug becomes a diagnostic, never a wrong address.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/dsa_rp.hpp"
#include "pto_mem/algorithms/exact.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/portfolio.hpp"
#include "pto_mem/algorithms/reuse.hpp"
#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/core/result.hpp"

namespace pto_mem {

struct PlanOptions {
  std::string strategy = "portfolio";
  /// What `exact` and `portfolio` aim at: `fit` stops at the first placement
  /// under every capacity (with the least penalty); `minimise` also drives
  /// every arena's peak towards its lower bound under the budget.
  Goal goal = Goal::minimise;
  double time_limit_s = 10.0;   ///< budget for strategies that search
  std::uint64_t node_limit = 0; ///< search nodes for exact search; 0 = no limit
  unsigned threads = 0;         ///< worker threads for portfolio; 0 = hardware concurrency
  std::uint64_t seed = 0;       ///< seeded restarts (DSA-RP)
  std::size_t restarts = 4;     ///< seeded restarts (DSA-RP)
  bool compat_pypto = false;    ///< reproduce PyPTO's DSA-RP placements bit for bit
};

/// The strategies `plan` accepts, in the order the tool lists them.
[[nodiscard]] inline std::vector<std::string> strategies() { return {"sequential", "reuse", "greedy", "exact", "portfolio"}; }

namespace detail {

inline bool reaches_lower_bound(const Objective& o, const std::vector<Addr>& lb) {
  if (o.penalty != 0) return false;
  for (std::size_t k = 0; k < lb.size(); ++k)
    if (o.peak_by_arena[k] > lb[k]) return false;
  return true;
}

/// Strategy "reuse", PyPTO's default pipeline: allocations whose lifetimes do
/// not overlap share slots (algorithms/reuse.hpp), then the slots are placed
/// sequentially. Returns a placement of `p`'s buffers.
inline std::optional<Placement> plan_reuse(const Problem& p, const std::vector<bool>& closed, PlanResult& r) {
  const ReuseResult shared = reuse_lifetimes(p, closed);
  r.statistics.set("slots", static_cast<std::int64_t>(shared.slots.size()));
  SlotProblem slots = shared_slot_problem(p, shared);
  if (has_errors(slots.diagnostics)) {
    r.diagnostics.insert(r.diagnostics.end(), slots.diagnostics.begin(), slots.diagnostics.end());
    return std::nullopt;
  }
  auto s = place_sequential(slots.problem);
  r.diagnostics.insert(r.diagnostics.end(), s.diagnostics.begin(), s.diagnostics.end());
  if (!s.placement) return std::nullopt;
  return expand_slots(shared, *s.placement);
}

/// The original problem without the separations the greedy driver relaxed:
/// those between two allocations whose pair it turned into a penalty.
inline Problem without_relaxed(const Problem& original, const AliasUnification& unified,
                               const std::vector<BufferPair>& relaxed) {
  std::set<std::pair<std::string, std::string>> pairs;
  for (const auto& [a, b] : relaxed) pairs.insert({std::min(a, b), std::max(a, b)});
  const ProblemIndex index(original);
  Problem out = original;
  std::erase_if(out.separations, [&](const Separation& s) {
    const auto& x = unified.problem.buffers[unified.allocation_of[*index.buffer(s.a)]].id;
    const auto& y = unified.problem.buffers[unified.allocation_of[*index.buffer(s.b)]].id;
    return pairs.contains({std::min(x, y), std::max(x, y)});
  });
  return out;
}

}  // namespace detail

/// Plans `original` with `options.strategy`. The result's status is honest:
/// `optimal` only when the placement meets the lower bound in every arena
/// with no penalty paid, `no_fit` when the strategy (a bounded search) found
/// nothing, `invalid` for malformed problems or an unknown strategy.
///
/// Every strategy places allocations, not raw buffers: must-alias groups and
/// declared allocations are first unified (algorithms/alias.hpp), the
/// strategy plans the reduced problem, and its placement is expanded to every
/// original buffer and validated against the original problem.
[[nodiscard]] inline PlanResult plan(const Problem& original, const PlanOptions& options = {}) {
  const auto start = std::chrono::steady_clock::now();
  PlanResult r;
  r.strategy = options.strategy;
  auto finish = [&]() -> PlanResult {
    r.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(r);
  };
  r.diagnostics = validate(original);
  if (has_errors(r.diagnostics)) {
    r.status = Status::invalid;
    return finish();
  }
  for (const auto& load : arena_loads(original)) r.lower_bound.push_back(load.lower_bound);

  const AliasUnification unified = unify_aliases(original);
  if (!unified.ok()) {
    r.diagnostics.insert(r.diagnostics.end(), unified.diagnostics.begin(), unified.diagnostics.end());
    r.status = Status::invalid;
    return finish();
  }
  const Problem& problem = unified.problem;  // what every strategy below places: one buffer per allocation
  r.statistics.set("allocations", static_cast<std::int64_t>(problem.buffers.size()));

  std::optional<Placement> placement;  // of problem.buffers
  // Set when a strategy relaxed pipeline-only separations into penalties: the
  // placement is then checked against the original without them.
  std::optional<Problem> relaxed_original;
  Weight relaxed_penalty = 0;
  std::optional<Status> proven;  // a searching strategy's own verdict (exact, portfolio)
  if (options.strategy == "exact" || options.strategy == "portfolio") {
    ExactResult e;
    if (options.strategy == "exact") {
      ExactOptions eo;
      eo.mode = options.goal;
      eo.time_limit_s = options.time_limit_s;
      eo.node_limit = options.node_limit;
      eo.threads = options.threads;
      e = solve_exact(problem, eo);
    } else {
      PortfolioOptions po;
      po.goal = options.goal;
      po.seed = options.seed;
      po.restarts = options.restarts;
      po.time_limit_s = options.time_limit_s;
      po.node_limit = options.node_limit;
      po.threads = options.threads;
      e = solve_portfolio(problem, po);
    }
    r.diagnostics.insert(r.diagnostics.end(), e.diagnostics.begin(), e.diagnostics.end());
    const auto allocations = r.statistics.extra;
    r.statistics = std::move(e.statistics);
    for (const auto& [k, v] : allocations) r.statistics.set(k, v);
    if (e.status == Status::invalid || e.status == Status::infeasible || e.status == Status::no_fit) {
      r.status = e.status;  // the diagnostics say why (and whether it is a proof)
      return finish();
    }
    for (std::size_t k = 0; k < r.lower_bound.size() && k < e.lower_bound.size(); ++k)
      r.lower_bound[k] = std::max(r.lower_bound[k], e.lower_bound[k]);
    proven = e.status;
    placement = std::move(e.placement);
  } else if (options.strategy == "sequential") {
    auto s = place_sequential(problem);
    r.diagnostics.insert(r.diagnostics.end(), s.diagnostics.begin(), s.diagnostics.end());
    placement = std::move(s.placement);
  } else if (options.strategy == "reuse") {
    placement = detail::plan_reuse(problem, unified.closed, r);
  } else if (options.strategy == "greedy") {
    // trusted: the problem was validated above and the placement is below.
    GreedyOptions greedy{options.seed, options.restarts, options.compat_pypto, true};
    greedy.threads = options.threads;
    if (options.time_limit_s > 0)  // the restarts and the walk stop at the budget
      greedy.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(options.time_limit_s));
    auto g = plan_dsa_rp(problem, greedy);
    const auto allocations = r.statistics.extra;
    r.statistics = std::move(g.greedy.statistics);
    for (const auto& [k, v] : allocations) r.statistics.set(k, v);
    r.diagnostics.insert(r.diagnostics.end(), g.greedy.diagnostics.begin(), g.greedy.diagnostics.end());
    if (g.greedy.status == Status::invalid) {
      r.status = Status::invalid;
      return finish();
    }
    if (!g.greedy.placement) {  // the driver already said why, as a bounded-search result
      r.status = Status::no_fit;
      return finish();
    }
    placement = std::move(g.greedy.placement);
    if (g.relaxed) {
      relaxed_original = detail::without_relaxed(original, unified, pipeline_pairs(problem));
      relaxed_penalty = g.overlapping_pairs;
    }
  } else {
    std::string known;
    for (const auto& s : strategies()) known += (known.empty() ? "" : ", ") + s;
    r.diagnostics.push_back(error("unknown strategy '" + options.strategy + "'; choose one of: " + known));
    r.status = Status::invalid;
    return finish();
  }

  if (!placement) {
    r.status = Status::no_fit;
    r.diagnostics.push_back(error("no placement found by strategy '" + options.strategy +
                                  "'; this bounded search does not prove that none exists"));
    return finish();
  }
  Placement expanded = expand_placement(unified, *placement);
  // The problem was found well formed above; removing relaxed separations keeps it so.
  if (auto bad = validate_placement(relaxed_original ? *relaxed_original : original, expanded); !bad.empty()) {
    r.status = Status::invalid;
    r.diagnostics.push_back(error("internal error: strategy '" + options.strategy +
                                  "' produced a placement that fails validation; please report it"));
    r.diagnostics.insert(r.diagnostics.end(), bad.begin(), bad.end());
    return finish();
  }
  r.objective = evaluate_objective(original, expanded);
  r.objective.penalty = saturating_add(r.objective.penalty, relaxed_penalty);  // relaxed pairs cost 1 each
  r.status = detail::reaches_lower_bound(r.objective, r.lower_bound) ? Status::optimal : Status::feasible;
  if (proven == Status::optimal) r.status = Status::optimal;  // proved, possibly with a least nonzero penalty
  r.placement = std::move(expanded);
  return finish();
}

/// Plans a compiler's own buffers (any range of a type modelling Buffer) under
/// an ArenaPolicy. offsets[i] answers for the i-th buffer of the range; it is
/// nullopt for buffers in arenas the policy does not plan, or when nothing fit.
template <class Key>
struct BufferPlan {
  PlanResult result;
  ProblemWithKeys<Key> model;
  std::vector<std::optional<Addr>> offsets;
};

template <std::ranges::forward_range R, class Policy>
  requires Buffer<std::ranges::range_value_t<R>> &&
           ArenaPolicy<Policy, buffer_arena_t<std::ranges::range_value_t<R>>>
[[nodiscard]] auto plan(const R& buffers, const Policy& policy, const PlanOptions& options = {}) {
  BufferPlan<buffer_arena_t<std::ranges::range_value_t<R>>> out;
  out.model = make_problem(buffers, policy);
  out.result = plan(out.model.problem, options);
  for (const auto& idx : out.model.buffer_index) {
    if (idx && out.result.placement) out.offsets.push_back(out.result.placement->offsets[*idx]);
    else out.offsets.push_back(std::nullopt);
  }
  return out;
}

}  // namespace pto_mem
