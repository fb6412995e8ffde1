// The complete branch-and-bound over canonical placements for one
// subproblem: "is there a placement with peak <= C that pays at most P in
// penalties?" -- answered `found` (with the placement), `infeasible` (proved:
// the run finished) or `aborted` (a budget ran out; nothing proved).
//
// Search space. A node is a partial placement. Each unplaced buffer b has a
// threshold thr(b) = highest end of a placed buffer it conflicts with
// (interferes with in time, or is hard-separated from) and a lowest offset
// m(b) = FreeSpace::lowest_fit(thr(b)): the lowest aligned offset at or above
// the threshold clear of the reserved windows. A child places one buffer b at
// m(b) -- or, when b has placed penalty partners, at lowest_fit(max(thr(b), v))
// for v the end of one of those partners (paying for the partners it still
// overlaps). Children are visited by key (offset, static rank); the keys along
// a path strictly increase.
//
// Why this is complete (with any alignment and any reserved windows). Fix C
// and P and suppose some placement fits. Among all placements with peak <= C
// and penalty <= P pick S with the smallest sum of offsets. Let R be the
// conflict pairs plus the penalty pairs that S keeps apart in bytes. Visit the
// buffers in S-order (offset, then rank) and drop each one to the lowest
// aligned, window-free offset at or above the ends of the R-partners visited
// before it ("gravity"). Every R-partner c visited before b lies below b in S
// (c's offset <= b's and they do not overlap), so by induction its new end is
// <= its old end <= b's offset: b's old offset is a candidate and the new one is
// no higher. The result keeps every R pair apart (so it pays at most what S
// pays), fits under C, and has no larger offset anywhere; S being minimal, the
// result is S itself. So in S every buffer sits exactly at
// lowest_fit(max end of its earlier R-partners) -- one of the children the
// search generates when b is placed after exactly the buffers before it in
// S-order (v = the highest end of its earlier kept-apart penalty partners).
// Hence the path "place the buffers in S-order" exists, with increasing keys.
// The pruning rules below never cut that path:
//  * inference: on S's path every unplaced buffer will sit above its placed
//    conflicts and at or above the current key's offset x; buffers crossing
//    one section pairwise interfere, so each section's unplaced bytes must
//    fit above x, and above the lowest m among them (kept by a watched
//    "witness" per section) -- else no completion on the path exists;
//  * dominance (the "useless gap"): if some unplaced c could sit entirely
//    below the next buffer's offset x -- m'(c) + size(c) <= x with m'(c) the
//    lowest offset above c's placed conflicts and all its placed penalty
//    partners -- then in S (where every later buffer is at >= x) c could drop
//    to m'(c) without overlapping anything or paying more, lowering the sum:
//    so S's path never places a buffer at such an x;
//  * hatless pruning: if b's subtree failed although b conflicts with no
//    unplaced buffer, shares no penalty with one and paid nothing, then b sits
//    at m(b) in S if it is placed later (else moving it there lowers the sum),
//    i.e. with a smaller key than any sibling: S's path is not below a sibling;
//  * stuck buffers: an unplaced buffer whose every key is below the current
//    key and that no unplaced buffer can push up can never be placed;
//  * twins: identical buffers (size, alignment, lifetime; no separations or
//    penalties) are placed in index order -- among the minimal S pick the one
//    where they are, which a swap always gives;
//  * time cuts: when no unplaced buffer crosses a section boundary, the parts
//    on either side (joined by hard separations, and never split when the
//    part has penalties, which share one budget) are independent and solved
//    one after the other, each by the same complete search;
//  * failure memo (parts without penalties; failure_memo.hpp): a node's
//    state is the set U of unplaced buffers of its piece with m(u) for each,
//    the piece's buffers (they fix its ranks) and the run's capacity. Let
//    T(state) be the placement of U with every u at or above m(u) -- so
//    clear of every placed conflict -- valid and under the capacity, with the
//    least sum of offsets (ties: the lexicographically least offsets by
//    index, which keeps twins in index order). Every rule above holds with
//    T(state) in place of S below the node (each argument only lowers or
//    swaps buffers of U, which stays above their placed conflicts), so a
//    subtree that failed below the key (x, r) proves: T(state) does not
//    exist, or it has a buffer at a key <= (x, r) -- at an offset <= x in
//    any order. Now let S's path pass through a node with the same state
//    and a key (x', r') with x' > x, or x' = x, r' >= r in the same order.
//    S restricted to U is T(state) (a T with a smaller sum, or the same sum
//    and lexicographically less, would make S so too, U lying above every
//    placed conflict) and all its keys come after (x', r') -- a
//    contradiction. So that node is not on S's path and fails at once.
// The argument and these rules are MiniMalloc's (Moffitt, ASPLOS 2023),
// extended to alignment, reserved windows, hard separations and penalties.
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <numeric>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/failure_memo.hpp"
#include "pto_mem/algorithms/exact/free_space.hpp"
#include "pto_mem/algorithms/exact/preorder.hpp"
#include "pto_mem/algorithms/exact/sections.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

/// Interfering pairs of a subproblem, by a sweep; stops counting at `cap`.
[[nodiscard]] inline std::uint64_t count_interfering_pairs(const Subproblem& sp, std::uint64_t cap) {
  std::vector<std::pair<Tick, Tick>> spans;
  spans.reserve(sp.items.size());
  for (const auto& it : sp.items) spans.emplace_back(it.lifetime.begin, it.lifetime.end);
  std::sort(spans.begin(), spans.end());
  std::vector<Tick> ends;  // min-heap of live ends
  std::uint64_t pairs = 0;
  for (const auto& [b, e] : spans) {
    while (!ends.empty() && ends.front() <= b) {
      std::pop_heap(ends.begin(), ends.end(), std::greater<>());
      ends.pop_back();
    }
    pairs += ends.size();
    if (pairs > cap) return pairs;
    ends.push_back(e);
    std::push_heap(ends.begin(), ends.end(), std::greater<>());
  }
  return pairs;
}

class CanonicalSearch {
 public:
  static constexpr Addr none = max_addr;
  static constexpr std::uint32_t none32 = UINT32_MAX;

  explicit CanonicalSearch(const Subproblem& sp)
      : sp_(&sp), n_(static_cast<std::uint32_t>(sp.items.size())), memo_(sp.items.size()) {
    std::vector<Interval> lifetimes(n_);
    for (std::uint32_t i = 0; i < n_; ++i) lifetimes[i] = sp.items[i].lifetime;
    sec_ = sweep_sections(lifetimes, true);
    size_.resize(n_);
    align_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) {
      size_[i] = sp.items[i].size;
      align_[i] = sp.items[i].alignment;
    }
    build_conflicts(lifetimes);
    pen_begin_.assign(n_ + 1, 0);
    for (std::uint32_t i = 0; i < n_; ++i)
      pen_begin_[i + 1] = pen_begin_[i] + static_cast<std::uint32_t>(sp.penalties[i].size());
    for (std::uint32_t i = 0; i < n_; ++i)
      for (const auto& l : sp.penalties[i]) pen_.push_back(l);
    std::vector<std::uint64_t> degree(n_);
    for (std::uint32_t i = 0; i < n_; ++i) degree[i] = conf_begin_[i + 1] - conf_begin_[i];
    features_ = item_features(sp, sec_, degree);
    find_twins();
    init_total_.assign(sec_.count, 0);
    mem_begin_.assign(sec_.count + 1, 0);
    for (std::uint32_t k = 0; k < sec_.count; ++k) {
      for (std::uint32_t i : sec_.members[k]) init_total_[k] = saturating_add(init_total_[k], size_[i]);
      mem_begin_[k + 1] = mem_begin_[k] + static_cast<std::uint32_t>(sec_.members[k].size());
      mem_.insert(mem_.end(), sec_.members[k].begin(), sec_.members[k].end());
    }
    find_cliques();
    // The failure memo's states hold no penalty paid or partner offsets.
    use_memo_ = !sp.has_penalties();
    item_hash_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) item_hash_[i] = state_item_hash(1, i);
  }

  /// A lower bound on the peak of every placement that pays at most
  /// `penalty_budget`: the largest separation clique (see find_cliques) whose
  /// pair is hard under that budget, stacked in the usable bytes. 0 when
  /// there is none (the max load covers the sections).
  [[nodiscard]] Addr clique_bound(Weight penalty_budget) const {
    Addr best = 0;
    for (std::uint32_t q = 0; q < clique_hard_.size(); ++q)
      if (clique_hard_[q].hard(penalty_budget)) best = std::max(best, init_total_[sec_.count + q]);
    if (best == 0) return 0;
    Addr reserved = 0, reserved_end = 0;
    for (const auto& w : sp_->space.windows()) {
      reserved = saturating_add(reserved, w.size());
      reserved_end = std::max(reserved_end, w.end);
    }
    return std::max(reserved_end, saturating_add(best, reserved));
  }

  [[nodiscard]] const std::vector<ItemFeatures>& features() const noexcept { return features_; }
  [[nodiscard]] const Sections& sections() const noexcept { return sec_; }
  /// Sections with less than `granule` bytes of slack under `capacity`
  /// (FloorSearch::tight_sections without building a floor search).
  [[nodiscard]] std::uint32_t tight_sections(Addr capacity, Addr granule) const {
    const Addr usable = sp_->space.with_capacity(capacity).usable_above(0);
    std::uint32_t n = 0;
    for (std::uint32_t k = 0; k < sec_.count; ++k)
      n += saturating_add(init_total_[k], granule) > usable ? 1 : 0;
    return n;
  }
  /// Turns the failure memo (failure_memo.hpp) on or off for later runs (on
  /// by default for parts without penalties; the property tests compare both).
  void use_failure_memo(bool on) noexcept { use_memo_ = on && !sp_->has_penalties(); }
  /// Nodes the failure memo answered, over every run so far.
  [[nodiscard]] std::uint64_t memo_hits() const noexcept { return memo_hits_; }
  /// Forgets what the failure memo learned (its contents depended on timing).
  void forget() noexcept { memo_.clear(); }
  [[nodiscard]] FailureMemo& failure_memo() noexcept { return memo_; }
  /// Offsets (per item) of the last `found` run.
  [[nodiscard]] const std::vector<Addr>& solution() const noexcept { return sol_; }

  /// One run under capacity `capacity` (the reserved windows stay), paying
  /// at most `penalty_budget`, breaking ties by the static order `keys`
  /// (preorder.hpp); the run is complete for any order.
  [[nodiscard]] Outcome run(Addr capacity, Weight penalty_budget, std::string_view keys, Budget& budget) {
    space_ = sp_->space.with_capacity(capacity);
    cap_ = capacity;
    plain_ = !space_.has_windows() && sp_->blocked.empty();
    budget_ = &budget;
    keys_ = keys;
    pbudget_ = penalty_budget;
    paid_ = 0;
    off_.assign(n_, none);
    thr_.assign(n_, 0);
    m_.assign(n_, none);
    sol_.assign(n_, none);
    for (std::uint32_t i = 0; i < n_; ++i) {
      m_[i] = fit(i, 0);
      if (m_[i] == none) return Outcome::infeasible;  // does not fit anywhere
    }
    // Penalty pairs heavier than the budget can never overlap in this run:
    // they act as hard separations (their cliques below switch on, and
    // without soft pairs left the time cuts may split freely).
    soft_ = std::any_of(pen_.begin(), pen_.end(),
                        [&](const PenaltyLink& l) { return l.weight <= penalty_budget; });
    const std::uint32_t groups = sec_.count + static_cast<std::uint32_t>(clique_hard_.size());
    active_.assign(groups, 1);
    for (std::uint32_t q = 0; q < clique_hard_.size(); ++q)
      active_[sec_.count + q] = clique_hard_[q].hard(penalty_budget);
    total_ = init_total_;
    cut_ = sec_.crossing;
    trail_.clear();
    cands_.clear();
    watch_.assign(groups, none32);
    watching_.resize(n_);
    for (auto& w : watching_) w.clear();
    for (std::uint32_t k = 0; k < groups; ++k)
      if (!rewatch(k)) return Outcome::infeasible;
    zob_ = {};
    term_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) {
      term_[i] = term(i);
      zob_.add(term_[i]);
    }
    // The run's context for the failure memo: the capacity and the penalty
    // budget (the order is kept beside each entry: it only matters at equal offsets).
    run_ctx_ = state_term(2, capacity, penalty_budget);
    ctx_ = run_ctx_;
    order_tag_ = 0;
    for (char c : keys) order_tag_ = mix64(order_tag_ ^ static_cast<unsigned char>(c));
    Partition all;
    all.items.resize(n_);
    std::iota(all.items.begin(), all.items.end(), std::uint32_t{0});
    all.live = n_;
    rank_.assign(n_, 0);
    assign_ranks(all.items);
    all.sections.resize(sec_.count);
    std::iota(all.sections.begin(), all.sections.end(), std::uint32_t{0});
    if (!room_above(all, 0)) return Outcome::infeasible;
    return split_and_solve(all, 0, -1);
  }

 private:
  struct Partition {
    // Every item of the part; the first `live` are the unplaced ones (expand
    // swaps an item it places behind them and back when it unplaces it, so
    // a node looks at the unplaced items only; their order does not matter:
    // candidates are sorted by (offset, rank) and ranks are distinct).
    std::vector<std::uint32_t> items;
    std::vector<std::uint32_t> sections;  // ascending
    std::size_t live = 0;
  };
  struct Candidate {
    Addr offset;
    std::uint32_t rank;
    std::uint32_t item;
    std::uint32_t pos;  // the item's position in its partition's items
  };
  struct Hardness {           // when a separation clique holds
    bool separation = false;  // always
    Weight weight = 0;        // or: when the budget is below this penalty weight
    [[nodiscard]] bool hard(Weight budget) const noexcept { return separation || weight > budget; }
  };
  struct Change {  // thr_/m_/term_[item] before a placement raised them
    std::uint32_t item;
    Addr thr, m;
    StateHash term;
  };

  void build_conflicts(const std::vector<Interval>& lifetimes) {
    std::vector<std::vector<std::uint32_t>> adj(n_);
    std::vector<std::uint32_t> order(n_);
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      return lifetimes[a].begin < lifetimes[b].begin || (lifetimes[a].begin == lifetimes[b].begin && a < b);
    });
    std::vector<std::uint32_t> live;
    for (std::uint32_t i : order) {
      std::erase_if(live, [&](std::uint32_t j) { return lifetimes[j].end <= lifetimes[i].begin; });
      for (std::uint32_t j : live) {
        adj[i].push_back(j);
        adj[j].push_back(i);
      }
      live.push_back(i);
    }
    for (std::uint32_t i = 0; i < n_; ++i)
      for (std::uint32_t j : sp_->separated[i]) adj[i].push_back(j);
    conf_begin_.assign(n_ + 1, 0);
    for (std::uint32_t i = 0; i < n_; ++i) {
      std::sort(adj[i].begin(), adj[i].end());
      conf_begin_[i + 1] = conf_begin_[i] + static_cast<std::uint32_t>(adj[i].size());
    }
    conf_.reserve(conf_begin_[n_]);
    for (auto& a : adj) conf_.insert(conf_.end(), a.begin(), a.end());
  }

  /// twin_prev_[j]: the previous (by index) buffer identical to j -- same
  /// size, alignment and lifetime, the same separation partners and the same
  /// penalty partners with the same weights (each other aside) -- or none32.
  /// Swapping two such buffers maps every placement to one of the same cost.
  void find_twins() {
    twin_prev_.assign(n_, none32);
    // Separation and penalty partners of i, sorted: (partner, separated, weight).
    auto links = [&](std::uint32_t i) {
      std::vector<std::tuple<std::uint32_t, bool, Weight>> l;
      for (std::uint32_t j : sp_->separated[i]) l.emplace_back(j, true, 0);
      for (std::uint32_t e = pen_begin_[i]; e < pen_begin_[i + 1]; ++e)
        l.emplace_back(pen_[e].other, false, pen_[e].weight);
      std::sort(l.begin(), l.end());
      return l;
    };
    std::vector<std::uint32_t> order(n_);
    std::iota(order.begin(), order.end(), std::uint32_t{0});
    auto key = [&](std::uint32_t i) {
      return std::tuple(sp_->items[i].lifetime.begin, sp_->items[i].lifetime.end, size_[i], align_[i]);
    };
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return key(a) != key(b) ? key(a) < key(b) : a < b; });
    auto same_links = [&](std::uint32_t a, std::uint32_t b) {
      if (!sp_->blocked.empty() && sp_->blocked[a] != sp_->blocked[b]) return false;
      if (sp_->separated[a].empty() && sp_->separated[b].empty() && pen_begin_[a] == pen_begin_[a + 1] &&
          pen_begin_[b] == pen_begin_[b + 1])
        return true;
      auto la = links(a), lb = links(b);
      // A link between a and b themselves maps to itself under the swap.
      std::erase_if(la, [&](const auto& l) { return std::get<0>(l) == b; });
      std::erase_if(lb, [&](const auto& l) { return std::get<0>(l) == a; });
      return la == lb;
    };
    // Within a run of equal keys, each buffer is the twin of the closest
    // earlier one with the same links (twin is an equivalence relation).
    for (std::size_t k = 0; k < order.size();) {
      std::size_t end = k + 1;
      while (end < order.size() && key(order[end]) == key(order[k])) ++end;
      for (std::size_t x = k + 1; x < end; ++x)
        for (std::size_t y = x; y-- > k;)
          if (same_links(order[y], order[x])) {
            twin_prev_[order[x]] = order[y];
            break;
          }
      k = end;
    }
  }

  /// Separation cliques. Two buffers u, v that must not overlap in bytes
  /// although their lifetimes are disjoint (a hard separation, or a penalty
  /// pair heavier than a run's budget), together with every buffer live
  /// across the gap between them (those interfere with both and with each
  /// other: they are all live at u's last instant), are pairwise in conflict.
  /// So, exactly like a time section, all of their unplaced bytes must fit
  /// above the lowest offset any of them can take -- a bound the sections
  /// alone miss. The buffers live across the gap are the common members of
  /// u's last section and v's first one.
  void find_cliques() {
    std::map<std::vector<std::uint32_t>, Hardness> found;
    auto add = [&](std::uint32_t u, std::uint32_t v, Hardness h) {
      if (sp_->items[v].lifetime.begin < sp_->items[u].lifetime.begin) std::swap(u, v);
      std::vector<std::uint32_t> a(sec_.members[sec_.last[u] - 1]), b(sec_.members[sec_.first[v]]);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      std::vector<std::uint32_t> k;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(k));
      std::erase_if(k, [&](std::uint32_t x) { return x == u || x == v; });
      k.push_back(u);
      k.push_back(v);
      std::sort(k.begin(), k.end());
      auto& slot = found[std::move(k)];
      slot.separation = slot.separation || h.separation;
      slot.weight = std::max(slot.weight, h.weight);
    };
    std::size_t work = 0;  // bounded: a part with very many separations keeps the first cliques
    for (std::uint32_t u = 0; u < n_ && work < clique_work_limit; ++u) {
      for (std::uint32_t v : sp_->separated[u])
        if (u < v) {
          add(u, v, {true, 0});
          work += sec_.members[sec_.last[u] - 1].size() + sec_.members[sec_.first[v]].size();
        }
      for (std::uint32_t e = pen_begin_[u]; e < pen_begin_[u + 1]; ++e)
        if (u < pen_[e].other) {
          add(u, pen_[e].other, {false, pen_[e].weight});
          work += sec_.members[sec_.last[u] - 1].size() + sec_.members[sec_.first[pen_[e].other]].size();
        }
    }
    clique_of_begin_.assign(n_ + 1, 0);
    std::vector<std::vector<std::uint32_t>> of(n_);
    for (const auto& [members, h] : found) {
      const auto q = static_cast<std::uint32_t>(clique_hard_.size());
      clique_hard_.push_back(h);
      Addr total = 0;
      for (std::uint32_t i : members) {
        total = saturating_add(total, size_[i]);
        of[i].push_back(sec_.count + q);
      }
      init_total_.push_back(total);
      mem_.insert(mem_.end(), members.begin(), members.end());
      mem_begin_.push_back(static_cast<std::uint32_t>(mem_.size()));
    }
    for (std::uint32_t i = 0; i < n_; ++i) {
      clique_of_begin_[i + 1] = clique_of_begin_[i] + static_cast<std::uint32_t>(of[i].size());
      clique_of_.insert(clique_of_.end(), of[i].begin(), of[i].end());
    }
  }

  /// Ranks `items` (unplaced, one piece) by the static order, with each
  /// item's T taken from the current section totals.
  void assign_ranks(const std::vector<std::uint32_t>& items) {
    if (live_features_.size() != n_) live_features_ = features_;
    for (std::uint32_t i : items) {
      Addr t = 0;
      for (std::uint32_t k = sec_.first[i]; k < sec_.last[i]; ++k) t = std::max(t, total_[k]);
      live_features_[i].total = t;
    }
    std::vector<std::uint32_t> order = items;
    order_items(order, live_features_, keys_);
    for (std::uint32_t k = 0; k < order.size(); ++k) rank_[order[k]] = k;
  }

  /// The failure memo's term of unplaced buffer i (its lowest offset now):
  /// state_term(1, i, m_[i]), from the item's precomputed first half. term_
  /// keeps it per item, updated with m_.
  [[nodiscard]] StateHash term(std::uint32_t i) const noexcept {
    return state_term_from(item_hash_[i], m_[i]);
  }
  [[nodiscard]] StateHash memo_key() const noexcept {
    StateHash k = zob_;
    k.add(ctx_);
    return k;
  }

  /// Does i conflict with, or share a penalty with, an unplaced buffer?
  /// (Asked once per candidate; cheaper than keeping counts up to date.)
  [[nodiscard]] bool touches_unplaced(std::uint32_t i) const noexcept {
    for (std::uint32_t e = conf_begin_[i]; e < conf_begin_[i + 1]; ++e)
      if (off_[conf_[e]] == none) return true;
    for (std::uint32_t e = pen_begin_[i]; e < pen_begin_[i + 1]; ++e)
      if (off_[pen_[e].other] == none) return true;
    return false;
  }

  [[nodiscard]] Addr end_of(std::uint32_t i) const noexcept { return off_[i] + size_[i]; }

  /// The lowest offset at or above h where item i fits: aligned, under the
  /// capacity, clear of the reserved windows and of its blocked ranges (a
  /// window search's fixed buffers, window_lns.hpp; none for a whole part).
  [[nodiscard, gnu::always_inline]] Addr fit(std::uint32_t i, Addr h) const noexcept {
    if (plain_ && align_[i] == 1) return h <= cap_ && size_[i] <= cap_ - h ? h : none;
    return fit_general(i, h);
  }
  [[nodiscard]] Addr fit_general(std::uint32_t i, Addr h) const noexcept {
    Addr x = space_.lowest_fit_or_max(h, size_[i], align_[i]);
    if (sp_->blocked.empty()) return x;
    const auto& bl = sp_->blocked[i];
    while (x != none && !bl.empty()) {
      auto it =
          std::upper_bound(bl.begin(), bl.end(), x, [](Addr v, const AddrRange& r) { return v < r.end; });
      if (it == bl.end() || it->begin >= x + size_[i]) return x;
      x = space_.lowest_fit_or_max(it->end, size_[i], align_[i]);
    }
    return x;
  }

  /// usable bytes above `h` hold `bytes`?
  [[nodiscard]] bool room(Addr h, Addr bytes) const noexcept {
    if (h == none) return false;
    if (!space_.has_windows()) return h <= cap_ && bytes <= cap_ - h;
    return bytes <= space_.usable_above(h);
  }

  /// Every unplaced buffer goes at or above the offset x of the current
  /// key, so each section's unplaced bytes must fit above x.
  [[nodiscard]] bool room_above(const Partition& part, Addr x) const noexcept {
    for (std::uint32_t k : part.sections)
      if (total_[k] != 0 && !room(x, total_[k])) return false;
    return true;
  }

  // Section inference, the second half: the unplaced buffers of section k
  // pairwise interfere and each sits at or above its lowest offset m, so all
  // of them fit above the lowest m of the section: "some unplaced member w has
  // room(m(w), total)". Like a watched literal, each section keeps one such
  // witness; only when the witness rises or is placed is the section looked
  // at again (and a new witness sought). A stale witness after backtracking
  // can only make a check weaker, never wrong.
  [[nodiscard]] bool witnesses(std::uint32_t w, std::uint32_t k) const noexcept {
    return off_[w] == none && room(m_[w], total_[k]);
  }
  /// Makes sure section k has a witness; false when none exists (prune). A
  /// failed search leaves the old witness in place: once the search backs
  /// up, that one is valid again.
  bool rewatch(std::uint32_t k) {
    if (total_[k] == 0 || !active_[k]) return true;
    if (watch_[k] != none32 && witnesses(watch_[k], k)) return true;
    if (!space_.has_windows()) {  // the same scan, with room() reduced to one comparison
      if (total_[k] > cap_) return false;
      const Addr limit = cap_ - total_[k];
      for (std::uint32_t e = mem_begin_[k]; e < mem_begin_[k + 1]; ++e) {
        const std::uint32_t w = mem_[e];
        if (m_[w] > limit || off_[w] != none) continue;
        watch_[k] = w;
        watching_[w].push_back(k);
        return true;
      }
      return false;
    }
    for (std::uint32_t e = mem_begin_[k]; e < mem_begin_[k + 1]; ++e) {
      const std::uint32_t w = mem_[e];
      if (!witnesses(w, k)) continue;
      watch_[k] = w;
      watching_[w].push_back(k);
      return true;
    }
    return false;
  }
  /// Item i rose or was placed: re-check the sections it watches.
  bool recheck_watched(std::uint32_t i) {
    auto& list = watching_[i];
    bool ok = true;
    std::size_t keep = 0;
    for (std::size_t e = 0; e < list.size(); ++e) {
      const std::uint32_t k = list[e];
      if (watch_[k] != i) continue;  // stale entry: the section moved on
      if (ok && !rewatch(k)) ok = false;
      if (watch_[k] == i) list[keep++] = k;
    }
    list.resize(keep);
    return ok;
  }

  /// Offsets b may take now (see the header); ascending, deduplicated.
  /// Returns the lowest offset clear of every placed penalty partner (or none).
  Addr options(std::uint32_t b, std::vector<Addr>& out) const {
    out.clear();
    out.push_back(m_[b]);
    Addr all = thr_[b];
    for (std::uint32_t e = pen_begin_[b]; e < pen_begin_[b + 1]; ++e) {
      const std::uint32_t c = pen_[e].other;
      if (off_[c] == none || end_of(c) <= thr_[b]) continue;
      all = std::max(all, end_of(c));
      if (const Addr x = fit(b, end_of(c)); x != none) out.push_back(x);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return all == thr_[b] ? m_[b] : fit(b, all);
  }

  /// Places b at x. Returns false when the section inference fails (the
  /// state is updated anyway; unplace restores it). `cut` tells whether a
  /// time cut opened (no unplaced buffer crosses some section boundary now).
  bool place(std::uint32_t b, Addr x, bool& cut) {
    zob_.sub(term_[b]);  // b leaves the state (the caller restores zob_)
    off_[b] = x;
    const Addr h = x + size_[b];
    for (std::uint32_t e = pen_begin_[b]; e < pen_begin_[b + 1]; ++e) {
      const std::uint32_t c = pen_[e].other;
      if (off_[c] != none && x < end_of(c) && off_[c] < h) paid_ = saturating_add(paid_, pen_[e].weight);
    }
    for (std::uint32_t k = sec_.first[b]; k < sec_.last[b]; ++k) total_[k] -= size_[b];
    for (std::uint32_t e = clique_of_begin_[b]; e < clique_of_begin_[b + 1]; ++e)
      total_[clique_of_[e]] -= size_[b];
    cut = false;
    for (std::uint32_t k = sec_.first[b]; k + 1 < sec_.last[b]; ++k)
      if (--cut_[k] == 0) cut = true;
    bool ok = recheck_watched(b);
    for (std::uint32_t e = conf_begin_[b]; e < conf_begin_[b + 1]; ++e) lift(conf_[e], h, ok);
    // Penalty partners heavier than the budget are kept apart like separations.
    for (std::uint32_t e = pen_begin_[b]; e < pen_begin_[b + 1]; ++e)
      if (pen_[e].weight > pbudget_) lift(pen_[e].other, h, ok);
    return ok;
  }

  /// An unplaced buffer v kept apart from one just placed below h now lies
  /// above h: its lowest offset, memo term and witnesses follow (the trail
  /// restores them); `ok` turns false when a witness fails. Inlined by
  /// force: left to itself g++ calls it, which cost 13 % more instructions
  /// on minimalloc B.
  [[gnu::always_inline]] void lift(std::uint32_t v, Addr h, bool& ok) {
    if (off_[v] != none || thr_[v] >= h) return;
    trail_.push_back({v, thr_[v], m_[v], term_[v]});
    thr_[v] = h;
    const Addr old = m_[v];
    m_[v] = fit(v, h);
    if (m_[v] != old) {
      zob_.sub(term_[v]);
      term_[v] = term(v);
      zob_.add(term_[v]);
      if (ok) ok = recheck_watched(v);
    }
  }

  void unplace(std::uint32_t b, std::size_t mark, Weight paid) {
    while (trail_.size() > mark) {
      const Change& c = trail_.back();
      thr_[c.item] = c.thr;
      m_[c.item] = c.m;
      term_[c.item] = c.term;
      trail_.pop_back();
    }
    // b's sections hold more again: their witnesses may no longer do.
    for (std::uint32_t k = sec_.first[b]; k < sec_.last[b]; ++k) total_[k] += size_[b];
    for (std::uint32_t e = clique_of_begin_[b]; e < clique_of_begin_[b + 1]; ++e)
      total_[clique_of_[e]] += size_[b];
    off_[b] = none;
    for (std::uint32_t k = sec_.first[b]; k < sec_.last[b]; ++k) (void)rewatch(k);
    for (std::uint32_t e = clique_of_begin_[b]; e < clique_of_begin_[b + 1]; ++e)
      (void)rewatch(clique_of_[e]);
    for (std::uint32_t k = sec_.first[b]; k + 1 < sec_.last[b]; ++k) ++cut_[k];
    paid_ = paid;
    off_[b] = none;
  }

  void record(const Partition& part) {
    for (std::uint32_t i : part.items)
      if (off_[i] != none) sol_[i] = off_[i];
  }

  /// Splits `part` at open time cuts and solves the pieces one by one; with a
  /// single piece it simply continues the search below the key (x, r).
  Outcome split_and_solve(Partition& part, Addr x, std::int64_t r) {
    // Runs of consecutive sections with a positive cut between them.
    std::vector<std::uint32_t> run_of_section;  // parallel to part.sections
    run_of_section.reserve(part.sections.size());
    std::uint32_t runs = 0;
    for (std::size_t s = 0; s < part.sections.size(); ++s) {
      const std::uint32_t k = part.sections[s];
      if (s > 0) {
        const std::uint32_t prev = part.sections[s - 1];
        if (prev + 1 != k || cut_[prev] == 0) ++runs;
      }
      run_of_section.push_back(runs);
    }
    ++runs;
    auto run_of = [&](std::uint32_t i) {
      const auto pos =
          std::lower_bound(part.sections.begin(), part.sections.end(), sec_.first[i]) - part.sections.begin();
      return run_of_section[static_cast<std::size_t>(pos)];
    };
    detail::UnionFind uf(runs);
    // The unplaced items in index order (expand permutes part.items), so
    // that the pieces and their items come in the same order every time.
    std::vector<std::uint32_t> unplaced(part.items.begin(),
                                        part.items.begin() + static_cast<std::ptrdiff_t>(part.live));
    std::sort(unplaced.begin(), unplaced.end());
    const bool any_unplaced = !unplaced.empty();
    for (std::uint32_t i : unplaced) {
      for (std::uint32_t j : sp_->separated[i])
        if (off_[j] == none) uf.unite(run_of(i), run_of(j));
      for (std::uint32_t e = pen_begin_[i]; e < pen_begin_[i + 1]; ++e)
        if (off_[pen_[e].other] == none) uf.unite(run_of(i), run_of(pen_[e].other));
    }
    if (!any_unplaced) {
      record(part);
      return Outcome::found;
    }
    std::vector<std::uint32_t> group(runs, UINT32_MAX);
    std::vector<Partition> pieces;
    for (std::uint32_t i : unplaced) {
      const auto g = uf.find(run_of(i));
      if (group[g] == UINT32_MAX) {
        group[g] = static_cast<std::uint32_t>(pieces.size());
        pieces.emplace_back();
      }
      pieces[group[g]].items.push_back(i);
    }
    for (auto& piece : pieces) piece.live = piece.items.size();
    if (pieces.size() == 1) return search(part, x, r);
    // Pieces share the penalty budget: they are independent only when at
    // most one of them can still pay (has an unplaced buffer with a soft
    // penalty link, to a placed buffer or within the piece).
    if (soft_) {
      std::size_t paying = 0;
      for (const auto& piece : pieces) {
        const bool pays = std::any_of(piece.items.begin(), piece.items.end(), [&](std::uint32_t i) {
          for (std::uint32_t e = pen_begin_[i]; e < pen_begin_[i + 1]; ++e)
            if (pen_[e].weight <= pbudget_) return true;
          return false;
        });
        if (pays && ++paying > 1) return search(part, x, r);
      }
    }
    for (std::size_t s = 0; s < part.sections.size(); ++s) {
      const auto g = group[uf.find(run_of_section[s])];
      if (g != UINT32_MAX) pieces[g].sections.push_back(part.sections[s]);
    }
    record(part);  // the placed buffers of `part` stay where they are below every piece
    for (auto& piece : pieces) {
      // Each piece is a fresh complete search with its own order, taken with
      // the section totals as they are now (MiniMalloc does the same).
      std::vector<std::uint32_t> saved(piece.items.size());
      for (std::size_t k = 0; k < piece.items.size(); ++k) saved[k] = rank_[piece.items[k]];
      assign_ranks(piece.items);
      // The piece's context: its buffers (they fix its ranks and sections).
      const StateHash outer = ctx_;
      ctx_ = run_ctx_;
      for (std::uint32_t i : piece.items) ctx_.add(state_term(3, i, 0));
      const Outcome o = search(piece, 0, -1);
      ctx_ = outer;
      for (std::size_t k = 0; k < piece.items.size(); ++k) rank_[piece.items[k]] = saved[k];
      if (o != Outcome::found) return o;
    }
    return Outcome::found;
  }

  Outcome search(Partition& part, Addr last_x, std::int64_t last_r) {
    if (!budget_->spend()) return Outcome::aborted;
    if (!use_memo_) return expand(part, last_x, last_r);
    const StateHash key = memo_key();
    if (memo_.failed(key, last_x, last_r, order_tag_)) {
      ++memo_hits_;
      return Outcome::infeasible;
    }
    const Outcome o = expand(part, last_x, last_r);
    if (o == Outcome::infeasible) memo_.store(key, last_x, last_r, order_tag_);
    return o;
  }

  /// One node of the search below the key (last_x, last_r).
  Outcome expand(Partition& part, Addr last_x, std::int64_t last_r) {
    const auto& rank = rank_;
    auto after_last = [&](Addr x, std::uint32_t r) {
      return x > last_x || (x == last_x && static_cast<std::int64_t>(r) > last_r);
    };
    // Pass 1: dead buffers and the dominance height.
    Addr min_height = none;
    std::vector<Addr>& opts = opts_;
    const std::size_t live = part.live;
    const std::uint32_t* items = part.items.data();
    for (std::size_t p = 0; p < live; ++p) {
      const std::uint32_t i = items[p];
      if (m_[i] == none) return Outcome::infeasible;
      Addr full = m_[i];
      if (pen_begin_[i] != pen_begin_[i + 1]) full = options(i, opts);
      if (full != none) min_height = std::min(min_height, full + size_[i]);
    }
    if (live == 0) {
      record(part);
      return Outcome::found;
    }
    // Every unplaced buffer goes at or above the next offset x, so x leaves
    // room for the fullest section: x <= C - max total (in usable bytes).
    Addr x_max = 0;
    {
      Addr fullest = 0;
      for (std::uint32_t k : part.sections) fullest = std::max(fullest, total_[k]);
      if (!space_.has_windows()) {
        if (fullest > cap_) return Outcome::infeasible;
        x_max = cap_ - fullest;
      } else {
        x_max = none;  // checked per candidate below (usable bytes depend on x)
      }
    }
    // Pass 2: candidates (offset, rank, item) after the last key, below the
    // dominance height; stuck buffers end the branch.
    const std::size_t base = cands_.size();
    for (std::size_t p = 0; p < live; ++p) {
      const std::uint32_t i = items[p];
      // Identical buffers are placed in index order (a swap maps any
      // placement to one that is), so a twin waits for its predecessor.
      if (twin_prev_[i] != none32 && off_[twin_prev_[i]] == none) continue;
      bool later = false;
      auto offer = [&](Addr x) {
        if (!after_last(x, rank[i])) return;
        later = true;
        if (x < min_height && x <= x_max) cands_.push_back({x, rank[i], i, static_cast<std::uint32_t>(p)});
      };
      if (pen_begin_[i] == pen_begin_[i + 1])
        offer(m_[i]);
      else {
        options(i, opts);
        for (Addr x : opts) offer(x);
      }
      if (!later && !touches_unplaced(i)) {
        cands_.resize(base);
        return Outcome::infeasible;
      }
    }
    std::sort(cands_.begin() + static_cast<std::ptrdiff_t>(base), cands_.end(),
              [](const Candidate& a, const Candidate& b) {
                return a.offset != b.offset ? a.offset < b.offset : a.rank < b.rank;
              });
    Outcome result = Outcome::infeasible;
    for (std::size_t c = base; c < cands_.size(); ++c) {
      const Candidate cand = cands_[c];  // copy: the recursion grows cands_
      // With windows the room above x is checked here; it only shrinks as x grows.
      if (x_max == none && !room_above(part, cand.offset)) break;
      const std::uint32_t b = cand.item;
      const std::size_t mark = trail_.size();
      const Weight paid = paid_;
      const bool hatless = !touches_unplaced(b);
      const StateHash zob = zob_;
      bool cut = false;
      // b leaves the live items (back at the same position below).
      std::swap(part.items[cand.pos], part.items[--part.live]);
      const bool ok = place(b, cand.offset, cut);
      Outcome o = Outcome::infeasible;
      if (ok && paid_ <= pbudget_)
        o = cut ? split_and_solve(part, cand.offset, cand.rank) : search(part, cand.offset, cand.rank);
      const bool paid_nothing = paid_ == paid;
      unplace(b, mark, paid);
      std::swap(part.items[cand.pos], part.items[part.live++]);
      zob_ = zob;
      if (o != Outcome::infeasible) {
        result = o;
        break;
      }
      if (hatless && paid_nothing) break;
    }
    cands_.resize(base);
    return result;
  }

  const Subproblem* sp_;
  std::uint32_t n_;
  FailureMemo memo_;  // kept across runs: its keys name the run
  bool use_memo_ = true;
  StateHash zob_, ctx_, run_ctx_;  // the unplaced buffers' terms; the piece's and the run's context
  std::uint64_t order_tag_ = 0;    // the run's static order
  std::uint64_t memo_hits_ = 0;
  Sections sec_;
  std::vector<Addr> size_, align_;
  std::vector<std::uint32_t> conf_begin_, conf_;
  std::vector<std::uint32_t> pen_begin_;
  std::vector<PenaltyLink> pen_;
  std::vector<Hardness> clique_hard_;                       // per separation clique
  std::vector<std::uint32_t> clique_of_begin_, clique_of_;  // per item: its cliques (group indices)
  static constexpr std::size_t clique_work_limit = 20'000'000;
  std::vector<ItemFeatures> features_;
  std::vector<std::uint32_t> twin_prev_;
  std::vector<Addr> init_total_;
  std::vector<std::uint32_t> mem_begin_, mem_;  // section members, flat

  // Per run.
  FreeSpace space_;
  Addr cap_ = 0;
  bool plain_ = false;  // no reserved windows and no blocked ranges: fit() is one comparison for alignment 1
  Budget* budget_ = nullptr;
  std::string_view keys_;
  std::vector<std::uint32_t> rank_;          // static rank of each item in its current piece
  std::vector<ItemFeatures> live_features_;  // features_ with current section totals
  Weight pbudget_ = 0, paid_ = 0;
  bool soft_ = false;                 // some penalty pair weighs no more than the budget
  std::vector<std::uint8_t> active_;  // per group (sections, then cliques): bound in use this run
  std::vector<Addr> off_, thr_, m_, sol_;
  std::vector<std::uint64_t> item_hash_;  // per item: the first half of its memo terms
  std::vector<StateHash> term_;           // per item: term(i) for the current m_[i]
  std::vector<Addr> total_;               // per group (sections, then cliques): unplaced bytes
  std::vector<std::uint32_t> cut_;
  std::vector<std::uint32_t> watch_;                  // per section: its witness (or none32)
  std::vector<std::vector<std::uint32_t>> watching_;  // per item: sections it (may) watch
  std::vector<Change> trail_;
  std::vector<Candidate> cands_;
  std::vector<Addr> opts_;
};

}  // namespace pto_mem::exact
