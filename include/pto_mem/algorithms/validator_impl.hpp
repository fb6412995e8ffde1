// The definitions behind algorithms/validator.hpp: validate() and
// validate_placement(). Included by validator.hpp in header-only mode;
// compiled once into pto_mem::compiled (src/planner.cpp) otherwise.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/alias_classes.hpp"
#include "pto_mem/analysis/lifetime_sweep.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

namespace detail {

inline std::string quote(const std::string& id) { return "'" + id + "'"; }

/// A buffer's label, or "#<id>" for an id past the end.
inline std::string label(const Problem& p, BufferId b) {
  return b < p.buffers.size() ? buffer_label(p, b) : "#" + std::to_string(b);
}
/// When two buffers are live together, computed here from the problem
/// alone (the validator's own reading of the rule in core/problem.hpp): the
/// conflict graph's edge if there is a graph, else an overlap of their live
/// intervals, and in both cases no exclusion between them.
class TimeConflicts {
 public:
  explicit TimeConflicts(const Problem& p) : p_(p) {
    for (const auto& x : p.exclusions)
      if (x.a < p.buffers.size() && x.b < p.buffers.size()) excluded_.insert(key(x.a, x.b));
    if (p.conflict_graph)
      for (const auto& c : *p.conflict_graph)
        if (c.a < p.buffers.size() && c.b < p.buffers.size()) edges_.insert(key(c.a, c.b));
  }
  [[nodiscard]] bool operator()(std::size_t i, std::size_t j) const {
    if (i == j) return true;
    if (!excluded_.empty() && excluded_.contains(key(i, j))) return false;
    if (p_.conflict_graph) return edges_.contains(key(i, j));
    return intervals_meet(p_.buffers[i], p_.buffers[j]);
  }

 private:
  static std::uint64_t key(std::size_t a, std::size_t b) {
    return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | static_cast<std::uint64_t>(std::max(a, b));
  }
  static bool intervals_meet(const BufferSpec& a, const BufferSpec& b) {
    const std::vector<Interval> one_a{a.lifetime}, one_b{b.lifetime};
    const auto& la = a.live.empty() ? one_a : a.live;
    const auto& lb = b.live.empty() ? one_b : b.live;
    std::size_t x = 0, y = 0;
    while (x < la.size() && y < lb.size()) {
      if (la[x].begin < lb[y].end && lb[y].begin < la[x].end) return true;
      if (la[x].end <= lb[y].end)
        ++x;
      else
        ++y;
    }
    return false;
  }
  const Problem& p_;
  std::unordered_set<std::uint64_t> excluded_, edges_;
};

/// The arena buffer i went to: the placement's choice, else its own.
inline std::int64_t placed_arena(const Problem& p, const Placement& pl, std::size_t i) {
  return pl.arenas.empty() ? p.buffers[i].arena : pl.arenas[i];
}

// Built by appending: g++ 12 at -O2/-O3 warns falsely (-Wrestrict, GCC
// PR 105651) on `"[" + std::to_string(...)`, which breaks -Werror builds.
inline std::string half_open(const std::string& b, const std::string& e) {
  std::string s(1, '[');
  s.append(b).append(", ").append(e).append(1, ')');
  return s;
}
inline std::string bytes(Addr b, Addr e) { return half_open(std::to_string(b), std::to_string(e)); }
inline std::string ticks(const Interval& l) {
  return half_open(std::to_string(l.begin), std::to_string(l.end));
}

/// Collects diagnostics, capping one noisy class of messages so that a
/// badly broken placement still yields a readable report.
class Report {
 public:
  explicit Report(std::size_t cap = 100) : cap_(cap) {}
  void add(std::string message) {
    if (shown_ < cap_) {
      out_.push_back(error(std::move(message)));
      ++shown_;
    } else {
      ++hidden_;
    }
  }
  Diagnostics finish(std::string what) {
    if (hidden_ > 0)
      out_.push_back(error("... and " + std::to_string(hidden_) + " more " + what + " (first " +
                           std::to_string(cap_) + " shown)"));
    return std::move(out_);
  }

 private:
  Diagnostics out_;
  std::size_t cap_, shown_ = 0, hidden_ = 0;
};

}  // namespace detail

PTO_MEM_PLAN_INLINE Diagnostics validate(const Problem& p) {
  using detail::quote;
  Diagnostics out;
  auto err = [&](std::string m) { out.push_back(error(std::move(m))); };
  const ProblemIndex index(p);
  auto nm = [&](BufferId b) { return detail::label(p, b); };

  std::set<std::int64_t> arena_ids;
  for (const auto& a : p.arenas) {
    const std::string name = "arena " + std::to_string(a.id) + (a.name.empty() ? "" : " (" + a.name + ")");
    if (!arena_ids.insert(a.id).second) err(name + ": duplicate arena id; give every arena its own id");
    if (a.capacity == 0) err(name + ": capacity is 0; an arena needs a positive capacity");
    for (const auto& r : a.reserved) {
      if (r.begin >= r.end)
        err(name + ": reserved window " + detail::bytes(r.begin, r.end) +
            " is empty or reversed; write [begin, end) with begin < end");
      else if (r.end > a.capacity)
        err(name + ": reserved window " + detail::bytes(r.begin, r.end) + " ends past the capacity " +
            std::to_string(a.capacity));
    }
  }

  // A buffer's identity is its position; names are labels (the readers
  // check that a file's names are unique), so nothing here compares them.
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const auto& b = p.buffers[i];
    // Named only when something is wrong: building 100k labels costs more
    // than every check below.
    auto name = [&] { return "buffer " + quote(nm(static_cast<BufferId>(i))); };
    if (b.size == 0) err(name() + ": size is 0; a buffer needs at least one byte");
    if (b.alignment == 0) err(name() + ": alignment is 0; use 1 for no alignment");
    if (b.lifetime.begin < 0 || b.lifetime.begin >= b.lifetime.end)
      err(name() + ": lifetime " + detail::ticks(b.lifetime) + " is " +
          (b.lifetime.begin < 0 ? "negative" : "empty or reversed") +
          "; a lifetime is [begin, end) with 0 <= begin < end");
    if (!index.arena(b.arena)) err(name() + ": unknown arena " + std::to_string(b.arena));
    if (!b.live.empty()) {
      bool ordered = true;
      for (std::size_t k = 0; k < b.live.size(); ++k) {
        const Interval& l = b.live[k];
        if (l.begin < 0 || l.begin >= l.end)
          err(name() + ": live interval " + detail::ticks(l) + " is " +
              (l.begin < 0 ? "negative" : "empty or reversed") +
              "; a live interval is [begin, end) with 0 <= begin < end");
        if (k > 0 && b.live[k - 1].end > l.begin) ordered = false;
      }
      if (!ordered)
        err(name() +
            ": its live intervals overlap or are out of order; list disjoint intervals in ascending order "
            "(merge the ones that overlap)");
      else if (b.live.front().begin != b.lifetime.begin || b.live.back().end != b.lifetime.end)
        err(name() + ": lifetime " + detail::ticks(b.lifetime) + " is not the hull " +
            detail::ticks(Interval{b.live.front().begin, b.live.back().end}) +
            " of its live intervals; set the lifetime to the hull");
    }
    if (!b.candidate_arenas.empty()) {
      std::set<std::int64_t> seen;
      for (const auto a : b.candidate_arenas) {
        if (!index.arena(a)) err(name() + ": unknown candidate arena " + std::to_string(a));
        if (!seen.insert(a).second)
          err(name() + ": candidate arena " + std::to_string(a) + " is listed twice");
      }
      if (b.candidate_arenas.front() != b.arena)
        err(name() + ": its arena " + std::to_string(b.arena) + " is not its first candidate arena " +
            std::to_string(b.candidate_arenas.front()) + "; the arena is the most preferred candidate");
    }
    if (b.pin) {
      const Addr off = b.pin->offset;
      if (b.candidate_arenas.size() > 1)
        err(name() + ": pinned at offset " + std::to_string(off) + " but given " +
            std::to_string(b.candidate_arenas.size()) + " candidate arenas; a pin fixes the arena too");
      if (b.alignment != 0 && off % b.alignment != 0)
        err(name() + ": pinned at offset " + std::to_string(off) +
            ", which is not a multiple of its alignment " + std::to_string(b.alignment));
      const auto pinned_end = checked_add(off, b.size);
      if (const auto a = index.arena(b.arena); a && pinned_end) {
        const Arena& arena = p.arenas[*a];
        if (*pinned_end > arena.capacity)
          err(name() + ": pinned at " + detail::bytes(off, *pinned_end) + ", past the capacity " +
              std::to_string(arena.capacity) + " of arena " + std::to_string(arena.id));
        for (const auto& w : arena.reserved)
          if (overlaps(AddrRange{off, *pinned_end}, w))
            err(name() + ": pinned at " + detail::bytes(off, *pinned_end) + ", over the reserved window " +
                detail::bytes(w.begin, w.end) + " of arena " + std::to_string(arena.id));
      } else if (!pinned_end) {
        err(name() + ": pinned at offset " + std::to_string(off) + " + size " + std::to_string(b.size) +
            " overflows 64 bits");
      }
    }
  }
  const detail::TimeConflicts co_live(p);
  // Two buffers that may end up in one arena: same arena, or a shared candidate.
  auto may_share_arena = [&](const BufferSpec& a, const BufferSpec& b) {
    if (a.candidate_arenas.empty() && b.candidate_arenas.empty()) return a.arena == b.arena;
    const std::vector<std::int64_t> one_a{a.arena}, one_b{b.arena};
    const auto& ca = a.candidate_arenas.empty() ? one_a : a.candidate_arenas;
    const auto& cb = b.candidate_arenas.empty() ? one_b : b.candidate_arenas;
    return std::any_of(ca.begin(), ca.end(),
                       [&](std::int64_t x) { return std::find(cb.begin(), cb.end(), x) != cb.end(); });
  };

  // Both ends of a pair must be known buffers; a penalty's must be of one
  // arena (`across`: a separation may join two arenas, where it is vacuous).
  auto check_pair = [&](const std::string& kind, BufferId a, BufferId b, bool across) -> bool {
    const auto ia = index.buffer(a);
    const auto ib = index.buffer(b);
    if (!ia || !ib) {
      err(kind + " (" + quote(nm(a)) + ", " + quote(nm(b)) + ") names buffer " + std::to_string(!ia ? a : b) +
          ", but the problem has " + std::to_string(p.buffers.size()) +
          " buffers (ids are positions, from 0)");
      return false;
    }
    if (a == b) {
      err(kind + " (" + quote(nm(a)) + ", " + quote(nm(b)) + ") names the same buffer twice");
      return false;
    }
    if (!across && !may_share_arena(p.buffers[*ia], p.buffers[*ib])) {
      err(kind + " (" + quote(nm(a)) + ", " + quote(nm(b)) + ") joins buffers of different arenas (" +
          std::to_string(p.buffers[*ia].arena) + " and " + std::to_string(p.buffers[*ib].arena) + ")");
      return false;
    }
    return true;
  };
  // A separation between two arenas asks nothing (different memories never
  // share a byte); files written by other planners hold such pairs.
  for (const auto& s : p.separations) check_pair("separation", s.a, s.b, true);
  Weight total = 0;
  for (const auto& pen : p.penalties) {
    if (check_pair("penalty", pen.a, pen.b, false)) {
      const auto& ba = p.buffers[*index.buffer(pen.a)];
      const auto& bb = p.buffers[*index.buffer(pen.b)];
      if (co_live(pen.a, pen.b))
        err("penalty (" + quote(nm(pen.a)) + ", " + quote(nm(pen.b)) +
            ") joins buffers live at the same time (" + detail::ticks(ba.lifetime) + " and " +
            detail::ticks(bb.lifetime) +
            "); they can never share bytes, so use a separation or drop the penalty");
    }
    if (auto t = checked_add(total, pen.weight))
      total = *t;
    else
      err("penalty (" + quote(nm(pen.a)) + ", " + quote(nm(pen.b)) +
          "): the sum of penalty weights overflows 64 bits");
  }

  for (const auto& x : p.exclusions) check_pair("temporal exclusion", x.a, x.b, true);
  if (p.conflict_graph)
    for (const auto& c : *p.conflict_graph) check_pair("conflict-graph edge", c.a, c.b, true);
  // A pinned or multi-arena buffer moves alone: an alias group or a declared
  // allocation places its members together, which a pin or an arena choice
  // of one member would break.
  auto alone = [&](BufferId b, const std::string& where) {
    if (b >= p.buffers.size()) return;
    const auto& x = p.buffers[b];
    if (x.pin)
      err(where + ": member " + quote(nm(b)) +
          " is pinned, but a group is placed as one; drop the pin or the group");
    if (x.candidate_arenas.size() > 1)
      err(where + ": member " + quote(nm(b)) +
          " has several candidate arenas; aliases share one fixed arena");
  };
  for (std::size_t g = 0; g < p.must_alias.size(); ++g)
    for (const auto& m : p.must_alias[g].members) alone(m.buffer, "must-alias group " + std::to_string(g));
  for (const auto& d : p.declared) {
    alone(d.buffer, "declared allocation " + quote(nm(d.buffer)));
    for (const auto& bind : d.bindings) alone(bind.buffer, "declared allocation " + quote(nm(d.buffer)));
  }

  for (std::size_t g = 0; g < p.must_alias.size(); ++g) {
    const auto& group = p.must_alias[g];
    const std::string name = "must-alias group " + std::to_string(g);
    if (group.members.empty()) err(name + " is empty");
    std::optional<std::int64_t> arena;
    for (const auto& m : group.members) {
      const auto i = index.buffer(m.buffer);
      if (!i) {
        err(name + " names buffer " + std::to_string(m.buffer) + ", but the problem has " +
            std::to_string(p.buffers.size()) + " buffers");
        continue;
      }
      const auto& b = p.buffers[*i];
      if (!checked_add(m.offset, b.size))
        err(name + ": member " + quote(nm(m.buffer)) + " at offset " + std::to_string(m.offset) +
            " overflows 64 bits");
      if (arena && *arena != b.arena)
        err(name + ": member " + quote(nm(m.buffer)) + " is in arena " + std::to_string(b.arena) +
            " but the group is in arena " + std::to_string(*arena) + "; aliases share one arena");
      if (!arena) arena = b.arena;
    }
  }

  std::set<BufferId> declared_names;
  for (const auto& d : p.declared) {
    const std::string name = "declared allocation " + quote(nm(d.buffer));
    const auto di = index.buffer(d.buffer);
    if (!di) {
      err(name + " names buffer " + std::to_string(d.buffer) + ", but the problem has " +
          std::to_string(p.buffers.size()) + " buffers; list the declaration among the buffers");
      continue;
    }
    if (!declared_names.insert(d.buffer).second) err(name + " is declared twice");
    if (d.slots == 0) err(name + " must have at least one slot");
    if (d.slot_size == 0) err(name + ": slot size is 0");
    const auto extent = checked_mul(d.slots, d.slot_size);
    if (!extent)
      err(name + ": " + std::to_string(d.slots) + " slots of " + std::to_string(d.slot_size) +
          " bytes overflow a 64-bit size");
    const auto& db = p.buffers[*di];
    if (extent && db.size < *extent)
      err(name + ": its buffer has " + std::to_string(db.size) + " bytes but " + std::to_string(d.slots) +
          " slots of " + std::to_string(d.slot_size) + " need " + std::to_string(*extent));
    std::map<std::uint32_t, std::vector<std::size_t>> by_slot;
    for (const auto& bind : d.bindings) {
      const auto bi = index.buffer(bind.buffer);
      if (!bi) {
        err(name + ": binding names buffer " + std::to_string(bind.buffer) + ", but the problem has " +
            std::to_string(p.buffers.size()) + " buffers");
        continue;
      }
      const auto& bb = p.buffers[*bi];
      if (bb.arena != db.arena)
        err(name + ": " + quote(nm(bind.buffer)) + " is in arena " + std::to_string(bb.arena) +
            " but the allocation is in arena " + std::to_string(db.arena));
      if (bb.size > d.slot_size)
        err(name + ": " + quote(nm(bind.buffer)) + " has " + std::to_string(bb.size) +
            " bytes, more than the slot size " + std::to_string(d.slot_size));
      if (bind.slot && *bind.slot >= d.slots)
        err(name + ": " + quote(nm(bind.buffer)) + " is bound to slot " + std::to_string(*bind.slot) +
            " but there are only " + std::to_string(d.slots) + " slots");
      else if (bind.slot)
        by_slot[*bind.slot].push_back(*bi);
    }
    // A run-time slot may be any slot when the program runs, so its binding
    // may share bytes with every other binding of the declaration: it must
    // not be live at the same time as any of them. (PyPTO's own check skips
    // run-time slots; this closes that hole. docs/formats.md.) A sweep by
    // start: each binding meets the ones still live when it starts.
    {
      std::vector<std::pair<std::size_t, bool>> all;  // (buffer, run-time slot)
      for (const auto& bind : d.bindings)
        if (auto bi = index.buffer(bind.buffer)) all.push_back({*bi, !bind.slot.has_value()});
      std::sort(all.begin(), all.end(), [&](const auto& x, const auto& y) {
        const auto& a = p.buffers[x.first].lifetime;
        const auto& b = p.buffers[y.first].lifetime;
        return a.begin < b.begin || (a.begin == b.begin && x.first < y.first);
      });
      // Live bindings by lifetime end, run-time ones apart: O(b log b).
      std::multimap<Tick, std::size_t> live_runtime, live_fixed;
      for (const auto& [bi, runtime] : all) {
        const auto& cur = p.buffers[bi];
        for (auto* live : {&live_runtime, &live_fixed})
          while (!live->empty() && live->begin()->first <= cur.lifetime.begin) live->erase(live->begin());
        std::optional<std::size_t> peer_index;
        if (!live_runtime.empty())
          peer_index = live_runtime.begin()->second;
        else if (runtime && !live_fixed.empty())
          peer_index = live_fixed.begin()->second;
        if (peer_index && *peer_index != bi) {
          const auto& other = p.buffers[*peer_index];
          const auto& rt = runtime ? cur : other;
          const auto& peer = runtime ? other : cur;
          const auto rt_id = static_cast<BufferId>(runtime ? bi : *peer_index);
          const auto peer_id = static_cast<BufferId>(runtime ? *peer_index : bi);
          err(name + ": " + quote(nm(rt_id)) +
              " is bound to a slot chosen at run time, which may be the slot of " + quote(nm(peer_id)) +
              ", and both are live at the same time (" + detail::ticks(rt.lifetime) + " and " +
              detail::ticks(peer.lifetime) +
              "); give one of them a constant slot the other does not use, or end one "
              "before the other starts");
        }
        (runtime ? live_runtime : live_fixed).emplace(cur.lifetime.end, bi);
      }
    }
    for (auto& [slot, members] : by_slot) {
      std::sort(members.begin(), members.end(), [&](std::size_t a, std::size_t b) {
        return p.buffers[a].lifetime.begin < p.buffers[b].lifetime.begin ||
               (p.buffers[a].lifetime.begin == p.buffers[b].lifetime.begin && a < b);
      });
      // Sorted by start: an overlap exists iff one starts before the latest end so far.
      std::size_t reach = members.empty() ? 0 : members[0];
      for (std::size_t k = 1; k < members.size(); ++k) {
        const auto& prev = p.buffers[reach];
        const auto& cur = p.buffers[members[k]];
        if (interferes(prev.lifetime, cur.lifetime))
          err(name + ": " + quote(nm(static_cast<BufferId>(reach))) + " and " +
              quote(nm(static_cast<BufferId>(members[k]))) + " are both bound to slot " +
              std::to_string(slot) + " but are live at the same time (" + detail::ticks(prev.lifetime) +
              " and " + detail::ticks(cur.lifetime) + "); bind one of them to another slot");
        if (cur.lifetime.end > prev.lifetime.end) reach = members[k];
      }
    }
  }

  if (!has_errors(out)) {
    const AliasClasses classes = alias_classes(p, index);
    for (const auto& s : p.separations) {
      const auto a = *index.buffer(s.a);
      const auto b = *index.buffer(s.b);
      if (classes.class_of[a] == classes.class_of[b])
        err("separation (" + quote(nm(s.a)) + ", " + quote(nm(s.b)) +
            ") joins two buffers that must alias (one allocation); drop the separation or the alias");
    }
  }
  return out;
}

PTO_MEM_PLAN_INLINE std::size_t vacuous_separations(const Problem& p) {
  if (p.separations.empty()) return 0;
  const ProblemIndex index(p);
  std::size_t n = 0;
  for (const auto& s : p.separations) {
    const auto a = index.buffer(s.a), b = index.buffer(s.b);
    if (a && b && p.buffers[*a].arena != p.buffers[*b].arena) ++n;
  }
  return n;
}

PTO_MEM_PLAN_INLINE Diagnostics validate(const Problem& p, const Placement& pl) {
  if (auto problem_errors = validate(p); has_errors(problem_errors)) return problem_errors;
  return validate_placement(p, pl);
}

PTO_MEM_PLAN_INLINE Diagnostics validate_placement(const Problem& p, const Placement& pl) {
  using detail::quote;
  Diagnostics out;
  auto err = [&](std::string m) { out.push_back(error(std::move(m))); };
  const ProblemIndex index(p);
  auto nm = [&](BufferId b) { return detail::label(p, b); };
  const std::size_t n = p.buffers.size();
  if (pl.offsets.size() != n) {
    err("the placement has " + std::to_string(pl.offsets.size()) + " offsets for " + std::to_string(n) +
        " buffers");
    return out;
  }

  if (!pl.arenas.empty() && pl.arenas.size() != n) {
    err("the placement chooses arenas for " + std::to_string(pl.arenas.size()) + " of " + std::to_string(n) +
        " buffers; give every buffer its arena, or none");
    return out;
  }
  auto arena_of = [&](std::size_t i) { return detail::placed_arena(p, pl, i); };
  std::vector<bool> usable(n, false);  // has an offset whose end does not overflow
  std::vector<Addr> end(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& b = p.buffers[i];
    auto name = [&] {
      return "buffer " + quote(nm(static_cast<BufferId>(i)));
    };  // only when something is wrong
    if (!pl.offsets[i]) {
      err(name() + " has no offset");
      continue;
    }
    const Addr off = *pl.offsets[i];
    if (!pl.arenas.empty() && pl.arenas[i] != b.arena &&
        std::find(b.candidate_arenas.begin(), b.candidate_arenas.end(), pl.arenas[i]) ==
            b.candidate_arenas.end()) {
      err(name() + " is placed in arena " + std::to_string(pl.arenas[i]) +
          ", which is not among its candidates");
      continue;
    }
    if (b.pin && off != b.pin->offset)
      err(name() + " is pinned at offset " + std::to_string(b.pin->offset) + " but placed at " +
          std::to_string(off));
    if (off % b.alignment != 0)
      err(name() + " at offset " + std::to_string(off) + " is not aligned to " + std::to_string(b.alignment));
    const auto e = checked_add(off, b.size);
    if (!e) {
      err(name() + ": offset " + std::to_string(off) + " + size " + std::to_string(b.size) +
          " overflows 64 bits");
      continue;
    }
    usable[i] = true;
    end[i] = *e;
    const auto& arena = p.arenas[*index.arena(arena_of(i))];
    if (*e > arena.capacity)
      err(name() + " at " + detail::bytes(off, *e) + " exceeds the capacity " +
          std::to_string(arena.capacity) + " of arena " + std::to_string(arena.id) + " by " +
          std::to_string(*e - arena.capacity) + " bytes");
    for (const auto& r : arena.reserved)
      if (overlaps(AddrRange{off, *e}, r))
        err(name() + " at " + detail::bytes(off, *e) + " overlaps the reserved window " +
            detail::bytes(r.begin, r.end) + " of arena " + std::to_string(arena.id));
  }
  auto range = [&](std::size_t i) { return AddrRange{*pl.offsets[i], end[i]}; };
  auto describe = [&](std::size_t i) {
    return quote(nm(static_cast<BufferId>(i))) + " " + detail::bytes(*pl.offsets[i], end[i]) + " live " +
           detail::ticks(p.buffers[i].lifetime);
  };

  const AliasClasses classes = alias_classes(p, index);

  // Interference: sweep time per arena. Buffers that conflicted with nothing
  // so far are kept disjoint in `clean` (ordered by offset), so a neighbour
  // scan finds every overlap with them; the few that did conflict are kept in
  // `dirty` and checked one by one. Every overlapping co-live pair is found.
  // The sweep reads one flat record per buffer, in sweep order, gathered
  // while reading the problem in order: at a million buffers, reaching into
  // the buffers, offsets and classes in start order missed the cache five
  // times a buffer.
  const detail::TimeConflicts co_live(p);
  const bool exact_intervals =
      p.exclusions.empty() &&
      std::none_of(p.buffers.begin(), p.buffers.end(), [](const BufferSpec& b) { return !b.live.empty(); });
  if (p.conflict_graph) {  // the graph, not the lifetimes, says who is live together
    detail::Report report;
    for (const auto& c : *p.conflict_graph) {
      const std::size_t a = c.a, b = c.b;
      if (!usable[a] || !usable[b] || arena_of(a) != arena_of(b) ||
          classes.class_of[a] == classes.class_of[b])
        continue;
      if (co_live(a, b) && overlaps(range(a), range(b)))
        report.add(
            "buffers " + describe(a) + " and " + describe(b) +
            " are live at the same time (an edge of the conflict graph) and overlap in bytes " +
            detail::bytes(std::max(range(a).begin, range(b).begin), std::min(range(a).end, range(b).end)));
    }
    auto diags = report.finish("overlapping pairs");
    out.insert(out.end(), diags.begin(), diags.end());
  } else {
    detail::Report report;
    struct Item {
      std::int64_t arena;
      Tick begin;
      std::size_t buffer;
      Tick end;
      AddrRange bytes;
      std::size_t klass;
      bool grouped;
      // The sweep order of sort_by_arena_then_start: arena, start, index.
      bool operator<(const Item& o) const {
        return std::tie(arena, begin, buffer) < std::tie(o.arena, o.begin, o.buffer);
      }
    };
    std::vector<Item> items;
    items.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      if (usable[i]) {
        const auto& b = p.buffers[i];
        items.push_back({arena_of(i), b.lifetime.begin, i, b.lifetime.end, range(i), classes.class_of[i],
                         classes.grouped[i]});
      }
    std::sort(items.begin(), items.end());
    std::map<std::pair<Addr, std::size_t>, std::size_t> clean;      // (offset, buffer) -> item
    std::vector<decltype(clean)::iterator> in_clean(items.size());  // where each clean item sits, to erase it
    std::vector<std::size_t> dirty;                                 // items
    LiveSweep<std::size_t> sweep;                                   // items, by lifetime end
    std::vector<bool> is_dirty(items.size(), false);
    std::int64_t arena = 0;
    bool first = true;
    for (std::size_t k = 0; k < items.size(); ++k) {
      const Item& cur = items[k];
      if (first || cur.arena != arena) {
        clean.clear();
        dirty.clear();
        sweep.clear();
        arena = cur.arena;
        first = false;
      }
      sweep.leave_until(cur.begin, [&](std::size_t j) {
        if (is_dirty[j])
          dirty.erase(std::find(dirty.begin(), dirty.end(), j));
        else
          clean.erase(in_clean[j]);
      });
      bool conflict = false;
      auto check = [&](std::size_t j) {
        const Item& other = items[j];
        if (cur.klass == other.klass || !overlaps(cur.bytes, other.bytes)) return;
        conflict = true;  // kept out of the disjoint set even when the hulls meet without a conflict
        if (!exact_intervals && !co_live(cur.buffer, other.buffer)) return;
        report.add("buffers " + describe(other.buffer) + " and " + describe(cur.buffer) +
                   " are live at the same time and overlap in bytes " +
                   detail::bytes(std::max(cur.bytes.begin, other.bytes.begin),
                                 std::min(cur.bytes.end, other.bytes.end)));
      };
      auto it = clean.lower_bound({cur.bytes.begin, 0});
      if (it != clean.begin()) check(std::prev(it)->second);
      for (; it != clean.end() && it->first.first < cur.bytes.end; ++it) check(it->second);
      for (std::size_t j : dirty) check(j);
      // A buffer that overlaps nothing in bytes (size 0 excluded) stays clean.
      if (conflict || cur.grouped) {
        // Aliased buffers may overlap their own class, so they cannot join the disjoint set.
        is_dirty[k] = true;
        dirty.push_back(k);
      } else {
        in_clean[k] = clean.emplace(std::pair{cur.bytes.begin, cur.buffer}, k).first;
      }
      sweep.enter(cur.end, k);
    }
    auto diags = report.finish("overlapping pairs");
    out.insert(out.end(), diags.begin(), diags.end());
  }

  // An exclusive pin owns its bytes in its arena for the whole horizon.
  for (std::size_t i = 0; i < n; ++i) {
    if (!p.buffers[i].pin || !p.buffers[i].pin->exclusive || !usable[i]) continue;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i && usable[j] && arena_of(j) == arena_of(i) && classes.class_of[j] != classes.class_of[i] &&
          overlaps(range(i), range(j)))
        err("buffer " + describe(j) + " overlaps the bytes of " + describe(i) +
            ", which is pinned there exclusively (for the whole horizon)");
  }

  for (const auto& s : p.separations) {
    const auto a = *index.buffer(s.a);
    const auto b = *index.buffer(s.b);
    if (usable[a] && usable[b] && arena_of(a) == arena_of(b) && overlaps(range(a), range(b)))
      err("separated buffers " + describe(a) + " and " + describe(b) + " overlap in bytes " +
          detail::bytes(std::max(range(a).begin, range(b).begin), std::min(range(a).end, range(b).end)));
  }

  for (std::size_t g = 0; g < p.must_alias.size(); ++g) {
    std::optional<Addr> base;
    BufferId first_member = 0;
    for (const auto& m : p.must_alias[g].members) {
      const auto i = *index.buffer(m.buffer);
      if (!usable[i]) continue;
      const Addr off = *pl.offsets[i];
      if (off < m.offset) {
        err("must-alias group " + std::to_string(g) + ": " + quote(nm(m.buffer)) + " at " +
            std::to_string(off) + " lies below its group start (member offset " + std::to_string(m.offset) +
            ")");
        continue;
      }
      if (!base) {
        base = off - m.offset;
        first_member = m.buffer;
      } else if (off - m.offset != *base) {
        err("must-alias group " + std::to_string(g) + ": " + quote(nm(m.buffer)) + " puts the group at " +
            std::to_string(off - m.offset) + " but " + quote(nm(first_member)) + " puts it at " +
            std::to_string(*base) + "; aliases must share one allocation");
      }
    }
  }

  // Declared allocations: bindings on their slots, declarations closed.
  struct Extent {
    AddrRange bytes;
    std::size_t buffer;
    std::size_t klass;
  };
  std::map<std::int64_t, std::vector<Extent>> extents;
  for (const auto& d : p.declared) {
    const auto di = *index.buffer(d.buffer);
    if (!usable[di]) continue;
    const Addr base = *pl.offsets[di];
    for (const auto& bind : d.bindings) {
      const auto bi = *index.buffer(bind.buffer);
      if (!usable[bi]) continue;
      const Addr off = *pl.offsets[bi];
      const bool on_slot =
          bind.slot ? off == base + *bind.slot * d.slot_size
                    : off >= base && (off - base) % d.slot_size == 0 && (off - base) / d.slot_size < d.slots;
      if (!on_slot)
        err("declared allocation " + quote(nm(d.buffer)) + " at " + std::to_string(base) + ": " +
            quote(nm(bind.buffer)) + " at " + std::to_string(off) + " is not on " +
            (bind.slot ? "its slot " + std::to_string(*bind.slot) + " (offset " +
                             std::to_string(base + *bind.slot * d.slot_size) + ")"
                       : std::string("a slot boundary")));
    }
    extents[p.buffers[di].arena].push_back({range(di), di, classes.class_of[di]});
  }
  for (auto& [arena, list] : extents) {
    std::sort(list.begin(), list.end(), [](const Extent& a, const Extent& b) { return a.bytes < b.bytes; });
    for (std::size_t k = 1; k < list.size(); ++k)
      if (overlaps(list[k - 1].bytes, list[k].bytes))
        err("declared allocations " + describe(list[k - 1].buffer) + " and " + describe(list[k].buffer) +
            " overlap");
  }
  if (!extents.empty()) {
    detail::Report report;
    for (std::size_t i = 0; i < n; ++i) {
      auto it = extents.find(arena_of(i));
      if (!usable[i] || it == extents.end()) continue;
      const auto& list = it->second;
      // Extents are disjoint (reported above otherwise) and sorted: walk back
      // from the last one starting below this buffer's end.
      auto e = std::lower_bound(list.begin(), list.end(), range(i).end,
                                [](const Extent& x, Addr v) { return x.bytes.begin < v; });
      while (e != list.begin()) {
        --e;
        if (e->bytes.end <= range(i).begin) break;
        if (e->klass != classes.class_of[i] && overlaps(e->bytes, range(i)))
          report.add("buffer " + describe(i) + " overlaps the declared allocation " + describe(e->buffer) +
                     ", which no other buffer may share");
      }
    }
    auto diags = report.finish("buffers inside declared allocations");
    out.insert(out.end(), diags.begin(), diags.end());
  }
  return out;
}

}  // namespace pto_mem
