// DSA-RP canonical greedy: a penalty-blind first-fit incumbent,
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
#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <stop_token>
#include <tuple>
#include <utility>
#include <cstdint>
#include <limits>
#include <future>
#include <optional>
#include <stop_token>
#include <set>
#include <string>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/canonical_placer.hpp"
#include "pto_mem/algorithms/dsa_rp/orders.hpp"
#include "pto_mem/algorithms/dsa_rp/search_space.hpp"
#include "pto_mem/algorithms/dsa_rp/self_check.hpp"
#include "pto_mem/algorithms/dsa_rp/greedy_extras.hpp"
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
  /// Fast mode, from `cut_from` buffers on: every fixed pass after the first
  /// stops as soon as it can no longer end strictly better than the first
  /// pass (its objective only grows as it places buffers), and counts the
  /// candidates it evaluated up to there. Such a pass could only tie or lose,
  /// so the placement never depends on it; the candidate count does, and
  /// stays the same on any number of threads. Below `cut_from`, and in
  /// compat mode, every pass runs to its end as upstream's does.
  std::size_t cut_from = 20000;
  /// No new pass starts after this instant (the first pass always runs, so
  /// a first fit is found whenever it fits); nullopt: no time limit. The
  /// result then records `stopped_by_deadline` in its statistics.
  std::optional<std::chrono::steady_clock::time_point> deadline{};
  /// A caller's cancellation: checked where the deadline is, and it ends
  /// the search the same way (recorded as `stopped_by_deadline` too).
  std::stop_token stop{};
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
  if (s.implicit) {  // rule pairs: each buffer against the ones before it, by byte range
    PlacedRuleIndex index(s);
    std::vector<char> placed(s.n, 0);
    std::vector<PlacedRuleIndex::Entry> partners;
    for (std::uint32_t i = 0; i < s.n; ++i) {
      const AddrRange bytes{offset[i], offset[i] + s.size[i]};
      partners.clear();
      index.partners(i, placed, partners);
      for (const auto& e : partners)
        if (overlaps(bytes, e.bytes)) o.penalty = saturating_add(o.penalty, e.weight);
      index.insert(i, bytes);
      placed[i] = 1;
    }
  }
  return o;
}

}  // namespace dsa

/// Runs DSA-RP canonical greedy on `p`. Must-alias groups and declared
/// allocations must be unified into single buffers first; a problem that
/// still has them is rejected as invalid. `implicit`, when given, adds unit
/// penalties by rule over p's buffer positions (a relation too large to
/// list, see implicit_penalties.hpp); the placement and the objective
/// are the ones the same pairs listed in p.penalties would give.
[[nodiscard]] inline GreedyResult canonical_greedy(const Problem& p, const GreedyOptions& options = {},
                                                   const ImplicitPenalties* implicit = nullptr) {
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

  if (implicit && implicit->size() != p.buffers.size()) {
    r.status = Status::invalid_input;
    r.diagnostics.push_back(error("the penalty rule covers " + std::to_string(implicit->size()) +
                                  " buffer(s) but the problem has " + std::to_string(p.buffers.size()) +
                                  "; build the rule over the problem's buffers, in their order"));
    return r;
  }
  const dsa::SearchSpace space = dsa::build_search_space(p, implicit);
  // Orders are made when a worker asks for one (OrderStream), so that a
  // deadline stops the generation with the passes and memory does not grow
  // with the number of restarts. In fast mode the contention order comes last.
  dsa::OrderStream stream(space, options.seed, options.restarts);
  bool contention_pending = !options.compat_pypto;
  auto next_order = [&]() -> std::optional<dsa::NamedOrder> {
    if (auto o = stream.next()) return o;
    if (!contention_pending) return std::nullopt;
    contention_pending = false;
    return stream.extra("contention", dsa::contention_order(space));
  };
  auto out_of_time = [&] {
    return options.stop.stop_requested() || (options.deadline && std::chrono::steady_clock::now() >= *options.deadline);
  };
  bool stopped = false;  // the deadline ended the search early

  // The fixed passes: first fit (penalty-blind; without penalties it is the
  // size-order pass itself, which is always order 0) and every order. They
  // are independent, so large problems run them on several workers, each
  // taking the next pass as soon as it is free; the results are reduced in
  // order, exactly as one after another.
  const std::size_t workers =
      dsa::pass_workers(options.threads, space.n < options.parallel_from, std::numeric_limits<std::size_t>::max());

  // With a second worker, the placer (its occupancy trees) and the
  // placement check are built on it while this thread makes the first
  // orders (each a sort of every buffer). How many orders are made ahead
  // depends on timing; which orders, and everything else, does not.
  std::deque<dsa::NamedOrder> made;
  auto build = [&] {
    return std::pair<dsa::CanonicalPlacer, dsa::PlacementCheck>(
        std::piecewise_construct, std::forward_as_tuple(space, options.compat_pypto, options.bucket_events),
        std::forward_as_tuple(space));
  };
  std::optional<std::pair<dsa::CanonicalPlacer, dsa::PlacementCheck>> built;
  if (workers > 1) {
    auto building = std::async(std::launch::async, build);
    while (made.size() < 2 * workers && building.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      auto o = next_order();
      if (!o) break;
      made.push_back(std::move(*o));
    }
    built.emplace(building.get());
  } else {
    built.emplace(build());
  }
  dsa::CanonicalPlacer& placer = built->first;
  placer.watch(options.stop);  // copied with it to every worker
  const dsa::PlacementCheck& check = built->second;
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
  dsa::Order best_sequence, first_sequence;  // the incumbent's order (first fit: the size order), order 0
  // Offers a complete placement from order k; it wins only when strictly
  // better (ties keep the incumbent and earlier orders). False on an
  // internal error.
  auto offer = [&](const std::vector<Addr>& offsets, std::size_t k, const std::string& name, const dsa::Order& order) {
    const Objective objective = dsa::dense_objective(space, offsets);
    if (best && !(objective < best_objective)) return true;
    if (rejected(offsets, "order " + std::to_string(k) + " (" + name + ")")) return false;
    best = offsets;
    best_objective = objective;
    best_sequence = order;
    r.statistics.selected_order = k;
    r.statistics.selected_first_fit = false;
    return true;
  };

  // A pass of the fixed orders. Without penalties order 0 is one pass, the
  // first-fit incumbent; with penalties it is two: first fit, then order 0.
  struct Pass {
    std::shared_ptr<const dsa::NamedOrder> order;
    dsa::PassKind kind;
    std::size_t k;   // index into r.orders
    bool first_fit;  // the first-fit incumbent (without penalties also order 0)
    bool ran = false;
    bool ok = false;
    bool done = false;
    std::uint64_t candidates = 0;
    std::vector<Addr> offsets{};
    std::vector<dsa::PassProgress> progress{};  // with a limit: where its objective rose
  };
  // Passes after the first stop once they cannot beat it (GreedyOptions::cut_from).
  const bool cut = !options.compat_pypto && space.n >= options.cut_from;
  dsa::PassLimit limit;
  std::uint64_t cut_short = 0;  // passes that stopped (or would have) once they could not win
  // Passes in the order they were handed out: handing out and reducing each
  // have a lock, so that a worker making the next order (a sort) does not
  // hold up one reducing (which may check a placement), and back.
  std::deque<Pass> passes;  // passes[0] is pass number `reduced`
  std::size_t handed = 0, reduced = 0;
  std::atomic<bool> ended = false;  // the deadline or an internal error: hand out nothing more
  bool failed = false;              // an internal error; r says which
  std::mutex handing, reducing;
  std::shared_ptr<const dsa::NamedOrder> zero;  // with penalties, its canonical pass follows first fit
  bool zero_pending = false;
  // The number of the next pass for a worker (passes[number - reduced]),
  // or nullopt when every order is placed or the search ended.
  auto hand_out = [&]() -> std::optional<std::size_t> {
    const std::lock_guard lock(handing);
    if (ended) return std::nullopt;
    Pass pass{};
    if (zero_pending) {
      zero_pending = false;
      pass = Pass{zero, dsa::PassKind::canonical, 0, false};
    } else {
      std::optional<dsa::NamedOrder> o;
      if (!made.empty()) {
        o = std::move(made.front());
        made.pop_front();
      } else {
        o = next_order();
      }
      if (!o) return std::nullopt;
      const std::size_t k = r.orders.size();
      r.orders.push_back(o->name);
      auto order = std::make_shared<const dsa::NamedOrder>(std::move(*o));
      if (k != 0) {
        pass = Pass{order, dsa::PassKind::canonical, k, false};
      } else {
        zero = order;
        first_sequence = order->order;
        if (space.has_soft) {
          pass = Pass{order, dsa::PassKind::penalty_blind, 0, true};
          zero_pending = true;
        } else {
          pass = Pass{order, dsa::PassKind::canonical, 0, true};
        }
      }
    }
    const std::lock_guard held(reducing);  // passes is the reducer's too
    passes.push_back(std::move(pass));
    return handed++;
  };
  // Folds one finished pass into the result, in order. False when the
  // search ends here.
  auto reduce = [&](Pass& pass, std::size_t number) {
    if (!pass.ran) return false;  // the deadline: this pass and every later one are dropped
    if (cut && number > 0 && limit.known.load(std::memory_order_relaxed)) {
      // Where it became hopeless, from its records: the same whether the
      // worker saw the reference in time to stop there or not.
      if (const auto* hopeless = dsa::first_hopeless(pass.progress, limit.reference)) {
        ++cut_short;
        ++r.statistics.orders_evaluated;
        r.statistics.candidates_evaluated += hopeless->candidates;
        return true;
      }
    }
    if (pass.first_fit) {
      if (pass.ok) {
        if (rejected(pass.offsets, "first-fit incumbent")) {
          failed = true;
          return false;
        }
        best = std::move(pass.offsets);
        best_objective = dsa::dense_objective(space, *best);
        best_sequence = pass.order->order;
        r.statistics.first_fit_feasible = r.statistics.selected_first_fit = true;
      }
      if (cut && number == 0 && best) {  // the first pass sets the limit of the others
        limit.reference = best_objective;
        limit.known.store(true, std::memory_order_release);
      }
      if (!space.has_soft) {  // the same pass is order 0, which then only ties
        ++r.statistics.orders_evaluated;
        r.statistics.candidates_evaluated += pass.candidates;
      }
      return true;
    }
    ++r.statistics.orders_evaluated;
    r.statistics.candidates_evaluated += pass.candidates;
    if (pass.ok && !offer(pass.offsets, pass.k, pass.order->name, pass.order->order)) {
      failed = true;
      return false;
    }
    return true;
  };
  // A worker: takes passes until none is left. The deadline is checked
  // before each pass but the very first, so there is always a first-fit
  // answer when one fits.
  auto work = [&](dsa::CanonicalPlacer& worker) {
    while (auto number = hand_out()) {
      Pass* pass;
      {
        const std::lock_guard lock(reducing);
        pass = &passes[*number - reduced];  // a deque: references survive push_back and pop_front
      }
      if (*number == 0 || !out_of_time()) {
        pass->ran = true;
        pass->ok = worker.place(pass->order->order, pass->kind, false, cut && *number > 0 ? &limit : nullptr);
        pass->ran = !worker.interrupted();  // a stopped pass is dropped with every later one
        pass->candidates = worker.candidates();
        if (pass->ok) pass->offsets = worker.offsets();
        if (cut && *number > 0) pass->progress = worker.progress();
      }
      const std::lock_guard lock(reducing);
      pass->done = true;
      while (!passes.empty() && passes.front().done && !ended) {
        if (!reduce(passes.front(), reduced)) {
          stopped = !failed;
          ended = true;
        }
        passes.pop_front();
        ++reduced;
      }
    }
  };
  {
    // Clean copies, made before any pass runs: workers share nothing mutable.
    std::vector<dsa::CanonicalPlacer> own(workers > 1 ? workers - 1 : 0, placer);
    std::vector<std::future<void>> helpers;
    for (auto& worker : own) helpers.push_back(std::async(std::launch::async, [&work, &worker] { work(worker); }));
    work(placer);
    for (auto& h : helpers) h.get();
  }
  if (failed) return r;
  if (!options.compat_pypto && !stopped) {
    // The peak-driven walk (greedy_extras.hpp), steered by passes that ignore
    // capacity so that it also runs where nothing fits yet. Without penalties
    // such a pass places exactly like the capacity-bound one whenever it
    // fits, so only with penalties is the bound pass run again.
    r.statistics.set("pypto_orders", static_cast<std::int64_t>(stream.produced()));
    dsa::Order order = best ? best_sequence : first_sequence;
    std::vector<Addr> unbounded;
    if (best && !space.has_soft) unbounded = *best;
    else if (placer.place(order, dsa::PassKind::canonical, true)) unbounded = placer.offsets();
    std::set<std::uint64_t> seen{dsa::fingerprint(order)};
    for (std::size_t step = 1; !unbounded.empty() && step <= dsa::walk_steps(space.n); ++step) {
      if (out_of_time()) {
        stopped = true;
        break;
      }
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
      if (fits && !offer(placer.offsets(), r.orders.size() - 1, r.orders.back(), order)) return r;
    }
  }
  if (placer.interrupted()) stopped = true;  // the caller's stop cut a pass of the walk
  if (stopped) r.statistics.set("stopped_by_deadline", 1);
  if (cut_short > 0) r.statistics.set("passes_cut_short", static_cast<std::int64_t>(cut_short));

  if (!best) {
    r.status = Status::no_fit;
    r.diagnostics.push_back(error("canonical greedy found no placement that fits the arena capacities in " +
                                  std::to_string(r.statistics.orders_evaluated) + " order(s)" +
                                  (stopped ? std::string(" (the time limit ended the search)") : std::string()) +
                                  "; this bounded search does not prove that none exists (try strategy 'exact')",
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
