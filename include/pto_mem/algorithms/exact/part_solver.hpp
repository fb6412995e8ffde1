// Solving one subproblem: probes of the canonical search under a capacity
// and a penalty budget, tried with several static orders under a node cap
// that doubles each round (a run that completes is a proof whatever its
// order), and the anytime schedule that tightens the peak from both sides.
// Parts too large to search (many interfering pairs) get canonical dives
// only: placements, never proofs beyond the max-load bound.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/floor_search.hpp"
#include "pto_mem/algorithms/exact/preorder.hpp"
#include "pto_mem/algorithms/exact/search.hpp"
#include "pto_mem/algorithms/exact/skyline_dive.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

/// What is known about one part.
struct PartState {
  std::optional<PartPlacement> best;  ///< best placement found (fits the capacity)
  bool infeasible = false;            ///< proved: nothing fits the capacity
  bool penalty_proven = false;        ///< best->penalty is the least possible
  Addr lower = 0;                     ///< proved: every penalty-optimal placement has peak >= lower
  std::uint64_t probes = 0, proofs = 0;
  Clock::time_point first_found{};    ///< when the first placement was found
  Clock::time_point best_found{};     ///< when `best` was found
  /// Solved: nothing left to prove (or nothing to improve).
  [[nodiscard]] bool closed() const noexcept {
    return infeasible || (best && penalty_proven && best->peak <= lower);
  }
};

[[nodiscard]] inline Addr round_up(Addr x, Addr g) { return align_up(x, g).value_or(max_addr); }

/// Parts up to these sizes get the complete search (its conflict lists and
/// section member lists grow with the interfering pairs).
inline constexpr std::size_t searchable_buffers = 20000;
inline constexpr std::uint64_t searchable_pairs = 2000000;

/// The orders of the canonical dives, best first on the instance suites
/// (area first wins on the large idealloc traces).
[[nodiscard]] inline const std::vector<std::string_view>& dive_orders() {
  static const std::vector<std::string_view> orders{"A", "TWA", "TAW", "ZWT", "AWT", "WAT"};
  return orders;
}

class PartSolver {
 public:
  /// `rotation` shifts the list of static orders (the portfolio's second
  /// worker starts elsewhere, so the two explore different trees).
  PartSolver(const Subproblem& sp, std::size_t rotation)
      : sp_(&sp),
        granule_(granule(sp)),
        searchable_(sp.items.size() <= searchable_buffers && count_interfering_pairs(sp, searchable_pairs) <= searchable_pairs) {
    if (searchable_) search_.emplace(sp);
    const auto& names = search_orders();
    for (std::size_t k = 0; k < names.size(); ++k) orders_.push_back(names[(k + rotation) % names.size()]);
    const auto& dives = dive_orders();
    for (std::size_t k = 0; k < dives.size(); ++k) dives_.push_back(dives[(k + rotation) % dives.size()]);
    state_.lower = round_up(sp.lower_bound, granule_);
  }

  /// True when the complete search runs on this part (else dives only).
  [[nodiscard]] bool searchable() const noexcept { return searchable_; }

  /// Runs the next canonical dive (each order once); false when none is left
  /// or the limits ended it. Keeps what it finds.
  bool dive(const Limits& limits) {
    if (next_dive_ >= dives_.size() || limits.out_of_time()) return false;
    if (!dive_sections_) {
      if (search_) dive_sections_ = search_->sections();
      else {
        std::vector<Interval> ls;
        ls.reserve(sp_->items.size());
        for (const auto& it : sp_->items) ls.push_back(it.lifetime);
        dive_sections_ = sweep_sections(ls, false);
      }
      dive_features_ = item_features(*sp_, *dive_sections_, {});
    }
    const auto rank = preorder_ranks(dive_features_, dives_[next_dive_++]);
    if (auto p = skyline_dive(*sp_, *dive_sections_, rank, limits)) offer(std::move(*p));
    return !limits.out_of_time();
  }
  [[nodiscard]] bool dives_left() const noexcept { return next_dive_ < dives_.size(); }

  [[nodiscard]] PartState& state() noexcept { return state_; }
  [[nodiscard]] const PartState& state() const noexcept { return state_; }
  [[nodiscard]] Addr granule_size() const noexcept { return granule_; }

  /// Takes over what all workers know about this part (a meeting of the
  /// workers merged it); keeps this worker's own counters.
  void share(const PartState& merged) {
    const auto probes = state_.probes, proofs = state_.proofs;
    state_ = merged;
    state_.probes = probes;
    state_.proofs = proofs;
  }

  /// Offers a placement found elsewhere (a greedy); kept when it fits and is better.
  void offer(PartPlacement p) {
    if (!fits(*sp_, p.offsets, sp_->space)) return;
    if (!state_.best) state_.first_found = Clock::now();
    if (!state_.best || p.better_than(*state_.best)) {
      state_.best = std::move(p);
      state_.best_found = Clock::now();
    }
  }

  /// Is there a placement with peak <= capacity paying <= penalty? Runs the
  /// orders in turn under a node cap doubling from 2n, within `effort` nodes
  /// in all (0 = until the limits end it). Keeps what it finds.
  Outcome probe(Addr capacity, Weight penalty, const Limits& limits, std::uint64_t effort) {
    if (!search_) return Outcome::aborted;
    ++state_.probes;
    // A probe asked again (the schedule returns to the lower bound with more
    // effort) resumes where the last one stopped: the runs it finished are
    // exhausted and need not be repeated.
    std::uint64_t cap = std::max<std::uint64_t>(64, 2 * sp_->items.size());
    std::size_t first = 0;
    auto memo = std::find_if(memo_.begin(), memo_.end(), [&](const ProbeMemo& m) {
      return m.capacity == capacity && m.penalty == penalty;
    });
    if (memo != memo_.end()) {
      cap = memo->cap;
      first = memo->order;
      memo_.erase(memo);
    }
    std::uint64_t spent = 0;
    auto remember = [&](std::size_t step) {
      if (memo_.size() >= 16) memo_.erase(memo_.begin());
      memo_.push_back({capacity, penalty, cap, step});
      return Outcome::aborted;
    };
    // On tight parts every order's canonical run is followed by a floor
    // search run (floor_search.hpp) with the same cap.
    const bool floor = use_floor(capacity);
    const std::size_t steps = orders_.size() * (floor ? 2 : 1);
    for (;;) {
      for (std::size_t k = first; k < steps; ++k) {
        std::uint64_t run_cap = cap;
        if (effort != 0) {
          if (spent >= effort) return remember(k);
          run_cap = std::min(run_cap, effort - spent);
        }
        Budget b(limits, run_cap);
        const bool by_floor = floor && k % 2 == 1;
        const std::string_view order = orders_[floor ? k / 2 : k];
        const Outcome o = by_floor ? floor_->run(capacity, floor_ranks(order), b) : search_->run(capacity, penalty, order, b);
        spent += b.used();
        if (o == Outcome::found) {
          offer(score(*sp_, by_floor ? floor_->solution() : search_->solution()));
          return o;
        }
        if (o == Outcome::infeasible) {
          ++state_.proofs;
          return o;
        }
        // A run cut short of its cap (effort or shared limits) is repeated next time.
        if (b.shared_limit_hit() || limits.exhausted() || run_cap < cap) return remember(k);
      }
      first = 0;
      cap = cap > UINT64_MAX / 2 ? UINT64_MAX : cap * 2;
    }
  }

  /// The floor search joins the probes on parts without penalties where at
  /// least half of the sections have less than a granule of slack under
  /// `capacity` (perfect packings: all of them; minimalloc B at its capacity:
  /// two thirds; the other challenging instances: fewer).
  bool use_floor(Addr capacity) {
    if (sp_->has_penalties() || floor_off_) return false;
    if (!floor_) floor_.emplace(*sp_);
    return floor_->tight_sections(capacity) * 2 >= floor_->section_count();
  }
  /// The static order's ranks, perturbed at random from the second run on:
  /// restarts with the memo kept (floor_search.hpp).
  std::vector<std::uint32_t> floor_ranks(std::string_view order) {
    auto rank = preorder_ranks(floor_->features(), order);
    if (floor_runs_++ == 0) return rank;
    std::uint64_t z = floor_runs_ * 0x9E3779B97F4A7C15ull;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> key(rank.size());
    for (std::uint32_t i = 0; i < rank.size(); ++i) {
      z = mix64(z);
      // A rank moves by up to half the part's size.
      key[i] = {2 * std::uint64_t{rank[i]} + z % (rank.size() + 1), i};
    }
    std::sort(key.begin(), key.end());
    for (std::uint32_t k = 0; k < key.size(); ++k) rank[key[k].second] = k;
    return rank;
  }

  /// Fit under the arena capacity, then the least penalty. Returns false when
  /// the limits ran out first.
  bool fit_and_penalty(const Limits& limits) {
    const Addr capacity = sp_->space.capacity();
    if (sp_->lower_bound > capacity) {
      state_.infeasible = true;  // the max load alone exceeds the capacity
      return true;
    }
    while (!state_.best && dives_left() && (!searchable_ || sp_->items.size() > 2000))
      if (!dive(limits)) break;
    if (!state_.best) {
      if (!searchable_) return !limits.exhausted();  // no fit, and nothing proved
      const Outcome o = probe(capacity, max_addr, limits, 0);
      if (o == Outcome::infeasible) state_.infeasible = true;
      if (o != Outcome::found) return o != Outcome::aborted;
    }
    if (!sp_->has_penalties() || state_.best->penalty == 0) state_.penalty_proven = true;
    while (!state_.penalty_proven && searchable_) {
      if (state_.best->penalty == 0) {
        state_.penalty_proven = true;
        break;
      }
      const Outcome o = probe(capacity, state_.best->penalty - 1, limits, 0);
      if (o == Outcome::infeasible) state_.penalty_proven = true;
      if (o == Outcome::aborted) return false;
    }
    return true;
  }

  /// One step of the peak schedule (needs a fit). Steps alternate between a
  /// probe at the lower bound (or at `floor`, when the rest of the arena
  /// already forces a peak that high), which resumes where it stopped and is
  /// the one that can close the part, and a probe between the bounds --
  /// halfway, then closer and closer to the incumbent while such probes run
  /// out of effort, each success lowering the incumbent. When no target is
  /// left between the bounds the effort doubles. Never searches upward from
  /// zero. A probe that completes without a fit proves a lower bound: it
  /// covered every placement paying at most the incumbent's penalty, so every
  /// penalty-optimal one. Returns false when there is nothing left to try.
  bool tighten(const Limits& limits, Addr floor = 0) {
    if (!state_.best || state_.closed()) return false;
    if (!searchable_) return dive(limits);
    const Weight penalty = state_.best->penalty;
    // Every penalty-optimal placement pays at most the incumbent's penalty,
    // so the pairs heavier than that are hard for it: their cliques bound it.
    state_.lower = std::max(state_.lower, round_up(search_->clique_bound(penalty), granule_));
    if (state_.closed()) return false;
    const Addr hi = state_.best->peak;
    const Addr lo = std::max(state_.lower, round_up(floor, granule_));
    if (lo >= hi) return false;
    Addr target = lo;
    at_bound_ = !at_bound_;
    if (!at_bound_) {
      const Addr shift = (hi - lo) >> std::min<std::uint32_t>(step_, 63);
      target = hi - std::max(granule_, (shift / granule_) * granule_);
      if (target <= lo) target = lo;
    }
    const Outcome o = probe(target, penalty, limits, effort_);
    if (o == Outcome::infeasible) {
      state_.lower = std::max(state_.lower, round_up(target + 1, granule_));
    } else if (o == Outcome::aborted && !at_bound_) {
      ++step_;
      if (target + granule_ >= hi || step_ > 62) {  // nothing closer to try: more effort
        step_ = 1;
        effort_ = effort_ > UINT64_MAX / 2 ? UINT64_MAX : effort_ * 2;
      }
    }
    return true;
  }

 private:
  const Subproblem* sp_;
  Addr granule_;
  bool searchable_;
  std::optional<CanonicalSearch> search_;
  std::optional<FloorSearch> floor_;  // made when a probe first finds the part tight
  std::uint64_t floor_runs_ = 0;

 public:
  bool floor_off_ = false;  ///< benchmarks: canonical runs only

 private:
  std::vector<std::string_view> dives_;
  std::size_t next_dive_ = 0;
  std::optional<Sections> dive_sections_;
  std::vector<ItemFeatures> dive_features_;
  std::vector<std::string_view> orders_;
  struct ProbeMemo {
    Addr capacity;
    Weight penalty;
    std::uint64_t cap;
    std::size_t order;
  };
  std::vector<ProbeMemo> memo_;  // aborted probes, to resume
  PartState state_;
  std::uint32_t step_ = 1;   // next probe between the bounds: hi - (hi - lo) / 2^step
  bool at_bound_ = false;    // the last probe was at the lower bound
  std::uint64_t effort_ = 1u << 14;
};

}  // namespace pto_mem::exact
