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
  /// Solved: nothing left to prove (or nothing to improve).
  [[nodiscard]] bool closed() const noexcept {
    return infeasible || (best && penalty_proven && best->peak <= lower);
  }
};

/// Every canonical offset and peak of `sp` is a multiple of this: the gcd of
/// the sizes, alignments and window bounds (align_up of a multiple of g to a
/// multiple of the alignment stays a multiple of g). Lower bounds round up to it.
[[nodiscard]] inline Addr granule(const Subproblem& sp) {
  Addr g = 0;
  auto gcd = [](Addr a, Addr b) {
    while (b != 0) {
      const Addr t = a % b;
      a = b;
      b = t;
    }
    return a;
  };
  for (const auto& it : sp.items) g = gcd(gcd(g, it.size), it.alignment);
  for (const auto& w : sp.space.windows()) g = gcd(gcd(g, w.begin), w.end);
  return g == 0 ? 1 : g;
}

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

  /// Offers a placement found elsewhere (a greedy); kept when it fits and is better.
  void offer(PartPlacement p) {
    if (!fits(*sp_, p.offsets, sp_->space)) return;
    if (!state_.best || p.better_than(*state_.best)) state_.best = std::move(p);
  }

  /// Is there a placement with peak <= capacity paying <= penalty? Runs the
  /// orders in turn under a node cap doubling from 2n, within `effort` nodes
  /// in all (0 = until the limits end it). Keeps what it finds.
  Outcome probe(Addr capacity, Weight penalty, const Limits& limits, std::uint64_t effort) {
    if (!search_) return Outcome::aborted;
    ++state_.probes;
    std::uint64_t cap = std::max<std::uint64_t>(64, 2 * sp_->items.size());
    std::uint64_t spent = 0;
    for (;;) {
      for (const auto& keys : orders_) {
        std::uint64_t run_cap = cap;
        if (effort != 0) {
          if (spent >= effort) return Outcome::aborted;
          run_cap = std::min(run_cap, effort - spent);
        }
        Budget b(limits, run_cap);
        const Outcome o = search_->run(capacity, penalty, keys, 0, b);
        b.flush();
        spent += b.used();
        if (o == Outcome::found) {
          offer(score(*sp_, search_->solution()));
          return o;
        }
        if (o == Outcome::infeasible) {
          ++state_.proofs;
          return o;
        }
        if (b.shared_limit_hit() || limits.exhausted()) return Outcome::aborted;
      }
      cap = cap > UINT64_MAX / 2 ? UINT64_MAX : cap * 2;
    }
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

  /// One step of the peak schedule (needs a fit): a probe at the lower
  /// bound (or at `floor`, when the rest of the arena already forces a peak
  /// that high), else a probe between the bounds -- halfway, then closer and
  /// closer to the incumbent while probes run out of effort; the effort
  /// doubles once a level is used up. Never searches upward from zero.
  /// A probe that completes without a fit proves a lower bound: it covered
  /// every placement paying at most the incumbent's penalty, so every
  /// penalty-optimal one.
  /// Returns false when there is nothing left to try on this part.
  bool tighten(const Limits& limits, Addr floor = 0) {
    if (!state_.best || state_.closed()) return false;
    if (!searchable_) return dive(limits);
    const Weight penalty = state_.best->penalty;
    const Addr hi = state_.best->peak;
    const Addr lo = std::max(state_.lower, round_up(floor, granule_));
    if (lo >= hi) return false;
    Addr target = lo;
    if (step_ > 0) {
      const Addr shift = (hi - lo) >> std::min<std::uint32_t>(step_, 63);
      target = hi - std::max(granule_, (shift / granule_) * granule_);
      target = std::max(target, lo);
    }
    const Outcome o = probe(target, penalty, limits, effort_);
    if (o == Outcome::infeasible) {
      state_.lower = std::max(state_.lower, round_up(target + 1, granule_));
    } else if (o == Outcome::aborted) {
      ++step_;
      if (target + granule_ >= hi || step_ > 62) {  // nothing closer to try: more effort
        step_ = 0;
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
  std::vector<std::string_view> dives_;
  std::size_t next_dive_ = 0;
  std::optional<Sections> dive_sections_;
  std::vector<ItemFeatures> dive_features_;
  std::vector<std::string_view> orders_;
  PartState state_;
  std::uint32_t step_ = 0;
  std::uint64_t effort_ = 1u << 14;
};

}  // namespace pto_mem::exact
