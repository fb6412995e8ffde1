// Lifetime reuse (PyPTO's MemoryReuse packing): within each
// arena, allocations whose lifetimes do not overlap share one storage slot.
// Global first-fit-decreasing: items in (size descending, lifetime begin
// ascending, index) order each join the first open slot, in opening order,
// whose every member it may share with, or open a new slot. A closed item
// (a declared / pinned allocation) gets a slot of its own that nothing joins.
//
// "May share" is: lifetimes do not interfere (touching is allowed), or they
// do but the phi-family exception holds; the pair is not forbidden (no-alias
// in either direction, target hazards, pipeline stages: any pair the caller
// lists); and the caller's own predicate, if any, agrees. The result says
// which items share which slot; placing the slots is a separate step
// (shared_slot_problem + any planner, e.g. place_sequential).
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <ranges>
#include <set>
#include <stop_token>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/core/buffer.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// One value inside a reuse item, for the phi-family exception: its own live
/// range and the families it belongs to. Items whose lifetimes interfere may
/// still share when some pair of their parts is in one family (the same
/// logical value on mutually exclusive paths, e.g. the branch-local sources of
/// one if-result) and no pair of parts outside a common family interferes.
struct LivePart {
  Interval live;  ///< compared with interferes(); begin == end is allowed
  std::vector<std::uint32_t> families;
};

/// Sharing rules beyond lifetime disjointness; every vector is indexed like
/// the items and may be left empty.
struct ReuseRules {
  /// closed[i]: item i is a declared / pinned allocation; it keeps a slot of
  /// its own and nothing joins it.
  std::vector<bool> closed;
  /// Pairs (either order) that may never share a slot: no-alias (an op that
  /// reads one while writing the other), target hazards, pipeline stages.
  std::vector<std::pair<std::size_t, std::size_t>> forbidden;
  /// parts[i]: the values of item i for the phi-family exception; empty (or
  /// no family) = item i shares only when lifetimes do not interfere.
  std::vector<std::vector<LivePart>> parts;
  /// When sharing must end early (a time limit, a caller's stop): from the
  /// first item at which the deadline has passed or a stop was requested
  /// (checked every 64 items), every remaining item gets a slot of its own.
  /// The result stays valid -- it only shares less -- and says it was cut.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::stop_token stop;
};

/// The time limit and the stop token of a reuse run (ReuseRules' fields).
struct ReuseCut {
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::stop_token stop;
};

/// The default extra predicate: no further restriction.
struct share_any {
  constexpr bool operator()(std::size_t, std::size_t) const noexcept { return true; }
};

struct ReuseSlot {
  std::size_t representative = 0;    ///< the first, largest member
  std::vector<std::size_t> members;  ///< in joining order; members[0] == representative
  bool closed = false;               ///< a declared allocation: nothing joined it
  Addr size = 0;                     ///< the representative's size, the largest
  Interval lifetime;                 ///< hull of the members' lifetimes
};

struct ReuseResult {
  std::vector<std::size_t> slot_of;  ///< slot_of[i]: index into slots of item i
  /// Per arena (ascending arena key), in the order the slots were opened.
  std::vector<ReuseSlot> slots;
  bool cut_short = false;  ///< the deadline or a stop ended sharing early
};

namespace detail::reuse {

/// The members of one open slot, with an index over their lifetimes that
/// answers "does anything here interfere with [b, e)?" in O(log n) while the
/// members are pairwise disjoint (sorted by (begin, end), their ends then
/// never decrease, so the last member starting before e has the latest end),
/// and otherwise lists the members that may interfere: those starting in
/// (b - longest, e), longest being the longest member lifetime.
struct OpenSlot {
  std::size_t slot;
  std::multiset<std::tuple<Tick, Tick, std::size_t>> spans;  // (begin, end, member)
  bool disjoint = true;  // false once the phi-family exception let co-live members in
  Tick longest = 0;

  void add(const Interval& live, std::size_t member) {
    spans.insert({live.begin, live.end, member});
    longest = std::max(longest, live.end - live.begin);
  }
  /// Calls fn(member) on every member that may interfere with q (a superset).
  template <class F>
  void for_each_near(const Interval& q, F&& fn) const {
    constexpr Tick lowest = std::numeric_limits<Tick>::min();
    const Tick from = q.begin < lowest + longest ? lowest : q.begin - longest;
    const auto end = spans.lower_bound({q.end, lowest, 0});
    for (auto it = spans.lower_bound({from, lowest, 0}); it != end; ++it)
      if (!fn(std::get<2>(*it))) return;
  }
};

inline bool any_interferes(const OpenSlot& s, const Interval& q) {
  auto it = s.spans.lower_bound({q.end, std::numeric_limits<Tick>::min(), 0});
  if (it == s.spans.begin()) return false;
  return std::get<1>(*std::prev(it)) > q.begin;
}

inline bool has_family(const std::vector<std::vector<LivePart>>& parts, std::size_t i) {
  if (i >= parts.size()) return false;
  return std::any_of(parts[i].begin(), parts[i].end(), [](const LivePart& p) { return !p.families.empty(); });
}

inline bool same_family(const LivePart& a, const LivePart& b) {
  for (auto f : a.families)
    if (std::find(b.families.begin(), b.families.end(), f) != b.families.end()) return true;
  return false;
}

/// Interfering items c and m may still share: some cross pair of their parts
/// is one family, and no cross pair outside a common family interferes.
inline bool family_exception(const std::vector<std::vector<LivePart>>& parts, std::size_t c, std::size_t m) {
  if (c >= parts.size() || m >= parts.size()) return false;
  bool family = false;
  for (const auto& pc : parts[c])
    for (const auto& pm : parts[m]) {
      if (same_family(pc, pm))
        family = true;
      else if (interferes(pc.live, pm.live))
        return false;
    }
  return family;
}

}  // namespace detail::reuse

/// Packs `items` (any random-access range whose elements model Buffer: size,
/// arena and lifetime are read) into shared slots. Lifetimes are compared with
/// interferes(): half-open [begin, end), touching allowed, so PyPTO's
/// inclusive [def, last] statement points may be passed as they are (begin =
/// def, end = last; a value never used is [def, def]). `may_share(c, m)` is
/// asked for every member m of a slot that candidate c considers joining;
/// prefer `rules.forbidden` for plain pairs, it is cheaper.
///
/// Cost: each item scans the open slots of its arena in opening order; a
/// slot is rejected in O(log n) (O(log n + members that may be co-live) when
/// the family exception is in play, O(members) with `may_share`), and an item scans at most one slot more
/// than those holding an item that blocks it.
template <std::ranges::random_access_range R, class MayShare = share_any>
requires Buffer<std::ranges::range_value_t<R>> && std::predicate<MayShare&, std::size_t, std::size_t>
[[nodiscard]] ReuseResult reuse_lifetimes(const R& items, const ReuseRules& rules = {},
                                          MayShare may_share = {}) {
  using B = std::ranges::range_value_t<R>;
  using Key = buffer_arena_t<B>;
  constexpr bool has_predicate = !std::same_as<MayShare, share_any>;
  const std::size_t n = static_cast<std::size_t>(std::ranges::size(items));
  auto item = [&](std::size_t i) -> const B& {
    return std::ranges::begin(items)[static_cast<std::ptrdiff_t>(i)];
  };

  std::vector<Addr> size(n);
  std::vector<Interval> live(n);
  std::map<Key, std::vector<std::size_t>> by_arena;
  for (std::size_t i = 0; i < n; ++i) {
    size[i] = buffer_size(item(i));
    live[i] = buffer_lifetime(item(i));
    by_arena[buffer_arena(item(i))].push_back(i);
  }
  std::vector<std::vector<std::size_t>> forbidden(n);
  for (const auto& [a, b] : rules.forbidden)
    if (a < n && b < n && a != b) {
      forbidden[a].push_back(b);
      forbidden[b].push_back(a);
    }
  auto closed = [&](std::size_t i) { return i < rules.closed.size() && rules.closed[i]; };

  ReuseResult out;
  constexpr std::size_t none = static_cast<std::size_t>(-1);
  out.slot_of.assign(n, none);
  std::vector<std::size_t> blocked_stamp;  // blocked_stamp[slot] == c + 1: a forbidden partner is there
  const bool cuttable = rules.deadline || rules.stop.stop_possible();
  std::size_t visited = 0;

  for (auto& [key, order] : by_arena) {
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (size[a] != size[b]) return size[a] > size[b];
      return live[a].begin < live[b].begin;
    });
    std::vector<detail::reuse::OpenSlot> open;
    for (std::size_t c : order) {
      auto open_new = [&](bool is_closed) {
        ReuseSlot s;
        s.representative = c;
        s.members = {c};
        s.closed = is_closed;
        s.size = size[c];
        s.lifetime = live[c];
        out.slot_of[c] = out.slots.size();
        if (!is_closed) {
          open.push_back({out.slots.size(), {}, true, 0});
          open.back().add(live[c], c);
        }
        out.slots.push_back(std::move(s));
        blocked_stamp.push_back(0);
      };
      if (cuttable && !out.cut_short && (visited++ & 63u) == 0 &&
          (rules.stop.stop_requested() ||
           (rules.deadline && std::chrono::steady_clock::now() >= *rules.deadline)))
        out.cut_short = true;
      if (closed(c) || out.cut_short) {
        open_new(closed(c));
        continue;
      }
      for (std::size_t f : forbidden[c])
        if (out.slot_of[f] != none) blocked_stamp[out.slot_of[f]] = c + 1;
      const bool family = detail::reuse::has_family(rules.parts, c);

      detail::reuse::OpenSlot* chosen = nullptr;
      bool co_live = false;
      for (auto& s : open) {
        if (blocked_stamp[s.slot] == c + 1) continue;
        const auto& members = out.slots[s.slot].members;
        bool ok = true;
        co_live = false;
        if (!family && s.disjoint) {
          ok = !detail::reuse::any_interferes(s, live[c]);
        } else {
          // Only interfering members matter (the verdict does not depend on their order).
          s.for_each_near(live[c], [&](std::size_t m) {
            if (!interferes(live[c], live[m])) return true;
            co_live = true;
            if (!family || !detail::reuse::family_exception(rules.parts, c, m)) ok = false;
            return ok;
          });
        }
        if (ok && has_predicate)
          for (std::size_t m : members)
            if (!may_share(c, m)) {
              ok = false;
              break;
            }
        if (ok) {
          chosen = &s;
          break;
        }
      }
      if (!chosen) {
        open_new(false);
        continue;
      }
      ReuseSlot& slot = out.slots[chosen->slot];
      slot.members.push_back(c);
      slot.lifetime.begin = std::min(slot.lifetime.begin, live[c].begin);
      slot.lifetime.end = std::max(slot.lifetime.end, live[c].end);
      chosen->add(live[c], c);
      if (co_live) chosen->disjoint = false;
      out.slot_of[c] = chosen->slot;
    }
  }
  return out;
}

/// Reuse over a problem's buffers (after alias unification, so each buffer is
/// one allocation): its separations are the forbidden pairs, `closed` marks
/// declared allocations (AliasUnification::closed).
[[nodiscard]] inline ReuseResult reuse_lifetimes(const Problem& p, const std::vector<bool>& closed = {},
                                                 const ReuseCut& cut = {}) {
  ReuseRules rules;
  rules.closed = closed;
  rules.deadline = cut.deadline;
  rules.stop = cut.stop;
  if (p.separations.empty()) return reuse_lifetimes(p.buffers, rules);
  const ProblemIndex index(p);
  for (const auto& s : p.separations) {
    const auto a = index.buffer(s.a);
    const auto b = index.buffer(s.b);
    if (a && b) rules.forbidden.emplace_back(*a, *b);
  }
  return reuse_lifetimes(p.buffers, rules);
}

/// The slots as a problem for a placer: one buffer per slot, with the
/// representative's name, the largest member size, an alignment that suits
/// every member (their least common multiple) and the hull of the member
/// lifetimes; arenas are kept. Separations between members of different slots
/// become slot separations (merged, ascending); penalties are not carried (a
/// slot pair's hulls may be co-live). Errors: an alignment above 2^64.
struct SlotProblem {
  Problem problem;
  Diagnostics diagnostics;
};

[[nodiscard]] inline SlotProblem shared_slot_problem(const Problem& p, const ReuseResult& r) {
  SlotProblem out;
  out.problem.arenas = p.arenas;
  out.problem.buffers.reserve(r.slots.size());
  for (const auto& s : r.slots) {
    BufferSpec b = p.buffers[s.representative];
    b.name = buffer_label(p, static_cast<BufferId>(s.representative));
    b.alignment = std::max<Addr>(b.alignment, 1);
    for (std::size_t m : s.members) {
      const Addr am = std::max<Addr>(p.buffers[m].alignment, 1);
      const auto lcm = checked_mul(b.alignment / std::gcd(b.alignment, am), am);
      if (!lcm) {
        out.diagnostics.push_back(error("the slot of '" + b.name + "' cannot align all its members: '" +
                                        buffer_label(p, static_cast<BufferId>(m)) + "' adds alignment " +
                                        std::to_string(am) + " and the common multiple exceeds 2^64"));
        break;
      }
      b.alignment = *lcm;
      b.size = std::max(b.size, p.buffers[m].size);
    }
    b.lifetime = s.lifetime;
    out.problem.buffers.push_back(std::move(b));
  }
  if (p.separations.empty()) return out;
  const ProblemIndex index(p);
  std::map<std::pair<std::size_t, std::size_t>, std::uint8_t> separated;
  for (const auto& sep : p.separations) {
    const auto a = index.buffer(sep.a);
    const auto b = index.buffer(sep.b);
    if (!a || !b) continue;
    const std::size_t x = r.slot_of[*a], y = r.slot_of[*b];
    if (x != y) separated[{std::min(x, y), std::max(x, y)}] |= sep.reasons;
  }
  for (const auto& [pair, reasons] : separated)
    out.problem.separations.push_back(
        {static_cast<BufferId>(pair.first), static_cast<BufferId>(pair.second), reasons});
  return out;
}

/// Every item at its slot's offset.
[[nodiscard]] inline Placement expand_slots(const ReuseResult& r, const Placement& slots) {
  Placement out;
  out.offsets.resize(r.slot_of.size());
  for (std::size_t i = 0; i < r.slot_of.size(); ++i)
    if (r.slot_of[i] < slots.offsets.size()) out.offsets[i] = slots.offsets[r.slot_of[i]];
  return out;
}

}  // namespace pto_mem
