// A second complete search for "does the part fit under capacity C?" that
// branches on *which buffer covers a given free byte* rather than on the
// next canonical offset: the exact-cover view of a placement. At every time
// section (a maximal set of buffers live together, sections.hpp) each byte
// of [0, C) is covered by a live buffer, by a reserved window, or is *waste*.
// A node is a partial placement plus the waste declared so far. It is made
// for tight parts (little slack in most sections, e.g. perfect packings),
// where it needs far fewer nodes than the canonical search; on parts with
// much slack its waste branches make it slow, so the part solver runs it
// only on tight parts (part_solver.hpp).
//
// Slots. A *bottom slot* of section k is the lowest byte f of a maximal run
// of uncovered bytes (a gap) [f, t); a *top slot* is its highest byte t - 1,
// used only when section k has no slack left. In every completion:
//   bottom: byte f is covered by an unplaced member b of k that starts
//     exactly at f (starting lower it would cover byte f - 1, which is
//     covered, or f = 0), or byte f is waste;
//   top: byte t - 1 is covered by a member that ends exactly at t (ending
//     higher it would cover byte t, covered, or pass C); it cannot be waste.
// So the children of a node are the members that fit there (aligned, under
// C, uncovered in every section they live in, clear of placed separation
// partners) and, for a bottom slot with slack left, "waste": then no member
// can start anywhere in (f, f'), f' the least of the next covered byte above
// f and, per unplaced member, its lowest fitting start above f in section k
// alone (covering more later only makes starts rarer), so [f, f') is
// declared waste at once. The branching is exhaustive: a run that ends
// without a fit proves that none exists under C. No canonical-offset
// argument is needed, except for one restriction: some fitting placement
// (the canonical one of search.hpp) has every offset a multiple of the
// granule g (subproblem.hpp), so only such offsets are tried.
//
// Which slot. Any slot gives a complete branching. The unplaced buffers
// fall into *time components* -- runs of sections joined by unplaced
// buffers live on both sides of a boundary (a part with separations is one)
// -- that share no unplaced buffer and no section, so the part completes
// exactly when each component does on its own. The slot with the fewest
// children in the component the parent branched in is taken (ties: the
// lowest byte, then the earliest section), so a component is placed before
// the search moves on; a slot with no children anywhere is taken first (it
// fails the node). Children are counted lazily, as SAT solvers watch
// literals: each slot watches up to four fitting candidates; a placement
// re-examines only the slots watching a buffer it conflicts with and
// overlaps. A count can be too low after a backtrack (it is recounted
// before it is used), never too high. A placement changes only the slots
// at the edges of the gap it fills; the others keep their watches, and the
// undo revives or drops exactly those (split_slots, join_slots).
//
// Pruning, each with its proof:
//  * waste budget: the usable bytes of section k hold its members' bytes
//    plus its waste, so the waste declared in k never exceeds slack(k) =
//    usable(C) - (bytes of k's members);
//  * conflict-directed back-jumping: a failed node returns the set E of
//    decisions its failure depends on, and E is a nogood -- no placement
//    containing those decisions completes. For a slot with no children: the
//    decision covering the byte beside it, the decisions that placed the
//    other members of its section or block each unplaced one (one blocker
//    each), and, without slack, the waste decisions of the section: with
//    those in place the slot's byte stays uncovered in every completion (a
//    buffer starting lower overlaps the neighbour, one starting there is
//    placed or blocked, waste is out). A node's E is the union of its
//    children's E minus the child's own decision, plus its slot's reason
//    (and, for the waste child, every decision touching the section, which
//    fixed how far the waste reached). When a child's E does not contain the
//    child's decision, the node fails with that E at once: the other
//    children share everything in it.
//  * failure memo, per time component: a component's completions depend
//    only on the covered bytes of its sections and its unplaced buffers
//    (and the offsets of placed buffers with separation partners; those
//    parts are one component). Its key is a 128-bit hash (XOR of one term
//    per covered-range boundary of its sections, per unplaced buffer, and
//    the span and capacity) in failure_memo.hpp's table; a wrong hit needs
//    a 128-bit collision. A node stores the key of its slot's component
//    only when it failed by trying every child (not by a jump). Proof that
//    the component alone then has no completion: below the node the search
//    branches in that component while it has open slots (a placement that
//    splits it may let another component come before the rest of it). A
//    failure in another component G has E made of decisions covering bytes
//    of G's sections (the byte beside the slot, G's placed members, the
//    blockers of G's unplaced members, which live in G's sections only,
//    G's waste, a hit's reason below), and no decision of this component
//    covers a byte there; so the failure jumps past the node. A node that
//    tried every child saw only failures inside its component: its subtree
//    is a complete search of the component alone. A hit's E is every
//    decision that covered bytes of the component's sections: with those,
//    its covered bytes and unplaced buffers are as stored. The memo holds
//    across the runs of one capacity, since a failed component fails
//    whatever the order.
// Order of the children: first those whose lifetime shares its edges with
// the buffer beside the slot (stacked pieces of one block do) or that meet a
// placed buffer of their size at their offset end to end in time (a block
// cut in time), then (when larger_first_) the larger, then a static order
// (preorder.hpp). Runs are restarted with
// perturbed orders by the part solver; the memo makes restarts cheap.
// Parts with penalties are not searched here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string_view>
#include <vector>

#include "pto_mem/algorithms/exact/budget.hpp"
#include "pto_mem/algorithms/exact/failure_memo.hpp"
#include "pto_mem/algorithms/exact/free_space.hpp"
#include "pto_mem/algorithms/exact/preorder.hpp"
#include "pto_mem/algorithms/exact/sections.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"

namespace pto_mem::exact {

class FloorSearch {
 public:
  static constexpr Addr none = max_addr;

  explicit FloorSearch(const Subproblem& sp)
      : sp_(&sp), n_(static_cast<std::uint32_t>(sp.items.size())), memo_(sp.items.size()) {
    std::vector<Interval> lifetimes(n_);
    for (std::uint32_t i = 0; i < n_; ++i) lifetimes[i] = sp.items[i].lifetime;
    sec_ = sweep_sections(lifetimes, true);
    size_.resize(n_);
    align_.resize(n_);
    // Some placement that fits has every offset a multiple of the granule
    // (the canonical one, part_solver.hpp), so the offsets tried are too:
    // multiples of lcm(alignment, granule) = the larger of the two.
    const Addr g = granule_ = granule(sp);
    for (std::uint32_t i = 0; i < n_; ++i) {
      size_[i] = sp.items[i].size;
      align_[i] = std::max(sp.items[i].alignment, g);
    }
    load_.assign(sec_.count, 0);
    for (std::uint32_t k = 0; k < sec_.count; ++k)
      for (std::uint32_t i : sec_.members[k]) load_[k] = saturating_add(load_[k], size_[i]);
    // Conflicts: buffers sharing a section, and separation partners.
    std::vector<std::uint32_t> seen(n_, UINT32_MAX);
    conf_begin_.assign(n_ + 1, 0);
    for (std::uint32_t i = 0; i < n_; ++i) {
      seen[i] = i;
      for (std::uint32_t k = sec_.first[i]; k < sec_.last[i]; ++k)
        for (std::uint32_t j : sec_.members[k])
          if (seen[j] != i) {
            seen[j] = i;
            conf_.push_back(j);
          }
      for (std::uint32_t j : sp.separated[i])
        if (seen[j] != i) {
          seen[j] = i;
          conf_.push_back(j);
        }
      conf_begin_[i + 1] = static_cast<std::uint32_t>(conf_.size());
    }
    std::vector<std::uint64_t> degree(n_);
    for (std::uint32_t i = 0; i < n_; ++i) degree[i] = conf_begin_[i + 1] - conf_begin_[i];
    features_ = item_features(sp, sec_, degree);
    for (std::uint32_t i = 0; i < n_; ++i) has_sep_ = has_sep_ || !sp.separated[i].empty();
    item_term_.resize(n_);
    for (std::uint32_t i = 0; i < n_; ++i) item_term_[i] = state_term(11, i, 0);
  }

  [[nodiscard]] const std::vector<Addr>& solution() const noexcept { return sol_; }
  [[nodiscard]] const std::vector<ItemFeatures>& features() const noexcept { return features_; }
  [[nodiscard]] std::uint64_t memo_hits() const noexcept { return memo_hits_; }
  /// Forgets what the failure memo learned (its contents depended on timing).
  void forget() noexcept { memo_.clear(); }
  [[nodiscard]] FailureMemo& failure_memo() noexcept { return memo_; }
  [[nodiscard]] std::uint32_t section_count() const noexcept { return sec_.count; }
  /// Sections with less than a granule of slack under `capacity`.
  [[nodiscard]] std::uint32_t tight_sections(Addr capacity) const {
    const Addr usable = sp_->space.with_capacity(capacity).usable_above(0);
    std::uint32_t n = 0;
    for (std::uint32_t k = 0; k < sec_.count; ++k) n += load_[k] + granule_ > usable ? 1 : 0;
    return n;
  }
  [[nodiscard]] std::uint64_t jumps() const noexcept { return jumps_; }
  /// Nodes whose slot lay in a time component smaller than the part.
  [[nodiscard]] std::uint64_t split_nodes() const noexcept { return split_nodes_; }
  /// Turns the failure memo on or off for later runs (the property tests compare both).
  void use_failure_memo(bool on) noexcept { use_memo_ = on; }

  /// One complete run under `capacity`, candidates tried in the static order
  /// `keys` (preorder.hpp). found / infeasible (proved) / aborted.
  [[nodiscard]] Outcome run(Addr capacity, std::string_view keys, Budget& budget) {
    return run(capacity, preorder_ranks(features_, keys), budget);
  }
  /// The same with explicit ranks (rank[i]: buffer i's place in the order).
  [[nodiscard]] Outcome run(Addr capacity, std::vector<std::uint32_t> rank, Budget& budget) {
    cap_ = capacity;
    budget_ = &budget;
    rank_ = std::move(rank);
    off_.assign(n_, none);
    level_.assign(n_, fixed);
    sol_.assign(n_, none);
    stack_.clear();
    placed_ = 0;
    const FreeSpace space = sp_->space.with_capacity(capacity);
    const Addr usable = space.usable_above(0);
    for (std::uint32_t i = 0; i < n_; ++i)
      if (space.lowest_fit_or_max(0, size_[i], align_[i]) == none) return Outcome::infeasible;
    cover_.assign(sec_.count, {});
    owners_.assign(sec_.count, {});
    waste_.assign(sec_.count, 0);
    slack_.assign(sec_.count, 0);
    left_.assign(sec_.count, 0);
    slots_.assign(sec_.count, {});
    gen_.assign(sec_.count, 0);
    best_.assign(sec_.count, Best{});
    watchers_.assign(n_, {});
    version_.assign(n_, 1);
    fit_memo_.assign(std::size_t{n_} * fit_ways, FitMemo{});
    for (std::uint32_t k = 0; k < sec_.count; ++k) {
      if (load_[k] > usable) return Outcome::infeasible;
      slack_[k] = usable - load_[k];
      left_[k] = static_cast<std::uint32_t>(sec_.members[k].size());
      for (const auto& w : space.windows())
        if (w.begin < capacity) cover_[k].push_back({w.begin, std::min(w.end, capacity)});
      cover_[k].push_back({capacity, none});  // nothing above the capacity
      merge_all(cover_[k]);
      for (const auto& r : cover_[k]) owners_[k].push_back({r.begin, r.end, fixed});
    }
    cap_term_ = state_term(12, capacity, 0);
    sep_hash_ = {};
    sec_hash_.assign(sec_.count, {});
    free_hash_.assign(sec_.count, {});
    cross_ = sec_.crossing;
    for (std::uint32_t i = 0; i < n_; ++i)
      free_hash_[sec_.first[i]] = xor_of(free_hash_[sec_.first[i]], item_term_[i]);
    for (std::uint32_t k = 0; k < sec_.count; ++k)
      for (const auto& r : cover_[k])
        sec_hash_[k] = xor_of(xor_of(sec_hash_[k], edge(k, r.begin)), edge(k, r.end));
    slot_undo_.clear();
    waste_undo_.clear();
    for (std::uint32_t k = 0; k < sec_.count; ++k) rebuild(k);
    frames_.clear();
    return search(0, 0, sec_.count);
  }

 private:
  static constexpr std::uint32_t fixed = UINT32_MAX;  // level of windows and the capacity
  static constexpr std::uint32_t none32 = UINT32_MAX;
  static constexpr std::uint32_t waste_option = UINT32_MAX - 1;  // a slot's "waste" candidate
  static constexpr std::uint8_t watch_max = 64;
  static constexpr std::uint8_t nothing = 255;

  /// The decisions a failure depends on: a set of levels (positions on the decision stack).
  using Why = std::vector<std::uint64_t>;
  struct Owner {  // a covered byte range of a section and the decision that covered it
    Addr a, b;
    std::uint32_t level;
  };
  struct Decision {
    std::uint32_t item;  // none32: waste
  };
  /// A byte to branch on in one section: the bottom byte `at` of a gap (a
  /// member starts there, or it is waste) or the top byte at - 1 (a member
  /// ends at `at`; kept only where no waste is left). Two candidates are
  /// watched; `count` (0, 1, 2 = two or more) may be too low after a
  /// backtrack (it is recounted before it is trusted), never too high.
  struct Slot {
    Addr at = 0;
    bool top = false;
    std::uint32_t w[watch_max];
    std::uint8_t count = 0;
    bool live = true;  // false: its byte is covered now (kept to be revived when that is undone)
  };
  /// How a placement changed the slots of one section: the slots it killed
  /// (the gap's bottom when the buffer starts there, its top when it ends
  /// there) and how many it appended (the new top below it, bottom above it).
  struct SlotUndo {
    std::uint32_t k, bottom, top;
    std::uint32_t added;
  };
  struct Best {
    std::uint32_t slot = none32;
    std::uint8_t count = nothing;  // the section has nothing to place
    Addr at = none;
  };
  struct Watch {
    std::uint32_t section, slot, gen;
  };
  struct FitMemo {
    Addr x = none;
    std::uint32_t version = 0;
    bool fits = false;
  };
  static constexpr std::uint32_t fit_ways = 4;
  struct Frame {  // per depth, reused
    Why why, acc, sub;
    std::vector<std::uint32_t> cands;
  };

  // ---- explanations ----
  void why_set(Why& w, std::uint32_t level) const {
    if (level == fixed) return;
    const std::size_t word = level / 64;
    if (w.size() <= word) w.resize(word + 1, 0);
    w[word] |= std::uint64_t{1} << (level % 64);
  }
  [[nodiscard]] static bool why_has(const Why& w, std::uint32_t level) {
    const std::size_t word = level / 64;
    return word < w.size() && ((w[word] >> (level % 64)) & 1u);
  }
  static void why_clear(Why& w, std::uint32_t level) {
    const std::size_t word = level / 64;
    if (word < w.size()) w[word] &= ~(std::uint64_t{1} << (level % 64));
  }
  static void why_or(Why& into, const Why& from) {
    if (into.size() < from.size()) into.resize(from.size(), 0);
    for (std::size_t k = 0; k < from.size(); ++k) into[k] |= from[k];
  }
  void why_all(Why& w) const {
    for (std::uint32_t l = 0; l < stack_.size(); ++l) why_set(w, l);
  }

  // ---- state hash ----
  static StateHash xor_of(StateHash a, const StateHash& b) noexcept {
    a.a ^= b.a;
    a.b ^= b.b;
    return a;
  }
  [[nodiscard]] static StateHash edge(std::uint32_t k, Addr x) noexcept { return state_term(13, k, x); }

  // ---- covered bytes per section ----
  static void merge_all(std::vector<AddrRange>& v) {
    std::sort(v.begin(), v.end());
    std::vector<AddrRange> out;
    for (const auto& r : v) {
      if (!out.empty() && r.begin <= out.back().end)
        out.back().end = std::max(out.back().end, r.end);
      else
        out.push_back(r);
    }
    v = std::move(out);
  }
  /// [x, x + s) is uncovered in section k.
  [[nodiscard]] bool is_free(std::uint32_t k, Addr x, Addr s) const noexcept {
    const auto& c = cover_[k];
    auto it = std::upper_bound(c.begin(), c.end(), x, [](Addr v, const AddrRange& r) { return v < r.end; });
    return it == c.end() || it->begin >= x + s;
  }
  void cover(std::uint32_t k, Addr a, Addr b, std::uint32_t level) {
    sec_hash_[k] = xor_of(xor_of(sec_hash_[k], edge(k, a)), edge(k, b));
    owners_[k].push_back({a, b, level});
    auto& c = cover_[k];
    auto it = std::lower_bound(c.begin(), c.end(), AddrRange{a, a});
    const bool join_prev = it != c.begin() && std::prev(it)->end == a;
    const bool join_next = it != c.end() && it->begin == b;
    if (join_prev && join_next) {
      std::prev(it)->end = it->end;
      c.erase(it);
    } else if (join_prev) {
      std::prev(it)->end = b;
    } else if (join_next) {
      it->begin = a;
    } else {
      c.insert(it, AddrRange{a, b});
    }
  }
  /// Undoes the last cover() of section k, [a, b).
  void uncover(std::uint32_t k, Addr a, Addr b) {
    sec_hash_[k] = xor_of(xor_of(sec_hash_[k], edge(k, a)), edge(k, b));
    owners_[k].pop_back();
    auto& c = cover_[k];
    auto it = std::upper_bound(c.begin(), c.end(), a, [](Addr v, const AddrRange& r) { return v < r.end; });
    const AddrRange r = *it;
    if (r.begin == a && r.end == b)
      c.erase(it);
    else if (r.begin == a)
      it->begin = b;
    else if (r.end == b)
      it->end = a;
    else {
      it->end = a;
      c.insert(std::next(it), AddrRange{b, r.end});
    }
  }

  // ---- candidates ----
  /// b can be placed at x now; section `first` is checked first (where it most often fails).
  [[nodiscard]] bool can_place(std::uint32_t b, Addr x, std::uint32_t first) const noexcept {
    if (x % align_[b] != 0 || x >= cap_ || size_[b] > cap_ - x) return false;
    if (!is_free(first, x, size_[b])) return false;
    for (std::uint32_t k = sec_.first[b]; k < sec_.last[b]; ++k)
      if (k != first && !is_free(k, x, size_[b])) return false;
    for (std::uint32_t j : sp_->separated[b])
      if (off_[j] != none && off_[j] < x + size_[b] && x < off_[j] + size_[j]) return false;
    return true;
  }
  [[nodiscard]] bool waste_left(std::uint32_t k) const noexcept { return waste_[k] < slack_[k]; }
  [[nodiscard]] static bool watches(const Slot& s, std::uint32_t c) noexcept {
    for (std::uint8_t e = 0; e < s.count; ++e)
      if (s.w[e] == c) return true;
    return false;
  }
  [[nodiscard]] Addr start_for(const Slot& s, std::uint32_t b) const noexcept {
    return s.top ? (size_[b] <= s.at ? s.at - size_[b] : none) : s.at;
  }
  [[nodiscard]] bool valid(std::uint32_t k, const Slot& s, std::uint32_t c) noexcept {
    if (c == waste_option) return !s.top && waste_left(k);
    if (off_[c] != none) return false;
    const Addr x = start_for(s, c);
    if (x == none) return false;
    // Whether c fits at x is the same question in every section c lives in:
    // answers are kept per buffer until something it conflicts with moves.
    FitMemo& m = fit_memo_[c * fit_ways + static_cast<std::uint32_t>((x * 0x9E3779B97F4A7C15ull) >> 62)];
    if (m.x == x && m.version == version_[c]) return m.fits;
    m = {x, version_[c], can_place(c, x, k)};
    return m.fits;
  }
  /// Finds up to two candidates of slot `i` of section k and watches them.
  void find_watches(std::uint32_t k, std::uint32_t i) {
    Slot& s = slots_[k][i];
    // A candidate the slot watched already has its record in watchers_
    // (records go only when the slot stops watching it).
    const std::uint8_t had = s.count;
    std::uint32_t old[watch_max];
    std::copy(s.w, s.w + had, old);
    s.count = 0;
    if (!s.top && waste_left(k)) s.w[s.count++] = waste_option;
    for (std::uint32_t c : sec_.members[k]) {
      if (s.count == watch_) break;
      if (valid(k, s, c)) {
        s.w[s.count++] = c;
        if (std::find(old, old + had, c) != old + had) continue;
        auto& list = watchers_[c];
        if (list.size() >= 16 && list.size() == list.capacity()) compact(c);
        list.push_back({k, i, gen_[k]});
      }
    }
  }
  void compact(std::uint32_t c) {
    auto& list = watchers_[c];
    std::erase_if(list, [&](const Watch& w) {
      if (w.gen != gen_[w.section] || w.slot >= slots_[w.section].size()) return true;
      return !watches(slots_[w.section][w.slot], c);
    });
    // One record per slot is enough (a slot revived or appended again may
    // have left a second one).
    std::sort(list.begin(), list.end(), [](const Watch& a, const Watch& b) {
      return a.section != b.section ? a.section < b.section : a.slot < b.slot;
    });
    list.erase(std::unique(
                   list.begin(), list.end(),
                   [](const Watch& a, const Watch& b) { return a.section == b.section && a.slot == b.slot; }),
               list.end());
  }
  void update_best(std::uint32_t k) {
    Best b;
    if (left_[k] != 0) {
      bool any = false;
      for (std::uint32_t i = 0; i < slots_[k].size(); ++i) {
        const Slot& s = slots_[k][i];
        if (!s.live) continue;
        any = true;
        if (s.count < b.count || (s.count == b.count && s.at < b.at)) b = {i, s.count, s.at};
      }
      if (!any) b = {none32, 0, 0};  // no free byte left for its members
    }
    best_[k] = b;
  }
  /// Section k's slots are found again (at the start, and when its waste
  /// budget changes: top slots exist only without waste left).
  void rebuild(std::uint32_t k) {
    ++gen_[k];
    auto& slots = slots_[k];
    slots.clear();
    {
      const auto& c = cover_[k];
      Addr lo = 0;
      for (const auto& r : c) {
        if (lo < r.begin) {  // a gap [lo, r.begin)
          slots.push_back(Slot{lo, false, {}, 0, true});
          if (!waste_left(k)) slots.push_back(Slot{r.begin, true, {}, 0, true});
        }
        lo = r.end;
        if (lo >= cap_) break;
      }
      for (std::uint32_t i = 0; i < slots.size(); ++i) find_watches(k, i);
    }
    update_best(k);
  }
  /// Buffer c may have lost the slots where it sits in [a, b): re-watch them.
  void lost(std::uint32_t c, Addr a, Addr b) {
    auto& list = watchers_[c];
    for (std::size_t e = 0; e < list.size();) {
      const Watch w = list[e];
      if (w.gen != gen_[w.section] ||
          w.slot >= slots_[w.section].size()) {  // the section was rebuilt or the slot dropped since
        list[e] = list.back();
        list.pop_back();
        continue;
      }
      Slot& s = slots_[w.section][w.slot];
      if (!watches(s, c)) {
        list[e] = list.back();
        list.pop_back();
        continue;
      }
      const Addr x = start_for(s, c);
      if (off_[c] != none || (x < b && a < x + size_[c])) {
        list[e] = list.back();
        list.pop_back();
        find_watches(w.section, w.slot);
        update_best(w.section);
        continue;
      }
      ++e;
    }
  }

  // ---- decisions ----
  void place(std::uint32_t b, Addr x) {
    const auto level = static_cast<std::uint32_t>(stack_.size());
    stack_.push_back({b});
    off_[b] = x;
    level_[b] = level;
    ++placed_;

    free_hash_[sec_.first[b]] = xor_of(free_hash_[sec_.first[b]], item_term_[b]);
    if (!sp_->separated[b].empty()) sep_hash_ = xor_of(sep_hash_, state_term(14, b, x));
    for (std::uint32_t k = sec_.first[b]; k + 1 < sec_.last[b]; ++k) --cross_[k];
    for (std::uint32_t k = sec_.first[b]; k < sec_.last[b]; ++k) {
      const auto [g0, g1] = gap_around(k, x);
      cover(k, x, x + size_[b], level);
      --left_[k];
      split_slots(k, x, x + size_[b], g0, g1);
    }
    lost(b, 0, none);
    for (std::uint32_t e = conf_begin_[b]; e < conf_begin_[b + 1]; ++e)
      if (off_[conf_[e]] == none) {
        ++version_[conf_[e]];
        lost(conf_[e], x, x + size_[b]);
      }
  }
  void unplace(std::uint32_t b) {
    const Addr x = off_[b];
    for (std::uint32_t k = sec_.last[b]; k-- > sec_.first[b];) {
      uncover(k, x, x + size_[b]);
      ++left_[k];
    }
    if (!sp_->separated[b].empty()) sep_hash_ = xor_of(sep_hash_, state_term(14, b, x));
    free_hash_[sec_.first[b]] = xor_of(free_hash_[sec_.first[b]], item_term_[b]);
    for (std::uint32_t k = sec_.first[b]; k + 1 < sec_.last[b]; ++k) ++cross_[k];
    off_[b] = none;
    level_[b] = fixed;
    --placed_;
    stack_.pop_back();
    ++version_[b];
    for (std::uint32_t e = conf_begin_[b]; e < conf_begin_[b + 1]; ++e) ++version_[conf_[e]];
    for (std::uint32_t k = sec_.last[b]; k-- > sec_.first[b];) join_slots();
  }
  /// The gap [g0, g1) of section k that holds the free byte x.
  [[nodiscard]] std::pair<Addr, Addr> gap_around(std::uint32_t k, Addr x) const noexcept {
    const auto& c = cover_[k];
    auto it = std::upper_bound(c.begin(), c.end(), x, [](Addr v, const AddrRange& r) { return v < r.end; });
    return {it == c.begin() ? 0 : std::prev(it)->end, it->begin};
  }
  [[nodiscard]] std::uint32_t find_slot(std::uint32_t k, Addr at, bool top) const noexcept {
    const auto& sl = slots_[k];
    for (std::uint32_t i = 0; i < sl.size(); ++i)
      if (sl[i].live && sl[i].top == top && sl[i].at == at) return i;
    return none32;
  }
  std::uint32_t add_slot(std::uint32_t k, Addr at, bool top) {
    slots_[k].push_back(Slot{at, top, {}, 0, true});
    const auto i = static_cast<std::uint32_t>(slots_[k].size() - 1);
    find_watches(k, i);
    return i;
  }
  /// [a, e) of gap [g0, g1) of section k was covered: only the slots at its
  /// edges change (the others keep their watches; lost() drops the watched
  /// candidates the placement blocks). Undone by join_slots().
  void split_slots(std::uint32_t k, Addr a, Addr e, Addr g0, Addr g1) {
    SlotUndo u{k, none32, none32, 0};
    if (a == g0) {
      u.bottom = find_slot(k, g0, false);
      slots_[k][u.bottom].live = false;
      slots_[k][u.bottom].count = 0;
    } else if (!waste_left(k)) {
      add_slot(k, a, true);
      ++u.added;
    }
    if (e == g1) {
      if (!waste_left(k)) {
        u.top = find_slot(k, g1, true);
        slots_[k][u.top].live = false;
        slots_[k][u.top].count = 0;
      }
    } else {
      add_slot(k, e, false);
      ++u.added;
    }
    slot_undo_.push_back(u);
    update_best(k);
  }
  /// Undoes the last split_slots() (after the bytes were uncovered).
  void join_slots() {
    const SlotUndo u = slot_undo_.back();
    slot_undo_.pop_back();
    auto& sl = slots_[u.k];
    sl.resize(sl.size() - u.added);
    for (std::uint32_t i : {u.bottom, u.top})
      if (i != none32) {
        sl[i].live = true;
        find_watches(u.k, i);
      }
    update_best(u.k);
  }
  void declare_waste(std::uint32_t k, Addr a, Addr b) {
    const auto level = static_cast<std::uint32_t>(stack_.size());
    stack_.push_back({none32});
    waste_undo_.push_back(slots_[k]);
    waste_[k] += b - a;
    cover(k, a, b, level);
    for (std::uint32_t c : sec_.members[k]) ++version_[c];
    rebuild(k);
    for (std::uint32_t c : sec_.members[k])
      if (off_[c] == none) lost(c, a, b);
  }
  void undo_waste(std::uint32_t k, Addr a, Addr b) {
    uncover(k, a, b);
    waste_[k] -= b - a;
    stack_.pop_back();
    for (std::uint32_t c : sec_.members[k]) ++version_[c];
    // The slots as they were before the waste (the placements below it
    // undo their changes to them), watched afresh.
    ++gen_[k];
    slots_[k] = std::move(waste_undo_.back());
    waste_undo_.pop_back();
    for (std::uint32_t i = 0; i < slots_[k].size(); ++i)
      if (slots_[k][i].live) {
        slots_[k][i].count = 0;  // its records went with the old generation
        find_watches(k, i);
      }
    update_best(k);
  }

  /// Lowest aligned x > f where b fits uncovered in section k alone (none if nowhere).
  [[nodiscard]] Addr next_start(std::uint32_t b, std::uint32_t k, Addr f) const noexcept {
    Addr x = align_up(f + 1, align_[b]).value_or(none);
    const auto& c = cover_[k];
    while (x != none && x < cap_ && size_[b] <= cap_ - x) {
      auto it = std::upper_bound(c.begin(), c.end(), x, [](Addr v, const AddrRange& r) { return v < r.end; });
      if (it == c.end() || it->begin >= x + size_[b]) return x;
      x = align_up(it->end, align_[b]).value_or(none);
    }
    return none;
  }

  // ---- why a slot has only its candidates ----
  /// One decision that keeps b from x (nothing when a fixed thing does).
  void blocker(std::uint32_t b, Addr x, Why& why) const {
    if (x % align_[b] != 0 || x >= cap_ || size_[b] > cap_ - x) return;
    for (std::uint32_t k = sec_.first[b]; k < sec_.last[b]; ++k)
      for (const Owner& o : owners_[k])
        if (o.a < x + size_[b] && x < o.b) {
          why_set(why, o.level);
          return;
        }
    for (std::uint32_t j : sp_->separated[b])
      if (off_[j] != none && off_[j] < x + size_[b] && x < off_[j] + size_[j]) {
        why_set(why, level_[j]);
        return;
      }
  }
  [[nodiscard]] std::uint32_t owner_of(std::uint32_t k, Addr y) const noexcept {
    for (const Owner& o : owners_[k])
      if (o.a <= y && y < o.b) return o.level;
    return fixed;
  }
  /// The decisions that placed the other members, that block the unplaced
  /// ones, that cover the byte beside the slot, and (with no waste left) the
  /// waste declared in the section.
  void reason(std::uint32_t k, const Slot& s, Why& why) const {
    if (s.top)
      why_set(why, owner_of(k, s.at));
    else if (s.at > 0)
      why_set(why, owner_of(k, s.at - 1));
    for (std::uint32_t b : sec_.members[k]) {
      if (off_[b] != none) {
        why_set(why, level_[b]);
        continue;
      }
      const Addr x = start_for(s, b);
      if (x != none && !can_place(b, x, k)) blocker(b, x, why);
    }
    if (!waste_left(k))
      for (const Owner& o : owners_[k])
        if (o.level != fixed && stack_[o.level].item == none32) why_set(why, o.level);
  }
  /// The buffer next to the slot's byte (below a bottom slot, above a top one), or none32.
  [[nodiscard]] std::uint32_t neighbour(std::uint32_t k, const Slot& s) const noexcept {
    const Addr y = s.top ? s.at : (s.at == 0 ? none : s.at - 1);
    if (y == none) return none32;
    const std::uint32_t l = owner_of(k, y);
    return l == fixed ? none32 : stack_[l].item;
  }
  /// Everything that decided how far a waste declaration in section k reached.
  void waste_reason(std::uint32_t k, Why& why) const {
    for (const Owner& o : owners_[k]) why_set(why, o.level);
    for (std::uint32_t b : sec_.members[k])
      if (off_[b] != none) why_set(why, level_[b]);
  }

  // ---- the search ----
  Outcome search(std::size_t depth, std::uint32_t flo, std::uint32_t fhi) {
    if (!budget_->spend()) return Outcome::aborted;
    if (frames_.size() <= depth) frames_.resize(depth + 1);
    Frame& fr = frames_[depth];
    fr.why.clear();
    if (placed_ == n_) {
      sol_ = off_;
      return Outcome::found;
    }
    return expand(depth, flo, fhi);
  }

  /// The time component of section k: the sections joined to it by unplaced
  /// buffers (all of them when the part has separations).
  [[nodiscard]] std::pair<std::uint32_t, std::uint32_t> component(std::uint32_t k) const noexcept {
    if (has_sep_ || !components_) return {0, sec_.count};
    std::uint32_t lo = k, hi = k + 1;
    while (lo > 0 && cross_[lo - 1] > 0) --lo;
    while (hi < sec_.count && cross_[hi - 1] > 0) ++hi;
    return {lo, hi};
  }
  /// The memo's key of the component [lo, hi): its sections' covered bytes,
  /// its unplaced buffers, the capacity (and the separated offsets).
  [[nodiscard]] StateHash local_key(std::uint32_t lo, std::uint32_t hi) const noexcept {
    StateHash h = xor_of(cap_term_, state_term(15, lo, hi));
    if (has_sep_) h = xor_of(h, sep_hash_);
    for (std::uint32_t k = lo; k < hi; ++k) h = xor_of(xor_of(h, sec_hash_[k]), free_hash_[k]);
    return h;
  }
  /// Every decision that covered bytes of sections [lo, hi).
  void why_range(std::uint32_t lo, std::uint32_t hi, Why& why) const {
    for (std::uint32_t k = lo; k < hi; ++k)
      for (const Owner& o : owners_[k]) why_set(why, o.level);
  }

  /// The slot with the fewest candidates (then the lowest byte), recounted
  /// until the one chosen is fresh; its candidates in fr.cands.
  std::pair<std::uint32_t, std::uint32_t> choose(Frame& fr, std::uint32_t flo, std::uint32_t fhi) {
    for (;;) {
      std::uint32_t k = none32, kf = none32;
      auto better = [&](std::uint32_t j, std::uint32_t than) {
        const Best& b = best_[j];
        return than == none32 || b.count < best_[than].count ||
               (b.count == best_[than].count && b.at < best_[than].at);
      };
      for (std::uint32_t j = 0; j < sec_.count; ++j) {
        if (best_[j].count == nothing) continue;
        if (better(j, k)) k = j;
        if (j >= flo && j < fhi && better(j, kf)) kf = j;
      }
      if (k == none32) return {none32, none32};
      if (kf != none32 && best_[k].count != 0) k = kf;
      const std::uint32_t i = best_[k].slot;
      if (i == none32) return {k, i};
      const Slot& s = slots_[k][i];
      fr.cands.clear();
      for (std::uint32_t c : sec_.members[k])
        if (valid(k, s, c)) fr.cands.push_back(c);
      const std::size_t fresh = fr.cands.size() + (!s.top && waste_left(k) ? 1 : 0);
      if (std::min<std::size_t>(fresh, watch_) == s.count) return {k, i};
      find_watches(k, i);  // it was stale after a backtrack
      update_best(k);
    }
  }

  Outcome expand(std::size_t depth, std::uint32_t flo, std::uint32_t fhi) {
    Frame* fr = &frames_[depth];
    const auto [k, i] = choose(*fr, flo, fhi);
    if (k == none32 || i == none32) {  // a section with unplaced buffers and no free byte
      if (k == none32)
        why_all(fr->why);
      else
        why_range(k, k + 1, fr->why);
      return Outcome::infeasible;
    }
    const auto [lo, hi] = component(k);
    if (hi - lo < sec_.count) ++split_nodes_;
    const StateHash key = local_key(lo, hi);
    if (use_memo_ && memo_.failed(key, 0, 0, 0)) {
      ++memo_hits_;
      why_range(lo, hi, fr->why);
      return Outcome::infeasible;
    }
    const Slot slot = slots_[k][i];
    if (align_heur_) {
      // Prefer candidates whose lifetime edges meet those of the buffer they
      // sit on (or hang from): stacked pieces of one block share their edges.
      const std::uint32_t nb = neighbour(k, slot);
      auto score = [&](std::uint32_t c) {
        int sc = 0;
        const auto& l = sp_->items[c].lifetime;
        if (nb != none32) {
          const auto& m = sp_->items[nb].lifetime;
          if (l.begin == m.begin && l.end == m.end)
            sc += 4;
          else
            sc += (l.begin == m.begin ? 1 : 0) + (l.end == m.end ? 1 : 0);
        }
        // A placed buffer of the same size at the same offset ending where c
        // begins (or beginning where c ends): a block cut in time.
        const Addr x = start_for(slot, c);
        auto same = [&](std::uint32_t sec, bool before) {
          const std::uint32_t lv = owner_of(sec, x);
          if (lv == fixed || stack_[lv].item == none32) return false;
          const std::uint32_t q = stack_[lv].item;
          return off_[q] == x && size_[q] == size_[c] &&
                 (before ? sp_->items[q].lifetime.end == l.begin : sp_->items[q].lifetime.begin == l.end);
        };
        if (sec_.first[c] > 0 && same(sec_.first[c] - 1, true)) sc += 3;
        if (sec_.last[c] < sec_.count && same(sec_.last[c], false)) sc += 3;
        return sc;
      };
      std::sort(fr->cands.begin(), fr->cands.end(), [&](std::uint32_t a, std::uint32_t b) {
        const int sa = score(a), sb = score(b);
        if (sa != sb) return sa > sb;
        if (larger_first_ && size_[a] != size_[b]) return size_[a] > size_[b];
        return rank_[a] < rank_[b];
      });
    } else
      std::sort(fr->cands.begin(), fr->cands.end(),
                [&](std::uint32_t a, std::uint32_t b) { return rank_[a] < rank_[b]; });
    fr->acc.clear();
    const auto level = static_cast<std::uint32_t>(stack_.size());
    // A child's failure that does not depend on this node's decision fails
    // this node too (conflict-directed back-jumping).
    auto child = [&](Outcome o) -> int {  // 1: return o, 0: go on
      fr = &frames_[depth];
      if (o != Outcome::infeasible) return 1;
      Why& sub = frames_[depth + 1].why;
      if (!why_has(sub, level)) {
        ++jumps_;
        fr->why.swap(sub);
        return 2;
      }
      why_clear(sub, level);
      why_or(fr->acc, sub);
      return 0;
    };
    for (std::size_t c = 0; c < fr->cands.size(); ++c) {
      const std::uint32_t b = fr->cands[c];
      place(b, start_for(slot, b));
      const Outcome o = search(depth + 1, lo, hi);
      unplace(b);
      const int r = child(o);
      if (r == 1) return o;
      if (r == 2) return Outcome::infeasible;
    }
    if (!slot.top && waste_left(k)) {
      // Byte slot.at of section k is waste, and so is everything up to `next`.
      const Addr f = slot.at;
      Addr next = none;
      {
        const auto& c = cover_[k];
        auto it =
            std::upper_bound(c.begin(), c.end(), f, [](Addr v, const AddrRange& r) { return v < r.end; });
        if (it != c.end()) next = it->begin;
      }
      for (std::uint32_t b : sec_.members[k])
        if (off_[b] == none) next = std::min(next, next_start(b, k, f));
      if (next - f <= slack_[k] - waste_[k]) {
        declare_waste(k, f, next);
        const Outcome o = search(depth + 1, lo, hi);
        undo_waste(k, f, next);
        const int r = child(o);
        if (r == 1) return o;
        if (r == 2) return Outcome::infeasible;
      }
      waste_reason(k, fr->acc);
    }
    reason(k, slot, fr->acc);
    fr->why.swap(fr->acc);
    if (use_memo_) memo_.store(key, 0, 0, 0);
    return Outcome::infeasible;
  }

  const Subproblem* sp_;
  std::uint32_t n_;
  FailureMemo memo_;
  bool use_memo_ = true;
  std::uint64_t memo_hits_ = 0, jumps_ = 0, split_nodes_ = 0;
  Sections sec_;
  std::vector<Addr> size_, align_, load_;
  Addr granule_ = 1;
  std::vector<std::uint32_t> conf_begin_, conf_;
  std::vector<ItemFeatures> features_;
  std::vector<StateHash> item_term_;
  bool has_sep_ = false;

  Addr cap_ = 0;
  Budget* budget_ = nullptr;
  std::vector<std::uint32_t> rank_;
  std::vector<Addr> off_, sol_;
  std::vector<std::uint32_t> level_;
  std::uint32_t placed_ = 0;
  std::vector<Decision> stack_;
  std::vector<std::vector<AddrRange>> cover_;
  std::vector<std::vector<Owner>> owners_;
  std::vector<Addr> waste_, slack_;
  std::vector<std::uint32_t> left_;
  // The failure memo's keys, kept per section: the edges of its covered
  // ranges, and the unplaced buffers whose lifetime starts in it; plus the
  // capacity and the offsets of placed buffers with separation partners.
  std::vector<StateHash> sec_hash_, free_hash_;
  StateHash cap_term_, sep_hash_;
  std::vector<std::uint32_t> cross_;  // per section boundary: unplaced buffers live on both sides
  std::vector<std::vector<Slot>> slots_;
  std::vector<SlotUndo> slot_undo_;            // per placement and section it lives in
  std::vector<std::vector<Slot>> waste_undo_;  // per waste declaration: its section's slots before
  std::vector<std::uint32_t> gen_;
  std::vector<Best> best_;
  std::vector<std::vector<Watch>> watchers_;
  std::vector<std::uint32_t> version_;  // per buffer: bumped when a conflicting buffer moves
  std::vector<FitMemo> fit_memo_;
  std::vector<Frame> frames_;

 public:
  std::uint8_t watch_ = 4;  ///< candidates watched per slot (counts are exact up to this)
  bool align_heur_ = true;
  bool components_ = true;     ///< tests: one time component at a time, memo keyed per component
  bool larger_first_ = false;  ///< candidates of equal score: the larger first, then by rank
};

}  // namespace pto_mem::exact
