// One pass of the DSA-RP canonical greedy: buffers in a
// given order, each at the best canonical candidate offset — lowest penalty,
// then lowest address — or the pass fails (no backtracking).
//
// Upstream scans every candidate (0, reserved ends, the aligned tops of all
// placed hard and soft neighbours) against a sorted list of every placed
// neighbour. This pass finds the same offset without listing the neighbours:
//
//  * f(x), the lowest aligned offset >= x whose bytes are free during the
//    buffer's lifetime, comes from the occupancy tree (a fixpoint of "jump
//    past the merged range that meets [c, c + size)"). Each jump lands on 0,
//    a reserved end or a placed neighbour's aligned top, so f(x) is a
//    canonical candidate whenever x is.
//  * The best candidate is always f(0) or f(aligned top of a placed soft
//    neighbour): between two soft tops the penalty can only grow with the
//    offset (a soft neighbour stops overlapping only when the offset passes
//    its top), so the lowest free candidate after each soft top dominates
//    every later one up to the next soft top.
//
// Both modes place identically. The compat mode also counts every candidate
// upstream would scan, which needs the placed neighbours listed
// once per buffer: O(degree), the only part of a pass that is.
//
// Soft neighbours come from the explicit list and, for a penalty rule, from
// the placed-partner index (placed_penalties.hpp), which gives the
// rule partners aggregated by byte range. Every use of the neighbours is a
// sum of weights or a set of tops, so aggregated entries place exactly as
// the pairs one by one would.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stop_token>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/occupancy_tree.hpp"
#include "pto_mem/algorithms/dsa_rp/orders.hpp"
#include "pto_mem/algorithms/dsa_rp/placed_penalties.hpp"
#include "pto_mem/algorithms/dsa_rp/search_space.hpp"
#include "pto_mem/core/placement.hpp"

namespace pto_mem::dsa {

/// How a pass picks offsets and what it counts.
enum class PassKind {
  penalty_blind,  ///< first fit: lowest free offset, penalties ignored, nothing counted
  canonical,      ///< the canonical step: the best canonical candidate offset
};

/// Counts distinct values with an open-addressing table whose slots are
/// stamped per use, so nothing is cleared between calls.
class DistinctCounter {
 public:
  std::uint64_t count(const std::vector<Addr>& values) {
    std::size_t width = 16;
    while (width < 2 * values.size()) width *= 2;
    if (width > keys_.size()) {
      keys_.assign(width, 0);
      stamps_.assign(width, 0);
      now_ = 0;
    }
    if (++now_ == 0) {  // stamps wrapped: start over
      std::fill(stamps_.begin(), stamps_.end(), 0);
      now_ = 1;
    }
    const std::size_t mask = keys_.size() - 1;
    std::uint64_t distinct = 0;
    for (Addr v : values) {
      std::size_t h = static_cast<std::size_t>((v * 0x9E3779B97F4A7C15ull) >> 32) & mask;
      while (stamps_[h] == now_ && keys_[h] != v) h = (h + 1) & mask;
      if (stamps_[h] != now_) {
        stamps_[h] = now_;
        keys_[h] = v;
        ++distinct;
      }
    }
    return distinct;
  }

 private:
  std::vector<Addr> keys_;
  std::vector<std::uint32_t> stamps_;
  std::uint32_t now_ = 0;
};

/// A pass's objective over the buffers it has placed so far (penalty,
/// total peak, max peak), after `placed` buffers and `candidates`
/// counted candidates. It only grows as the pass goes on: each arena's peak
/// is a maximum, the penalty a sum of the soft pairs both placed.
struct PassProgress {
  std::size_t placed = 0;
  std::uint64_t candidates = 0;
  Weight penalty = 0;
  Addr total_peak = 0;
  Addr max_peak = 0;
};

/// True when a pass at `p` can no longer end strictly better than
/// `reference` (ties keep the earlier placement): every component of its
/// final objective is at least the one at `p`.
[[nodiscard]] inline bool cannot_beat(const PassProgress& p, const Objective& reference) noexcept {
  if (p.penalty != reference.penalty) return p.penalty > reference.penalty;
  if (p.total_peak != reference.total_peak) return p.total_peak > reference.total_peak;
  return p.max_peak >= reference.max_peak;
}

/// The first record of `progress` from which the pass cannot beat
/// `reference`, or nullptr. The records grow, so the answer does not
/// depend on when it is asked.
[[nodiscard]] inline const PassProgress* first_hopeless(const std::vector<PassProgress>& progress,
                                                        const Objective& reference) noexcept {
  for (const auto& p : progress)
    if (cannot_beat(p, reference)) return &p;
  return nullptr;
}

/// A placement that passes try to beat, shared with the workers running
/// them: `reference` is written once, before `known` is set.
struct PassLimit {
  std::atomic<bool> known = false;
  Objective reference;
};

class CanonicalPlacer {
 public:
  /// `exact_candidates`: count candidates exactly as upstream does (compat
  /// mode); otherwise count the free-offset queries this pass really made.
  /// `bucket_events` tunes the occupancy tree's leaves; offsets never depend
  /// on it.
  CanonicalPlacer(const SearchSpace& s, bool exact_candidates, std::uint32_t bucket_events = 128)
      : s_(s), exact_(exact_candidates), implicit_(s) {
    const std::size_t arenas = s.capacity.size();
    // Each lifetime end's rank among its arena's distinct ticks, from one
    // sort of (tick, end) pairs: no search per buffer.
    std::vector<std::vector<std::pair<Tick, std::uint32_t>>> ends(arenas);  // (tick, 2 * node + is_end)
    for (std::uint32_t i = 0; i < s.n; ++i) {
      ends[s.arena[i]].emplace_back(s.begin[i], 2 * i);
      ends[s.arena[i]].emplace_back(s.end[i], 2 * i + 1);
    }
    std::vector<OccupancyTree::Window> window(s.n);
    std::vector<std::size_t> slots(arenas, 1);
    for (std::size_t a = 0; a < arenas; ++a) {
      auto& e = ends[a];
      std::sort(e.begin(), e.end());
      std::uint32_t rank = 0;
      for (std::size_t k = 0; k < e.size(); ++k) {
        if (k > 0 && e[k].first != e[k - 1].first) ++rank;
        auto& w = window[e[k].second / 2];
        (e[k].second % 2 == 0 ? w.first : w.second) = rank;
      }
      if (rank > 0) slots[a] = rank;  // distinct ticks - 1
    }
    std::vector<std::vector<OccupancyTree::Window>> windows(arenas);
    local_.resize(s.n);
    for (std::size_t i = 0; i < s.n; ++i) {
      local_[i] = static_cast<std::uint32_t>(windows[s.arena[i]].size());
      windows[s.arena[i]].push_back(window[i]);
    }
    trees_.reserve(arenas);
    for (std::size_t a = 0; a < arenas; ++a)
      trees_.emplace_back(slots[a], std::move(windows[a]), bucket_events);
    reserved_.resize(arenas);
    for (std::size_t a = 0; a < arenas; ++a) reserved_[a].assign_sorted_union(window_union(s.reserved[a]));
  }

  /// Places every buffer of `order`. False when some buffer has no fitting
  /// candidate; offsets() then holds the partial pass. With
  /// `ignore_capacity` every arena is treated as unbounded (only address
  /// overflow fails), which shows how a pass would pack where it cannot fit.
  ///
  /// With `limit`, the pass records each change of its objective
  /// (progress()), and once `limit->reference` is known it stops (false,
  /// stopped_early()) at the first record from which it cannot beat it.
  /// The records are kept either way, so a caller can tell from them where
  /// the pass became hopeless whether or not it stopped there.
  bool place(const Order& order, PassKind kind, bool ignore_capacity = false,
             const PassLimit* limit = nullptr) {
    const bool count_exact = exact_ && kind == PassKind::canonical;
    ignore_capacity_ = ignore_capacity;
    // Soft neighbours are gathered for the canonical step and for the
    // running penalty of a pass with a limit.
    gather_soft_ = s_.has_soft && (kind == PassKind::canonical || limit);
    implicit_.clear();
    for (auto& tree : trees_) tree.reset(count_exact);
    placed_.assign(s_.n, 0);
    offset_.assign(s_.n, 0);
    candidates_ = 0;
    stopped_early_ = false;
    interrupted_ = false;
    progress_.clear();
    PassProgress now;  // the running objective, kept only with a limit
    bool reference_known = false;
    if (limit) {
      peak_.assign(s_.capacity.size(), 0);
      for (std::size_t a = 0; a < peak_.size(); ++a) {
        for (const auto& r : s_.reserved[a]) peak_[a] = std::max(peak_[a], r.end);
        now.total_peak = saturating_add(now.total_peak, peak_[a]);
        now.max_peak = std::max(now.max_peak, peak_[a]);
      }
      progress_.push_back(now);
    }
    const std::size_t n = order.size();
    for (std::size_t j = 0; j < n; ++j) {
      // The order is known: bring the next buffers' data in while this one
      // is placed (see OccupancyTree::prefetch_path_start).
      if (j + far < n) {
        const std::uint32_t f = order[j + far];
        prefetch(&s_.arena[f]);
        prefetch(&local_[f]);
        prefetch(&s_.size[f]);
        prefetch(&s_.alignment[f]);
      }
      if (j + middle < n) {
        const std::uint32_t f = order[j + middle];
        trees_[s_.arena[f]].prefetch_path_start(local_[f]);
      }
      if (j + near < n) {
        const std::uint32_t f = order[j + near];
        trees_[s_.arena[f]].prefetch_path(local_[f]);
      }
      if (j + nearer < n) {
        const std::uint32_t f = order[j + nearer];
        trees_[s_.arena[f]].prefetch_nodes(local_[f]);
      }
      if (j + nearest < n) {
        const std::uint32_t f = order[j + nearest];
        trees_[s_.arena[f]].prefetch_sets(local_[f]);
      }
      const std::uint32_t i = order[j];
      if ((j & 4095u) == 4095u && stop_.stop_requested()) {  // a caller's stop lands within a pass
        interrupted_ = true;
        return false;
      }
      const auto at = best_offset(i, kind, count_exact);
      if (!at) return false;
      offset_[i] = *at;
      placed_[i] = 1;
      trees_[s_.arena[i]].insert(local_[i], AddrRange{*at, *at + s_.size[i]});
      if (gather_soft_) implicit_.insert(i, AddrRange{*at, *at + s_.size[i]});
      if (!limit) continue;
      // The running objective; a record only where it changes.
      const Addr top = *at + s_.size[i];  // fits: lowest_free keeps offset + size <= the capacity
      Weight penalty_added = 0;    // the soft pairs this buffer completes, as dense_objective counts them
      for (const auto& n : soft_)  // its placed soft neighbours, gathered by best_offset
        if (overlaps(AddrRange{*at, top}, n.bytes)) penalty_added = saturating_add(penalty_added, n.weight);
      Addr& peak = peak_[s_.arena[i]];
      if (top <= peak && penalty_added == 0) continue;
      if (top > peak) {
        now.total_peak = saturating_add(now.total_peak, top - peak);
        now.max_peak = std::max(now.max_peak, top);
        peak = top;
      }
      now.penalty = saturating_add(now.penalty, penalty_added);
      now.placed = j + 1;
      now.candidates = candidates_;
      progress_.push_back(now);
      if (!reference_known && (j % 256 == 0 || j + 1 == n)) {  // has the reference come since?
        reference_known = limit->known.load(std::memory_order_acquire);
        if (reference_known && first_hopeless(progress_, limit->reference)) {
          stopped_early_ = true;
          return false;
        }
      } else if (reference_known && cannot_beat(now, limit->reference)) {
        stopped_early_ = true;
        return false;
      }
    }
    return true;
  }

  /// The records of the last pass with a limit: its objective after each
  /// buffer that changed it, the empty pass first.
  [[nodiscard]] const std::vector<PassProgress>& progress() const noexcept { return progress_; }
  /// Whether the last pass stopped because it could no longer beat its limit.
  [[nodiscard]] bool stopped_early() const noexcept { return stopped_early_; }
  /// The caller's stop (watch()) ended the last pass: place() returned false
  /// without deciding whether the order fits.
  [[nodiscard]] bool interrupted() const noexcept { return interrupted_; }
  /// Passes check `stop` every 4,096 buffers from now on.
  void watch(std::stop_token stop) noexcept { stop_ = std::move(stop); }

  [[nodiscard]] const std::vector<Addr>& offsets() const noexcept { return offset_; }
  /// Candidates of the last pass (see the constructor).
  [[nodiscard]] std::uint64_t candidates() const noexcept { return candidates_; }

 private:
  /// The offset for buffer i, or nullopt when no canonical candidate fits.
  std::optional<Addr> best_offset(std::uint32_t i, PassKind kind, bool count_exact) {
    const std::uint32_t a = s_.arena[i];
    sets_.clear();
    trees_[a].sets_for(local_[i], sets_);
    if (!reserved_[a].empty()) sets_.push_back(&reserved_[a]);
    separated_.clear();
    if (has_separations_)
      for (auto [b, e] = s_.separated.of(i); b != e; ++b)
        if (placed_[*b]) separated_.add(range_of(*b));
    if (!separated_.empty()) sets_.push_back(&separated_);
    // Flat views: the fixpoint revisits every set several times per query,
    // so each visit should cost one L1 load, not a chase through the set.
    views_.clear();
    for (const RangeUnion* u : sets_) {
      views_.push_back({u->data(), u->size(), unpositioned});
      prefetch(u->data());
    }
    soft_.clear();
    if (gather_soft_) {
      for (auto [b, e] = s_.soft.of(i); b != e; ++b)
        if (placed_[b->node]) soft_.push_back({range_of(b->node), b->weight});
      implicit_.partners(i, placed_, soft_);
    }
    if (count_exact) candidates_ += count_candidates(i);
    if (kind != PassKind::canonical || soft_.empty()) {
      if (!exact_ && kind == PassKind::canonical) ++candidates_;
      return lowest_free(i, 0);
    }
    return cheapest(i);
  }

  using SoftNeighbour =
      PlacedRuleIndex::Entry;  // bytes and weight, one neighbour or several on the same bytes

  /// min (penalty, offset) over f(0) and f(aligned soft tops): see the header.
  std::optional<Addr> cheapest(std::uint32_t i) {
    const Addr align = s_.alignment[i], size = s_.size[i];
    starts_.clear();
    for (const auto& n : soft_) starts_.push_back(n);
    std::sort(starts_.begin(), starts_.end(),
              [](const SoftNeighbour& x, const SoftNeighbour& y) { return x.bytes.begin < y.bytes.begin; });
    std::sort(soft_.begin(), soft_.end(),
              [](const SoftNeighbour& x, const SoftNeighbour& y) { return x.bytes.end < y.bytes.end; });
    std::size_t next_start = 0, next_end = 0;
    Weight started = 0, ended = 0;
    std::optional<std::pair<Weight, Addr>> best;
    std::optional<Addr> last;  // f of the previous start point
    for (std::size_t k = 0; k <= soft_.size(); ++k) {
      Addr x = 0;
      if (k > 0) {
        const auto top = align_up(soft_[k - 1].bytes.end, align);
        if (!top) break;
        x = *top;
      }
      if (last && x <= *last) continue;  // f(x) == f(previous start): already scored
      const auto c = lowest_free(i, x);
      if (!exact_) ++candidates_;
      if (!c) break;  // nothing fits at or above x
      last = c;
      // The cost at c: soft neighbours that start below c + size and end above c.
      while (next_start < starts_.size() && starts_[next_start].bytes.begin < *c + size)
        started += starts_[next_start++].weight;
      while (next_end < soft_.size() && soft_[next_end].bytes.end <= *c) ended += soft_[next_end++].weight;
      const Weight cost = started - ended;
      if (!best || cost < best->first) best = std::pair{cost, *c};
      if (cost == 0) break;  // offsets only grow from here
    }
    if (!best) return std::nullopt;
    return best->second;
  }

  /// f(x): the lowest offset >= x aligned for buffer i whose bytes avoid every
  /// set in sets_ and fit the capacity; nullopt when none does. Calls for one
  /// buffer must come with growing x: each set keeps a cursor that only moves
  /// forward, so a set costs one search per buffer, not per visit.
  std::optional<Addr> lowest_free(std::uint32_t i, Addr x) {
    const Addr align = s_.alignment[i], size = s_.size[i];
    const Addr cap = ignore_capacity_ ? max_addr : s_.capacity[s_.arena[i]];
    if (size > cap) return std::nullopt;
    // Offsets only grow, so the first one past `limit` (the highest offset
    // that fits; also where offset + size would wrap) ends the search.
    const Addr limit = cap - size;
    const auto first = up(x, align);
    if (!first || *first > limit) return std::nullopt;
    Addr c = *first;
    const std::size_t k = views_.size();
    std::size_t calm = 0;  // sets passed in a row without moving c
    for (std::size_t at = 0; k > 0 && calm < k; at = at + 1 == k ? 0 : at + 1) {
      View& v = views_[at];
      std::size_t r = v.cursor;
      if (r == unpositioned)
        r = first_ending_after(v, c, 0);
      else if (r < v.size && v.ranges[r].end <= c)
        r = first_ending_after(v, c, r + 1);
      bool moved = false;
      for (; r < v.size && v.ranges[r].begin < c + size; ++r) {
        const auto next = up(v.ranges[r].end, align);
        if (!next || *next > limit) return std::nullopt;
        c = *next;
        moved = true;
      }
      v.cursor = r;
      calm = moved ? 1 : calm + 1;
    }
    return c;
  }

  /// A set as the fixpoint reads it, with its cursor: the first range that
  /// may still block.
  struct View {
    const AddrRange* ranges;
    std::size_t size;
    std::size_t cursor;
  };

  /// Index of the first range at or after `from` that ends after `x`.
  [[nodiscard]] static std::size_t first_ending_after(const View& v, Addr x, std::size_t from) noexcept {
    if (v.size - from <= 8) {  // most sets are tiny: a scan beats the branchy search
      while (from < v.size && v.ranges[from].end <= x) ++from;
      return from;
    }
    return static_cast<std::size_t>(std::upper_bound(v.ranges + from, v.ranges + v.size, x,
                                                     [](Addr y, const AddrRange& z) { return y < z.end; }) -
                                    v.ranges);
  }

  /// The number of canonical candidates: distinct aligned values of 0, the reserved ends
  /// and the tops of placed hard and soft neighbours. Linear in the number of
  /// placed neighbours (a hash set, no sort); soft neighbours as gathered in
  /// soft_, rule partners once per byte range.
  std::uint64_t count_candidates(std::uint32_t i) {
    const Addr align = s_.alignment[i];
    values_.clear();
    values_.push_back(0);
    auto add = [&](Addr x) {
      if (auto v = align_up(x, align)) values_.push_back(*v);
    };
    for (const auto& r : s_.reserved[s_.arena[i]]) add(r.end);
    trees_[s_.arena[i]].for_each_top(local_[i], add);
    for (auto [b, e] = s_.separated.of(i); b != e; ++b)
      if (placed_[*b]) add(offset_[*b] + s_.size[*b]);
    for (const auto& n : soft_) add(n.bytes.end);
    return distinct_.count(values_);
  }

  /// align_up without the division for power-of-two alignments (the
  /// common case: it sits on the hot path of every jump).
  [[nodiscard]] static std::optional<Addr> up(Addr x, Addr align) noexcept {
    if ((align & (align - 1)) != 0) return align_up(x, align);
    const Addr y = (x + (align - 1)) & ~(align - 1);
    if (y < x) return std::nullopt;  // wrapped past 2^64
    return y;
  }

  [[nodiscard]] AddrRange range_of(std::uint32_t j) const { return {offset_[j], offset_[j] + s_.size[j]}; }

  const SearchSpace& s_;
  bool exact_;
  bool ignore_capacity_ = false;
  bool gather_soft_ = false;
  bool has_separations_ = !s_.separated.items.empty();
  std::vector<std::uint32_t> local_;  // per node: its number in its arena's tree
  std::vector<RangeUnion> reserved_;  // per arena, merged
  std::vector<OccupancyTree> trees_;  // per arena
  PlacedRuleIndex implicit_;          // placed rule partners, by byte range
  std::vector<char> placed_;
  std::vector<Addr> offset_;
  std::uint64_t candidates_ = 0;
  bool stopped_early_ = false;
  bool interrupted_ = false;
  std::stop_token stop_;
  std::vector<PassProgress> progress_;
  std::vector<Addr> peak_;  // per arena, of the running objective
  // Scratch, reused across buffers.
  std::vector<const RangeUnion*> sets_;
  // How many buffers ahead each prefetch stage reaches.
  static constexpr std::size_t far = 12, middle = 8, near = 4, nearer = 2, nearest = 1;
  static constexpr std::size_t unpositioned = std::numeric_limits<std::size_t>::max();
  std::vector<View> views_;  // sets_ as the fixpoint reads them
  RangeUnion separated_;
  std::vector<SoftNeighbour> soft_, starts_;
  std::vector<Addr> values_;
  DistinctCounter distinct_;
};

}  // namespace pto_mem::dsa
