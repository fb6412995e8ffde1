// Exact and anytime search over canonical placements (strategy `exact`).
//
// The problem is cut into independent parts (arenas, and time blocks no
// lifetime, separation or penalty joins); each part is searched by the
// complete branch-and-bound of exact/search.hpp. Modes:
//   fit       -- a placement under every arena capacity, then the least
//                penalty (lexicographic objective: fit, penalty, peak);
//   minimise  -- then the least peak per arena, tightened from both sides:
//                probes at the lower bound prove optimality, probes between
//                the bounds improve the incumbent or raise the bound.
// Anytime: a deadline, a node limit and a stop token end the search; the best
// placement found so far is returned. Statuses tell what was proved:
//   optimal    -- objective proved least (penalty and every arena's peak);
//   feasible   -- a valid placement; the gap to the proved bound is reported;
//   infeasible -- a part's complete search finished and nothing fits;
//   no_fit     -- the budget ran out before any fit: NOT a proof.
// With two threads, a probe that runs long splits its restarts over two
// lanes and takes the answer of the attempt that ended first on the lanes'
// node clocks, so the answer is the same on every run, and the same
// whichever lane is faster, unless a deadline cut the search (docs/exact.md,
// "Two lanes" and "Determinism").
// Must-alias groups and declared allocations are placed through alias
// unification (algorithms/alias.hpp) before the search; a problem that still
// has them is rejected with a diagnostic.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/lanes.hpp"
#include "pto_mem/algorithms/exact/part_solver.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/core/result.hpp"
#include "pto_mem/core/search_control.hpp"  // Goal, SearchProgress

namespace pto_mem {

struct ExactOptions {
  ExactMode mode = ExactMode::minimise;
  double time_limit_s = 10.0;    ///< wall-clock budget; <= 0 means none
  std::uint64_t node_limit = 0;  ///< search nodes in all (every worker); 0 = none
  /// Threads: 1 = this thread only; 0 = two when the machine has more than
  /// one core; >= 2 = two (a probe's restarts split over two lanes once it
  /// has run exact::lane_split_nodes nodes; parts too large to search run
  /// their randomised dives two at a time). The answer does not depend on
  /// thread timing unless the deadline cuts the search; it may differ from
  /// one thread's (the lanes learn apart, dives and window steps interleave
  /// differently) unless no probe splits and no part is too large to search.
  unsigned threads = 1;
  /// A placement to start from (the greedy's); used when it is valid.
  std::optional<Placement> incumbent;
  /// Optional, per buffer of the problem: a fixed offset (a pin). The search
  /// keeps such a buffer there -- every other byte is blocked for it, which
  /// the complete search honours as it honours reserved windows -- while
  /// buffers it does not conflict with may still share its bytes. Empty:
  /// none. The offsets must be aligned and fit the capacity (the caller's
  /// check); fixed buffers that conflict must not overlap.
  std::vector<std::optional<Addr>> fixed_offsets = {};
  /// The randomised dives' draws on parts too large to search
  /// (docs/exact.md, "Randomised dives"): another seed, another sequence.
  std::uint64_t seed = 0;
  std::stop_token stop;  ///< a caller's cancellation
  /// Told of each improvement the first worker (on the caller's thread) makes
  /// while it tightens the peak (goal minimise).
  ProgressCallback progress = {};
  /// When the solve started, for SearchProgress::elapsed_s (default: now).
  std::optional<std::chrono::steady_clock::time_point> started = std::nullopt;
  /// The caller has validated the problem (pto_mem::plan and the portfolio
  /// have): skip that check (a second at a million buffers).
  bool trusted = false;
};

struct ExactResult {
  Status status = Status::invalid_input;
  std::optional<Placement> placement;             ///< best found (present for optimal/feasible)
  std::vector<Addr> lower_bound;                  ///< proved, per arena (aligned with problem.arenas)
  bool penalty_proven = false;                    ///< the placement's penalty is the least possible
  Weight penalty_bound = 0;                       ///< proved: no placement that fits pays less penalty
  StopReason stopped_by = StopReason::completed;  ///< what ended the search
  Diagnostics diagnostics;
  Statistics statistics;
};

namespace exact {

/// Why the exact search cannot take `p` as it is (empty when it can).
[[nodiscard]] inline Diagnostics unsupported(const Problem& p) {
  Diagnostics out;
  if (!p.must_alias.empty() || !p.declared.empty())
    out.push_back(
        error("the exact search places must-alias groups and declared allocations only after alias "
              "unification (algorithms/alias.hpp) has made each group one buffer; unify the problem "
              "first, or call pto_mem::plan, which does"));
  return out;
}

/// Blocks, for each item with a fixed offset, every byte but its own
/// (ExactOptions::fixed_offsets).
inline void pin_items(std::vector<Subproblem>& parts, const std::vector<std::optional<Addr>>& fixed) {
  for (auto& sp : parts)
    for (std::size_t i = 0; i < sp.items.size(); ++i) {
      const auto b = sp.items[i].buffer;
      if (b >= fixed.size() || !fixed[b]) continue;
      if (sp.blocked.empty()) sp.blocked.assign(sp.items.size(), {});
      const Addr at = *fixed[b];
      if (at > 0) sp.blocked[i].push_back({0, at});
      sp.blocked[i].push_back({saturating_add(at, sp.items[i].size), max_addr});
    }
}

/// A part's offsets taken from a whole-problem placement (nullopt if any is missing).
[[nodiscard]] inline std::optional<PartPlacement> restrict_to(const Subproblem& sp, const Placement& pl) {
  std::vector<Addr> off(sp.items.size());
  for (std::size_t i = 0; i < sp.items.size(); ++i) {
    const auto b = sp.items[i].buffer;
    if (b >= pl.offsets.size() || !pl.offsets[b]) return std::nullopt;
    off[i] = *pl.offsets[b];
  }
  return score(sp, std::move(off));
}

/// Which limit ended a search that did not end by itself.
[[nodiscard]] inline StopReason stop_reason(const Limits& limits) {
  if (limits.stop.stop_requested()) return StopReason::interrupted;
  if (limits.out_of_nodes()) return StopReason::node_limit;
  if (Clock::now() >= limits.deadline) return StopReason::deadline;
  return StopReason::completed;
}

/// What a user can do when a budget ended the search before a fit.
[[nodiscard]] inline std::string budget_advice(StopReason why) {
  switch (why) {
    case StopReason::node_limit:
      return "the node budget ran out; raise it (PlanOptions::node_limit, pto-mem --node-limit, 0 = none) or "
             "give "
             "a time limit instead (time_limit_s, --time-limit), which then is the whole budget";
    case StopReason::deadline:
      return "the time limit ran out; raise it (PlanOptions::time_limit_s, pto-mem --time-limit)";
    case StopReason::interrupted: return "the search was interrupted before it found one";
    case StopReason::completed: break;
  }
  return "raise the time or node limit";
}

/// (peak - lower) in parts per million of `lower` (0 when lower is 0).
[[nodiscard]] inline std::int64_t gap_ppm(Addr peak, Addr lower) {
  if (lower == 0) return 0;
  return static_cast<std::int64_t>(static_cast<long double>(peak - std::min(peak, lower)) * 1e6L /
                                   static_cast<long double>(lower));
}

/// "feasible, not proved optimal: ..." with the gap to the proved bounds.
[[nodiscard]] inline Diagnostic gap_note(Addr total_peak, Addr total_lower, bool penalty_proven, Goal goal) {
  std::string msg = "feasible, not proved optimal: ";
  if (!penalty_proven) msg += "the penalty is not proved least; ";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", static_cast<double>(gap_ppm(total_peak, total_lower)) / 1e4);
  msg += "total peak " + std::to_string(total_peak) + " is within " + buf + " % of the proved lower bound " +
         std::to_string(total_lower) + (goal == Goal::fit ? " (goal fit does not minimise the peak)" : "");
  return Diagnostic{Severity::note, "", std::move(msg), std::nullopt};
}

[[nodiscard]] inline std::string describe_part(const Problem& p, const Subproblem& sp) {
  const auto& a = p.arenas[sp.arena];
  Tick lo = sp.items.front().lifetime.begin, hi = sp.items.front().lifetime.end;
  for (const auto& it : sp.items) {
    lo = std::min(lo, it.lifetime.begin);
    hi = std::max(hi, it.lifetime.end);
  }
  return "arena " + std::to_string(a.id) + (a.name.empty() ? "" : " (" + a.name + ")") + ", " +
         std::to_string(sp.items.size()) + " buffer" + (sp.items.size() == 1 ? "" : "s") + " live in [" +
         std::to_string(lo) + ", " + std::to_string(hi) + ")";
}

/// The search's part solvers, node meter and limits.
struct Worker {
  std::vector<PartSolver> solvers;
  NodeMeter meter;
  Limits limits;
  bool finished = false;  ///< ended by itself: everything settled or nothing left to try
};

/// Nothing is left to do for a part under the goal: proved infeasible, or a
/// fit whose penalty is proved least (and, for goal minimise, whose peak is
/// proved least too).
[[nodiscard]] inline bool part_settled(const PartState& s, Goal goal) noexcept {
  return s.closed() || (goal == Goal::fit && s.best && s.penalty_proven);
}

/// Tells o.progress the totals over the parts once every part has a
/// placement: best peak and penalty, proved bound, elapsed time.
inline void report_progress(const std::vector<Subproblem>& parts, const std::vector<PartSolver>& solvers,
                            const std::vector<Addr>& arena_lb, std::size_t na, const ExactOptions& o) {
  if (!o.progress) return;
  SearchProgress sp;
  std::vector<Addr> peak(na, 0), low(arena_lb);
  for (std::size_t k = 0; k < solvers.size(); ++k) {
    const auto& best = solvers[k].state().best;
    if (!best) return;
    const auto a = parts[k].arena;
    peak[a] = std::max(peak[a], best->peak);
    sp.best_penalty = saturating_add(sp.best_penalty, best->penalty);
    low[a] = std::max(low[a], solvers[k].state().lower);
  }
  for (std::size_t a = 0; a < na; ++a) {
    sp.best_peak = saturating_add(sp.best_peak, peak[a]);
    sp.proved_bound = saturating_add(sp.proved_bound, low[a]);
  }
  sp.elapsed_s = std::chrono::duration<double>(Clock::now() - o.started.value_or(Clock::now())).count();
  o.progress(sp);
}

/// Runs the search: every part, fit then penalty then (minimise) peak.
/// Returns true when it ended by itself (not by a limit or the caller).
/// With `lanes`, each probe splits its restarts over two threads (part_solver.hpp).
inline bool run_worker(const Problem& p, const std::vector<Subproblem>& parts,
                       const std::vector<Addr>& arena_lb, const ExactOptions& o, Worker& w, LanePool* lanes) {
  const Limits& limits = w.limits;
  auto& solvers = w.solvers;
  solvers.reserve(parts.size());
  for (const auto& sp : parts) {
    solvers.emplace_back(sp, 0, lanes, o.seed);
    auto& s = solvers.back();
    if (o.incumbent)
      if (auto seed = restrict_to(sp, *o.incumbent)) s.offer(std::move(*seed));
    // Cheap incumbents for small parts: first fit in a few orders and the
    // canonical dives (large parts dive inside fit_and_penalty / tighten).
    if (sp.items.size() <= 2000) {
      if (auto ff = first_fit_incumbent(sp)) s.offer(std::move(*ff));
      while (s.dives_left() && s.dive(limits)) {
      }
    }
  }
  for (auto& s : solvers) {
    if (part_settled(s.state(), o.mode)) continue;
    if (!s.fit_and_penalty(limits)) return false;  // the limits ended it
    if (s.state().infeasible) return true;         // nothing fits: that settles the answer
    report_progress(parts, solvers, arena_lb, p.arenas.size(), o);
  }
  // A part without a fit leaves nothing to tighten.
  const bool no_fit =
      std::any_of(solvers.begin(), solvers.end(), [](const PartSolver& s) { return !s.state().best; });
  if (o.mode != ExactMode::minimise || no_fit) return !limits.exhausted() || no_fit;
  // Per arena, tighten the part that sets the arena's peak, round robin.
  const std::size_t na = p.arenas.size();
  std::vector<bool> done(na, false);
  for (;;) {
    if (limits.exhausted()) return false;
    bool progress = false;
    for (std::size_t a = 0; a < na && !limits.exhausted(); ++a) {
      if (done[a]) continue;
      Addr lower = arena_lb[a], peak = 0;
      PartSolver* top = nullptr;
      for (auto& s : solvers) {
        if (parts[static_cast<std::size_t>(&s - solvers.data())].arena != a) continue;
        lower = std::max(lower, s.state().lower);
        if (!top || s.state().best->peak > top->state().best->peak) top = &s;
        peak = std::max(peak, s.state().best->peak);
      }
      if (!top || peak <= lower) {
        done[a] = true;
        continue;
      }
      if (top->tighten(limits, lower))
        progress = true;
      else
        done[a] = true;
    }
    if (progress) report_progress(parts, solvers, arena_lb, na, o);
    if (!progress) return !limits.exhausted();
  }
}

}  // namespace exact

/// Searches `p` (see the header). Never throws on user data; a malformed or
/// unsupported problem comes back `invalid_input` or `unsupported` with diagnostics.
[[nodiscard]] inline ExactResult solve_exact(const Problem& p, const ExactOptions& o = {}) {
  using namespace exact;
  ExactResult r;
  if (!o.trusted) r.diagnostics = validate(p);
  if (has_errors(r.diagnostics)) return r;
  if (auto d = unsupported(p); !d.empty()) {
    r.diagnostics = std::move(d);
    r.status = Status::unsupported;
    return r;
  }
  const auto start = Clock::now();
  std::vector<Subproblem> parts = decompose(p);
  if (!o.fixed_offsets.empty()) pin_items(parts, o.fixed_offsets);
  std::vector<Addr> arena_lb;
  for (const auto& l : arena_loads(p)) arena_lb.push_back(l.lower_bound);

  // A second lane for the probes when asked and the machine has more than
  // one core; its thread starts only when a probe first splits.
  const bool two =
      !parts.empty() && (o.threads >= 2 || (o.threads == 0 && std::thread::hardware_concurrency() > 1));
  std::optional<LanePool> pool;
  if (two) pool.emplace();
  Worker worker;
  worker.limits.deadline = deadline_after<Clock>(start, o.time_limit_s);
  worker.limits.stop = o.stop;
  worker.limits.node_limit = o.node_limit;
  worker.limits.meter = &worker.meter;
  worker.finished = run_worker(p, parts, arena_lb, o, worker, pool ? &*pool : nullptr);
  r.stopped_by = worker.finished ? StopReason::completed : stop_reason(worker.limits);
  // A part left without a fit (and not proved infeasible) was cut by a limit
  // even when the worker counted itself done.
  for (const auto& s : worker.solvers)
    if (!s.state().best && !s.state().infeasible && r.stopped_by == StopReason::completed)
      r.stopped_by = stop_reason(worker.limits);
  std::vector<PartState> states;
  std::uint64_t nodes = worker.meter.own, probes = 0, proofs = 0, random_dives = 0;
  for (const auto& s : worker.solvers) {
    states.push_back(s.state());
    probes += s.state().probes;
    proofs += s.state().proofs;
    random_dives += s.random_dives();
  }

  auto& st = r.statistics;
  st.set("exact_parts", static_cast<std::int64_t>(parts.size()));
  st.set("exact_nodes", static_cast<std::int64_t>(nodes));
  st.set("exact_probes", static_cast<std::int64_t>(probes));
  st.set("exact_proofs", static_cast<std::int64_t>(proofs));
  st.set("exact_random_dives", static_cast<std::int64_t>(random_dives));
  st.set("exact_workers", two ? 2 : 1);
  st.set("exact_critical_nodes", static_cast<std::int64_t>(worker.meter.critical));
  {
    // When a whole placement first existed, and when the returned one was
    // complete: the latest part's first and best.
    Clock::time_point first = start, last = start;
    for (const auto& s : states)
      if (s.best) {
        first = std::max(first, s.first_found);
        last = std::max(last, s.best_found);
      }
    auto ms = [&](Clock::time_point t) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(t - start).count();
    };
    st.set("first_found_ms", ms(first));
    st.set("best_found_ms", ms(last));
  }

  r.lower_bound = arena_lb;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    auto& lb = r.lower_bound[parts[k].arena];
    lb = std::max(lb, states[k].lower);
  }
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (states[k].infeasible) {
      r.status = Status::infeasible;
      r.diagnostics.push_back(
          error("no placement fits: " + describe_part(p, parts[k]) +
                " cannot be placed within the capacity " + std::to_string(parts[k].space.capacity()) +
                " (the complete search proved it); raise the capacity or shorten lifetimes"));
      return r;
    }
  for (std::size_t k = 0; k < parts.size(); ++k)
    if (!states[k].best) {
      r.status = Status::no_fit;
      r.diagnostics.push_back(
          error("no fit found within the budget for " + describe_part(p, parts[k]) +
                "; this is not a proof that none exists: " + budget_advice(r.stopped_by)));
      return r;
    }

  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  bool penalty_proven = true;
  std::vector<Addr> peak(p.arenas.size(), 0);
  for (std::size_t a = 0; a < p.arenas.size(); ++a)
    for (const auto& w : p.arenas[a].reserved) peak[a] = std::max(peak[a], w.end);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto& best = *states[k].best;
    for (std::size_t i = 0; i < parts[k].items.size(); ++i)
      pl.offsets[parts[k].items[i].buffer] = best.offsets[i];
    peak[parts[k].arena] = std::max(peak[parts[k].arena], best.peak);
    penalty_proven = penalty_proven && states[k].penalty_proven;
    r.penalty_bound =
        saturating_add(r.penalty_bound, states[k].penalty_proven ? best.penalty : states[k].penalty_bound);
  }
  bool peaks_proven = true;
  Addr total_peak = 0, total_lower = 0;
  for (std::size_t a = 0; a < p.arenas.size(); ++a) {
    peaks_proven = peaks_proven && peak[a] <= r.lower_bound[a];
    total_peak = saturating_add(total_peak, peak[a]);
    total_lower = saturating_add(total_lower, r.lower_bound[a]);
  }
  r.penalty_proven = penalty_proven;
  r.status = penalty_proven && peaks_proven ? Status::optimal : Status::feasible;
  r.placement = std::move(pl);
  st.set("lower_bound_total", static_cast<std::int64_t>(std::min<Addr>(total_lower, INT64_MAX)));
  st.set("gap_ppm", gap_ppm(total_peak, total_lower));
  if (r.status == Status::feasible)
    r.diagnostics.push_back(gap_note(total_peak, total_lower, penalty_proven, o.mode));
  return r;
}

}  // namespace pto_mem
