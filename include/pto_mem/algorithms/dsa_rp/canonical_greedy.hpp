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
//
// canonical_greedy() checks the input and builds the search space; the
// search itself is dsa::CanonicalGreedy, one member per step (make the
// tools, run the fixed passes, reduce them in order, walk, answer).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <future>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/canonical_placer.hpp"
#include "pto_mem/algorithms/dsa_rp/greedy_extras.hpp"
#include "pto_mem/algorithms/dsa_rp/orders.hpp"
#include "pto_mem/algorithms/dsa_rp/search_space.hpp"
#include "pto_mem/algorithms/dsa_rp/self_check.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/core/result.hpp"

namespace pto_mem {

struct GreedyOptions {
  std::uint64_t seed = 0;     ///< seeds the restarts' mt19937_64
  std::size_t restarts = 4;   ///< shuffled orders after the three fixed ones
  bool compat_pypto = false;  ///< reproduce PyPTO's placements and statistics exactly
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

/// One run of the canonical greedy over a search space: the fixed passes
/// (first fit and every order, on one or more workers, reduced in order),
/// then in fast mode the peak-driven walk, then the answer. Each step is a
/// member; the state they share is the search's incumbent, the passes in
/// flight and the result being built. Used once: construct, then run().
class CanonicalGreedy {
 public:
  /// `result` carries what the caller found before the search (the
  /// problem's warnings); the search adds to it.
  CanonicalGreedy(const SearchSpace& space, const GreedyOptions& options, GreedyResult result)
      : space_(space),
        options_(options),
        r_(std::move(result)),
        stream_(space, options.seed, options.restarts),
        contention_pending_(!options.compat_pypto),
        workers_(pass_workers(options.threads, space.n < options.parallel_from,
                              std::numeric_limits<std::size_t>::max())),
        cut_(!options.compat_pypto && space.n >= options.cut_from) {}

  CanonicalGreedy(const CanonicalGreedy&) = delete;
  CanonicalGreedy& operator=(const CanonicalGreedy&) = delete;

  /// Every step, then the result for `p` (the problem the space was built
  /// from: the final placement is validated against it unless trusted).
  [[nodiscard]] GreedyResult run(const Problem& p) {
    build_tools();
    run_fixed_passes();
    if (failed_) return std::move(r_);
    if (!options_.compat_pypto && !stopped_ && !peak_walk()) return std::move(r_);
    if (placer().interrupted()) stopped_ = true;  // the caller's stop cut a pass of the walk
    if (stopped_) r_.statistics.set("stopped_by_deadline", 1);
    if (cut_short_ > 0) r_.statistics.set("passes_cut_short", static_cast<std::int64_t>(cut_short_));
    return answer(p);
  }

 private:
  // A pass of the fixed orders. Without penalties order 0 is one pass, the
  // first-fit incumbent; with penalties it is two: first fit, then order 0.
  struct Pass {
    std::shared_ptr<const NamedOrder> order;
    PassKind kind;
    std::size_t k;   // index into r_.orders
    bool first_fit;  // the first-fit incumbent (without penalties also order 0)
    bool ran = false;
    bool ok = false;
    bool done = false;
    std::uint64_t candidates = 0;
    std::vector<Addr> offsets{};
    std::vector<PassProgress> progress{};  // with a limit: where its objective rose
  };

  // Orders are made when a worker asks for one (OrderStream), so that a
  // deadline stops the generation with the passes and memory does not grow
  // with the number of restarts. In fast mode the contention order comes last.
  [[nodiscard]] std::optional<NamedOrder> next_order() {
    if (auto o = stream_.next()) return o;
    if (!contention_pending_) return std::nullopt;
    contention_pending_ = false;
    return stream_.extra("contention", contention_order(space_));
  }

  [[nodiscard]] bool out_of_time() const {
    return options_.stop.stop_requested() ||
           (options_.deadline && std::chrono::steady_clock::now() >= *options_.deadline);
  }

  // The placer (its occupancy trees) and the placement check. With a second
  // worker they are built on it while this thread makes the first orders
  // (each a sort of every buffer). How many orders are made ahead depends on
  // timing; which orders, and everything else, does not.
  void build_tools() {
    auto build = [this] {
      return std::pair<CanonicalPlacer, PlacementCheck>(
          std::piecewise_construct,
          std::forward_as_tuple(space_, options_.compat_pypto, options_.bucket_events),
          std::forward_as_tuple(space_));
    };
    if (workers_ > 1) {
      auto building = std::async(std::launch::async, build);
      while (made_.size() < 2 * workers_ &&
             building.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        auto o = next_order();
        if (!o) break;
        made_.push_back(std::move(*o));
      }
      built_.emplace(building.get());
    } else {
      built_.emplace(build());
    }
    placer().watch(options_.stop);  // copied with it to every worker
  }

  [[nodiscard]] CanonicalPlacer& placer() { return built_->first; }
  [[nodiscard]] const PlacementCheck& check() const { return built_->second; }

  // Upstream re-validates every placement it considers; a failure is an
  // internal error, reported with the stage and what was wrong. Only a
  // placement that becomes the incumbent can reach the caller, so that is
  // where the check runs: a sweep, O(n log n).
  [[nodiscard]] bool rejected(const std::vector<Addr>& offsets, const std::string& stage) {
    const auto conflict = check().first_conflict(offsets);
    if (!conflict) return false;
    r_.status = Status::internal_error;
    r_.placement.reset();
    r_.diagnostics.push_back(error("internal error: the canonical greedy " + stage + " failed validation (" +
                                   *conflict + "); please report this problem"));
    return true;
  }

  // Offers a complete placement from order k; it wins only when strictly
  // better (ties keep the incumbent and earlier orders). False on an
  // internal error.
  [[nodiscard]] bool offer(const std::vector<Addr>& offsets, std::size_t k, const std::string& name,
                           const Order& order) {
    const Objective objective = dense_objective(space_, offsets);
    if (best_ && !(objective < best_objective_)) return true;
    if (rejected(offsets, "order " + std::to_string(k) + " (" + name + ")")) return false;
    best_ = offsets;
    best_objective_ = objective;
    best_sequence_ = order;
    r_.statistics.selected_order = k;
    r_.statistics.selected_first_fit = false;
    return true;
  }

  // The number of the next pass for a worker (passes_[number - reduced_]),
  // or nullopt when every order is placed or the search ended. Handing out
  // and reducing each have a lock, so that a worker making the next order
  // (a sort) does not hold up one reducing (which may check a placement),
  // and back.
  [[nodiscard]] std::optional<std::size_t> hand_out() {
    const std::lock_guard lock(handing_);
    if (ended_) return std::nullopt;
    Pass pass{};
    if (zero_pending_) {
      zero_pending_ = false;
      pass = Pass{zero_, PassKind::canonical, 0, false};
    } else {
      std::optional<NamedOrder> o;
      if (!made_.empty()) {
        o = std::move(made_.front());
        made_.pop_front();
      } else {
        o = next_order();
      }
      if (!o) return std::nullopt;
      const std::size_t k = r_.orders.size();
      r_.orders.push_back(o->name);
      auto order = std::make_shared<const NamedOrder>(std::move(*o));
      if (k != 0) {
        pass = Pass{order, PassKind::canonical, k, false};
      } else {
        zero_ = order;
        first_sequence_ = order->order;
        if (space_.has_soft) {
          pass = Pass{order, PassKind::penalty_blind, 0, true};
          zero_pending_ = true;
        } else {
          pass = Pass{order, PassKind::canonical, 0, true};
        }
      }
    }
    const std::lock_guard held(reducing_);  // passes_ is the reducer's too
    passes_.push_back(std::move(pass));
    return handed_++;
  }

  // Folds one finished pass into the result, in order. False when the
  // search ends here.
  [[nodiscard]] bool reduce(Pass& pass, std::size_t number) {
    if (!pass.ran) return false;  // the deadline: this pass and every later one are dropped
    if (cut_ && number > 0 && limit_.known.load(std::memory_order_relaxed)) {
      // Where it became hopeless, from its records: the same whether the
      // worker saw the reference in time to stop there or not.
      if (const auto* hopeless = first_hopeless(pass.progress, limit_.reference)) {
        ++cut_short_;
        ++r_.statistics.orders_evaluated;
        r_.statistics.candidates_evaluated += hopeless->candidates;
        return true;
      }
    }
    if (pass.first_fit) {
      if (pass.ok) {
        if (rejected(pass.offsets, "first-fit incumbent")) {
          failed_ = true;
          return false;
        }
        best_ = std::move(pass.offsets);
        best_objective_ = dense_objective(space_, *best_);
        best_sequence_ = pass.order->order;
        r_.statistics.first_fit_feasible = r_.statistics.selected_first_fit = true;
      }
      if (cut_ && number == 0 && best_) {  // the first pass sets the limit of the others
        limit_.reference = best_objective_;
        limit_.known.store(true, std::memory_order_release);
      }
      if (!space_.has_soft) {  // the same pass is order 0, which then only ties
        ++r_.statistics.orders_evaluated;
        r_.statistics.candidates_evaluated += pass.candidates;
      }
      return true;
    }
    ++r_.statistics.orders_evaluated;
    r_.statistics.candidates_evaluated += pass.candidates;
    if (pass.ok && !offer(pass.offsets, pass.k, pass.order->name, pass.order->order)) {
      failed_ = true;
      return false;
    }
    return true;
  }

  // A worker: takes passes until none is left. The deadline is checked
  // before each pass but the very first, so there is always a first-fit
  // answer when one fits.
  void work(CanonicalPlacer& worker) {
    while (auto number = hand_out()) {
      Pass* pass;
      {
        const std::lock_guard lock(reducing_);
        pass = &passes_[*number - reduced_];  // a deque: references survive push_back and pop_front
      }
      if (*number == 0 || !out_of_time()) {
        pass->ran = true;
        pass->ok =
            worker.place(pass->order->order, pass->kind, false, cut_ && *number > 0 ? &limit_ : nullptr);
        pass->ran = !worker.interrupted();  // a stopped pass is dropped with every later one
        pass->candidates = worker.candidates();
        if (pass->ok) pass->offsets = worker.offsets();
        if (cut_ && *number > 0) pass->progress = worker.progress();
      }
      const std::lock_guard lock(reducing_);
      pass->done = true;
      while (!passes_.empty() && passes_.front().done && !ended_) {
        if (!reduce(passes_.front(), reduced_)) {
          stopped_ = !failed_;
          ended_ = true;
        }
        passes_.pop_front();
        ++reduced_;
      }
    }
  }

  // The fixed passes: first fit (penalty-blind; without penalties it is the
  // size-order pass itself, which is always order 0) and every order. They
  // are independent, so large problems run them on several workers, each
  // taking the next pass as soon as it is free; the results are reduced in
  // order, exactly as one after another.
  void run_fixed_passes() {
    // Clean copies, made before any pass runs: workers share nothing mutable.
    std::vector<CanonicalPlacer> own(workers_ > 1 ? workers_ - 1 : 0, placer());
    std::vector<std::future<void>> helpers;
    for (auto& worker : own)
      helpers.push_back(std::async(std::launch::async, [this, &worker] { work(worker); }));
    work(placer());
    for (auto& h : helpers) h.get();
  }

  // The peak-driven walk (greedy_extras.hpp), steered by passes that ignore
  // capacity so that it also runs where nothing fits yet. Without penalties
  // such a pass places exactly like the capacity-bound one whenever it
  // fits, so only with penalties is the bound pass run again. False on an
  // internal error.
  [[nodiscard]] bool peak_walk() {
    r_.statistics.set("pypto_orders", static_cast<std::int64_t>(stream_.produced()));
    CanonicalPlacer& placer = this->placer();
    Order order = best_ ? best_sequence_ : first_sequence_;
    std::vector<Addr> unbounded;
    if (best_ && !space_.has_soft)
      unbounded = *best_;
    else if (placer.place(order, PassKind::canonical, true))
      unbounded = placer.offsets();
    std::set<std::uint64_t> seen{fingerprint(order)};
    for (std::size_t step = 1; !unbounded.empty() && step <= walk_steps(space_.n); ++step) {
      if (out_of_time()) {
        stopped_ = true;
        break;
      }
      Order next = peak_first(space_, order, unbounded);
      // A repeated order repeats its pass: the walk has converged or cycles.
      if (!seen.insert(fingerprint(next)).second) break;
      order = std::move(next);
      r_.orders.push_back("peak walk " + std::to_string(step));
      ++r_.statistics.orders_evaluated;
      const bool placed = placer.place(order, PassKind::canonical, true);
      r_.statistics.candidates_evaluated += placer.candidates();
      if (!placed) break;  // only on address overflow
      unbounded = placer.offsets();
      bool fits = true;
      for (std::size_t i = 0; i < space_.n && fits; ++i)
        fits = unbounded[i] + space_.size[i] <= space_.capacity[space_.arena[i]];
      if (space_.has_soft) fits = placer.place(order, PassKind::canonical);
      if (fits && !offer(placer.offsets(), r_.orders.size() - 1, r_.orders.back(), order)) return false;
    }
    return true;
  }

  // The incumbent as the result: no_fit without one; otherwise the
  // placement, validated against `p` unless the caller does that.
  [[nodiscard]] GreedyResult answer(const Problem& p) {
    if (!best_) {
      r_.status = Status::no_fit;
      r_.diagnostics.push_back(
          error("canonical greedy found no placement that fits the arena capacities in " +
                    std::to_string(r_.statistics.orders_evaluated) + " order(s)" +
                    (stopped_ ? std::string(" (the time limit ended the search)") : std::string()) +
                    "; this bounded search does not prove that none exists (try strategy 'exact')",
                "DSA-NO-FIT"));
      return std::move(r_);
    }
    Placement placement;
    placement.offsets.assign(best_->begin(), best_->end());
    // validate(p) found the problem well formed at the start: check only the placement.
    if (!options_.trusted)
      if (auto bad = validate_placement(p, placement); !bad.empty()) {
        r_.status = Status::internal_error;
        r_.diagnostics.push_back(
            error("internal error: the canonical greedy's placement failed validation; please report this "
                  "problem"));
        r_.diagnostics.insert(r_.diagnostics.end(), bad.begin(), bad.end());
        return std::move(r_);
      }
    r_.objective = best_objective_;  // equals evaluate_objective(p, placement) for a valid placement
    r_.placement = std::move(placement);
    r_.status = Status::feasible;
    return std::move(r_);
  }

  const SearchSpace& space_;
  const GreedyOptions& options_;
  GreedyResult r_;
  OrderStream stream_;
  bool contention_pending_;  // fast mode: the contention order is still to come
  bool stopped_ = false;     // the deadline ended the search early
  std::size_t workers_;
  std::deque<NamedOrder> made_;  // orders made while the tools were built
  std::optional<std::pair<CanonicalPlacer, PlacementCheck>> built_;

  std::optional<std::vector<Addr>> best_;
  Objective best_objective_;
  Order best_sequence_, first_sequence_;  // the incumbent's order (first fit: the size order), order 0

  // Passes after the first stop once they cannot beat it (GreedyOptions::cut_from).
  bool cut_;
  PassLimit limit_;
  std::uint64_t cut_short_ = 0;  // passes that stopped (or would have) once they could not win
  std::deque<Pass> passes_;      // passes_[0] is pass number `reduced_`
  std::size_t handed_ = 0, reduced_ = 0;
  std::atomic<bool> ended_ = false;  // the deadline or an internal error: hand out nothing more
  bool failed_ = false;              // an internal error; r_ says which
  std::mutex handing_, reducing_;
  std::shared_ptr<const NamedOrder> zero_;  // with penalties, its canonical pass follows first fit
  bool zero_pending_ = false;
};

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
              std::to_string(p.must_alias.size()) + " must-alias group(s) and " +
              std::to_string(p.declared.size()) +
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
  return dsa::CanonicalGreedy(space, options, std::move(r)).run(p);
}

}  // namespace pto_mem
