// Structured problems placed by the plain planners: the lowering.
//
// A problem with several live intervals per buffer, temporal exclusions,
// pins, candidate arenas or a conflict graph is turned, for one choice of
// arena per buffer, into a plain problem (one interval per buffer, one
// arena) that every strategy places; its placement is lifted back. Example:
//
//   a live [0, 2) and [6, 8)         lowered: a alone at [10, 11), separated from
//   b live [3, 5)                    every buffer it meets in time (c); b and c
//   c live [1, 7), excluded from b   keep their intervals, and so do not meet
//
// The rule: two buffers of one arena conflict in the lowered problem exactly
// when they conflict in the structured one (core/problem.hpp: live together
// and not excluded, or separated). Buffers whose interval hull would claim
// more conflicts than they have (several live intervals, an exclusion
// against a buffer their hull meets, every buffer under a conflict graph)
// are "detached": each gets a private instant after the horizon, and a
// separation from every buffer it truly conflicts with.
//
// Pins. An exclusive pin leaves the problem: its bytes become a reserved
// window of its arena (exact: it keeps every other buffer out at all
// times). A shared (non-exclusive) pin is lowered one of two ways:
//  * for the exact search (`pins_in_search`): the buffer stays, as any
//    other, with a fixed offset (LoweredProblem::fixed) that the search
//    honours (ExactOptions::fixed_offsets) -- exact: the buffers it conflicts
//    with avoid its bytes, the others may share them;
//  * for the heuristics, which know no fixed offsets: it leaves the problem
//    and its bytes become a reserved window -- exact only when every other
//    buffer of the arena meets it in time; otherwise the window also keeps
//    out buffers that could have shared it, and the lowering is inexact.
//
// When the detached buffers would need more separations than the budget
// allows, they keep their hull and exclusions are dropped: still sound
// (only more conflicts), but inexact. Proofs made on an inexact lowering
// (infeasible, optimal) are not proofs for the structured problem; plan()
// reports them as bounded-search results. The arena choice is the caller's:
// the lowering is exact or not for the choice it is given.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// A plain problem standing for a structured one under one arena choice.
struct LoweredProblem {
  Problem problem;
  /// For each structured buffer: its buffer in `problem`, or nullopt for a
  /// pinned buffer that left the problem (it stays at its pin).
  std::vector<std::optional<BufferId>> to_lowered;
  /// Per buffer of `problem`: the offset it is fixed at (a shared pin kept
  /// in the problem, `pins_in_search`); empty when no buffer is fixed.
  std::vector<std::optional<Addr>> fixed;
  /// The lowered problem's conflicts are exactly the structured ones (see
  /// the header); false when precision was given up, with the reasons.
  bool exact = true;
  std::vector<std::string> losses;
};

namespace detail::lowering {

inline std::uint64_t pair_key(std::size_t a, std::size_t b) {
  return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | static_cast<std::uint64_t>(std::max(a, b));
}

/// Whether two buffers' live intervals meet (the lifetimes when a buffer
/// has no list).
inline bool live_meet(const BufferSpec& a, const BufferSpec& b) {
  const Interval* la = a.live.empty() ? &a.lifetime : a.live.data();
  const Interval* lb = b.live.empty() ? &b.lifetime : b.live.data();
  const std::size_t na = a.live.empty() ? 1 : a.live.size(), nb = b.live.empty() ? 1 : b.live.size();
  std::size_t x = 0, y = 0;
  while (x < na && y < nb) {
    if (la[x].begin < lb[y].end && lb[y].begin < la[x].end) return true;
    if (la[x].end <= lb[y].end)
      ++x;
    else
      ++y;
  }
  return false;
}

/// Separations the detached buffers may add before the lowering falls back
/// to interval hulls.
constexpr std::size_t max_detached_separations = 4'000'000;

}  // namespace detail::lowering

/// The plain problem of `p` (validated, not plain) with buffer i in arena
/// `arena_choice[i]` (one of its candidates). `pins_in_search`: shared pins
/// stay in the problem with fixed offsets (for a search that honours
/// LoweredProblem::fixed), instead of becoming reserved windows.
[[nodiscard]] inline LoweredProblem lower_structured(const Problem& p,
                                                     const std::vector<std::int64_t>& arena_choice,
                                                     bool pins_in_search = false) {
  using detail::lowering::pair_key;
  const std::size_t n = p.buffers.size();
  LoweredProblem out;
  out.to_lowered.assign(n, std::nullopt);
  Problem& q = out.problem;
  q.arenas = p.arenas;
  auto lose = [&](std::string why) {
    out.exact = false;
    if (std::find(out.losses.begin(), out.losses.end(), why) == out.losses.end())
      out.losses.push_back(std::move(why));
  };

  // A pinned buffer that leaves the problem: its bytes become a reserved window.
  auto leaves = [&](std::size_t i) {
    const auto& pin = p.buffers[i].pin;
    return pin && (pin->exclusive || !pins_in_search);
  };

  std::unordered_set<std::uint64_t> excluded;
  for (const auto& x : p.exclusions) excluded.insert(pair_key(x.a, x.b));
  auto conflict = [&](std::size_t i, std::size_t j) {  // in time, structured rule
    if (excluded.contains(pair_key(i, j))) return false;
    if (p.conflict_graph) return false;  // edges are handled on their own
    return detail::lowering::live_meet(p.buffers[i], p.buffers[j]);
  };

  // Which buffers need a private instant.
  std::vector<bool> detached(n, false);
  if (p.conflict_graph) {
    detached.assign(n, true);
  } else {
    for (std::size_t i = 0; i < n; ++i) detached[i] = p.buffers[i].live.size() > 1;
    for (const auto& x : p.exclusions) {
      if (detached[x.a] || detached[x.b] || arena_choice[x.a] != arena_choice[x.b]) continue;
      if (interferes(p.buffers[x.a].lifetime, p.buffers[x.b].lifetime)) detached[std::max(x.a, x.b)] = true;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (leaves(i)) detached[i] = false;

  // The separations the detached buffers need, unless too many.
  std::vector<std::pair<BufferId, BufferId>> extra;
  bool hulls = false;
  if (p.conflict_graph) {
    for (const auto& c : *p.conflict_graph)
      if (c.a != c.b && arena_choice[c.a] == arena_choice[c.b] && !excluded.contains(pair_key(c.a, c.b)))
        extra.emplace_back(c.a, c.b);
  } else if (std::any_of(detached.begin(), detached.end(), [](bool d) { return d; })) {
    // Buffers by hull start per arena; each detached buffer meets the ones
    // whose hull overlaps its own and checks the structured rule.
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (arena_choice[a] != arena_choice[b]) return arena_choice[a] < arena_choice[b];
      if (p.buffers[a].lifetime.begin != p.buffers[b].lifetime.begin)
        return p.buffers[a].lifetime.begin < p.buffers[b].lifetime.begin;
      return a < b;
    });
    std::size_t work = 0;
    for (std::size_t d = 0; d < n && !hulls; ++d) {
      if (!detached[d]) continue;
      const auto& bd = p.buffers[d];
      // The first buffer of d's arena; then every one starting before d's end.
      auto first = std::lower_bound(order.begin(), order.end(), d, [&](std::size_t x, std::size_t) {
        return arena_choice[x] < arena_choice[d];
      });
      for (auto it = first; it != order.end() && arena_choice[*it] == arena_choice[d]; ++it) {
        const std::size_t j = *it;
        if (p.buffers[j].lifetime.begin >= bd.lifetime.end) break;
        if (++work > 50 * detail::lowering::max_detached_separations) {
          hulls = true;
          break;
        }
        if (j == d || p.buffers[j].lifetime.end <= bd.lifetime.begin || leaves(j)) continue;
        if (detached[j] && j < d) continue;  // the pair was met from j's side
        if (conflict(d, j)) extra.emplace_back(static_cast<BufferId>(d), static_cast<BufferId>(j));
      }
      if (extra.size() > detail::lowering::max_detached_separations) hulls = true;
    }
  }
  if (hulls) {
    extra.clear();
    detached.assign(n, false);
    lose(
        "too many conflicts to state one by one: buffers with several live intervals keep their hull, and "
        "exclusions between overlapping intervals are not used");
  }

  // Buffers.
  Tick horizon = 0;
  for (const auto& b : p.buffers) horizon = std::max(horizon, b.lifetime.end);
  Tick next_instant = horizon;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& b = p.buffers[i];
    if (leaves(i)) continue;
    BufferSpec s;
    s.name = buffer_label(p, static_cast<BufferId>(i));
    s.size = b.size;
    s.alignment = b.alignment;
    s.arena = arena_choice[i];
    s.lifetime = b.lifetime;
    if (detached[i]) {
      s.lifetime = {next_instant, next_instant + 1};
      ++next_instant;
    }
    out.to_lowered[i] = static_cast<BufferId>(q.buffers.size());
    q.buffers.push_back(std::move(s));
    if (b.pin) {
      out.fixed.resize(q.buffers.size());
      out.fixed.back() = b.pin->offset;
    }
  }
  if (!out.fixed.empty()) out.fixed.resize(q.buffers.size());

  // Pins that left: reserved windows of their arena.
  {
    const ProblemIndex index(p);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& b = p.buffers[i];
      if (!leaves(i)) continue;
      const auto k = index.arena(b.arena);
      if (!k) continue;
      q.arenas[*k].reserved.push_back({b.pin->offset, b.pin->offset + b.size});
      if (b.pin->exclusive) continue;
      for (std::size_t j = 0; j < n; ++j)
        if (j != i && arena_choice[j] == b.arena && !(p.conflict_graph ? false : conflict(i, j))) {
          lose(
              "a pinned buffer's bytes are kept from every buffer of its arena, also from those it never "
              "meets in time");
          break;
        }
    }
  }

  auto mapped = [&](BufferId x) { return out.to_lowered[x]; };
  for (const auto& s : p.separations) {
    const auto a = mapped(s.a), b = mapped(s.b);
    if (a && b)
      q.separations.push_back({*a, *b, s.reasons});  // a pin's bytes are reserved: nothing to keep apart
  }
  for (const auto& [a, b] : extra) {
    const auto la = mapped(a), lb = mapped(b);
    if (la && lb) q.separations.push_back({*la, *lb, reason_explicit});
  }
  for (const auto& pen : p.penalties) {
    const auto a = mapped(pen.a), b = mapped(pen.b);
    if (!a || !b) {
      // Nothing may overlap an exclusive pin: such a penalty is never paid.
      const bool exclusive =
          (!a && p.buffers[pen.a].pin->exclusive) || (!b && p.buffers[pen.b].pin->exclusive);
      if (!exclusive) lose("a penalty with a pinned buffer is not priced while placing");
      continue;
    }
    if (q.buffers[*a].arena != q.buffers[*b].arena) continue;  // never overlap: costs nothing
    if (interferes(q.buffers[*a].lifetime, q.buffers[*b].lifetime))
      continue;  // cannot overlap in the lowered problem
    q.penalties.push_back({*a, *b, pen.weight});
  }
  for (const auto& g : p.must_alias) {
    MustAliasGroup h;
    for (const auto& m : g.members)
      if (auto x = mapped(m.buffer)) h.members.push_back({*x, m.offset});
    q.must_alias.push_back(std::move(h));
  }
  for (const auto& d : p.declared) {
    DeclaredAllocation e = d;
    e.bindings.clear();
    if (auto x = mapped(d.buffer)) e.buffer = *x;
    for (const auto& bind : d.bindings)
      if (auto x = mapped(bind.buffer)) e.bindings.push_back({*x, bind.slot});
    q.declared.push_back(std::move(e));
  }
  return out;
}

/// The structured placement of a lowered one: pinned buffers at their pins,
/// the others where the lowered placement put them; arenas recorded when
/// some buffer has several candidates.
[[nodiscard]] inline Placement lift_placement(const Problem& p, const LoweredProblem& l,
                                              const Placement& lowered,
                                              const std::vector<std::int64_t>& arena_choice) {
  Placement out;
  out.offsets.resize(p.buffers.size());
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    if (p.buffers[i].pin)
      out.offsets[i] = p.buffers[i].pin->offset;
    else if (const auto x = l.to_lowered[i]; x && *x < lowered.offsets.size())
      out.offsets[i] = lowered.offsets[*x];
  }
  if (std::any_of(p.buffers.begin(), p.buffers.end(),
                  [](const BufferSpec& b) { return b.candidate_arenas.size() > 1; }))
    out.arenas = arena_choice;
  return out;
}

}  // namespace pto_mem
