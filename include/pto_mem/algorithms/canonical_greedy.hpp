// DSA-RP canonical greedy (SPEC.md §2): a penalty-blind first-fit incumbent,
// then the canonical step over the size, birth and incident-weight orders
// and seeded restarts; the best placement under (penalty, total peak, max
// peak) wins, ties keep the earlier one. "No fit" is the result of this
// bounded search, never a proof that no placement exists.
//
// Two modes, chosen by GreedyOptions::compat_pypto:
//  * compat: PyPTO's solver bit for bit — the same orders (with our own copy
//    of libstdc++'s shuffle), offsets, objective and statistics, including
//    the exact candidate counter.
//  * fast (default): the same passes give the same offsets; the candidate
//    counter counts the free-offset queries really made; after the PyPTO
//    orders come the contention order and a deterministic peak-driven walk
//    (greedy_extras.hpp). Ties keep the earlier order, so a fast result
//    differs from the compat one only when it is strictly better.
//
// The speed comes from the pass (canonical_placer.hpp, occupancy_tree.hpp):
// no conflict table, no per-buffer neighbour list; see docs/planners.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <future>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pto_mem/algorithms/canonical_placer.hpp"
#include "pto_mem/algorithms/dsa_orders.hpp"
#include "pto_mem/algorithms/dsa_search_space.hpp"
#include "pto_mem/algorithms/dsa_self_check.hpp"
#include "pto_mem/algorithms/greedy_extras.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/core/result.hpp"

namespace pto_mem {

struct GreedyOptions {
  std::uint64_t seed = 0;      ///< seeds the restarts' mt19937_64
  std::size_t restarts = 4;    ///< shuffled orders after the three fixed ones
  bool compat_pypto = false;   ///< reproduce PyPTO's placements and statistics exactly
  /// The caller has validated the problem and will validate the placement
  /// (the planner front door does both), so the solver skips those two
  /// checks. Its own consistency check of every incumbent still runs.
  bool trusted = false;
  /// Worker threads for the fixed passes (0 = hardware concurrency), used
  /// from `parallel_from` buffers on: threads cost more than they save on
  /// small problems. Results never depend on either.
  unsigned threads = 1;
  std::size_t parallel_from = 20000;
  /// Tuning of the occupancy tree (lifetime ends per leaf bucket). Results
  /// never depend on it; the tests vary it to exercise every code path.
  std::uint32_t bucket_events = 128;
};

struct GreedyResult {
  Status status = Status::invalid_input;  ///< feasible, no_fit, invalid_input, unsupported or internal_error
  std::optional<Placement> placement;
  Objective objective;
  Statistics statistics;
  Diagnostics diagnostics;
  /// The orders tried (deduplicated), by name; statistics.selected_order
  /// indexes this list.
  std::vector<std::string> orders;
};

namespace dsa {

/// The objective of a complete pass, computed on the dense model. Equal to
/// evaluate_objective for every placement that passes the validator.
[[nodiscard]] inline Objective dense_objective(const SearchSpace& s, const std::vector<Addr>& offset) {
  Objective o;
  o.peak_by_arena.assign(s.capacity.size(), 0);
  for (std::size_t a = 0; a < s.capacity.size(); ++a)
    for (const auto& r : s.reserved[a]) o.peak_by_arena[a] = std::max(o.peak_by_arena[a], r.end);
  for (std::size_t i = 0; i < s.n; ++i)
    o.peak_by_arena[s.arena[i]] = std::max(o.peak_by_arena[s.arena[i]], offset[i] + s.size[i]);
  for (Addr p : o.peak_by_arena) {
    o.total_peak = saturating_add(o.total_peak, p);
    o.max_peak = std::max(o.max_peak, p);
  }
  for (std::uint32_t i = 0; i < s.n; ++i)
    for (auto [b, e] = s.soft.of(i); b != e; ++b)
      if (b->node > i && overlaps(AddrRange{offset[i], offset[i] + s.size[i]},
                                  AddrRange{offset[b->node], offset[b->node] + s.size[b->node]}))
        o.penalty = saturating_add(o.penalty, b->weight);
  return o;
}

}  // namespace dsa

/// Runs DSA-RP canonical greedy on `p`. Must-alias groups and declared
/// allocations must be unified into single buffers first; a problem that
/// still has them is rejected as invalid.
[[nodiscard]] inline GreedyResult canonical_greedy(const Problem& p, const GreedyOptions& options = {}) {
  GreedyResult r;
  if (!options.trusted) r.diagnostics = validate(p);
  if (has_errors(r.diagnostics)) {
    r.status = Status::invalid_input;
    return r;
  }
  if (!p.must_alias.empty() || !p.declared.empty()) {
    r.status = Status::unsupported;
    r.diagnostics.push_back(
        error("canonical greedy places independent buffers only, but the problem has " +
              std::to_string(p.must_alias.size()) + " must-alias group(s) and " + std::to_string(p.declared.size()) +
              " declared allocation(s); unify each group or declaration into one buffer first"));
    return r;
  }

  const dsa::SearchSpace space = dsa::build_search_space(p);
  std::vector<dsa::NamedOrder> orders = dsa::dsa_orders(space, options.seed, options.restarts);
  const std::size_t pypto_orders = orders.size();
  if (!options.compat_pypto) dsa::append_unique(orders, "contention", dsa::contention_order(space));

  dsa::CanonicalPlacer placer(space, options.compat_pypto, options.bucket_events);
  const dsa::PlacementCheck check(space);
  // Upstream re-validates every placement it considers; a failure is an
  // internal error, reported with the stage and what was wrong. Only a
  // placement that becomes the incumbent can reach the caller, so that is
  // where the check runs: a sweep, O(n log n).
  auto rejected = [&](const std::vector<Addr>& offsets, const std::string& stage) {
    const auto conflict = check.first_conflict(offsets);
    if (!conflict) return false;
    r.status = Status::internal_error;
    r.placement.reset();
    r.diagnostics.push_back(error("internal error: the canonical greedy " + stage + " failed validation (" + *conflict +
                                  "); please report this problem"));
    return true;
  };

  std::optional<std::vector<Addr>> best;
  Objective best_objective;
  std::size_t best_order = 0;  // where the incumbent came from (first fit: the size order)
  // Offers a complete placement from order k; it wins only when strictly
  // better (ties keep the incumbent and earlier orders). False on an
  // internal error.
  auto offer = [&](const std::vector<Addr>& offsets, std::size_t k) {
    const Objective objective = dsa::dense_objective(space, offsets);
    if (best && !(objective < best_objective)) return true;
    if (rejected(offsets, "order " + std::to_string(k) + " (" + r.orders[k] + ")")) return false;
    best = offsets;
    best_objective = objective;
    best_order = k;
    r.statistics.selected_order = k;
    r.statistics.selected_first_fit = false;
    return true;
  };
  for (const auto& o : orders) r.orders.push_back(o.name);

  // The fixed passes: first fit (penalty-blind; without penalties it is the
  // size-order pass itself, which is always orders[0]) and every order. They
  // are independent, so large problems run them on several workers; the
  // results are reduced in order, exactly as one after another.
  struct Pass {
    const dsa::Order* order;
    dsa::PassKind kind;
    bool ok = false;
    std::uint64_t candidates = 0;
    std::vector<Addr> offsets{};
  };
  std::vector<Pass> passes;
  passes.push_back({&orders[0].order, space.has_soft ? dsa::PassKind::penalty_blind : dsa::PassKind::canonical});
  for (std::size_t k = space.has_soft ? 0 : 1; k < orders.size(); ++k)
    passes.push_back({&orders[k].order, dsa::PassKind::canonical});
  auto run = [](dsa::CanonicalPlacer& worker, Pass& pass) {
    pass.ok = worker.place(*pass.order, pass.kind);
    pass.candidates = worker.candidates();
    if (pass.ok) pass.offsets = worker.offsets();
  };
  const std::size_t workers = dsa::pass_workers(options.threads, space.n < options.parallel_from, passes.size());
  if (workers > 1) {
    // Clean copies, made before any pass runs: workers share nothing mutable.
    std::vector<dsa::CanonicalPlacer> own(workers - 1, placer);
    std::vector<std::future<void>> done;
    for (std::size_t w = 1; w < workers; ++w)
      done.push_back(std::async(std::launch::async, [&, w] {
        for (std::size_t t = w; t < passes.size(); t += workers) run(own[w - 1], passes[t]);
      }));
    for (std::size_t t = 0; t < passes.size(); t += workers) run(placer, passes[t]);
    for (auto& d : done) d.get();
  }

  std::size_t next_pass = 0;
  // The result of the next pass in order: computed above, or now.
  auto take = [&]() -> Pass& {
    Pass& pass = passes[next_pass++];
    if (workers <= 1) run(placer, pass);
    return pass;
  };
  {
    Pass& ff = take();
    if (ff.ok) {
      if (rejected(ff.offsets, "first-fit incumbent")) return r;
      best = std::move(ff.offsets);
      best_objective = dsa::dense_objective(space, *best);
      r.statistics.first_fit_feasible = r.statistics.selected_first_fit = true;
    }
    if (!space.has_soft) {  // the same pass is order 0, which then only ties
      ++r.statistics.orders_evaluated;
      r.statistics.candidates_evaluated += ff.candidates;
    }
  }
  for (std::size_t k = space.has_soft ? 0 : 1; k < orders.size(); ++k) {
    Pass& pass = take();
    ++r.statistics.orders_evaluated;
    r.statistics.candidates_evaluated += pass.candidates;
    if (pass.ok && !offer(pass.offsets, k)) return r;
    pass.offsets = {};  // release memory early
  }

  if (!options.compat_pypto) {
    // The peak-driven walk (greedy_extras.hpp), steered by passes that ignore
    // capacity so that it also runs where nothing fits yet. Without penalties
    // such a pass places exactly like the capacity-bound one whenever it
    // fits, so only with penalties is the bound pass run again.
    r.statistics.set("pypto_orders", static_cast<std::int64_t>(pypto_orders));
    dsa::Order order = orders[best ? best_order : 0].order;
    std::vector<Addr> unbounded;
    if (best && !space.has_soft) unbounded = *best;
    else if (placer.place(order, dsa::PassKind::canonical, true)) unbounded = placer.offsets();
    std::set<std::uint64_t> seen{dsa::fingerprint(order)};
    for (std::size_t step = 1; !unbounded.empty() && step <= dsa::walk_steps(space.n); ++step) {
      dsa::Order next = dsa::peak_first(space, order, unbounded);
      // A repeated order repeats its pass: the walk has converged or cycles.
      if (!seen.insert(dsa::fingerprint(next)).second) break;
      order = std::move(next);
      r.orders.push_back("peak walk " + std::to_string(step));
      ++r.statistics.orders_evaluated;
      const bool placed = placer.place(order, dsa::PassKind::canonical, true);
      r.statistics.candidates_evaluated += placer.candidates();
      if (!placed) break;  // only on address overflow
      unbounded = placer.offsets();
      bool fits = true;
      for (std::size_t i = 0; i < space.n && fits; ++i)
        fits = unbounded[i] + space.size[i] <= space.capacity[space.arena[i]];
      if (space.has_soft) fits = placer.place(order, dsa::PassKind::canonical);
      if (fits && !offer(placer.offsets(), r.orders.size() - 1)) return r;
    }
  }

  if (!best) {
    r.status = Status::no_fit;
    r.diagnostics.push_back(error("canonical greedy found no placement that fits the arena capacities in " +
                                  std::to_string(orders.size()) +
                                  " order(s); this bounded search does not prove that none exists (try strategy 'exact')",
                                  "DSA-NO-FIT"));
    return r;
  }
  Placement placement;
  placement.offsets.assign(best->begin(), best->end());
  // validate(p) found the problem well formed at the start: check only the placement.
  if (!options.trusted)
    if (auto bad = validate_placement(p, placement); !bad.empty()) {
      r.status = Status::internal_error;
      r.diagnostics.push_back(
          error("internal error: the canonical greedy's placement failed validation; please report this problem"));
      r.diagnostics.insert(r.diagnostics.end(), bad.begin(), bad.end());
      return r;
    }
  r.objective = best_objective;  // equals evaluate_objective(p, placement) for a valid placement
  r.placement = std::move(placement);
  r.status = Status::feasible;
  return r;
}

}  // namespace pto_mem
