// A lower bound on the penalty of every placement of one subproblem that
// fits its capacity: forced overlaps, then a hitting set over them.
//
// Forced overlaps. Take a set T of buffers that pairwise interfere in time,
// are hard-separated, or share a soft penalty -- a clique of that "linked"
// graph. If every penalty pair of T were kept apart in bytes, all of T would
// be pairwise disjoint, inside the capacity and outside the reserved windows:
// the sizes of T would sum to at most the usable bytes. So when they sum to
// more, at least one penalty pair of T overlaps in every placement that fits:
// the penalty pairs of T are a "core". The search enumerates cliques, adding
// buffers largest first, and records one core the moment a clique's sizes
// exceed the usable bytes (it is then minimal: dropping any member, at least
// as large as the last, brings the sum down to the limit).
//
// The bound. Every placement that fits overlaps at least one pair of each
// core, so the pairs it overlaps are a hitting set of the cores, and its
// penalty is at least the least weight of a hitting set. A branch and bound
// finds that least weight (or proves it is at least a target, the
// incumbent's penalty); each node's bound is the weight packing of the cores
// not yet hit (each core, in turn, charges its cheapest remaining weight to
// all its pairs -- the value of a feasible dual of the covering LP). When a
// budget cuts the branch and bound, the root's packing is the bound.
//
// Sound whatever cores are found or missed: cores are only ever true ones,
// and a hitting-set bound over fewer cores is lower, never wrong.
// Deterministic: no clock decides anything but whether to stop early, and
// then only the (still sound) root bound is returned.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <stop_token>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/core/numeric.hpp"

namespace pto_mem::exact {

struct PenaltyBoundLimits {
  std::size_t max_items = 4096;          ///< larger parts get no bound (0)
  std::size_t max_cores = 20000;         ///< cores recorded at most
  std::uint64_t clique_nodes = 2000000;  ///< clique-enumeration steps at most
  std::uint64_t work = 5000000;          ///< hitting-set work (core visits) at most
  Clock::time_point deadline = Clock::time_point::max();
  std::stop_token stop;  ///< a caller's cancellation
};

struct PenaltyBound {
  Weight value = 0;       ///< no placement that fits pays less
  std::size_t cores = 0;  ///< forced-overlap cores found
  bool complete = false;  ///< value is the least hitting set of every core found (not a packing bound)
};

namespace detail {

inline constexpr Weight max_weight = std::numeric_limits<Weight>::max();

/// Usable bytes of [0, capacity): the capacity less the reserved bytes inside it.
[[nodiscard]] inline Addr usable_bytes(const FreeSpace& space) { return space.usable_above(0); }

/// The least weight of a set of pairs meeting every core: a branch and
/// bound over bit rows (cores and the chosen and banned pairs as bit sets).
class HittingSet {
 public:
  HittingSet(std::vector<Weight> weight, std::vector<std::vector<std::uint32_t>> cores, std::uint64_t work,
             Clock::time_point deadline, std::stop_token stop)
      : w_(std::move(weight)),
        words_((w_.size() + 63) / 64),
        work_left_(work),
        deadline_(deadline),
        stop_(std::move(stop)) {
    // Small cores first: they bind hardest in the packing and branch least.
    std::stable_sort(cores.begin(), cores.end(),
                     [](const auto& a, const auto& b) { return a.size() < b.size(); });
    ncores_ = cores.size();
    rows_.assign(ncores_ * words_, 0);
    for (std::size_t c = 0; c < ncores_; ++c)
      for (auto e : cores[c]) rows_[c * words_ + e / 64] |= std::uint64_t{1} << (e % 64);
    chosen_.assign(words_, 0);
    banned_.assign(words_, 0);
  }

  /// The least weight of a hitting set if below `target`, else `target`
  /// (complete), or the root packing bound when the budget ran out.
  PenaltyBound solve(Weight target) {
    PenaltyBound out;
    out.cores = ncores_;
    best_ = target;
    const Weight root = packing();
    if (root >= target) {
      out.value = target;
      out.complete = true;
      return out;
    }
    aborted_ = false;
    branch(0);
    out.value = aborted_ ? root : best_;
    out.complete = !aborted_;
    return out;
  }

 private:
  [[nodiscard]] const std::uint64_t* row(std::size_t c) const { return rows_.data() + c * words_; }
  [[nodiscard]] bool hit(std::size_t c) const {
    const std::uint64_t* r = row(c);
    for (std::size_t k = 0; k < words_; ++k)
      if (r[k] & chosen_[k]) return true;
    return false;
  }
  template <class F>
  void for_free(std::size_t c, F&& f) const {  // each pair of core c neither chosen nor banned
    const std::uint64_t* r = row(c);
    for (std::size_t k = 0; k < words_; ++k)
      for (std::uint64_t bits = r[k] & ~banned_[k]; bits; bits &= bits - 1)
        f(static_cast<std::uint32_t>(k * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
  }

  /// A lower bound on the weight still to choose (max_weight when some unhit
  /// core has no free pair left): each unhit core in turn charges its least
  /// residual weight to all its free pairs.
  Weight packing() {
    res_.assign(w_.begin(), w_.end());
    work_left_ -= std::min<std::uint64_t>(work_left_, ncores_);
    Weight lb = 0;
    for (std::size_t c = 0; c < ncores_; ++c) {
      if (hit(c)) continue;
      Weight m = max_weight;
      for_free(c, [&](std::uint32_t e) { m = std::min(m, res_[e]); });
      if (m == max_weight) return max_weight;
      if (m == 0) continue;
      lb = saturating_add(lb, m);
      for_free(c, [&](std::uint32_t e) { res_[e] -= m; });
    }
    return lb;
  }

  void branch(Weight chosen) {
    if (aborted_) return;
    if (work_left_ == 0 || ((++calls_ & 255) == 0 && (Clock::now() >= deadline_ || stop_.stop_requested()))) {
      aborted_ = true;
      return;
    }
    const Weight lb = packing();
    if (lb == max_weight || saturating_add(chosen, lb) >= best_) return;
    // The unhit core with the fewest free pairs.
    std::size_t pick = ncores_, fewest = SIZE_MAX;
    for (std::size_t c = 0; c < ncores_ && fewest > 1; ++c) {
      if (hit(c)) continue;
      std::size_t f = 0;
      const std::uint64_t* r = row(c);
      for (std::size_t k = 0; k < words_; ++k)
        f += static_cast<std::size_t>(std::popcount(r[k] & ~banned_[k]));
      if (f < fewest) {
        fewest = f;
        pick = c;
      }
    }
    if (pick == ncores_) {  // every core hit: a cheaper hitting set
      best_ = chosen;
      return;
    }
    std::vector<std::uint32_t> free;
    for_free(pick, [&](std::uint32_t e) { free.push_back(e); });
    std::stable_sort(free.begin(), free.end(), [&](auto a, auto b) { return w_[a] < w_[b]; });
    std::size_t banned = 0;
    for (auto e : free) {
      chosen_[e / 64] |= std::uint64_t{1} << (e % 64);
      branch(saturating_add(chosen, w_[e]));
      chosen_[e / 64] &= ~(std::uint64_t{1} << (e % 64));
      banned_[e / 64] |= std::uint64_t{1} << (e % 64);  // the later branches leave it out
      ++banned;
      if (aborted_) break;
    }
    for (std::size_t k = 0; k < banned; ++k) banned_[free[k] / 64] &= ~(std::uint64_t{1} << (free[k] % 64));
  }

  std::vector<Weight> w_;
  std::size_t words_ = 0, ncores_ = 0;
  std::vector<std::uint64_t> rows_, chosen_, banned_;
  std::vector<Weight> res_;
  std::uint64_t work_left_;
  Clock::time_point deadline_;
  std::stop_token stop_;
  std::uint64_t calls_ = 0;
  Weight best_ = 0;
  bool aborted_ = false;
};

}  // namespace detail

/// A proved lower bound on the penalty of every placement of `sp` within its
/// capacity (see the top of this file). Stops as soon as the bound reaches
/// `target` (pass the incumbent's penalty: reaching it proves it least).
[[nodiscard]] inline PenaltyBound penalty_lower_bound(const Subproblem& sp, Weight target,
                                                      const PenaltyBoundLimits& lim = {}) {
  PenaltyBound out;
  const std::size_t n = sp.items.size();
  if (n == 0 || n > lim.max_items || target == 0 || !sp.has_penalties()) return out;
  const Addr usable = detail::usable_bytes(sp.space);

  // The linked graph as bit rows; penalty pairs numbered.
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> adj(n * words, 0);
  auto link = [&](std::size_t a, std::size_t b) {
    adj[a * words + b / 64] |= std::uint64_t{1} << (b % 64);
    adj[b * words + a / 64] |= std::uint64_t{1} << (a % 64);
  };
  auto linked = [&](std::size_t a, std::size_t b) { return (adj[a * words + b / 64] >> (b % 64)) & 1u; };
  {
    std::vector<std::size_t> by_start(n);
    std::iota(by_start.begin(), by_start.end(), std::size_t{0});
    std::sort(by_start.begin(), by_start.end(), [&](auto a, auto b) {
      return std::pair(sp.items[a].lifetime.begin, a) < std::pair(sp.items[b].lifetime.begin, b);
    });
    for (std::size_t x = 0; x < n; ++x)
      for (std::size_t y = x + 1;
           y < n && sp.items[by_start[y]].lifetime.begin < sp.items[by_start[x]].lifetime.end; ++y)
        if (interferes(sp.items[by_start[x]].lifetime, sp.items[by_start[y]].lifetime))
          link(by_start[x], by_start[y]);
  }
  for (std::size_t i = 0; i < n; ++i)
    for (auto j : sp.separated[i]) link(i, j);
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> pair_id;
  std::vector<Weight> weight;
  for (std::uint32_t i = 0; i < n; ++i)
    for (const auto& l : sp.penalties[i])
      if (i < l.other && l.weight > 0) {
        link(i, l.other);
        pair_id.emplace(std::pair(i, l.other), static_cast<std::uint32_t>(weight.size()));
        weight.push_back(l.weight);
      }
  if (weight.empty()) return out;

  // Cliques, largest buffers first (ties by index).
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](auto a, auto b) { return sp.items[a].size > sp.items[b].size; });
  std::vector<std::vector<std::uint32_t>> cores;
  std::vector<std::uint32_t> clique;
  std::uint64_t steps = 0;
  bool cut = false;
  // Extends `clique` (sum `sum`) by members of `cand` (positions in order, ascending).
  auto extend = [&](auto&& self, const std::vector<std::uint32_t>& cand, Addr sum) -> void {
    Addr rest = 0;
    for (auto k : cand) rest = saturating_add(rest, sp.items[order[k]].size);
    if (saturating_add(sum, rest) <= usable) return;  // no clique from here exceeds the usable bytes
    for (std::size_t c = 0; c < cand.size() && !cut; ++c) {
      if (++steps > lim.clique_nodes || cores.size() >= lim.max_cores ||
          ((steps & 1023) == 0 && (Clock::now() >= lim.deadline || lim.stop.stop_requested()))) {
        cut = true;
        return;
      }
      const std::uint32_t v = order[cand[c]];
      const Addr s = saturating_add(sum, sp.items[v].size);
      clique.push_back(v);
      if (s > usable) {
        std::vector<std::uint32_t> core;
        for (std::size_t x = 0; x < clique.size(); ++x)
          for (std::size_t y = x + 1; y < clique.size(); ++y) {
            const auto found = pair_id.find(std::minmax(clique[x], clique[y]));
            if (found != pair_id.end()) core.push_back(found->second);
          }
        std::sort(core.begin(), core.end());
        if (!core.empty())
          cores.push_back(std::move(core));  // empty: the part cannot fit at all (not ours to say)
      } else {
        std::vector<std::uint32_t> next;
        for (std::size_t d = c + 1; d < cand.size(); ++d)
          if (linked(v, order[cand[d]])) next.push_back(cand[d]);
        self(self, next, s);
      }
      clique.pop_back();
    }
  };
  std::vector<std::uint32_t> all(n);
  std::iota(all.begin(), all.end(), 0u);
  extend(extend, all, 0);
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  if (cores.empty()) return out;
  detail::HittingSet hs(std::move(weight), std::move(cores), lim.work, lim.deadline, lim.stop);
  return hs.solve(target);
}

}  // namespace pto_mem::exact
