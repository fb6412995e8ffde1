// Solving one subproblem: probes of the canonical search under a capacity
// and a penalty budget, tried with several static orders under a node cap
// that doubles each round (a run that completes is a proof whatever its
// order), and the anytime schedule that tightens the peak from both sides.
// Parts too large to search (many interfering pairs) get canonical dives
// only: placements, never proofs beyond the max-load bound.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/first_fit.hpp"
#include "pto_mem/algorithms/exact/floor_search.hpp"
#include "pto_mem/algorithms/exact/lanes.hpp"
#include "pto_mem/algorithms/exact/penalty_bound.hpp"
#include "pto_mem/algorithms/exact/preorder.hpp"
#include "pto_mem/algorithms/exact/search.hpp"
#include "pto_mem/algorithms/exact/skyline_dive.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/algorithms/exact/window_lns.hpp"
#include "pto_mem/core/numeric.hpp"

namespace pto_mem::exact {

/// What is known about one part.
struct PartState {
  std::optional<PartPlacement> best;  ///< best placement found (fits the capacity)
  bool infeasible = false;            ///< proved: nothing fits the capacity
  bool penalty_proven = false;        ///< best->penalty is the least possible
  Weight penalty_bound = 0;           ///< proved: no fitting placement pays less (penalty_bound.hpp)
  Addr lower = 0;                     ///< proved: every penalty-optimal placement has peak >= lower
  std::uint64_t probes = 0, proofs = 0;
  Clock::time_point first_found{};  ///< when the first placement was found
  Clock::time_point best_found{};   ///< when `best` was found
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

/// With two lanes, a probe runs on one until it has spent this many nodes,
/// then splits its attempts over both (PartSolver::probe): shorter probes
/// never pay for the second lane's start, and give one lane's answer. At
/// 4096, A, D and F of minimalloc ran 2-3 ms slower with two lanes than
/// with one on a quiet machine (docs/benchmarks.md).
inline constexpr std::uint64_t lane_split_nodes = 16384;

/// Windows of a window search hold at most this many buffers (and the
/// search's pair limit), so that each stays a search of a moment.
inline constexpr std::size_t lns_largest = 1536;

/// The orders of the canonical dives, best first on the instance suites
/// (area first wins on the large idealloc traces).
[[nodiscard]] inline const std::vector<std::string_view>& dive_orders() {
  static const std::vector<std::string_view> orders{"A", "TWA", "TAW", "ZWT", "AWT", "WAT"};
  return orders;
}

// Randomised dives (PartSolver::random_dive). On parts too large to search
// the part solver dives again and again in the area order with every
// buffer's key (its area) scaled by a factor drawn uniformly from
// [1 - e, 1 + e], the spread e taken in turn from random_dive_spreads (when,
// beside the fixed orders' dives and the window search: PartSolver::tighten).
// A dive's result is erratic in the order: on idealloc pangu_2.6B the area
// order leaves 0.76 % over the bound and some perturbed ones come within
// 4 bytes of it; on S_1 they lower 0.18 % to 0.14 % in 10 s
// (docs/benchmarks.md). Dive k's order is a function of k, the part and the
// seed alone, so runs under a node limit repeat.

/// The spreads of the randomised dives' factors, taken in turn.
inline constexpr std::array<double, 3> random_dive_spreads{0.6, 0.4, 0.8};

/// Randomised dives in a row not kept as the incumbent (no lower penalty, or
/// no lower peak at the same penalty) after which a part stops
/// diving (once the window search has nothing left either): without a time
/// limit the part solver then ends by itself.
inline constexpr std::uint64_t random_dive_patience = 64;

/// The first penalty probe's effort in nodes (fit_and_penalty); each probe
/// that ends without a proof is followed by a round of penalty windows and
/// doubles the effort.
inline constexpr std::uint64_t penalty_probe_effort = std::uint64_t{1} << 17;
/// Parts of at least this many buffers start with a small probe
/// (penalty_probe_effort_large): on them the complete search rarely proves
/// the penalty, and the penalty windows find cheaper placements.
inline constexpr std::size_t penalty_lns_first_items = 128;
inline constexpr std::uint64_t penalty_probe_effort_large = std::uint64_t{1} << 12;
/// A round of penalty windows gets this many times the nodes of the probe
/// before it, and each window this many nodes per free buffer: many small
/// windows found more on the lifted MiniMalloc instances than fewer larger
/// ones (a window that needs more nodes rarely pays less).
inline constexpr std::uint64_t penalty_lns_share = 8;
inline constexpr std::uint64_t penalty_window_nodes_per_item = 16;

/// The ranks of randomised dive `k` (see above): `f`'s area order with each
/// area scaled by its own factor; ties by index. `seed` (ExactOptions::seed)
/// gives another sequence of draws.
[[nodiscard]] inline std::vector<std::uint32_t> random_dive_rank(const std::vector<ItemFeatures>& f,
                                                                 std::uint64_t k, std::uint64_t seed = 0) {
  const double spread = random_dive_spreads[k % random_dive_spreads.size()];
  std::uint64_t z = mix64((k + 1) * 0x9E3779B97F4A7C15ull + seed * 0xD1B54A32D192ED03ull);
  std::vector<std::pair<double, std::uint32_t>> key(f.size());
  for (std::uint32_t i = 0; i < f.size(); ++i) {
    z = mix64(z);
    const double u = static_cast<double>(z >> 11) * 0x1.0p-53;  // [0, 1)
    key[i] = {-static_cast<double>(f[i].area) * (1.0 + spread * (2.0 * u - 1.0)), i};
  }
  std::sort(key.begin(), key.end());
  std::vector<std::uint32_t> rank(f.size());
  for (std::uint32_t r = 0; r < key.size(); ++r) rank[key[r].second] = r;
  return rank;
}

// Probes between the bounds (PartSolver::tighten) aim at hi - j granules
// for j in 1..m, m the granule multiples strictly between the proved bound
// lo and the incumbent's peak hi. Each sweep first *approaches* the
// incumbent -- j = (m + 1) / 2, / 4, ... down to 1: halfway, then closer and
// closer -- and then probes as many targets again of a *spread* over the
// whole range, taken in turn across sweeps. Whether a capacity fits within
// an effort is erratic in the capacity (minimalloc J: 1,029,120 within
// 10,410 nodes, 1,030,144 and 1,033,216 not within millions), so the spread
// finds such capacities where an approach alone does not, while the
// approach keeps its share of the effort.

/// Positions of the spread (PartSolver::tighten).
inline constexpr std::uint64_t spread_positions = 64;

/// m: how many targets hi - j granules (j >= 1) lie strictly above lo.
[[nodiscard]] inline Addr targets_between(Addr lo, Addr hi, Addr granule) noexcept {
  return hi <= lo || granule == 0 ? 0 : (hi - lo - 1) / granule;  // j * granule < hi - lo
}

/// Target `pos` (1, 2, ...) of the approach, or none past its last (j = 1).
[[nodiscard]] inline std::optional<Addr> approach_target(Addr lo, Addr hi, Addr granule, std::uint64_t pos) {
  const Addr m = targets_between(lo, hi, granule);
  if (m == 0 || pos == 0 || pos >= 64) return std::nullopt;
  const Addr j = (m + 1) >> pos;
  if (j >= 1) return hi - j * granule;
  // One granule below the incumbent, once: the first pos whose shift is 0.
  if (pos == 1 || (m + 1) >> (pos - 1) > 1) return hi - granule;
  return std::nullopt;
}

/// Target `pos` (1..spread_positions) of the spread, or none when that
/// position repeats an earlier one, is one of the approach's, or lies past
/// the grid: j in bit-reversed order of a 2^B grid (2^B >= m, B <= 6), so
/// with m <= 64 the approach and the spread together visit every target.
[[nodiscard]] inline std::optional<Addr> spread_target(Addr lo, Addr hi, Addr granule, std::uint64_t pos) {
  const Addr m = targets_between(lo, hi, granule);
  if (m == 0 || pos == 0) return std::nullopt;
  std::uint32_t bits = 0;
  while ((std::uint64_t{1} << bits) < spread_positions && (Addr{1} << bits) < m) ++bits;
  const std::uint64_t grid = std::uint64_t{1} << bits;
  if (pos > grid) return std::nullopt;
  // floor(r * m / grid) without overflow (r < grid <= 64).
  const auto j_of = [&](std::uint64_t r) { return (m / grid) * r + (m % grid) * r / grid; };
  std::uint64_t r = 0;  // bit-reversed pos (pos < grid); 0 last
  if (pos < grid)
    for (std::uint32_t b = 0; b < bits; ++b)
      if (pos & (std::uint64_t{1} << b)) r |= std::uint64_t{1} << (bits - 1 - b);
  // r -> j is monotone; a j belongs to the first r that reaches it.
  if (r != 0 && j_of(r) == j_of(r - 1)) return std::nullopt;
  const Addr target = hi - (j_of(r) + 1) * granule;
  for (std::uint64_t p = 1; p < 64; ++p)
    if (approach_target(lo, hi, granule, p) == target) return std::nullopt;
  return target;
}

class PartSolver {
 public:
  /// `lanes`: a second thread for the probes' restarts, or none.
  /// `rotation` shifts the list of static orders (the portfolio's second
  /// worker starts elsewhere, so the two explore different trees). `seed`
  /// picks the randomised dives' draws (random_dive_rank).
  PartSolver(const Subproblem& sp, std::size_t rotation, LanePool* lanes = nullptr, std::uint64_t seed = 0)
      : sp_(&sp),
        seed_(seed),
        granule_(granule(sp)),
        searchable_(sp.items.size() <= searchable_buffers &&
                    count_interfering_pairs(sp, searchable_pairs) <= searchable_pairs),
        pool_(lanes) {
    if (searchable_) search_[0].emplace(sp);
    const auto& names = search_orders();
    for (std::size_t k = 0; k < names.size(); ++k) orders_.push_back(names[(k + rotation) % names.size()]);
    const auto& dives = dive_orders();
    for (std::size_t k = 0; k < dives.size(); ++k) dives_.push_back(dives[(k + rotation) % dives.size()]);
    state_.lower = round_up(sp.lower_bound, granule_);
  }

  /// True when the complete search runs on this part (else dives only).
  [[nodiscard]] bool searchable() const noexcept { return searchable_; }

  /// Runs the next canonical dive (each order once); false when none is left
  /// or the limits ended it. Keeps what it finds. Under a node budget a
  /// dive that the nodes left cannot pay for (dive_affordable) is not
  /// started: the budget then counts as spent (NodeMeter::budget_short).
  /// A dive that starts runs to its end (only the clock or the caller cut
  /// it): a dive cut short places nothing, and on idealloc Y_1 the first
  /// dive, far longer than its estimate, is the one that reaches the bound.
  bool dive(const Limits& limits) {
    if (next_dive_ >= dives_.size() || limits.out_of_time()) return false;
    if (!dive_affordable(limits, 1)) return false;
    prepare_dives();
    const auto rank = preorder_ranks(dive_features_, dives_[next_dive_++]);
    const std::uint64_t before = limits.nodes_spent();
    if (auto p = skyline_dive(*sp_, *dive_sections_, rank, limits)) offer(std::move(*p));
    last_dive_nodes_ = std::max<std::uint64_t>(1, limits.nodes_spent() - before);
    return !limits.out_of_time();
  }
  [[nodiscard]] bool dives_left() const noexcept { return next_dive_ < dives_.size(); }

  /// Runs the next randomised dive (see random_dive_rank) -- with a second
  /// lane, the next two, one on each -- and keeps what they find, in the
  /// dives' order; false when the limits ended them.
  bool random_dive(const Limits& limits) {
    if (limits.out_of_time()) return false;
    if (!dive_affordable(limits, pool_ ? 2 : 1)) return false;
    prepare_dives();
    std::optional<PartPlacement> second;
    NodeMeter second_meter;
    if (pool_) {
      // The second dive counts its nodes on its own meter, added below.
      Limits lane = limits;
      lane.meter = &second_meter;
      pool_->start([this, lane, k = random_dives_ + 1, &second] {
        second = skyline_dive(*sp_, *dive_sections_, random_dive_rank(dive_features_, k, seed_), lane);
      });
    }
    const std::uint64_t before = limits.nodes_spent();
    auto first =
        skyline_dive(*sp_, *dive_sections_, random_dive_rank(dive_features_, random_dives_, seed_), limits);
    last_dive_nodes_ = std::max<std::uint64_t>(1, limits.nodes_spent() - before);
    ++random_dives_;
    if (pool_) {
      pool_->wait();
      ++random_dives_;
      if (limits.meter) limits.meter->own += second_meter.own;  // side by side: not on the critical path
    }
    for (int d = 0; d < (pool_ ? 2 : 1); ++d) {
      auto& p = d == 0 ? first : second;
      // A gain is a dive kept as the incumbent: none when it did not fit
      // under the capacity (or the limits ended it), nor when it is no
      // better in (penalty, peak) -- a lower peak paying more penalty is
      // not kept, and counting it as a gain would let a part whose
      // incumbent pays less than every dive dive for ever.
      if (p && offer(std::move(*p)))
        dives_since_gain_ = 0;
      else
        ++dives_since_gain_;
    }
    return !limits.out_of_time();
  }
  /// Whether the node budget left pays for `count` dives of this part, each
  /// estimated at the nodes of the part's last dive or, before the first,
  /// at one node per 64 buffers (about 16 heap steps a buffer: 13 to 19
  /// on the random instances of bench/random_csv.py). When it does not,
  /// records that the budget is spent (NodeMeter::budget_short). Always
  /// true without a node limit.
  bool dive_affordable(const Limits& limits, std::uint64_t count) {
    if (limits.node_limit == 0 || !limits.meter) return true;
    const std::uint64_t each = last_dive_nodes_ != 0 ? last_dive_nodes_ : sp_->items.size() / 64;
    if (each <= limits.nodes_left() / count) return true;
    limits.meter->budget_short = true;
    return false;
  }

  /// Randomised dives run so far.
  [[nodiscard]] std::uint64_t random_dives() const noexcept { return random_dives_; }

  [[nodiscard]] PartState& state() noexcept { return state_; }
  [[nodiscard]] const PartState& state() const noexcept { return state_; }
  [[nodiscard]] Addr granule_size() const noexcept { return granule_; }

  /// Offers a placement found elsewhere (a greedy); kept when it fits and is
  /// better (PartPlacement::better_than). True when it was kept.
  bool offer(PartPlacement p) {
    if (!fits(*sp_, p.offsets, sp_->space)) return false;
    if (!state_.best) state_.first_found = Clock::now();
    if (!state_.best || p.better_than(*state_.best)) {
      state_.best = std::move(p);
      state_.best_found = Clock::now();
      return true;
    }
    return false;
  }

  /// Is there a placement with peak <= capacity paying <= penalty? Runs a
  /// sequence of *attempts* -- the static orders in turn (on tight parts each
  /// followed by a floor search run, floor_search.hpp) under a node cap that
  /// doubles each round from 2n -- within `effort` nodes in all (0 = until
  /// the limits end it). Any attempt that completes is a proof, whatever its
  /// order. Keeps what it finds.
  ///
  /// With two lanes, the probe first runs exactly as with one (the attempts
  /// in turn on this thread) until it has spent `lane_split_nodes` nodes;
  /// at the next attempt boundary it *splits*: from then on this lane runs
  /// every other attempt and the second lane (the pool's thread, started
  /// then) the ones between, each with its own search objects; the second
  /// lane starts with a copy of the failure memos learned so far. Each lane
  /// has a *clock*: the nodes the probe had spent at the split plus the
  /// nodes it spent since. An attempt that ends the probe (a fit or a proof)
  /// does so at its lane's clock, and the probe's answer is that of the
  /// least (clock, lane): a lane stops once its next node's clock is later
  /// than that, so the answer -- and what each lane learned before it --
  /// is a function of the input alone, whichever lane is faster, while a
  /// fit found by one lane ends the probe as soon as the other has caught
  /// up to the same clock (at once, when both have a core). A lane that ran
  /// past the winning clock forgets what its memos learned (that depended
  /// on timing). After the split each lane spends half of what is left of
  /// the effort and of the node limit.
  Outcome probe(Addr capacity, Weight penalty, const Limits& limits, std::uint64_t effort) {
    if (!search_[0]) return Outcome::aborted;
    ++state_.probes;
    const bool two = pool_ != nullptr;
    // A probe asked again (the schedule returns to the lower bound with more
    // effort) resumes where the last one stopped: the attempts it finished
    // are exhausted and need not be repeated.
    std::array<std::uint64_t, 2> next{0, 1};
    bool split = false;
    auto memo = std::find_if(memo_.begin(), memo_.end(), [&](const ProbeMemo& m) {
      return m.capacity == capacity && m.penalty == penalty;
    });
    if (memo != memo_.end()) {
      next = memo->next;
      split = two && memo->split;
      memo_.erase(memo);
    }
    const bool floor = use_floor(capacity);
    // Where every section is tight (perfect packings) the canonical runs
    // never found the fits the floor runs find: floor runs only.
    const bool floor_only =
        floor && search_[0]->tight_sections(capacity, granule_) == search_[0]->sections().count;
    const std::uint64_t steps = orders_.size() * (floor && !floor_only ? 2 : 1);
    const std::uint64_t base = std::max<std::uint64_t>(64, 2 * sp_->items.size());
    // The attempt that ended the probe first on the clock.
    struct Board {
      std::mutex m;
      std::atomic<std::uint64_t> best{UINT64_MAX};  // 2 * clock + lane
      Outcome outcome = Outcome::aborted;
      std::vector<Addr> solution;
    } board;
    struct Log {
      std::uint64_t attempt;
      std::vector<FailureMemo::Entry> canon, floor;
    };
    struct Lane {
      std::mutex m;
      std::condition_variable cv;
      std::deque<Log> logs;        // per attempt run since the split, the failures it stored
      std::int64_t done = -2;      // the last attempt it finished (since the split)
      bool exited = false;         // left the probe
      std::int64_t imported = -1;  // the other lane's attempts up to this one are learned
      NodeMeter meter;
      Limits limits;
      std::uint64_t next = UINT64_MAX;  // attempt to run next, then to resume from
      std::uint64_t stride = 1;
      std::uint64_t share = 0, used = 0;  // effort (0 = none) and nodes spent
      bool ran = false;
    };
    std::array<Lane, 2> lane;
    const std::uint64_t limit_left =
        limits.node_limit == 0 ? 0 : limits.node_limit - std::min(limits.node_limit, limits.nodes_spent());
    for (std::size_t l = 0; l < 2; ++l) {
      lane[l].limits = limits;
      lane[l].limits.meter = &lane[l].meter;
      lane[l].meter.best_key = two ? &board.best : nullptr;
      lane[l].meter.lane = static_cast<std::uint32_t>(l);
      lane[l].next = next[l];
    }
    const std::uint64_t lanes_now = split ? 2 : 1;
    for (std::size_t l = 0; l < lanes_now; ++l) {
      lane[l].limits.node_limit =
          limits.node_limit == 0 ? 0 : std::max<std::uint64_t>(1, limit_left / lanes_now);
      lane[l].share = effort == 0 ? 0 : std::max<std::uint64_t>(1, effort / lanes_now);
      lane[l].stride = lanes_now;
      lane[l].done = static_cast<std::int64_t>(next[l]) - 2;
    }
    // The second lane's copies of the failure memos at the split.
    std::optional<FailureMemo> canon_snapshot, floor_snapshot;
    // The failures a lane learned in attempt j reach the other lane before
    // its attempt j + 3 (it waits for j to end if need be): nearly all of
    // what one lane learns, at fixed points, so what each lane does is a
    // function of the input alone.
    auto learn_from_other = [&](std::size_t l, std::uint64_t a) {
      if (a < 3) return;
      Lane& me = lane[l];
      Lane& other = lane[1 - l];
      const auto upto = static_cast<std::int64_t>(a - 3);
      std::unique_lock lock(other.m);
      other.cv.wait(lock, [&] { return other.exited || other.done + 2 > upto || me.meter.beaten(); });
      for (auto& log : other.logs) {
        const auto at = static_cast<std::int64_t>(log.attempt);
        if (at > upto || at <= me.imported) continue;
        if (at > other.done) break;  // not finished
        for (const auto& e : log.canon) search_[l]->failure_memo().store(e);
        if (floor_[l])
          for (const auto& e : log.floor) floor_[l]->failure_memo().store(e);
        me.imported = at;
      }
    };
    std::function<void(std::size_t)> run_attempts;
    auto run_lane = [&](std::size_t l) {
      run_attempts(l);
      std::lock_guard lock(lane[l].m);
      lane[l].exited = true;
      lane[l].cv.notify_all();
    };
    // Called by lane 0 at the boundary before attempt a.
    auto do_split = [&](std::uint64_t a) {
      split = true;
      Lane& zero = lane[0];
      Lane& one = lane[1];
      const std::uint64_t spent = zero.meter.own;
      zero.stride = one.stride = 2;
      zero.done = static_cast<std::int64_t>(a) - 2;
      one.next = a + 1;
      one.done = static_cast<std::int64_t>(a) - 1;
      one.meter.start = spent;
      if (limits.node_limit != 0) {
        const std::uint64_t rest = std::max<std::uint64_t>(1, (limit_left - std::min(limit_left, spent)) / 2);
        zero.limits.node_limit = spent + rest;
        one.limits.node_limit = rest;
      }
      if (effort != 0) {
        const std::uint64_t rest = std::max<std::uint64_t>(1, (effort - std::min(effort, zero.used)) / 2);
        zero.share = zero.used + rest;
        one.share = rest;
      }
      canon_snapshot = search_[0]->failure_memo();
      if (floor_[0]) floor_snapshot = floor_[0]->failure_memo();
      one.ran = true;
      pool_->start([&] { run_lane(1); });
    };
    run_attempts = [&](std::size_t l) {
      Lane& me = lane[l];
      me.ran = true;
      if (!search_[l]) search_[l].emplace(*sp_);
      if (floor && !floor_[l]) floor_[l].emplace(*sp_);
      if (canon_snapshot && l == 1) {
        search_[1]->failure_memo() = std::move(*canon_snapshot);
        if (floor_snapshot && floor_[1]) floor_[1]->failure_memo() = std::move(*floor_snapshot);
      }
      for (std::uint64_t a = me.next;; a += me.stride) {
        // Split only while both lanes would have something to spend.
        if (l == 0 && two && !split && me.meter.own >= lane_split_nodes &&
            (me.share == 0 || me.used + 2 <= me.share) &&
            (me.limits.node_limit == 0 || me.meter.own + 2 <= me.limits.node_limit))
          do_split(a);
        if (me.meter.beaten()) return;  // the other lane ended the probe earlier
        const std::uint64_t round = a / steps, step = a % steps;
        const std::uint64_t cap = round >= 40 ? UINT64_MAX : base << round;
        std::uint64_t run_cap = cap;
        if (me.share != 0) {
          if (me.used >= me.share) {
            me.next = a;
            return;
          }
          run_cap = std::min(run_cap, me.share - me.used);
        }
        // floor_step: the step this floor run has when canonical runs come between.
        const bool by_floor = floor_only || (floor && step % 2 == 1);
        const std::uint64_t floor_step = floor_only ? 2 * step + 1 : step;
        const std::string_view order = orders_[floor_only ? step : floor ? step / 2 : step];
        if (split) {
          if (const unsigned us = lane_test_delay_us[l].load(std::memory_order_relaxed))
            std::this_thread::sleep_for(std::chrono::microseconds(us));
          learn_from_other(l, a);
          if (me.meter.beaten()) return;
        }
        Budget b(me.limits, run_cap);
        std::vector<FailureMemo::Entry>* canon_log = nullptr;
        std::vector<FailureMemo::Entry>* floor_log = nullptr;
        if (split) {
          std::lock_guard lock(me.m);
          me.logs.push_back({a, {}, {}});
          canon_log = &me.logs.back().canon;
          floor_log = &me.logs.back().floor;
        }
        search_[l]->failure_memo().log = canon_log;
        if (floor_[l]) floor_[l]->failure_memo().log = floor_log;
        // The middle floor run of a round tries the larger candidates first
        // (among those the slot's neighbour does not prefer): which value
        // order a puzzle needs varies (docs/exact.md, "Floor search").
        if (by_floor) floor_[l]->larger_first_ = floor_step == 3;
        const Outcome o = by_floor ? floor_[l]->run(capacity, floor_ranks(order, round, floor_step), b)
                                   : search_[l]->run(capacity, penalty, order, b);
        search_[l]->failure_memo().log = nullptr;
        if (floor_[l]) floor_[l]->failure_memo().log = nullptr;
        me.used += b.used();
        // Cut by a shared limit (time, stop, node limit, or the other lane's
        // earlier end): the attempt is not finished and is repeated when the
        // probe resumes.
        const bool cut = o == Outcome::aborted && b.shared_limit_hit();
        if (split && !cut) {
          std::lock_guard lock(me.m);
          me.done = static_cast<std::int64_t>(a);
          me.cv.notify_all();
        }
        if (o != Outcome::aborted) {
          const std::uint64_t key = 2 * (me.meter.start + me.meter.own) + l;
          std::lock_guard lock(board.m);
          if (key < board.best.load()) {
            board.best.store(key);
            board.outcome = o;
            if (o == Outcome::found)
              board.solution = by_floor ? floor_[l]->solution() : search_[l]->solution();
          }
          return;
        }
        if (cut || run_cap < cap) {
          me.next = a;
          return;
        }
      }
    };
    if (split) pool_->start([&] { run_lane(1); });  // resumed after a split: both lanes at once
    run_lane(0);
    if (split) pool_->wait();

    const std::uint64_t best = board.best.load();
    // Nodes each lane spent up to the winning clock (past it, what a lane
    // did depends on timing), and the clock at which the probe ended.
    std::uint64_t nodes = 0, clock = 0;
    for (std::size_t l = 0; l < 2; ++l) {
      const Lane& ln = lane[l];
      if (!ln.ran) continue;
      std::uint64_t counted = ln.meter.own;
      if (best != UINT64_MAX) {
        const std::uint64_t last =
            best >= l ? (best - l) / 2 : 0;  // the last clock at which this lane could win
        const std::uint64_t limit = last > ln.meter.start ? last - ln.meter.start : 0;
        const std::uint64_t searched = ln.meter.own - (ln.meter.halted ? 1 : 0);
        counted = std::min(ln.meter.own, limit);
        if (searched > limit) {  // it ran past the winner: what it learned there depended on timing
          search_[l]->forget();
          if (floor_[l]) floor_[l]->forget();
        }
      }
      nodes += counted;
      clock = std::max(clock, ln.meter.start + counted);
    }
    if (limits.meter) {
      limits.meter->own += nodes;
      limits.meter->critical += clock;
    }
    if (best != UINT64_MAX) {
      if (board.outcome == Outcome::found) {
        offer(score(*sp_, std::move(board.solution)));
        return Outcome::found;
      }
      ++state_.proofs;
      return Outcome::infeasible;
    }
    if (memo_.size() >= 16) memo_.erase(memo_.begin());
    memo_.push_back({capacity, penalty, {lane[0].next, split ? lane[1].next : UINT64_MAX}, split});
    return Outcome::aborted;
  }

  /// The floor search joins the probes on parts without penalties where at
  /// least three quarters of the sections have less than a granule of slack
  /// under `capacity` (perfect packings: all of them; minimalloc B at its
  /// capacity: two thirds, where the canonical runs alone fit it about 4x
  /// faster than with floor runs interleaved; the other challenging
  /// instances: fewer).
  bool use_floor(Addr capacity) {
    // The floor search knows no blocked ranges (fixed offsets): the canonical runs alone there.
    if (sp_->has_penalties() || floor_off_ || !sp_->blocked.empty()) return false;
    // The canonical search has the same sections and loads: the floor
    // search is built only when it will run.
    const bool tight = search_[0]->tight_sections(capacity, granule_) * 4 >= search_[0]->sections().count * 3;
    if (tight && !floor_[0]) floor_[0].emplace(*sp_);
    return tight;
  }
  /// The static order's ranks, perturbed at random after the first floor
  /// attempt: restarts with the memo kept (floor_search.hpp). A function of
  /// the attempt alone, so that a lane's runs do not depend on the other's.
  std::vector<std::uint32_t> floor_ranks(std::string_view order, std::uint64_t round,
                                         std::uint64_t step) const {
    auto rank = preorder_ranks(floor_[0]->features(), order);
    if (round == 0 && step <= 1) return rank;
    std::uint64_t z = mix64(round * 0x9E3779B97F4A7C15ull + step);
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
    if (!state_.best && !searchable_) {
      // No fixed order's dive fits: randomised dives, until one does or
      // random_dive_patience in a row have not.
      while (!state_.best && dives_since_gain_ < random_dive_patience && !limits.exhausted() &&
             random_dive(limits)) {
      }
      if (!state_.best) return !limits.exhausted();  // no fit, and nothing proved
    }
    if (!state_.best) {
      const Outcome o = probe(capacity, max_addr, limits, 0);
      if (o == Outcome::infeasible) state_.infeasible = true;
      if (o != Outcome::found) return o != Outcome::aborted;
    }
    if (!sp_->has_penalties() || state_.best->penalty == 0) state_.penalty_proven = true;
    // The penalty probes run with a growing effort; after each that proves
    // nothing, a round of penalty windows (penalty_lns_round) searches for
    // a cheaper placement near the incumbent, with penalty_lns_share times
    // the nodes the probe spent.
    std::uint64_t effort =
        sp_->items.size() >= penalty_lns_first_items ? penalty_probe_effort_large : penalty_probe_effort;
    if (!state_.penalty_proven && !bound_tried_) {
      // The forced-overlap bound (penalty_bound.hpp) first: it settles in
      // milliseconds what the probes below may not settle at all.
      bound_tried_ = true;
      PenaltyBoundLimits bl;
      if (sp_->items.size() >= penalty_lns_first_items) {
        // Large parts rarely close this way and need the time for the
        // penalty windows: a tenth of the effort (still a bound).
        bl.clique_nodes /= 10;
        bl.max_cores /= 4;
        bl.work /= 10;
      }
      bl.deadline = limits.deadline;
      bl.stop = limits.stop;
      state_.penalty_bound =
          std::max(state_.penalty_bound, penalty_lower_bound(*sp_, state_.best->penalty, bl).value);
      if (state_.penalty_bound >= state_.best->penalty) state_.penalty_proven = true;
    }
    while (!state_.penalty_proven && searchable_) {
      if (state_.best->penalty == 0) {
        state_.penalty_proven = true;
        break;
      }
      if (state_.penalty_bound >= state_.best->penalty) {
        state_.penalty_proven = true;
        break;
      }
      const std::uint64_t before = limits.nodes_spent();
      const Outcome o = probe(capacity, state_.best->penalty - 1, limits, effort);
      if (o == Outcome::infeasible) state_.penalty_proven = true;
      if (o == Outcome::aborted) {
        if (limits.exhausted()) return false;
        penalty_lns_round(limits,
                          penalty_lns_share * std::max<std::uint64_t>(limits.nodes_spent() - before, effort));
        if (limits.exhausted()) return false;
        effort = std::min<std::uint64_t>(effort * 2, std::uint64_t{1} << 40);
      }
    }
    return true;
  }

  /// A round of penalty windows (WindowLns::lower_penalty) on a working
  /// copy of the incumbent, within about `nodes` nodes: each window around
  /// the next paid penalty pair in turn; the windows grow when a whole pass
  /// over the paid pairs saved nothing. Offers what it finds.
  void penalty_lns_round(const Limits& limits, std::uint64_t nodes) {
    if (!state_.best || state_.best->penalty == 0) return;
    if (!lns_) lns_.emplace(*sp_);
    std::vector<Addr> off = state_.best->offsets;
    const auto& names = search_orders();
    std::uint64_t spent_here = 0;  // nodes, counted here too when no meter counts them
    while (!limits.exhausted() && spent_here < nodes) {
      const std::uint64_t cap = penalty_window_nodes_per_item * pen_size_;
      const std::uint64_t m0 = limits.nodes_spent();
      const Weight saved = lns_->lower_penalty(off, sp_->space.capacity(), limits, pen_size_, cap,
                                               names[pen_round_ % names.size()], pen_pick_);
      spent_here += limits.meter ? limits.nodes_spent() - m0 : cap / 4;
      ++pen_round_;
      if (saved > 0) {
        offer(score(*sp_, off));
        pen_fails_ = 0;
        continue;  // the same pick: the paid pairs changed
      }
      ++pen_pick_;
      // A pass over about as many windows as the part has buffers without a
      // gain: larger windows (back to the smallest after the whole part).
      if (++pen_fails_ >= std::max<std::size_t>(16, sp_->items.size() / 4)) {
        pen_fails_ = 0;
        pen_size_ = pen_size_ >= std::min<std::size_t>(sp_->items.size(), 256) ? 12 : pen_size_ * 2;
      }
    }
  }

  /// One step of the peak schedule (needs a fit). Steps alternate between a
  /// probe at the lower bound (or at `floor`, when the rest of the arena
  /// already forces a peak that high), which resumes where it stopped and is
  /// the one that can close the part, and a probe between the bounds -- the
  /// approach to the incumbent, then as many of the spread (approach_target,
  /// spread_target) -- each success lowering the incumbent. When a sweep is
  /// over the effort doubles and the next sweep begins. Never searches upward from
  /// zero. A probe that completes without a fit proves a lower bound: it
  /// covered every placement paying at most the incumbent's penalty, so every
  /// penalty-optimal one. Returns false when there is nothing left to try.
  bool tighten(const Limits& limits, Addr floor = 0) {
    if (!state_.best || state_.closed()) return false;
    if (!searchable_) {
      // Too large to search: dives and window searches on the best
      // placement. Under a deadline: the first fixed order's dive, then
      // randomised dives and window steps sharing the time (below); the
      // other fixed orders' dives only once random_dive_patience randomised
      // dives in a row improved nothing (randomised dives did better than
      // any of them on the idealloc traces, and some of them dive slowly).
      // Without a deadline -- a run under a node limit must repeat -- every
      // fixed order's dive comes first (they spend the node budget as they
      // always did: a window step that skips its windows spends none, so a
      // window search started early could run for long under a node limit),
      // then the window search until it has nothing left, then the
      // randomised dives. A dive that improves the incumbent starts the
      // randomised dives and the window search again.
      const bool timed = limits.deadline != Clock::time_point::max();
      if (next_dive_ == 0 || (!timed && dives_left())) return dive(limits);
      auto dives_possible = [&] { return dives_since_gain_ < random_dive_patience || dives_left(); };
      if (!lns_live_ && !dives_possible()) return false;
      // With a deadline the two share the time: the one that has had less
      // so far runs next (a window step costs a millisecond on some parts
      // and most of a dive's time on others; the dives found more on the
      // idealloc traces, the window search the last bytes of bert_base).
      const bool dive_turn = !lns_live_ || (timed && dives_possible() && dive_time_ <= lns_time_);
      const auto t0 = Clock::now();
      if (!dive_turn) {
        lns_live_ = lns_step(limits, floor);
        lns_time_ += Clock::now() - t0;
      } else {
        const PartPlacement before{{}, state_.best->peak, state_.best->penalty};
        if (dives_since_gain_ < random_dive_patience)
          random_dive(limits);
        else
          dive(limits);
        if (state_.best->better_than(before)) {  // the incumbent changed
          dives_since_gain_ = 0;
          lns_live_ = true;
          lns_wraps_ = 0;
        }
        dive_time_ += Clock::now() - t0;
      }
      return lns_live_ || dives_possible();
    }
    const Weight penalty = state_.best->penalty;
    // Every penalty-optimal placement pays at most the incumbent's penalty,
    // so the pairs heavier than that are hard for it: their cliques bound it.
    state_.lower = std::max(state_.lower, round_up(search_[0]->clique_bound(penalty), granule_));
    if (state_.closed()) return false;
    const Addr hi = state_.best->peak;
    // The arena needs no less than `floor`: the part is done once its peak
    // is at most that -- at most the last multiple of the granule below it
    // (rounding the floor up instead would stop a granule short, unproved,
    // when the floor is not a multiple of this part's granule).
    const Addr lo = std::max(state_.lower, floor / granule_ * granule_);
    if (lo >= hi) return false;
    // Parts without penalties cycle through three steps: a probe at the
    // lower bound, a probe between the bounds, and a window search on the
    // incumbent.
    if (!sp_->has_penalties()) {
      phase_ = (phase_ + 1) % 3;
      if (phase_ == 2) {
        lns_step(limits, floor);
        return true;
      }
      at_bound_ = phase_ == 1;  // flipped below: phase 0 probes at the bound
    }
    Addr target = lo;
    at_bound_ = !at_bound_;
    if (!at_bound_) {
      std::optional<Addr> between = target_between(lo, hi);
      if (!between) {  // this sweep is over: the next with more effort
        step_ = 1;
        in_spread_ = false;
        effort_ = saturating_add(effort_, effort_);
        between = target_between(lo, hi);
      }
      target = between.value_or(lo);
    }
    const Outcome o = probe(target, penalty, limits, effort_);
    if (o == Outcome::infeasible) {
      state_.lower = std::max(state_.lower, round_up(target + 1, granule_));
    } else if (o == Outcome::aborted && !at_bound_) {
      next_between();
    }
    return true;
  }

  /// The target of the next probe between the bounds: the approach's from
  /// position step_, then the spread's from spread_pos_ while this sweep
  /// has spread probes left; none when the sweep is over.
  [[nodiscard]] std::optional<Addr> target_between(Addr lo, Addr hi) {
    if (!in_spread_) {
      if (auto t = approach_target(lo, hi, granule_, step_)) return t;
      in_spread_ = true;
      spread_left_ = std::max<std::uint64_t>(1, step_ - 1);  // as many as the approach took
    }
    for (std::uint64_t k = 0; spread_left_ > 0 && k < spread_positions; ++k) {
      if (auto t = spread_target(lo, hi, granule_, spread_pos_)) return t;
      spread_pos_ = spread_pos_ % spread_positions + 1;
    }
    return std::nullopt;
  }
  /// After a probe between the bounds ran out of effort: the next target.
  void next_between() {
    if (!in_spread_) {
      ++step_;
    } else {
      --spread_left_;
      spread_pos_ = spread_pos_ % spread_positions + 1;
    }
  }

  /// One step of large-neighbourhood search (window_lns.hpp) on a working
  /// copy of the incumbent: aim a little below its peak (half the way to
  /// the bound at first, closer after each failure, down to a granule) and
  /// search windows of about `lns_size_` buffers -- in time around the
  /// buffers above the aim, or (every other step) the top band. Windows it
  /// solved stay in the working copy even when the peak does not drop, so
  /// progress across several peaks accumulates. When a granule's step fails
  /// the windows double (back to 48 buffers after the whole part). False
  /// when there is nothing to do (penalties, or the peak is at the bound).
  bool lns_step(const Limits& limits, Addr floor) {
    if (!state_.best || sp_->has_penalties()) return false;
    if (!lns_) {
      lns_.emplace(*sp_);
      lns_off_ = state_.best->offsets;
    }
    Addr peak = 0;
    for (std::size_t i = 0; i < lns_off_.size(); ++i) peak = std::max(peak, lns_off_[i] + sp_->items[i].size);
    if (peak > state_.best->peak) {  // the incumbent came from elsewhere since
      lns_off_ = state_.best->offsets;
      peak = state_.best->peak;
    }
    const Addr lo = std::max(state_.lower, round_up(floor, granule_));
    if (peak <= lo) return false;
    const Addr step =
        std::max(granule_, (((peak - lo) >> std::min<std::uint32_t>(lns_shift_, 63)) / granule_) * granule_);
    const Addr target = peak - std::min(step, peak - lo);
    const auto& names = search_orders();
    const std::string_view order = names[lns_round_ % names.size()];
    const std::uint64_t cap = std::max<std::uint64_t>(4096, 32 * lns_size_);
    const bool band = lns_round_++ % 2 == 1;
    const bool ok = band ? lns_->lower_band(lns_off_, target, limits, lns_size_, cap, order)
                         : lns_->lower_to(lns_off_, target, limits, lns_size_, cap, order);
    offer(score(*sp_, lns_off_));  // kept when it fits and is better
    if (ok) {
      lns_shift_ = std::max<std::uint32_t>(1, lns_shift_ - 1);
      lns_wraps_ = 0;
    } else if (step == granule_ || lns_shift_ > 62) {
      lns_shift_ = 1;
      if (lns_size_ >= std::min(sp_->items.size(), lns_largest)) {
        lns_size_ = 48;
        // Windows as large as the part twice over without a gain: nothing
        // left that this search would find (a time limit is not required to end).
        if (++lns_wraps_ >= 2) return false;
      } else {
        lns_size_ *= 2;
      }
    } else {
      ++lns_shift_;
    }
    return true;
  }

 private:
  /// The sections and features the dives rank by, made on first use.
  void prepare_dives() {
    if (dive_sections_) return;
    if (search_[0])
      dive_sections_ = search_[0]->sections();
    else {
      std::vector<Interval> ls;
      ls.reserve(sp_->items.size());
      for (const auto& it : sp_->items) ls.push_back(it.lifetime);
      dive_sections_ = sweep_sections(ls, false);
    }
    dive_features_ = item_features(*sp_, *dive_sections_, {});
  }

  const Subproblem* sp_;
  std::uint64_t seed_;  // the randomised dives' draws
  Addr granule_;
  bool searchable_;
  // Per lane: the canonical search and (made when a probe first finds the
  // part tight) the floor search.
  std::array<std::optional<CanonicalSearch>, 2> search_;
  std::array<std::optional<FloorSearch>, 2> floor_;
  LanePool* pool_ = nullptr;

 public:
  bool floor_off_ = false;  ///< benchmarks: canonical runs only

 private:
  std::vector<std::string_view> dives_;
  std::size_t next_dive_ = 0;
  std::uint64_t last_dive_nodes_ = 0;  // the nodes of this part's last dive (0: none yet)
  std::optional<Sections> dive_sections_;
  std::vector<ItemFeatures> dive_features_;
  std::vector<std::string_view> orders_;
  struct ProbeMemo {
    Addr capacity;
    Weight penalty;
    std::array<std::uint64_t, 2> next;  // per lane, the attempt to resume from
    bool split;                         // the probe had split over two lanes
  };
  std::vector<ProbeMemo> memo_;  // aborted probes, to resume
  PartState state_;
  // Probes between the bounds: the next position of the approach, whether
  // the sweep has moved on to the spread, the spread's next position (kept
  // across sweeps) and the spread probes this sweep has left.
  std::uint64_t step_ = 1;
  bool in_spread_ = false;
  std::uint64_t spread_pos_ = 1;
  std::uint64_t spread_left_ = 0;
  bool at_bound_ = false;  // the last probe was at the lower bound
  // Window search (lns_step): the working placement and its schedule.
  std::optional<WindowLns> lns_;
  std::vector<Addr> lns_off_;
  std::size_t lns_size_ = 48;
  std::uint32_t lns_shift_ = 1;
  std::uint64_t lns_round_ = 0;
  std::uint32_t lns_wraps_ = 0;
  bool lns_live_ = true;  // the window search may still find something
  // Penalty windows (penalty_lns_round): window size, rounds, the next paid
  // pair to free, and the windows in a row that saved nothing.
  std::size_t pen_size_ = 12;
  std::uint64_t pen_round_ = 0, pen_pick_ = 0;
  std::size_t pen_fails_ = 0;
  bool bound_tried_ = false;  // the forced-overlap penalty bound was computed
  // Parts too large to search: the time spent in dives and in window
  // searches after the first dive.
  Clock::duration dive_time_{}, lns_time_{};
  // Randomised dives (parts too large to search): how many ran, and how
  // many in a row found nothing lower.
  std::uint64_t random_dives_ = 0;
  std::uint64_t dives_since_gain_ = 0;
  std::uint32_t phase_ = 2;  // bound probe, probe between, window search
  std::uint64_t effort_ = 1u << 14;
};

}  // namespace pto_mem::exact
