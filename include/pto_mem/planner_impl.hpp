// The definitions behind planner.hpp: plan(problem, options) and the
// solvers it runs. Included by planner.hpp in header-only mode; compiled
// once into pto_mem::compiled (src/planner.cpp) otherwise.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/dsa_rp.hpp"
#include "pto_mem/algorithms/exact.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/portfolio.hpp"
#include "pto_mem/algorithms/reuse.hpp"
#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/algorithms/structured.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/analysis/structured_bound.hpp"
#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/core/make_problem_impl.hpp"
#include "pto_mem/core/result.hpp"
#include "pto_mem/planner.hpp"

namespace pto_mem {

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
inline std::optional<Placement> plan_reuse(const Problem& p, const std::vector<bool>& closed, PlanResult& r,
                                           const ReuseCut& cut) {
  const ReuseResult shared = reuse_lifetimes(p, closed, cut);
  if (shared.cut_short)
    r.stopped_by = cut.stop.stop_requested() ? StopReason::interrupted : StopReason::deadline;
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
/// `unified` null: each buffer is its own allocation (see unifies_as_is).
inline Problem without_relaxed(const Problem& original, const AliasUnification* unified,
                               const std::vector<BufferPair>& relaxed) {
  std::set<std::pair<std::size_t, std::size_t>> pairs;  // allocations of the unified problem
  for (const auto& [a, b] : relaxed) pairs.insert({std::min<std::size_t>(a, b), std::max<std::size_t>(a, b)});
  Problem out = original;
  std::erase_if(out.separations, [&](const Separation& s) {
    const std::size_t x = unified ? unified->allocation_of[s.a] : s.a,
                      y = unified ? unified->allocation_of[s.b] : s.b;
    return pairs.contains({std::min(x, y), std::max(x, y)});
  });
  return out;
}

/// True when unify_aliases would return `p` itself, each buffer its own
/// allocation: no must-alias groups, no declarations and no separation
/// between two arenas (unification drops those). plan() then places `p`
/// without the copy -- at a million buffers the copy is a sixth of the
/// memory.
inline bool unifies_as_is(const Problem& p) {
  if (!p.must_alias.empty() || !p.declared.empty()) return false;
  return std::all_of(p.separations.begin(), p.separations.end(), [&](const Separation& s) {
    return s.a < p.buffers.size() && s.b < p.buffers.size() && p.buffers[s.a].arena == p.buffers[s.b].arena;
  });
}

/// 14080 -> "14,080".
inline std::string with_thousands(Addr v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// The max-load proof: in some arena the max-load bound (`max_load_bound`,
/// from arena_loads of the original problem, which counts an alias class
/// once per instant) exceeds the capacity, so no
/// placement exists whatever the strategy. Says where and who: the program
/// point where the most bytes are live, found on `p` (the original problem,
/// or its allocations when it has must-alias groups or declarations).
inline std::optional<Diagnostic> max_load_overflow(const std::vector<Addr>& max_load_bound,
                                                   const Problem& p) {
  for (std::size_t k = 0; k < p.arenas.size() && k < max_load_bound.size(); ++k) {
    const Arena& arena = p.arenas[k];
    if (max_load_bound[k] <= arena.capacity) continue;
    const Addr reserved = covered_bytes(arena.reserved);
    struct Event {
      Tick tick;
      bool starts;
      std::size_t buffer;
    };
    std::vector<Event> events;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (p.buffers[i].arena == arena.id) {
        events.push_back({p.buffers[i].lifetime.begin, true, i});
        events.push_back({p.buffers[i].lifetime.end, false, i});
      }
    std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
      if (a.tick != b.tick) return a.tick < b.tick;
      return a.starts < b.starts;  // ends first: [a, b) and [b, c) are never live together
    });
    Addr live = 0, worst = 0;
    Tick worst_at = 0;
    for (const auto& e : events) {
      if (e.starts)
        live = saturating_add(live, p.buffers[e.buffer].size);
      else
        live -= std::min(live, p.buffers[e.buffer].size);
      if (e.starts && live > worst) {
        worst = live;
        worst_at = e.tick;
      }
    }
    const std::string arena_name =
        arena.name.empty() ? "arena " + std::to_string(arena.id) : "arena '" + arena.name + "'";
    if (saturating_add(worst, reserved) <= arena.capacity)  // aliases: the sweep over allocations says less
      return error("no placement fits in " + arena_name + ": its max-load bound " +
                       with_thousands(max_load_bound[k]) + " exceeds the capacity " +
                       with_thousands(arena.capacity) + "; raise the capacity, or shorten or split lifetimes",
                   "PLAN-MAX-LOAD");
    std::vector<std::string> names;
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
      const auto& b = p.buffers[i];
      if (b.arena == arena.id && b.lifetime.begin <= worst_at && worst_at < b.lifetime.end)
        names.push_back(buffer_label(p, static_cast<BufferId>(i)));
    }
    std::string list;
    const std::size_t shown = std::min<std::size_t>(names.size(), 8);
    for (std::size_t i = 0; i < shown; ++i) list += (i ? ", " : "") + names[i];
    if (names.size() > shown) list += " and " + std::to_string(names.size() - shown) + " more";
    std::string msg = "no placement fits in " + arena_name + ": at program point " +
                      std::to_string(worst_at) + " the live buffer" + (names.size() == 1 ? " " : "s ") +
                      list + " need " + with_thousands(worst) + " bytes";
    if (reserved > 0) msg += " (+ " + with_thousands(reserved) + " reserved)";
    msg += "; capacity " + with_thousands(arena.capacity) +
           " (the max-load bound proves it); raise the capacity, or shorten or split these lifetimes";
    return error(std::move(msg), "PLAN-MAX-LOAD");
  }
  return std::nullopt;
}

/// The goal when PlanOptions::goal is unset: minimise when no arena has a
/// capacity of its own (each is always_fitting_capacity), else fit.
inline Goal default_goal(const Problem& p) {
  for (const auto& a : p.arenas)
    if (a.capacity != always_fitting_capacity(p, a.id)) return Goal::fit;
  return Goal::minimise;
}

}  // namespace detail

namespace detail {

/// Two pinned buffers of one arena that overlap in bytes and must not (they
/// are live together, separated, or one is exclusive): no placement exists.
inline std::optional<Diagnostic> pin_clash(const Problem& p) {
  std::vector<std::size_t> pinned;
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].pin) pinned.push_back(i);
  if (pinned.size() < 2) return std::nullopt;
  std::set<std::pair<std::size_t, std::size_t>> separated, excluded, edges;
  for (const auto& s : p.separations) separated.insert({std::min(s.a, s.b), std::max(s.a, s.b)});
  for (const auto& x : p.exclusions) excluded.insert({std::min(x.a, x.b), std::max(x.a, x.b)});
  if (p.conflict_graph)
    for (const auto& c : *p.conflict_graph) edges.insert({std::min(c.a, c.b), std::max(c.a, c.b)});
  for (std::size_t x = 0; x < pinned.size(); ++x)
    for (std::size_t y = x + 1; y < pinned.size(); ++y) {
      const std::size_t i = pinned[x], j = pinned[y];
      const auto& a = p.buffers[i];
      const auto& b = p.buffers[j];
      if (a.arena != b.arena) continue;
      if (!overlaps(AddrRange{a.pin->offset, a.pin->offset + a.size},
                    AddrRange{b.pin->offset, b.pin->offset + b.size}))
        continue;
      const std::pair<std::size_t, std::size_t> key{i, j};
      const bool together =
          !excluded.contains(key) && (p.conflict_graph ? edges.contains(key) : lowering::live_meet(a, b));
      if (together || separated.contains(key) || a.pin->exclusive || b.pin->exclusive)
        return error("no placement exists: buffers '" + buffer_label(p, static_cast<BufferId>(i)) +
                         "' and '" + buffer_label(p, static_cast<BufferId>(j)) +
                         "' are pinned to overlapping bytes of arena " + std::to_string(a.arena) +
                         " and may not share them; move one pin",
                     "PLAN-PIN-CLASH");
    }
  return std::nullopt;
}

/// Moves buffers to later candidate arenas after a failed attempt: in each
/// arena whose live bytes (over interval hulls) exceed its capacity, the
/// movable buffers live at the fullest instant, largest first, until it fits;
/// if no arena is over, the largest movable buffer at the fullest instant of
/// the fullest arena (relative to its capacity). False when nothing can move.
inline bool spill_step(const Problem& p, std::vector<std::int64_t>& choice) {
  const ProblemIndex index(p);
  auto next = [&](std::size_t i) -> std::optional<std::int64_t> {
    const auto& c = p.buffers[i].candidate_arenas;
    const auto at = std::find(c.begin(), c.end(), choice[i]);
    if (at == c.end() || at + 1 == c.end()) return std::nullopt;
    return *(at + 1);
  };
  struct Fullest {
    Addr load = 0;
    Tick at = 0;
  };
  std::vector<Fullest> fullest(p.arenas.size());
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    std::vector<std::pair<Tick, std::int64_t>> ev;  // (tick, +size / -size), ends first
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (index.arena(choice[i]) == k) {
        ev.push_back({p.buffers[i].lifetime.begin, static_cast<std::int64_t>(p.buffers[i].size)});
        ev.push_back({p.buffers[i].lifetime.end, -static_cast<std::int64_t>(p.buffers[i].size)});
      }
    std::sort(ev.begin(), ev.end());
    Addr live = 0;
    for (const auto& [t, d] : ev) {
      live =
          d > 0 ? saturating_add(live, static_cast<Addr>(d)) : live - std::min(live, static_cast<Addr>(-d));
      if (d > 0 && live > fullest[k].load) fullest[k] = {live, t};
    }
  }
  auto movable_at = [&](std::size_t k, Tick t) {
    std::vector<std::size_t> m;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (index.arena(choice[i]) == k && next(i) && p.buffers[i].lifetime.begin <= t &&
          t < p.buffers[i].lifetime.end)
        m.push_back(i);
    std::sort(m.begin(), m.end(), [&](std::size_t a, std::size_t b) {
      return p.buffers[a].size > p.buffers[b].size || (p.buffers[a].size == p.buffers[b].size && a < b);
    });
    return m;
  };
  bool moved = false;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    Addr load = fullest[k].load;
    if (load <= p.arenas[k].capacity) continue;
    for (std::size_t i : movable_at(k, fullest[k].at)) {
      if (load <= p.arenas[k].capacity) break;
      choice[i] = *next(i);
      load -= std::min(load, p.buffers[i].size);
      moved = true;
    }
  }
  if (moved) return true;
  std::optional<std::size_t> worst;
  double worst_ratio = -1;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    if (movable_at(k, fullest[k].at).empty()) continue;
    const double ratio =
        static_cast<double>(fullest[k].load) / static_cast<double>(std::max<Addr>(p.arenas[k].capacity, 1));
    if (ratio > worst_ratio) worst_ratio = ratio, worst = k;
  }
  if (!worst) {  // nothing movable at the fullest instants: move any movable buffer, largest first
    std::optional<std::size_t> pick;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (next(i) && (!pick || p.buffers[i].size > p.buffers[*pick].size)) pick = i;
    if (!pick) return false;
    choice[*pick] = *next(*pick);
    return true;
  }
  const std::size_t i = movable_at(*worst, fullest[*worst].at).front();
  choice[i] = *next(i);
  return true;
}

/// What one arena choice of a structured problem came to
/// (search_arena_choices): a placement and what was proved for that choice.
struct ChoiceResult {
  bool fits = false;
  bool infeasible = false;      ///< proved: nothing fits under this choice
  bool optimal = false;         ///< proved: no placement under this choice has a smaller objective
  bool penalty_proven = false;  ///< proved: none under this choice pays less penalty
  bool error = false;           ///< an internal error (the diagnostics say which)
  StopReason stopped_by = StopReason::completed;
  Placement placement;  ///< of the structured problem, validated
  Objective objective;
  std::vector<Addr> lower_bound;  ///< per arena, proved for this choice (empty: none)
  Diagnostics diagnostics;
  Statistics statistics;
};

/// The placement of `u.problem` (the alias unification of lowering `l`)
/// that a structured placement gives; nullopt when an offset is missing.
inline std::optional<Placement> reduced_placement(const LoweredProblem& l, const AliasUnification& u,
                                                  const Placement& pl) {
  std::vector<std::optional<Addr>> lowered(l.problem.buffers.size());
  for (std::size_t i = 0; i < l.to_lowered.size() && i < pl.offsets.size(); ++i)
    if (l.to_lowered[i]) lowered[*l.to_lowered[i]] = pl.offsets[i];
  Placement out;
  out.offsets.assign(u.problem.buffers.size(), std::nullopt);
  for (std::size_t a = 0; a < u.members.size() && a < out.offsets.size(); ++a) {
    if (u.members[a].empty()) return std::nullopt;
    const std::size_t m = u.members[a].front();
    if (!lowered[m] || *lowered[m] < u.member_offset[m]) return std::nullopt;
    out.offsets[a] = *lowered[m] - u.member_offset[m];
  }
  return out;
}

/// The complete search on one arena choice: the lowering with shared pins
/// kept as fixed offsets (exact unless it fell back to hulls), its alias
/// unification, and the exact search, started from `incumbent` when given.
inline ChoiceResult solve_choice(const Problem& p, const std::vector<std::int64_t>& choice,
                                 const PlanOptions& options, Goal goal,
                                 std::chrono::steady_clock::time_point deadline,
                                 const std::optional<Placement>& incumbent) {
  ChoiceResult c;
  const LoweredProblem l = lower_structured(p, choice, true);
  const AliasUnification u = unify_aliases(l.problem);
  if (!u.ok()) {
    c.error = true;
    c.diagnostics = u.diagnostics;
    return c;
  }
  ExactOptions eo;
  eo.mode = goal;
  eo.time_limit_s = 0;
  if (options.time_limit_s > 0)
    eo.time_limit_s =
        std::max(1e-3, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
  eo.node_limit = options.node_limit.value_or(
      options.time_limit_s > 0 ? 0 : default_node_limit(u.problem.buffers.size()));
  eo.threads = options.threads.value_or(1u);
  eo.seed = options.seed;
  eo.stop = options.stop;
  if (!l.fixed.empty()) {
    eo.fixed_offsets.assign(u.problem.buffers.size(), std::nullopt);
    for (std::size_t b = 0; b < l.fixed.size();
         ++b)  // a pinned buffer is its own allocation (the validator's rule)
      if (l.fixed[b] && *l.fixed[b] >= u.member_offset[b])
        eo.fixed_offsets[u.allocation_of[b]] = *l.fixed[b] - u.member_offset[b];
  }
  if (incumbent) eo.incumbent = reduced_placement(l, u, *incumbent);
  ExactResult e = solve_exact(u.problem, eo);
  c.stopped_by = e.stopped_by;
  c.statistics = std::move(e.statistics);
  c.diagnostics = std::move(e.diagnostics);
  if (is_error(e.status)) {
    c.error = true;
    return c;
  }
  if (e.status == Status::infeasible) {
    c.infeasible = l.exact;  // the lowering has the same placements: the proof is one here
    return c;
  }
  if (!e.placement) return c;
  Placement pl = lift_placement(p, l, expand_placement(u, *e.placement), choice);
  if (auto bad = validate_placement(p, pl); !bad.empty()) {
    c.error = true;
    c.diagnostics = std::move(bad);
    return c;
  }
  c.fits = true;
  c.objective = evaluate_objective(p, pl);
  c.optimal = l.exact && e.status == Status::optimal;
  c.penalty_proven = c.objective.penalty == 0 || (l.exact && e.penalty_proven);
  if (l.exact) c.lower_bound = std::move(e.lower_bound);
  c.placement = std::move(pl);
  return c;
}

/// The greedy's placement under one arena choice (shared pins as reserved
/// windows: what the greedy can honour), lifted and checked; nullopt if none.
inline std::optional<Placement> greedy_choice(const Problem& p, const std::vector<std::int64_t>& choice,
                                              const PlanOptions& options, Goal goal,
                                              std::chrono::steady_clock::time_point deadline) {
  const LoweredProblem l = lower_structured(p, choice);
  PlanOptions o = options;
  o.strategy = Strategy::greedy;
  o.problem_validated = false;
  o.goal = goal;
  if (options.time_limit_s > 0)
    o.time_limit_s =
        std::max(1e-3, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count());
  const PlanResult g = plan(l.problem, o);
  if (!g.fits() || !g.placement) return std::nullopt;
  Placement pl = lift_placement(p, l, *g.placement, choice);
  if (!validate_placement(p, pl).empty()) return std::nullopt;  // e.g. the greedy relaxed a separation
  return pl;
}

/// The search over arena choices (see search_arena_choices).
struct ChoiceSearch {
  std::optional<ChoiceResult> best;  ///< least objective found
  /// Every choice is decided on the whole objective: proved infeasible,
  /// solved to a proved optimum, or cut off by the bound. With `best`: it is
  /// optimal over every placement; without: none exists.
  bool complete = true;
  /// Every choice is decided on (spill, penalty): best's are proved least.
  bool complete_penalty = true;
  bool error = false;
  Diagnostics errors;
  StopReason stopped_by = StopReason::completed;
  std::int64_t nodes = 0, solved = 0, pruned = 0;
  Statistics statistics;  ///< of the best choice's search
};

/// Buffers with several candidate arenas past which the choices are not
/// searched (the lowering's heuristic spill places them), the nodes of the
/// choice tree, and the choices solved, past which the search stops
/// (nothing proved beyond what it decided). Each node sweeps the whole
/// problem for its bound: on large problems the nodes are fewer, about
/// choice_node_work buffers swept in all (at least 16 nodes).
inline constexpr std::size_t max_branching_buffers = 64;
inline constexpr std::int64_t max_choice_nodes = 4096;
inline constexpr std::int64_t max_choice_solves = 64;
inline constexpr std::int64_t choice_node_work = 20'000'000;

/// Branch and bound over the arena choices of a structured problem
/// (docs/exact.md, "Structured problems"): the buffers with several
/// candidates, largest first, each taking its candidates in order (least
/// spill first). A node's bound is the structured bound with the decided
/// buffers in their arenas (the others count nowhere) and the spill so far:
/// a node whose bound is over a capacity holds no placement; one whose bound
/// is no better than the incumbent holds no better one. Each leaf is
/// solved by solve_choice (the portfolio: the greedy first, the search from
/// its placement). nullopt when there are too many buffers to branch on.
inline std::optional<ChoiceSearch> search_arena_choices(const Problem& p, const PlanOptions& options,
                                                        Goal goal,
                                                        std::chrono::steady_clock::time_point deadline) {
  const std::size_t n = p.buffers.size();
  std::vector<std::size_t> multi;
  for (std::size_t i = 0; i < n; ++i)
    if (p.buffers[i].candidate_arenas.size() > 1) multi.push_back(i);
  if (multi.size() > max_branching_buffers) return std::nullopt;
  std::stable_sort(multi.begin(), multi.end(),
                   [&](std::size_t a, std::size_t b) { return p.buffers[a].size > p.buffers[b].size; });
  const bool portfolio = options.strategy.value() == Strategy::portfolio;
  Problem q = p;  // the partial choice: a decided buffer has its one arena as its only candidate
  std::vector<std::int64_t> choice(n);
  for (std::size_t i = 0; i < n; ++i) choice[i] = p.buffers[i].arena;
  ChoiceSearch s;
  bool cut = false;
  const std::int64_t node_cap = std::clamp<std::int64_t>(
      choice_node_work / static_cast<std::int64_t>(std::max<std::size_t>(n, 1)), 16, max_choice_nodes);
  auto out_of_time = [&] {
    return options.stop.stop_requested() || std::chrono::steady_clock::now() >= deadline;
  };
  auto leaf = [&](const std::vector<ArenaLoad>& loads) {
    ++s.solved;
    ChoiceResult c;
    bool done = false;
    std::optional<Placement> start_from;
    if (portfolio) {
      start_from = greedy_choice(p, choice, options, goal, deadline);
      if (start_from) {
        const Objective o = evaluate_objective(p, *start_from);
        bool at_bound = o.penalty == 0;
        for (std::size_t k = 0; k < loads.size(); ++k)
          at_bound = at_bound && o.peak_by_arena[k] <= loads[k].lower_bound;
        if (at_bound ||
            (goal == Goal::fit && o.penalty == 0)) {  // nothing to search for: the portfolio's rule
          c.fits = true;
          c.objective = o;
          c.optimal = at_bound;
          c.penalty_proven = o.penalty == 0;
          c.placement = std::move(*start_from);
          done = true;
        }
      }
    }
    if (!done) c = solve_choice(p, choice, options, goal, deadline, start_from);
    if (c.error) {
      s.error = true;
      s.errors = std::move(c.diagnostics);
      return;
    }
    if (c.stopped_by != StopReason::completed) s.stopped_by = c.stopped_by;
    if (!c.infeasible) {
      s.complete = s.complete && c.optimal;
      s.complete_penalty = s.complete_penalty && c.fits && c.penalty_proven;
    }
    if (c.fits && (!s.best || c.objective < s.best->objective)) {
      s.statistics = c.statistics;
      s.best = std::move(c);
    }
  };
  auto visit = [&](auto& self, std::size_t depth, std::uint64_t spill) -> void {
    if (s.error || cut) return;
    if (s.nodes >= node_cap || (depth == multi.size() && s.solved >= max_choice_solves) ||
        (s.nodes > 0 && out_of_time())) {
      cut = true;
      return;
    }
    ++s.nodes;
    const auto loads = structured_arena_loads(q);
    Objective low;
    low.spill = spill;
    for (std::size_t k = 0; k < p.arenas.size(); ++k) {
      if (loads[k].lower_bound > p.arenas[k].capacity) return;  // proved: nothing fits below this node
      low.total_peak = saturating_add(low.total_peak, loads[k].lower_bound);
      low.max_peak = std::max(low.max_peak, loads[k].lower_bound);
    }
    if (s.best) {
      const Objective& b = s.best->objective;
      if (!(low < b)) {  // no placement below this node beats the incumbent
        ++s.pruned;
        return;
      }
      if (goal == Goal::fit && (b.spill < spill || (b.spill == spill && b.penalty == 0))) {
        ++s.pruned;  // goal fit: none beats it on spill and penalty; the peak is not asked for
        s.complete = false;
        return;
      }
    }
    if (depth == multi.size()) {
      leaf(loads);
      return;
    }
    const std::size_t i = multi[depth];
    const auto& cand = p.buffers[i].candidate_arenas;
    for (std::size_t k = 0; k < cand.size() && !s.error && !cut; ++k) {
      choice[i] = cand[k];
      q.buffers[i].arena = cand[k];
      q.buffers[i].candidate_arenas = {cand[k]};
      self(self, depth + 1, spill + k);
    }
    choice[i] = p.buffers[i].arena;
    q.buffers[i].arena = p.buffers[i].arena;
    q.buffers[i].candidate_arenas = p.buffers[i].candidate_arenas;
  };
  visit(visit, 0, 0);
  if (cut) {
    s.complete = s.complete_penalty = false;
    if (s.stopped_by == StopReason::completed && out_of_time())
      s.stopped_by = options.stop.stop_requested() ? StopReason::interrupted : StopReason::deadline;
  }
  s.statistics.set("arena_choices_solved", s.solved);
  s.statistics.set("arena_choice_nodes", s.nodes);
  s.statistics.set("arena_choices_pruned", s.pruned);
  s.statistics.set("structured_complete", s.complete ? 1 : 0);
  return s;
}

/// plan() for a problem that is not plain. Strategies `exact` and
/// `portfolio`: the complete search over arena choices
/// (search_arena_choices); the others (and the searches past its limits):
/// lower it (algorithms/structured.hpp) under an arena choice, place the
/// plain problem with the asked strategy, lift the placement back and check
/// it against the structured problem; move buffers to later candidate
/// arenas while nothing fits.
inline PlanResult plan_structured(const Problem& p, const PlanOptions& options,
                                  std::chrono::steady_clock::time_point start) {
  PlanResult r;
  r.strategy = std::string(to_string(options.strategy.value()));
  auto finish = [&]() -> PlanResult {
    r.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(r);
  };
  for (const auto& load : arena_loads(p)) r.max_load_bound.push_back(load.lower_bound);
  r.lower_bound = r.max_load_bound;
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    if (r.max_load_bound[k] > p.arenas[k].capacity) {
      r.status = Status::infeasible;
      r.diagnostics.push_back(error("no placement fits in arena " + std::to_string(p.arenas[k].id) +
                                        (p.arenas[k].name.empty() ? "" : " (" + p.arenas[k].name + ")") +
                                        ": buffers that must be there and are live together need " +
                                        with_thousands(r.max_load_bound[k]) +
                                        " bytes (with its reserved bytes), over "
                                        "the capacity " +
                                        with_thousands(p.arenas[k].capacity) +
                                        "; raise the capacity, or shorten or split lifetimes",
                                    "PLAN-MAX-LOAD"));
      return finish();
    }
  if (auto clash = pin_clash(p)) {
    r.status = Status::infeasible;
    r.diagnostics.push_back(std::move(*clash));
    return finish();
  }
  const auto deadline = deadline_after(start, options.time_limit_s);
  const Goal goal = options.goal.value_or(default_goal(p));
  const bool choices = std::any_of(p.buffers.begin(), p.buffers.end(),
                                   [](const BufferSpec& b) { return b.candidate_arenas.size() > 1; });
  const Strategy strategy = options.strategy.value();
  if (strategy == Strategy::exact || strategy == Strategy::portfolio) {
    if (auto s = search_arena_choices(p, options, goal, deadline)) {
      if (s->error) {
        r.status = Status::internal_error;
        r.diagnostics.push_back(
            error("internal error: the complete search of this structured problem failed; please "
                  "report it"));
        r.diagnostics.insert(r.diagnostics.end(), s->errors.begin(), s->errors.end());
        return finish();
      }
      r.statistics = std::move(s->statistics);
      r.stopped_by = s->stopped_by;
      if (s->best) {
        ChoiceResult& b = *s->best;
        r.placement = std::move(b.placement);
        r.objective = b.objective;
        if (!choices)  // one choice: its proved bound is one for the problem
          for (std::size_t k = 0; k < r.lower_bound.size() && k < b.lower_bound.size(); ++k)
            r.lower_bound[k] = std::max(r.lower_bound[k], b.lower_bound[k]);
        r.proved.peak = true;
        for (std::size_t k = 0; k < r.lower_bound.size() && k < r.objective.peak_by_arena.size(); ++k)
          r.proved.peak = r.proved.peak && r.objective.peak_by_arena[k] <= r.lower_bound[k];
        const bool at_bound = r.objective.spill == 0 && r.proved.peak && r.objective.penalty == 0;
        r.status = s->complete || at_bound ? Status::optimal : Status::feasible;
        r.proved.peak = r.proved.peak || s->complete;
        r.proved.penalty = r.objective.penalty == 0 || s->complete_penalty;
        r.proved.penalty_bound = r.proved.penalty ? r.objective.penalty : 0;
        if (r.status == Status::feasible) {
          for (const auto& d : b.diagnostics)
            if (d.severity != Severity::error) r.diagnostics.push_back(d);
          if (choices && !s->complete)
            r.diagnostics.push_back(
                note("not every choice of arenas was decided within the limits (" +
                     std::to_string(s->solved) + " solved, " + std::to_string(s->pruned) +
                     " cut off by the bound): the spill and the peaks are not proved least"));
        }
        return finish();
      }
      if (s->complete) {
        r.status = Status::infeasible;
        r.diagnostics.push_back(error(std::string("no placement fits: the complete search proved it") +
                                      (choices ? " for every choice of arenas" : "") +
                                      "; raise a capacity, or shorten or split lifetimes"));
        return finish();
      }
      // Nothing found within the limits: the heuristic spill below may still find a placement.
    }
  }
  std::vector<std::int64_t> choice(p.buffers.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) choice[i] = p.buffers[i].arena;
  std::int64_t rounds = 0;
  for (;;) {
    ++rounds;
    const LoweredProblem lowered = lower_structured(p, choice);
    // The arena choice is the spill heuristic's: no proof carries over when there was one to make.
    const bool exact_here = lowered.exact && !choices;
    PlanOptions o = options;
    o.problem_validated = false;
    if (options.time_limit_s > 0) {
      const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
      o.time_limit_s = std::max(left, 1e-3);
    }
    // The lowered problem's own capacities say whether it was given one; keep the structured problem's goal.
    o.goal = goal;
    PlanResult sub = plan(lowered.problem, o);
    r.stopped_by = sub.stopped_by;
    {
      const auto choice_stats = r.statistics.extra;
      r.statistics = sub.statistics;
      for (const auto& [k, v] : choice_stats) r.statistics.set(k, v);
    }
    r.statistics.set("arena_rounds", rounds);
    r.statistics.set("lowering_exact", exact_here ? 1 : 0);
    if (sub.status == Status::invalid_input || sub.status == Status::internal_error) {
      r.status = Status::internal_error;
      r.diagnostics.push_back(
          error("internal error: the plain form of this structured problem is malformed; please report it"));
      r.diagnostics.insert(r.diagnostics.end(), sub.diagnostics.begin(), sub.diagnostics.end());
      return finish();
    }
    if (sub.fits() && sub.placement) {
      Placement pl = lift_placement(p, lowered, *sub.placement, choice);
      if (auto bad = validate_placement(p, pl); !bad.empty()) {
        r.status = Status::internal_error;
        r.diagnostics.push_back(
            error("internal error: strategy '" + r.strategy +
                  "' produced a placement of a structured problem that fails validation; please "
                  "report it"));
        r.diagnostics.insert(r.diagnostics.end(), bad.begin(), bad.end());
        return finish();
      }
      r.diagnostics.insert(r.diagnostics.end(), sub.diagnostics.begin(), sub.diagnostics.end());
      r.objective = evaluate_objective(p, pl);
      if (exact_here)
        for (std::size_t k = 0; k < r.lower_bound.size() && k < sub.lower_bound.size(); ++k)
          r.lower_bound[k] = std::max(r.lower_bound[k], sub.lower_bound[k]);
      const bool spill_free = r.objective.spill == 0;
      r.status =
          spill_free && reaches_lower_bound(r.objective, r.lower_bound) ? Status::optimal : Status::feasible;
      if (exact_here && sub.status == Status::optimal) r.status = Status::optimal;
      r.proved.penalty = r.objective.penalty == 0 || (exact_here && sub.proved.penalty);
      r.proved.penalty_bound = r.proved.penalty ? r.objective.penalty
                               : exact_here     ? std::min(sub.proved.penalty_bound, r.objective.penalty)
                                                : 0;
      r.proved.peak = true;
      for (std::size_t k = 0; k < r.lower_bound.size() && k < r.objective.peak_by_arena.size(); ++k)
        r.proved.peak = r.proved.peak && r.objective.peak_by_arena[k] <= r.lower_bound[k];
      r.proved.peak = r.proved.peak || (exact_here && sub.proved.peak);
      if (!exact_here) {
        if (choices)
          r.diagnostics.push_back(
              note("proofs of the plain form do not carry over: the arenas were chosen by a heuristic"));
        for (const auto& why : lowered.losses)
          r.diagnostics.push_back(note("proofs of the plain form do not carry over: " + why));
      }
      r.placement = std::move(pl);
      return finish();
    }
    const bool out_of_time = options.stop.stop_requested() || std::chrono::steady_clock::now() >= deadline;
    if (!out_of_time && spill_step(p, choice)) continue;
    r.diagnostics.insert(r.diagnostics.end(), sub.diagnostics.begin(), sub.diagnostics.end());
    if (sub.status == Status::infeasible && exact_here) {
      r.status = Status::infeasible;  // the plain form has the same placements: its proof is one here
    } else {
      r.status = is_error(sub.status) ? sub.status : Status::no_fit;
      if (sub.status == Status::infeasible) {
        if (choices)
          r.diagnostics.push_back(
              note("the plain form was proved infeasible, which proves nothing here: the arenas were chosen "
                   "by a heuristic"));
        for (const auto& why : lowered.losses)
          r.diagnostics.push_back(
              note("the plain form was proved infeasible, which proves nothing here: " + why));
      }
    }
    return finish();
  }
}

}  // namespace detail

PTO_MEM_PLAN_INLINE PlanResult plan(const Problem& original, const PlanOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const Strategy strategy = options.strategy.value();
  const std::string strategy_name(to_string(strategy));
  PlanResult r;
  r.strategy = strategy_name;
  auto finish = [&]() -> PlanResult {
    r.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(r);
  };
  if (std::isnan(options.time_limit_s) || options.time_limit_s < 0) {
    r.diagnostics.push_back(error("the time limit must be a number of seconds >= 0 (0 = none), not " +
                                  std::to_string(options.time_limit_s)));
    r.status = Status::invalid_input;
    return finish();
  }
  if (!options.problem_validated) r.diagnostics = validate(original);
  if (has_errors(r.diagnostics)) {
    r.status = Status::invalid_input;
    return finish();
  }
  if (!is_plain(original)) {
    PlanResult s = detail::plan_structured(original, options, start);
    s.diagnostics.insert(s.diagnostics.begin(), r.diagnostics.begin(),
                         r.diagnostics.end());  // the validator's warnings
    return s;
  }
  for (const auto& load : arena_loads(original)) r.max_load_bound.push_back(load.lower_bound);
  r.lower_bound = r.max_load_bound;

  // Without groups the problem is its own unification (detail::unifies_as_is): no copy.
  std::optional<AliasUnification> unified;
  if (!detail::unifies_as_is(original)) {
    unified.emplace(unify_aliases(original));
    if (!unified->ok()) {
      r.diagnostics.insert(r.diagnostics.end(), unified->diagnostics.begin(), unified->diagnostics.end());
      r.status = Status::invalid_input;
      return finish();
    }
  }
  const Problem& problem =
      unified ? unified->problem : original;  // what every strategy below places: one buffer per allocation
  r.statistics.set("allocations", static_cast<std::int64_t>(problem.buffers.size()));
  const bool grouped = !original.must_alias.empty() || !original.declared.empty();
  if (auto overflow = detail::max_load_overflow(r.max_load_bound, grouped ? problem : original)) {
    r.diagnostics.push_back(std::move(*overflow));
    r.status = Status::infeasible;
    return finish();
  }
  const Goal goal = options.goal.value_or(detail::default_goal(original));
  // An explicit time limit is the whole budget: no default node limit cuts it.
  const std::uint64_t node_limit =
      options.node_limit.value_or(options.time_limit_s > 0 ? 0 : default_node_limit(problem.buffers.size()));
  const unsigned threads = options.threads.value_or(
      strategy == Strategy::greedy && std::thread::hardware_concurrency() > 1 ? 2u : 1u);
  const auto deadline = deadline_after(start, options.time_limit_s);

  std::optional<Placement> placement;  // of problem.buffers
  // Set when a strategy relaxed pipeline-only separations into penalties: the
  // placement is then checked against the original without them.
  std::optional<Problem> relaxed_original;
  Weight relaxed_penalty = 0;
  std::optional<Status> proven;  // a searching strategy's own verdict (exact, portfolio)
  bool penalty_proven = false;   // ... and whether it proved the penalty least
  Weight penalty_bound = 0;      // ... and a proved lower bound on it
  if (strategy == Strategy::exact || strategy == Strategy::portfolio) {
    ExactResult e;
    if (strategy == Strategy::exact) {
      ExactOptions eo;
      eo.mode = goal;
      eo.time_limit_s = options.time_limit_s;
      eo.node_limit = node_limit;
      eo.threads = threads;
      eo.seed = options.seed;
      eo.stop = options.stop;
      eo.progress = options.progress;
      eo.started = start;
      eo.trusted =
          true;  // the original was validated above (or by the caller); unification keeps it well formed
      e = solve_exact(problem, eo);
    } else {
      PortfolioOptions po;
      po.goal = goal;
      po.seed = options.seed;
      po.restarts = options.restarts;
      po.time_limit_s = options.time_limit_s;
      po.node_limit = node_limit;
      po.threads = threads;
      po.stop = options.stop;
      po.progress = options.progress;
      po.trusted = true;  // as for exact
      e = solve_portfolio(problem, po);
    }
    r.diagnostics.insert(r.diagnostics.end(), e.diagnostics.begin(), e.diagnostics.end());
    r.stopped_by = e.stopped_by;
    const auto allocations = r.statistics.extra;
    r.statistics = std::move(e.statistics);
    for (const auto& [k, v] : allocations) r.statistics.set(k, v);
    if (is_error(e.status) || e.status == Status::infeasible || e.status == Status::no_fit) {
      r.status = e.status;  // the diagnostics say why (and whether it is a proof)
      return finish();
    }
    for (std::size_t k = 0; k < r.lower_bound.size() && k < e.lower_bound.size(); ++k)
      r.lower_bound[k] = std::max(r.lower_bound[k], e.lower_bound[k]);
    proven = e.status;
    penalty_proven = e.penalty_proven;
    penalty_bound = e.penalty_bound;
    placement = std::move(e.placement);
  } else if (strategy == Strategy::sequential) {
    // Sequential placement is one pass in O(n log n): nothing to cut short.
    auto s = place_sequential(problem);
    r.diagnostics.insert(r.diagnostics.end(), s.diagnostics.begin(), s.diagnostics.end());
    placement = std::move(s.placement);
  } else if (strategy == Strategy::reuse) {
    ReuseCut cut;
    cut.stop = options.stop;
    if (deadline != std::chrono::steady_clock::time_point::max()) cut.deadline = deadline;
    placement = detail::plan_reuse(
        problem, unified ? unified->closed : std::vector<bool>(problem.buffers.size(), false), r, cut);
  } else {
    // Strategy::greedy. trusted: the problem was validated above and the placement is below.
    GreedyOptions greedy{options.seed, options.restarts, options.compat_pypto, true};
    greedy.threads = threads;
    if (deadline != std::chrono::steady_clock::time_point::max())
      greedy.deadline = deadline;  // the restarts and the walk stop at it
    greedy.stop = options.stop;
    auto g = plan_dsa_rp(problem, greedy);
    for (const auto& [k, v] : g.greedy.statistics.extra)
      if (k == "stopped_by_deadline" && v != 0)
        r.stopped_by = options.stop.stop_requested() ? StopReason::interrupted : StopReason::deadline;
    const auto allocations = r.statistics.extra;
    r.statistics = std::move(g.greedy.statistics);
    for (const auto& [k, v] : allocations) r.statistics.set(k, v);
    r.diagnostics.insert(r.diagnostics.end(), g.greedy.diagnostics.begin(), g.greedy.diagnostics.end());
    if (is_error(g.greedy.status)) {
      r.status = g.greedy.status;
      return finish();
    }
    if (!g.greedy.placement) {  // the driver already said why, as a bounded-search result
      r.status = Status::no_fit;
      return finish();
    }
    placement = std::move(g.greedy.placement);
    if (g.relaxed) {
      relaxed_original =
          detail::without_relaxed(original, unified ? &*unified : nullptr, pipeline_pairs(problem));
      relaxed_penalty = g.overlapping_pairs;
    }
  }

  if (!placement) {
    r.status = Status::no_fit;
    r.diagnostics.push_back(error("no placement found by strategy '" + strategy_name +
                                  "'; this bounded search does not prove that none exists"));
    return finish();
  }
  Placement expanded;
  if (unified)
    expanded = expand_placement(*unified, *placement);
  else
    expanded.offsets = std::move(placement->offsets);  // what expand_placement keeps of it
  // The problem was found well formed above; removing relaxed separations keeps it so.
  if (auto bad = validate_placement(relaxed_original ? *relaxed_original : original, expanded);
      !bad.empty()) {
    r.status = Status::internal_error;
    r.diagnostics.push_back(error("internal error: strategy '" + strategy_name +
                                  "' produced a placement that fails validation; please report it"));
    r.diagnostics.insert(r.diagnostics.end(), bad.begin(), bad.end());
    return finish();
  }
  r.objective = evaluate_objective(original, expanded);
  r.objective.penalty = saturating_add(r.objective.penalty, relaxed_penalty);  // relaxed pairs cost 1 each
  r.status = detail::reaches_lower_bound(r.objective, r.lower_bound) ? Status::optimal : Status::feasible;
  if (proven == Status::optimal) r.status = Status::optimal;  // proved, possibly with a least nonzero penalty
  r.proved.penalty = r.objective.penalty == 0 || penalty_proven || proven == Status::optimal;
  r.proved.penalty_bound =
      r.proved.penalty ? r.objective.penalty : std::min(penalty_bound, r.objective.penalty);
  r.proved.peak = true;
  for (std::size_t k = 0; k < r.lower_bound.size() && k < r.objective.peak_by_arena.size(); ++k)
    r.proved.peak = r.proved.peak && r.objective.peak_by_arena[k] <= r.lower_bound[k];
  r.placement = std::move(expanded);
  if (options.progress) {
    SearchProgress sp;
    sp.best_peak = r.objective.total_peak;
    sp.best_penalty = r.objective.penalty;
    for (Addr b : r.lower_bound) sp.proved_bound = saturating_add(sp.proved_bound, b);
    sp.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    options.progress(sp);
  }
  return finish();
}

namespace detail {

PTO_MEM_PLAN_INLINE ObjectsPlan plan_records(ProblemRecords records, const std::vector<const void*>& objects,
                                             const ErasedConstraints& c, const PlanOptions& options) {
  ObjectsPlan out;
  out.built = build_problem(std::move(records));
  std::unordered_map<const void*, std::size_t> position;
  for (std::size_t i = 0; i < objects.size(); ++i) position.emplace(objects[i], i);
  Problem& p = out.built.problem;
  Diagnostics& diagnostics = out.built.diagnostics;
  // The BufferId of `r`, or nullopt (with a diagnostic when `required`).
  auto id_of = [&](const void* r, const std::string& what, bool required) -> std::optional<BufferId> {
    auto found = position.find(r);
    if (found == position.end()) {
      diagnostics.push_back(error(what + " names an object that is not an element of the buffer range given "
                                         "to plan(); name the range's own elements (not copies)"));
      return std::nullopt;
    }
    const auto& index = out.built.buffer_index[found->second];
    if (!index) {
      if (required)
        diagnostics.push_back(error(what + " names buffer #" + std::to_string(found->second) +
                                    " of the range, whose arena the policy does not plan"));
      return std::nullopt;
    }
    return static_cast<BufferId>(*index);
  };
  for (std::size_t k = 0; k < c.separations.size(); ++k) {
    const std::string what = "separation #" + std::to_string(k);
    auto a = id_of(c.separations[k].a, what, false);
    auto b = id_of(c.separations[k].b, what, false);
    if (a && b) p.separations.push_back({*a, *b, reason_explicit});
  }
  for (std::size_t k = 0; k < c.penalties.size(); ++k) {
    const std::string what = "penalty #" + std::to_string(k);
    auto a = id_of(c.penalties[k].a, what, false);
    auto b = id_of(c.penalties[k].b, what, false);
    if (a && b) p.penalties.push_back({*a, *b, c.penalties[k].weight});
  }
  for (std::size_t k = 0; k < c.exclusions.size(); ++k) {
    const std::string what = "exclusion #" + std::to_string(k);
    auto a = id_of(c.exclusions[k].a, what, false);
    auto b = id_of(c.exclusions[k].b, what, false);
    if (a && b) p.exclusions.push_back({*a, *b});
  }
  if (c.conflict_graph) {
    p.conflict_graph.emplace();
    for (std::size_t k = 0; k < c.conflicts.size(); ++k) {
      const std::string what = "conflict-graph edge #" + std::to_string(k);
      auto a = id_of(c.conflicts[k].a, what, false);
      auto b = id_of(c.conflicts[k].b, what, false);
      if (a && b) p.conflict_graph->push_back({*a, *b});
    }
  }
  for (std::size_t k = 0; k < c.must_alias.size(); ++k) {
    MustAliasGroup g;
    for (const auto& m : c.must_alias[k])
      if (auto id = id_of(m.buffer, "must-alias group #" + std::to_string(k), true))
        g.members.push_back({*id, m.offset});
    p.must_alias.push_back(std::move(g));
  }
  for (std::size_t k = 0; k < c.declared.size(); ++k) {
    const auto& d = c.declared[k];
    const std::string what = "declared allocation #" + std::to_string(k);
    DeclaredAllocation decl;
    if (auto id = id_of(d.whole, what, true)) decl.buffer = *id;
    decl.slots = d.slots;
    decl.slot_size = d.slot_size;
    for (const auto& bind : d.bindings)
      if (auto id = id_of(bind.buffer, what, true)) decl.bindings.push_back({*id, bind.slot});
    p.declared.push_back(std::move(decl));
  }
  if (has_errors(diagnostics)) {
    out.result.status = Status::invalid_input;
    out.result.strategy = std::string(to_string(options.strategy.value()));
    out.result.diagnostics = diagnostics;
  } else {
    out.result = plan(p, options);
  }
  for (const auto& idx : out.built.buffer_index) {
    if (idx && out.result.placement)
      out.offsets.push_back(out.result.placement->offsets[*idx]);
    else
      out.offsets.push_back(std::nullopt);
  }
  return out;
}

PTO_MEM_PLAN_INLINE void report_narrow_output(PlanResult& result, std::size_t index, Addr offset) {
  result.status = Status::unsupported;
  result.diagnostics.push_back(
      error("offset " + std::to_string(offset) + " of buffer #" + std::to_string(index) +
            " does not fit the output member's type; widen it (nothing was written)"));
}

}  // namespace detail

}  // namespace pto_mem
