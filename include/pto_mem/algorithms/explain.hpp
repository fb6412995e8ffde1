// Why nothing fits: a minimal conflicting subset of a problem that does not
// fit, where its load is over, and the least capacities that would fit.
//
//   const pto_mem::PlanResult r = pto_mem::plan(problem);
//   if (!r.fits()) {
//     const pto_mem::Explanation e = pto_mem::explain(problem, r);
//     // e.members: buffers and constraints that alone do not fit, and
//     // without any one of which they do (e.minimal says it was shown).
//   }
//
// The subset is found by deletion: a member is dropped when the rest is
// still proved not to fit, kept when the rest was shown to fit (a validated
// placement). Each check is plan() with the exact strategy, goal fit, under
// a node budget; a check that ends without an answer keeps its member, and
// the explanation then says that minimality is not proved. Members are
// dropped in halves first (QuickXplain's divide and conquer), so a subset of
// k members out of n costs about k log(n / k) checks rather than n.
//
// Members are the parts whose removal can only make a problem easier:
// buffers (a declared allocation with its bindings counts as one), hard
// separations, pins, arenas' reserved windows and conflict-graph edges.
// Exclusions, must-alias offsets and candidate arenas stay with their
// buffers (dropping an exclusion would add a conflict). Penalties never
// decide a fit and are left out of every check.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/structured.hpp"
#include "pto_mem/planner.hpp"

namespace pto_mem {

// ---- restricting a problem -----------------------------------------------------

/// Which parts of a problem to keep. Every vector is indexed like the part
/// it selects (buffers and pins by BufferId, separations, penalties and
/// conflicts by position in their list, reserved windows by arena position
/// then window). A constraint is kept when it is selected and every buffer
/// it names is kept; exclusions and must-alias members follow their buffers;
/// a declared allocation is kept when its whole buffer is (with the bindings
/// whose buffers are kept).
struct ProblemSubset {
  std::vector<bool> buffers;
  std::vector<bool> separations;
  std::vector<bool> penalties;
  std::vector<bool> pins;
  std::vector<std::vector<bool>> reserved;
  std::vector<bool> conflicts;

  /// Everything of `p`.
  [[nodiscard]] static ProblemSubset all(const Problem& p) {
    ProblemSubset s;
    s.buffers.assign(p.buffers.size(), true);
    s.separations.assign(p.separations.size(), true);
    s.penalties.assign(p.penalties.size(), true);
    s.pins.assign(p.buffers.size(), true);
    for (const auto& a : p.arenas) s.reserved.emplace_back(a.reserved.size(), true);
    s.conflicts.assign(p.conflict_graph ? p.conflict_graph->size() : 0, true);
    return s;
  }
  /// Nothing of `p` (the vectors sized for it).
  [[nodiscard]] static ProblemSubset none(const Problem& p) {
    ProblemSubset s = all(p);
    auto clear = [](std::vector<bool>& v) { v.assign(v.size(), false); };
    clear(s.buffers), clear(s.separations), clear(s.penalties), clear(s.pins), clear(s.conflicts);
    for (auto& r : s.reserved) clear(r);
    return s;
  }
};

/// A problem restricted to some of its parts, and how its buffers map back.
struct RestrictedProblem {
  Problem problem;
  /// original[i]: the BufferId in the full problem of the restricted problem's buffer i.
  std::vector<BufferId> original;
  /// The restricted BufferId of each full-problem buffer (nullopt: left out).
  std::vector<std::optional<BufferId>> restricted;
};

/// The problem `p` restricted to the parts `keep` selects, with every
/// constraint's BufferIds renumbered. Arenas keep their ids, capacities
/// and order. A must-alias group left with no member is dropped; buffers
/// keep their names, so labels (buffer_label) stay those of `p` for named
/// buffers (an unnamed buffer is given its full-problem index as its name).
[[nodiscard]] inline RestrictedProblem restrict_problem(const Problem& p, const ProblemSubset& keep) {
  RestrictedProblem out;
  Problem& q = out.problem;
  const std::size_t n = p.buffers.size();
  out.restricted.assign(n, std::nullopt);
  auto sel = [](const std::vector<bool>& v, std::size_t i) { return i < v.size() && v[i]; };
  for (std::size_t i = 0; i < n; ++i) {
    if (!sel(keep.buffers, i)) continue;
    out.restricted[i] = static_cast<BufferId>(q.buffers.size());
    out.original.push_back(static_cast<BufferId>(i));
    BufferSpec b = p.buffers[i];
    if (b.name.empty()) b.name = std::to_string(i);
    if (!sel(keep.pins, i)) b.pin.reset();
    q.buffers.push_back(std::move(b));
  }
  auto id = [&](BufferId b) { return b < n ? out.restricted[b] : std::nullopt; };
  q.arenas = p.arenas;
  for (std::size_t k = 0; k < q.arenas.size(); ++k) {
    std::vector<AddrRange> windows;
    for (std::size_t w = 0; w < p.arenas[k].reserved.size(); ++w)
      if (k < keep.reserved.size() && sel(keep.reserved[k], w)) windows.push_back(p.arenas[k].reserved[w]);
    q.arenas[k].reserved = std::move(windows);
  }
  for (std::size_t s = 0; s < p.separations.size(); ++s)
    if (sel(keep.separations, s))
      if (auto a = id(p.separations[s].a), b = id(p.separations[s].b); a && b)
        q.separations.push_back({*a, *b, p.separations[s].reasons});
  for (std::size_t s = 0; s < p.penalties.size(); ++s)
    if (sel(keep.penalties, s))
      if (auto a = id(p.penalties[s].a), b = id(p.penalties[s].b); a && b)
        q.penalties.push_back({*a, *b, p.penalties[s].weight});
  for (const auto& x : p.exclusions)
    if (auto a = id(x.a), b = id(x.b); a && b) q.exclusions.push_back({*a, *b});
  if (p.conflict_graph) {
    q.conflict_graph.emplace();
    for (std::size_t e = 0; e < p.conflict_graph->size(); ++e)
      if (sel(keep.conflicts, e))
        if (auto a = id((*p.conflict_graph)[e].a), b = id((*p.conflict_graph)[e].b); a && b)
          q.conflict_graph->push_back({*a, *b});
  }
  for (const auto& g : p.must_alias) {
    MustAliasGroup h;
    for (const auto& m : g.members)
      if (auto a = id(m.buffer)) h.members.push_back({*a, m.offset});
    if (!h.members.empty()) q.must_alias.push_back(std::move(h));
  }
  for (const auto& d : p.declared) {
    auto whole = id(d.buffer);
    if (!whole) continue;
    DeclaredAllocation e = d;
    e.buffer = *whole;
    e.bindings.clear();
    for (const auto& bind : d.bindings)
      if (auto a = id(bind.buffer)) e.bindings.push_back({*a, bind.slot});
    q.declared.push_back(std::move(e));
  }
  return out;
}

// ---- the explanation -----------------------------------------------------------

/// What a member of a conflicting subset is.
enum class MemberKind {
  buffer,      ///< a buffer (`index`: its BufferId)
  declared,    ///< a declared allocation's whole buffer with all its bindings (`index`: the whole's BufferId)
  separation,  ///< a hard separation (`index`: its position in Problem::separations)
  pin,         ///< a buffer's pin (`index`: the pinned BufferId)
  reserved,  ///< a reserved window (`index`: the arena's position in Problem::arenas, `window`: its position
             ///< in Arena::reserved)
  conflict,  ///< a conflict-graph edge (`index`: its position in *Problem::conflict_graph)
};

[[nodiscard]] constexpr const char* to_string(MemberKind k) noexcept {
  switch (k) {
    case MemberKind::buffer: return "buffer";
    case MemberKind::declared: return "declared";
    case MemberKind::separation: return "separation";
    case MemberKind::pin: return "pin";
    case MemberKind::reserved: return "reserved";
    case MemberKind::conflict: return "conflict";
  }
  return "buffer";
}

/// What the check of the subset without one member said.
enum class Without {
  fits,     ///< a validated placement of the rest was found: the member is necessary
  unknown,  ///< the check ran out of budget: the member may be unnecessary
};

struct ConflictMember {
  MemberKind kind = MemberKind::buffer;
  std::uint32_t index = 0;
  std::uint32_t window = 0;  ///< for MemberKind::reserved
  Without without = Without::unknown;
  friend bool operator==(const ConflictMember& a, const ConflictMember& b) noexcept {
    return a.kind == b.kind && a.index == b.index && a.window == b.window;
  }
};

/// Where the subset's buffers are heaviest in one arena.
struct ArenaShortfall {
  std::int64_t arena = 0;  ///< Arena::id
  Addr capacity = 0;
  /// The instant at which the subset's buffers of this arena (on their live
  /// intervals; a buffer with several candidate arenas counts in its first)
  /// weigh most, their bytes then, and the bytes of the subset's reserved
  /// windows (their union).
  Tick at = 0;
  Addr live_bytes = 0;
  Addr reserved_bytes = 0;
  /// live_bytes + reserved_bytes - capacity when positive, else 0: the max
  /// load alone proves nothing fits. 0 means the conflict is in the
  /// arrangement (separations, pins, alignment, fragmentation).
  Addr over = 0;
  std::vector<BufferId> live;  ///< the subset's buffers live at `at`, in BufferId order
  /// The heaviest set of the subset's buffers of this arena that must all
  /// be apart (pairwise live together or separated), its bytes, and by how
  /// much it (with the reserved bytes) exceeds the capacity (0: it does not).
  std::vector<BufferId> apart;
  Addr apart_bytes = 0;
  Addr apart_over = 0;
};

/// The least capacity of one arena under which its buffers fit (every other
/// arena may grow too: without several candidate arenas, arenas are
/// independent and other arenas need nothing).
struct CapacityNeed {
  std::int64_t arena = 0;  ///< Arena::id
  Addr capacity = 0;       ///< the arena's capacity now
  /// A capacity that fits: the arena's peak in one placement of the whole
  /// problem with every arena uncapped (one placement gives all of them at
  /// once). nullopt when no placement was found even so (pins that clash,
  /// or the budget).
  std::optional<Addr> fits_at;
  /// No smaller capacity of this arena fits (the exact search's proved
  /// bound reaches fits_at).
  bool proved = false;
  Addr lower_bound = 0;  ///< no placement's peak in this arena is lower
};

struct Explanation {
  /// plan()'s status for the whole problem. Only `infeasible` and `no_fit`
  /// are explained; for the others the members are empty.
  Status status = Status::invalid_input;
  /// A subset was proved not to fit (a complete search or a bound).
  bool explained = false;
  /// Every member was shown necessary (its Without is `fits`).
  bool minimal = false;
  std::vector<ConflictMember> members;
  /// Exclusions (positions in Problem::exclusions) between the subset's
  /// buffers: in force, but not members (without one, the pair conflicts).
  std::vector<std::size_t> exclusions;
  /// One entry per arena holding a buffer of the subset, in arena order.
  std::vector<ArenaShortfall> shortfall;
  /// One entry per arena whose buffers do not fit its capacity (or were not
  /// shown to), in arena order; empty when not asked (ExplainOptions).
  std::vector<CapacityNeed> capacity;
  std::uint64_t checks = 0;  ///< plan() calls made by the deletion
  double time_s = 0.0;
  Diagnostics diagnostics;
};

/// What explain() does beyond the options of its checks.
struct ExplainOptions {
  /// Search nodes for each check; unset: default_node_limit of the subset's
  /// size (PlanOptions::node_limit, when set, wins).
  std::optional<std::uint64_t> check_node_limit = std::nullopt;
  /// Also find each arena's least capacity (one exact search with goal
  /// minimise on the whole problem, every arena uncapped).
  bool least_capacity = true;
};

namespace detail::explaining {

/// A member and the problem's selection it stands for.
inline void select(const Problem& p, const ConflictMember& m, ProblemSubset& s, bool on) {
  switch (m.kind) {
    case MemberKind::buffer: s.buffers[m.index] = on; break;
    case MemberKind::declared:
      for (const auto& d : p.declared)
        if (d.buffer == m.index) {
          s.buffers[d.buffer] = on;
          for (const auto& bind : d.bindings) s.buffers[bind.buffer] = on;
        }
      break;
    case MemberKind::separation: s.separations[m.index] = on; break;
    case MemberKind::pin: s.pins[m.index] = on; break;
    case MemberKind::reserved: s.reserved[m.index][m.window] = on; break;
    case MemberKind::conflict: s.conflicts[m.index] = on; break;
  }
}

/// Every member of `p` (buffers and declarations first, then constraints).
inline std::vector<ConflictMember> members_of(const Problem& p) {
  std::vector<ConflictMember> out;
  std::vector<bool> in_declaration(p.buffers.size(), false);
  std::vector<bool> whole(p.buffers.size(), false);
  for (const auto& d : p.declared) {
    if (d.buffer < p.buffers.size()) in_declaration[d.buffer] = whole[d.buffer] = true;
    for (const auto& b : d.bindings)
      if (b.buffer < p.buffers.size()) in_declaration[b.buffer] = true;
  }
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    if (whole[i])
      out.push_back({MemberKind::declared, static_cast<std::uint32_t>(i)});
    else if (!in_declaration[i])
      out.push_back({MemberKind::buffer, static_cast<std::uint32_t>(i)});
  }
  for (std::size_t s = 0; s < p.separations.size(); ++s)
    out.push_back({MemberKind::separation, static_cast<std::uint32_t>(s)});
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].pin) out.push_back({MemberKind::pin, static_cast<std::uint32_t>(i)});
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    for (std::size_t w = 0; w < p.arenas[k].reserved.size(); ++w)
      out.push_back({MemberKind::reserved, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(w)});
  if (p.conflict_graph)
    for (std::size_t e = 0; e < p.conflict_graph->size(); ++e)
      out.push_back({MemberKind::conflict, static_cast<std::uint32_t>(e)});
  return out;
}

/// The buffers a member needs to mean anything (none for a reserved window).
inline std::vector<BufferId> ends(const Problem& p, const ConflictMember& m) {
  switch (m.kind) {
    case MemberKind::buffer:
    case MemberKind::declared:
    case MemberKind::pin: return {m.index};
    case MemberKind::separation: return {p.separations[m.index].a, p.separations[m.index].b};
    case MemberKind::conflict: return {(*p.conflict_graph)[m.index].a, (*p.conflict_graph)[m.index].b};
    case MemberKind::reserved: return {};
  }
  return {};
}

enum class Verdict { fits, infeasible, unknown };

/// Runs the checks: plan() with the exact strategy on a selection of members.
class Checker {
 public:
  Checker(const Problem& p, const PlanOptions& options, const ExplainOptions& eo,
          std::chrono::steady_clock::time_point deadline)
      : p_(p), options_(options), eo_(eo), deadline_(deadline) {}

  Verdict check(const std::vector<ConflictMember>& members) {
    ProblemSubset s = ProblemSubset::none(p_);
    for (const auto& m : members) select(p_, m, s, true);
    s.penalties.assign(s.penalties.size(), false);  // a penalty never decides a fit
    std::vector<bool> key;                          // the selection, to answer a repeated check from memory
    for (const auto* v : {&s.buffers, &s.separations, &s.pins, &s.conflicts})
      key.insert(key.end(), v->begin(), v->end());
    for (const auto& r : s.reserved) key.insert(key.end(), r.begin(), r.end());
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const Verdict v = run(s);
    memo_.emplace(std::move(key), v);
    return v;
  }
  [[nodiscard]] std::uint64_t checks() const noexcept { return checks_; }
  [[nodiscard]] bool out_of_time() const {
    return options_.stop.stop_requested() || std::chrono::steady_clock::now() >= deadline_;
  }

 private:
  Verdict run(const ProblemSubset& s) {
    if (out_of_time()) return Verdict::unknown;
    ++checks_;
    const RestrictedProblem r = restrict_problem(p_, s);
    PlanOptions o;
    o.strategy = Strategy::exact;
    o.goal = Goal::fit;
    o.threads = options_.threads.value_or(1);
    o.seed = options_.seed;
    o.stop = options_.stop;
    o.node_limit = eo_.check_node_limit ? eo_.check_node_limit : options_.node_limit;
    if (!o.node_limit) o.node_limit = default_node_limit(r.problem.buffers.size());
    if (deadline_ != std::chrono::steady_clock::time_point::max()) {
      const double left = std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
      o.time_limit_s = std::max(left, 1e-3);
    }
    const PlanResult res = plan(r.problem, o);
    if (res.fits()) return Verdict::fits;
    if (res.status == Status::infeasible) return Verdict::infeasible;
    return Verdict::unknown;
  }

  const Problem& p_;
  const PlanOptions& options_;
  const ExplainOptions& eo_;
  std::chrono::steady_clock::time_point deadline_;
  std::uint64_t checks_ = 0;
  std::map<std::vector<bool>, Verdict> memo_;
};

/// QuickXplain: the members of `candidates` that, with `background`, do not
/// fit, dropping every member whose absence was proved not to fit. `delta`
/// says whether the background just grew (else it is known to be checked).
inline std::vector<ConflictMember> quick_xplain(Checker& c, std::vector<ConflictMember>& background,
                                                bool delta, const std::vector<ConflictMember>& candidates) {
  if (delta && c.check(background) == Verdict::infeasible) return {};
  if (candidates.size() == 1) return candidates;
  const std::size_t half = candidates.size() / 2;
  const std::vector<ConflictMember> c1(candidates.begin(),
                                       candidates.begin() + static_cast<std::ptrdiff_t>(half));
  const std::vector<ConflictMember> c2(candidates.begin() + static_cast<std::ptrdiff_t>(half),
                                       candidates.end());
  const std::size_t base = background.size();
  background.insert(background.end(), c1.begin(), c1.end());
  std::vector<ConflictMember> x2 = quick_xplain(c, background, !c1.empty(), c2);
  background.resize(base);
  background.insert(background.end(), x2.begin(), x2.end());
  std::vector<ConflictMember> x1 = quick_xplain(c, background, !x2.empty(), c1);
  background.resize(base);
  x1.insert(x1.end(), x2.begin(), x2.end());
  return x1;
}

/// The members meaningful within `members` (their buffers are all in it).
inline std::vector<ConflictMember> meaningful(const Problem& p, const std::vector<ConflictMember>& members) {
  std::vector<bool> kept(p.buffers.size(), false);
  for (const auto& m : members)
    if (m.kind == MemberKind::buffer)
      kept[m.index] = true;
    else if (m.kind == MemberKind::declared) {
      for (const auto& d : p.declared)
        if (d.buffer == m.index) {
          kept[d.buffer] = true;
          for (const auto& b : d.bindings) kept[b.buffer] = true;
        }
    }
  std::vector<ConflictMember> out;
  for (const auto& m : members) {
    bool ok = true;
    if (m.kind != MemberKind::buffer && m.kind != MemberKind::declared)
      for (BufferId b : ends(p, m)) ok = ok && kept[b];
    if (ok) out.push_back(m);
  }
  return out;
}

/// Whether buffers i and j may have to be apart in some placement, for the
/// narrowing into independent groups: they can share an arena, and they
/// are live together, separated, or joined by an edge, an alias group or a
/// declaration (checked by the caller).
inline bool may_share_arena(const BufferSpec& a, const BufferSpec& b) {
  auto cands = [](const BufferSpec& x) {
    return x.candidate_arenas.empty() ? std::vector<std::int64_t>{x.arena} : x.candidate_arenas;
  };
  for (auto x : cands(a))
    for (auto y : cands(b))
      if (x == y) return true;
  return false;
}

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) {
    for (std::size_t i = 0; i < n; ++i) parent[i] = i;
  }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

/// The members split into groups no placement decision couples: buffers
/// that never share an arena, or never meet in time and are joined by no
/// constraint, are independent, and a problem fits exactly when each group
/// (with the reserved windows of its arenas) fits. Groups in order of their
/// first buffer.
inline std::vector<std::vector<ConflictMember>> independent_groups(
    const Problem& p, const std::vector<ConflictMember>& members) {
  const std::size_t n = p.buffers.size();
  UnionFind uf(n);
  // Live together: a sweep per arena over interval hulls (a superset of the
  // true conflicts, so the groups only get coarser).
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return p.buffers[a].lifetime.begin < p.buffers[b].lifetime.begin ||
           (p.buffers[a].lifetime.begin == p.buffers[b].lifetime.begin && a < b);
  });
  if (!p.conflict_graph) {
    std::vector<std::size_t> open;
    for (std::size_t i : order) {
      std::erase_if(open,
                    [&](std::size_t j) { return p.buffers[j].lifetime.end <= p.buffers[i].lifetime.begin; });
      for (std::size_t j : open)
        if (may_share_arena(p.buffers[i], p.buffers[j])) uf.join(i, j);
      open.push_back(i);
    }
  } else {
    for (const auto& e : *p.conflict_graph) uf.join(e.a, e.b);
  }
  for (const auto& s : p.separations) uf.join(s.a, s.b);
  for (const auto& g : p.must_alias)
    for (const auto& m : g.members) uf.join(m.buffer, g.members.front().buffer);
  // A declaration's bytes are closed to every other buffer of its arena, whatever the lifetimes.
  for (const auto& d : p.declared)
    for (std::size_t j = 0; j < n; ++j)
      if (may_share_arena(p.buffers[d.buffer], p.buffers[j])) uf.join(j, d.buffer);
  // An exclusive pin keeps every buffer of its arena off its bytes.
  for (std::size_t i = 0; i < n; ++i)
    if (p.buffers[i].pin && p.buffers[i].pin->exclusive)
      for (std::size_t j = 0; j < n; ++j)
        if (may_share_arena(p.buffers[i], p.buffers[j])) uf.join(i, j);
  std::map<std::size_t, std::vector<ConflictMember>> groups;
  std::vector<ConflictMember> windows;
  for (const auto& m : members) {
    if (m.kind == MemberKind::reserved) {
      windows.push_back(m);
      continue;
    }
    groups[uf.find(ends(p, m).front())].push_back(m);
  }
  std::vector<std::vector<ConflictMember>> out;
  for (auto& [root, g] : groups) {
    std::vector<bool> arena_used(p.arenas.size(), false);
    const ProblemIndex index(p);
    for (const auto& m : g)
      if (m.kind == MemberKind::buffer || m.kind == MemberKind::declared) {
        const auto& b = p.buffers[m.index];
        if (b.candidate_arenas.empty()) {
          if (auto k = index.arena(b.arena)) arena_used[*k] = true;
        } else {
          for (auto a : b.candidate_arenas)
            if (auto k = index.arena(a)) arena_used[*k] = true;
        }
      }
    for (const auto& w : windows)
      if (arena_used[w.index]) g.push_back(w);
    out.push_back(std::move(g));
  }
  return out;
}

/// The max-load shortcut: in an arena whose live bytes at one instant (with
/// its reserved windows) exceed the capacity, the fewest largest buffers
/// live then that still exceed it, with the arena's windows. Plain problems
/// only; nullopt when no instant is over.
inline std::optional<std::vector<ConflictMember>> overloaded_instant(const Problem& p) {
  if (!is_plain(p) || !p.must_alias.empty() || !p.declared.empty()) return std::nullopt;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    const Arena& arena = p.arenas[k];
    const Addr reserved = covered_bytes(arena.reserved);
    std::vector<std::pair<Tick, std::int64_t>> ev;  // (tick, +i+1 start / -(i+1) end); ends first
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (p.buffers[i].arena == arena.id) {
        ev.push_back({p.buffers[i].lifetime.begin, static_cast<std::int64_t>(i) + 1});
        ev.push_back({p.buffers[i].lifetime.end, -static_cast<std::int64_t>(i) - 1});
      }
    std::sort(ev.begin(), ev.end());
    Addr live = 0, worst = 0;
    Tick at = 0;
    for (const auto& [t, e] : ev) {
      const Addr size = p.buffers[static_cast<std::size_t>(e > 0 ? e - 1 : -e - 1)].size;
      live = e > 0 ? saturating_add(live, size) : live - std::min(live, size);
      if (e > 0 && live > worst) worst = live, at = t;
    }
    if (saturating_add(worst, reserved) <= arena.capacity) continue;
    std::vector<std::size_t> at_worst;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (p.buffers[i].arena == arena.id && p.buffers[i].lifetime.begin <= at &&
          at < p.buffers[i].lifetime.end)
        at_worst.push_back(i);
    std::stable_sort(at_worst.begin(), at_worst.end(),
                     [&](std::size_t a, std::size_t b) { return p.buffers[a].size > p.buffers[b].size; });
    std::vector<ConflictMember> out;
    for (std::size_t w = 0; w < arena.reserved.size(); ++w)
      out.push_back({MemberKind::reserved, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(w)});
    Addr sum = reserved;
    for (std::size_t i : at_worst) {
      out.push_back({MemberKind::buffer, static_cast<std::uint32_t>(i)});
      sum = saturating_add(sum, p.buffers[i].size);
      if (sum > arena.capacity) break;
    }
    return out;
  }
  return std::nullopt;
}

/// Buffers of one arena that must all be apart (pairwise live together,
/// separated, on an edge of the conflict graph, or beside an exclusive pin)
/// take disjoint bytes beside the reserved windows: when their sizes and
/// the windows exceed the capacity, nothing fits. Greedy from each of the
/// largest buffers, stopping as soon as the set is over; the set with its
/// separations, edges, pins and the arena's windows. Problems without
/// aliases, declarations and several candidate arenas; arenas of at most
/// `max_buffers` buffers (the pairs are tabled).
inline std::optional<std::vector<ConflictMember>> overloaded_clique(const Problem& p,
                                                                    std::size_t max_buffers = 2000) {
  if (!p.must_alias.empty() || !p.declared.empty()) return std::nullopt;
  for (const auto& b : p.buffers)
    if (b.candidate_arenas.size() > 1) return std::nullopt;
  std::set<std::pair<BufferId, BufferId>> separated, excluded, edges;
  for (const auto& s : p.separations) separated.insert({std::min(s.a, s.b), std::max(s.a, s.b)});
  for (const auto& x : p.exclusions) excluded.insert({std::min(x.a, x.b), std::max(x.a, x.b)});
  if (p.conflict_graph)
    for (const auto& c : *p.conflict_graph) edges.insert({std::min(c.a, c.b), std::max(c.a, c.b)});
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    const Arena& arena = p.arenas[k];
    std::vector<BufferId> mine;
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
      if (p.buffers[i].arena == arena.id) mine.push_back(static_cast<BufferId>(i));
    if (mine.empty() || mine.size() > max_buffers) continue;
    const Addr reserved = covered_bytes(arena.reserved);
    const std::size_t m = mine.size();
    std::vector<std::vector<bool>> apart(m, std::vector<bool>(m, false));
    for (std::size_t x = 0; x < m; ++x)
      for (std::size_t y = x + 1; y < m; ++y) {
        const BufferId i = std::min(mine[x], mine[y]), j = std::max(mine[x], mine[y]);
        const auto& a = p.buffers[i];
        const auto& b = p.buffers[j];
        bool v = separated.contains({i, j}) || (a.pin && a.pin->exclusive) || (b.pin && b.pin->exclusive);
        if (!v && !excluded.contains({i, j}))
          v = p.conflict_graph ? edges.contains({i, j}) : lowering::live_meet(a, b);
        apart[x][y] = apart[y][x] = v;
      }
    std::vector<std::size_t> by_size(m);
    for (std::size_t x = 0; x < m; ++x) by_size[x] = x;
    std::stable_sort(by_size.begin(), by_size.end(), [&](std::size_t x, std::size_t y) {
      return p.buffers[mine[x]].size > p.buffers[mine[y]].size;
    });
    std::optional<std::vector<std::size_t>> best;
    for (std::size_t seed = 0; seed < std::min<std::size_t>(m, 64); ++seed) {
      std::vector<std::size_t> set{by_size[seed]};
      Addr bytes = saturating_add(reserved, p.buffers[mine[by_size[seed]]].size);
      for (std::size_t x : by_size) {
        if (bytes > arena.capacity) break;
        bool ok = true;
        for (std::size_t y : set) ok = ok && x != y && apart[x][y];
        if (ok) set.push_back(x), bytes = saturating_add(bytes, p.buffers[mine[x]].size);
      }
      if (bytes > arena.capacity && (!best || set.size() < best->size())) best = std::move(set);
    }
    if (!best) continue;
    std::vector<ConflictMember> out;
    std::vector<bool> in(p.buffers.size(), false);
    for (std::size_t x : *best) {
      in[mine[x]] = true;
      out.push_back({MemberKind::buffer, mine[x]});
      if (p.buffers[mine[x]].pin) out.push_back({MemberKind::pin, mine[x]});
    }
    for (std::size_t s = 0; s < p.separations.size(); ++s)
      if (in[p.separations[s].a] && in[p.separations[s].b])
        out.push_back({MemberKind::separation, static_cast<std::uint32_t>(s)});
    if (p.conflict_graph)
      for (std::size_t e = 0; e < p.conflict_graph->size(); ++e)
        if (in[(*p.conflict_graph)[e].a] && in[(*p.conflict_graph)[e].b])
          out.push_back({MemberKind::conflict, static_cast<std::uint32_t>(e)});
    for (std::size_t w = 0; w < arena.reserved.size(); ++w)
      out.push_back({MemberKind::reserved, static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(w)});
    return out;
  }
  return std::nullopt;
}

/// Whether buffers i and j of `q` must be apart wherever they are (same arena assumed).
inline bool must_be_apart(const Problem& q, std::size_t i, std::size_t j) {
  for (const auto& s : q.separations)
    if ((s.a == i && s.b == j) || (s.a == j && s.b == i)) return true;
  for (const auto& x : q.exclusions)
    if ((x.a == i && x.b == j) || (x.a == j && x.b == i)) return false;
  if (q.conflict_graph) {
    for (const auto& c : *q.conflict_graph)
      if ((c.a == i && c.b == j) || (c.a == j && c.b == i)) return true;
    return false;
  }
  return lowering::live_meet(q.buffers[i], q.buffers[j]);
}

/// The shortfall of each arena of the subset `r` (restricted from the problem).
inline std::vector<ArenaShortfall> shortfalls(const RestrictedProblem& r) {
  const Problem& q = r.problem;
  std::vector<ArenaShortfall> out;
  for (const auto& arena : q.arenas) {
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < q.buffers.size(); ++i)
      if (q.buffers[i].arena == arena.id) mine.push_back(i);
    if (mine.empty()) continue;
    ArenaShortfall s;
    s.arena = arena.id;
    s.capacity = arena.capacity;
    s.reserved_bytes = covered_bytes(arena.reserved);
    // Candidate instants: every live interval's start.
    std::vector<Tick> starts;
    for (std::size_t i : mine) {
      const auto& b = q.buffers[i];
      if (b.live.empty()) starts.push_back(b.lifetime.begin);
      for (const auto& l : b.live) starts.push_back(l.begin);
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
    bool first = true;
    for (Tick t : starts) {
      Addr bytes = 0;
      std::vector<BufferId> live;
      for (std::size_t i : mine) {
        const auto& b = q.buffers[i];
        bool on = false;
        if (b.live.empty()) on = b.lifetime.begin <= t && t < b.lifetime.end;
        for (const auto& l : b.live) on = on || (l.begin <= t && t < l.end);
        if (on) bytes = saturating_add(bytes, b.size), live.push_back(r.original[i]);
      }
      if (first || bytes > s.live_bytes)
        s.at = t, s.live_bytes = bytes, s.live = std::move(live), first = false;
    }
    const Addr load = saturating_add(s.live_bytes, s.reserved_bytes);
    s.over = load > arena.capacity ? load - arena.capacity : 0;
    // The heaviest set that must be apart: exhaustive up to 20 buffers, else greedy by size.
    std::vector<std::size_t> best;
    Addr best_bytes = 0;
    if (mine.size() <= 20) {
      const std::uint32_t m = static_cast<std::uint32_t>(mine.size());
      for (std::uint32_t mask = 1; mask < (1u << m); ++mask) {
        std::vector<std::size_t> set;
        Addr bytes = 0;
        bool clique = true;
        for (std::uint32_t x = 0; x < m && clique; ++x) {
          if (!(mask >> x & 1)) continue;
          for (std::size_t y : set) clique = clique && must_be_apart(q, mine[x], y);
          set.push_back(mine[x]);
          bytes = saturating_add(bytes, q.buffers[mine[x]].size);
        }
        if (clique && bytes > best_bytes) best_bytes = bytes, best = std::move(set);
      }
    } else {
      std::vector<std::size_t> by_size = mine;
      std::stable_sort(by_size.begin(), by_size.end(),
                       [&](std::size_t a, std::size_t b) { return q.buffers[a].size > q.buffers[b].size; });
      for (std::size_t i : by_size) {
        bool ok = true;
        for (std::size_t y : best) ok = ok && must_be_apart(q, i, y);
        if (ok) best.push_back(i), best_bytes = saturating_add(best_bytes, q.buffers[i].size);
      }
    }
    std::sort(best.begin(), best.end());
    for (std::size_t i : best) s.apart.push_back(r.original[i]);
    s.apart_bytes = best_bytes;
    const Addr apart_load = saturating_add(best_bytes, s.reserved_bytes);
    s.apart_over = apart_load > arena.capacity ? apart_load - arena.capacity : 0;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace detail::explaining

/// The selection of `p` that an explanation's members (and the exclusions
/// between their buffers) stand for; penalties are left out.
[[nodiscard]] inline ProblemSubset subset_of(const Problem& p, const std::vector<ConflictMember>& members) {
  ProblemSubset s = ProblemSubset::none(p);
  for (const auto& m : members) detail::explaining::select(p, m, s, true);
  return s;
}

/// Explains why `problem` does not fit, given plan()'s result for it under
/// `options` (its node limit and threads steer the checks, its time limit
/// bounds the whole explanation, its stop token ends it early). For a
/// result that fits, or an error, the explanation only repeats the status.
[[nodiscard]] inline Explanation explain(const Problem& problem, const PlanResult& result,
                                         const PlanOptions& options = {}, const ExplainOptions& eo = {}) {
  namespace ex = detail::explaining;
  const auto start = std::chrono::steady_clock::now();
  Explanation e;
  e.status = result.status;
  auto finish = [&]() -> Explanation {
    e.time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::move(e);
  };
  if (result.status != Status::infeasible && result.status != Status::no_fit) return finish();
  const auto deadline = deadline_after(start, options.time_limit_s);
  ex::Checker checker(problem, options, eo, deadline);

  // Narrow: the max-load shortcut, else the first independent group that
  // does not fit on its own; then reduce it and certify each member.
  auto find_subset = [&]() {
    std::vector<ConflictMember> start_set;
    bool proved = false;
    if (auto over = ex::overloaded_instant(problem))
      if (checker.check(*over) == ex::Verdict::infeasible) start_set = std::move(*over), proved = true;
    if (!proved)
      if (auto over = ex::overloaded_clique(problem))
        if (checker.check(*over) == ex::Verdict::infeasible) start_set = std::move(*over), proved = true;
    if (!proved) {
      const std::vector<ConflictMember> all = ex::members_of(problem);
      const auto groups = ex::independent_groups(problem, all);
      bool undecided = false;
      for (const auto& g : groups) {
        const auto v = checker.check(groups.size() == 1 ? all : g);
        if (v == ex::Verdict::infeasible) {
          start_set = groups.size() == 1 ? all : g;
          proved = true;
          break;
        }
        undecided = undecided || v == ex::Verdict::unknown;
      }
      if (!proved) {
        e.diagnostics.push_back(
            note(std::string("no part of the problem was proved not to fit within the budget") +
                 (undecided ? "" : " (every independent part fits on its own)") +
                 "; raise the node or time limit to explain it"));
        return;
      }
    }
    std::vector<ConflictMember> background;
    std::vector<ConflictMember> found =
        ex::meaningful(problem, ex::quick_xplain(checker, background, false, start_set));
    if (checker.check(found) != ex::Verdict::infeasible) {
      // Only when a check was cut by the budget: keep the proved start set.
      e.diagnostics.push_back(
          note("the reduced subset could not be proved not to fit again within the budget; the "
               "unreduced part is reported"));
      found = start_set;
    }
    e.explained = true;
    e.minimal = true;
    for (auto& m : found) {
      std::vector<ConflictMember> rest;
      for (const auto& x : found)
        if (!(x == m)) rest.push_back(x);
      m.without = checker.check(ex::meaningful(problem, rest)) == ex::Verdict::fits ? Without::fits
                                                                                    : Without::unknown;
      e.minimal = e.minimal && m.without == Without::fits;
    }
    if (!e.minimal)
      e.diagnostics.push_back(
          note("minimality is not proved: without some members the check ran out of budget "
               "(their `without` is unknown); raise the node or time limit"));
    std::sort(found.begin(), found.end(), [](const ConflictMember& a, const ConflictMember& b) {
      return std::tuple(static_cast<int>(a.kind), a.index, a.window) <
             std::tuple(static_cast<int>(b.kind), b.index, b.window);
    });
    e.members = std::move(found);
    const ProblemSubset s = subset_of(problem, e.members);
    e.shortfall = ex::shortfalls(restrict_problem(problem, s));
    for (std::size_t x = 0; x < problem.exclusions.size(); ++x)
      if (s.buffers[problem.exclusions[x].a] && s.buffers[problem.exclusions[x].b]) e.exclusions.push_back(x);
  };
  find_subset();
  if (eo.least_capacity && !checker.out_of_time()) {
    // The least peak of the arenas that do not fit: an exact search with
    // goal minimise, every arena uncapped, penalties left out. Without
    // several candidate arenas the arenas are independent: each is
    // searched alone, and only when its own buffers do not fit.
    auto least = [&](const Problem& q, const std::vector<std::size_t>& arenas_of_q) {
      Problem uncapped = q;
      uncapped.penalties.clear();
      const std::vector<Addr> caps = always_fitting_capacities(uncapped);
      for (std::size_t k = 0; k < uncapped.arenas.size(); ++k) uncapped.arenas[k].capacity = caps[k];
      PlanOptions o;
      o.strategy = Strategy::exact;
      o.goal = Goal::minimise;
      o.threads = options.threads.value_or(1);
      o.seed = options.seed;
      o.stop = options.stop;
      o.node_limit = options.node_limit;
      if (deadline != std::chrono::steady_clock::time_point::max()) {
        const double left =
            std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
        o.time_limit_s = std::max(left, 1e-3);
      }
      const PlanResult m = plan(uncapped, o);
      for (std::size_t k : arenas_of_q) {
        CapacityNeed c;
        c.arena = problem.arenas[k].id;
        c.capacity = problem.arenas[k].capacity;
        if (k < m.lower_bound.size()) c.lower_bound = m.lower_bound[k];
        if (m.fits() && k < m.objective.peak_by_arena.size()) {
          c.fits_at = m.objective.peak_by_arena[k];
          c.proved = *c.fits_at <= c.lower_bound;
        }
        if (!c.fits_at || *c.fits_at > c.capacity) e.capacity.push_back(c);
      }
    };
    bool independent = true;
    for (const auto& b : problem.buffers) independent = independent && b.candidate_arenas.size() <= 1;
    if (!independent) {
      std::vector<std::size_t> every(problem.arenas.size());
      for (std::size_t k = 0; k < every.size(); ++k) every[k] = k;
      least(problem, every);
    } else {
      const std::vector<ConflictMember> all = ex::members_of(problem);
      const ProblemIndex index(problem);
      for (std::size_t k = 0; k < problem.arenas.size() && !checker.out_of_time(); ++k) {
        std::vector<ConflictMember> mine;
        for (const auto& m : all) {
          const auto ends = ex::ends(problem, m);
          const bool here = m.kind == MemberKind::reserved
                                ? m.index == k
                                : index.arena(problem.buffers[ends.front()].arena) == k;
          if (here) mine.push_back(m);
        }
        if (std::none_of(mine.begin(), mine.end(), [](const ConflictMember& m) {
              return m.kind == MemberKind::buffer || m.kind == MemberKind::declared;
            }))
          continue;
        if (checker.check(mine) == ex::Verdict::fits) continue;
        least(restrict_problem(problem, subset_of(problem, mine)).problem, {k});
      }
    }
  }
  e.checks = checker.checks();
  return finish();
}

/// The explanation in a few lines of text, buffers named by buffer_label and
/// arenas by name (else id), for a command line or a compiler's message.
[[nodiscard]] inline std::vector<std::string> explanation_lines(const Problem& p, const Explanation& e) {
  std::vector<std::string> out;
  auto arena_name = [&](std::int64_t id) {
    for (const auto& a : p.arenas)
      if (a.id == id && !a.name.empty()) return "arena '" + a.name + "'";
    return "arena " + std::to_string(id);
  };
  auto num = [](Addr v) {
    std::string d = std::to_string(v), r;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (i > 0 && (d.size() - i) % 3 == 0) r += ',';
      r += d[i];
    }
    return r;
  };
  auto names = [&](const std::vector<BufferId>& ids) {
    std::string r;
    for (std::size_t i = 0; i < ids.size(); ++i) r += (i ? ", " : "") + buffer_label(p, ids[i]);
    return r;
  };
  if (!e.explained) {
    if (e.status == Status::infeasible || e.status == Status::no_fit)
      out.push_back("no conflicting subset was proved within the budget");
  } else {
    std::string m;
    for (const auto& x : e.members) {
      std::string one;
      switch (x.kind) {
        case MemberKind::buffer: one = "buffer " + buffer_label(p, x.index); break;
        case MemberKind::declared:
          one = "declared allocation " + buffer_label(p, x.index) + " with its bindings";
          break;
        case MemberKind::separation:
          one = "separation " + buffer_label(p, p.separations[x.index].a) + " / " +
                buffer_label(p, p.separations[x.index].b);
          break;
        case MemberKind::pin: one = "the pin of " + buffer_label(p, x.index); break;
        case MemberKind::reserved: {
          const auto& w = p.arenas[x.index].reserved[x.window];
          one = "reserved [" + num(w.begin) + ", " + num(w.end) + ") of " + arena_name(p.arenas[x.index].id);
          break;
        }
        case MemberKind::conflict:
          one = "conflict " + buffer_label(p, (*p.conflict_graph)[x.index].a) + " / " +
                buffer_label(p, (*p.conflict_graph)[x.index].b);
          break;
      }
      m += (m.empty() ? "" : "; ") + one;
    }
    out.push_back(std::string("these do not fit together") +
                  (e.minimal ? ", and without any one of them they do: " : " (minimality not proved): ") + m);
    for (const auto& s : e.shortfall) {
      if (s.over > 0)
        out.push_back(arena_name(s.arena) + ": at " + std::to_string(s.at) + " the buffers " + names(s.live) +
                      " need " + num(s.live_bytes) +
                      (s.reserved_bytes ? " (+ " + num(s.reserved_bytes) + " reserved)" : std::string()) +
                      " bytes, " + num(s.over) + " over the capacity " + num(s.capacity));
      else if (s.apart_over > 0)
        out.push_back(arena_name(s.arena) + ": the buffers " + names(s.apart) +
                      " must all be apart and need " + num(s.apart_bytes) +
                      (s.reserved_bytes ? " (+ " + num(s.reserved_bytes) + " reserved)" : std::string()) +
                      " bytes, " + num(s.apart_over) + " over the capacity " + num(s.capacity));
      else
        out.push_back(arena_name(s.arena) + ": at most " + num(s.live_bytes) +
                      " bytes are live at once (at " + std::to_string(s.at) + "), under the capacity " +
                      num(s.capacity) + "; alignment, pins or reserved windows leave no room");
    }
  }
  for (const auto& c : e.capacity) {
    if (!c.fits_at)
      out.push_back(arena_name(c.arena) + ": no capacity was found that fits");
    else
      out.push_back(arena_name(c.arena) + ": fits at capacity " + num(*c.fits_at) +
                    (c.proved ? " and not below (proved)"
                              : " (no placement below " + num(c.lower_bound) + "; not proved least)"));
  }
  return out;
}

/// plan(problem, options), then explain() its result when it does not fit.
[[nodiscard]] inline Explanation explain(const Problem& problem, const PlanOptions& options = {},
                                         const ExplainOptions& eo = {}) {
  return explain(problem, plan(problem, options), options, eo);
}

}  // namespace pto_mem
