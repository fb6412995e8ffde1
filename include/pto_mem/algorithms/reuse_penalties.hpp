// Reuse-penalty recognition: which pairs of
// lifetime-compatible allocations would, if the planner overlapped them,
// force a cross-pipe hand-off — the later allocation's first write on pipe q
// waiting for the earlier one's last access on a pipe p != q (write-after-read
// or write-after-write). Each such pair becomes a unit-weight soft penalty.
//
// The algorithm reads generic access events: (order, allocation, read/write,
// pipe or unknown, structured region, in-loop, whole). record_op_accesses
// turns one operation into events through a HazardRoute (evidence + pipe).
// Conservative: missing information (an unknown route, a partial access, an
// allocation spread over several regions) means no penalty, never a wrong one.
//
// The relation can be quadratic (a straight-line kernel pairs every block
// with every other): recognize_reuse_penalties lists it, and
// recognize_reuse_penalty_relation gives the same pairs as a rule plus a
// short list (dsa_rp/implicit_penalties.hpp) in memory linear in the
// allocations.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ranges>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/implicit_penalties.hpp"
#include "pto_mem/core/buffer.hpp"
#include "pto_mem/core/hazard_route.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// One access of an allocation, in the form the IR walk produces it.
template <class Pipe>
struct AccessEvent {
  using pipe_type = Pipe;
  std::uint64_t order = 0;     ///< program order: one number per statement (not per lifetime point)
  std::size_t allocation = 0;  ///< index into the allocations
  bool write = false;          ///< false: a read
  std::optional<Pipe> pipe;    ///< nullopt: unknown route; poisons the allocation
  std::uint32_t region = 0;    ///< structured region (top level, each branch, each loop body); compared by id
  bool in_loop = false;        ///< the region is a loop body (or nested in one)
  bool whole = true;           ///< the access covers the whole allocation (offset 0, full size, fully valid)
};

/// A recognized hand-off between allocations a < b (indices), unit weight.
struct ReusePenalty {
  std::size_t a = 0;
  std::size_t b = 0;
  Weight weight = 1;
  friend bool operator==(const ReusePenalty&, const ReusePenalty&) = default;
};

/// One operand of an operation: the allocation it touches, whether it covers
/// all of it, and whether the access can be traced at all (false, e.g. the
/// accessing value has no memory space: the allocation is poisoned).
struct OperandAccess {
  std::size_t allocation = 0;
  bool whole = true;
  bool traced = true;
};

/// Where an operation sits and which allocations it reads and writes. The
/// adapter decides the operands: e.g. a whole-tile assemble does not read its
/// target, whose old contents it overwrites.
struct OpAccesses {
  std::uint64_t order = 0;
  std::uint32_t region = 0;
  bool in_loop = false;
  std::vector<OperandAccess> reads;
  std::vector<OperandAccess> writes;
};

/// Appends the events of one operation: nothing for a no-access op; an
/// unknown op, or one the route gives no pipe, poisons everything it touches;
/// a functional op records one event per read and per write on its pipe.
template <class R, class Op>
requires HazardRoute<R, Op>
void record_op_accesses(const R& route, const Op& op, const OpAccesses& site,
                        std::vector<AccessEvent<typename hazard_route_traits<R>::pipe_type>>& out) {
  using Traits = hazard_route_traits<R>;
  if (site.reads.empty() && site.writes.empty()) return;
  const AccessEvidence evidence = Traits::evidence(route, op);
  if (evidence == AccessEvidence::no_access) return;
  std::optional<typename Traits::pipe_type> pipe;
  if (evidence == AccessEvidence::functional) pipe = Traits::pipe(route, op);
  auto add = [&](const OperandAccess& a, bool write) {
    auto& e = out.emplace_back();
    e.order = site.order;
    e.allocation = a.allocation;
    e.write = write;
    if (a.traced) e.pipe = pipe;
    e.region = site.region;
    e.in_loop = site.in_loop;
    e.whole = a.whole;
  };
  for (const auto& a : site.reads) add(a, false);
  for (const auto& a : site.writes) add(a, true);
}

namespace detail::handoff {

template <class Pipe>
struct Access {
  std::uint64_t order = 0;
  bool write = false;
};

/// Per allocation: the three conservative requirements (every access has a
/// known route, none is partial, all lie in one structured region) and, when
/// they hold, the initial write and one terminal access per pipe.
template <class Pipe>
struct Summary {
  bool seen = false;
  bool poisoned = false;
  bool partial = false;
  bool several_regions = false;
  std::uint32_t region = 0;
  bool in_loop = false;
  std::uint64_t first = 0;          // smallest order
  bool first_read = false;          // some access at `first` is a read
  bool first_pipes_differ = false;  // accesses at `first` on more than one pipe
  std::optional<Pipe> first_pipe;
  std::map<Pipe, Access<Pipe>> terminal;

  [[nodiscard]] bool usable() const {
    return seen && !poisoned && !partial && !several_regions && !first_read && !first_pipes_differ &&
           first_pipe;
  }

  void add(const AccessEvent<Pipe>& e) {
    if (!seen) {
      region = e.region;
      in_loop = e.in_loop;
    } else if (e.region != region) {
      several_regions = true;
    }
    seen = true;
    if (!e.whole) partial = true;
    if (!e.pipe) {
      poisoned = true;  // no summary: first and terminals no longer matter
      return;
    }
    if (!first_pipe || e.order < first) {
      first = e.order;
      first_read = !e.write;
      first_pipes_differ = false;
      first_pipe = e.pipe;
    } else if (e.order == first) {
      first_read = first_read || !e.write;
      if (*first_pipe != *e.pipe) first_pipes_differ = true;
    }
    // The latest access per pipe; at one order a write beats a read.
    auto [it, fresh] = terminal.try_emplace(*e.pipe, Access<Pipe>{e.order, e.write});
    if (!fresh && (e.order > it->second.order || (e.order == it->second.order && e.write)))
      it->second = Access<Pipe>{e.order, e.write};
  }
};

}  // namespace detail::handoff

/// The reuse penalties over `allocations` (a random-access range
/// of Buffer models; only arena and lifetime are read), `events` (AccessEvent
/// with allocation indices) and `separated` (index pairs, either order, that
/// carry any hard separation: such pairs need no price).
///
/// P is a lifetime-compatible predecessor of Q when end(P) <= begin(Q) in the
/// same arena: pass PyPTO's inclusive [def, last] statement points as
/// begin/end, or tick lifetimes (the same edges). An allocation is summarised
/// only when nothing poisoned it, every access is whole and in one region,
/// and its first accesses are all writes on one pipe. Then, within one region:
///   distance 0: P's last access on pipe p <= Q's first write on pipe q != p;
///   distance 1 (loop regions): Q's last access on pipe p comes after P's
///   first write on pipe q != p, so iteration k+1 of P waits for Q.
/// Self pairs, separated pairs and repeats are skipped. Output: arenas in
/// ascending key order, then sweep order; each pair once, a < b, weight 1.
/// Cost O(N log N + E): E can be quadratic in the reusable allocations.
template <std::ranges::random_access_range Allocs, std::ranges::input_range Events,
          std::ranges::input_range Pairs = std::vector<std::pair<std::size_t, std::size_t>>>
requires Buffer<std::ranges::range_value_t<Allocs>>
[[nodiscard]] std::vector<ReusePenalty> recognize_reuse_penalties(const Allocs& allocations,
                                                                  const Events& events,
                                                                  const Pairs& separated = {}) {
  using Event = std::ranges::range_value_t<Events>;
  using Pipe = typename Event::pipe_type;
  static_assert(std::totally_ordered<Pipe>, "pipes are bucketed in a deterministic order");
  using B = std::ranges::range_value_t<Allocs>;
  const std::size_t n = static_cast<std::size_t>(std::ranges::size(allocations));
  auto item = [&](std::size_t i) -> const B& {
    return std::ranges::begin(allocations)[static_cast<std::ptrdiff_t>(i)];
  };

  std::vector<detail::handoff::Summary<Pipe>> sum(n);
  for (const auto& e : events)
    if (e.allocation < n) sum[e.allocation].add(e);

  std::set<std::pair<std::size_t, std::size_t>> hard;
  for (const auto& [a, b] : separated)
    hard.insert({std::min<std::size_t>(a, b), std::max<std::size_t>(a, b)});

  std::vector<ReusePenalty> out;
  std::set<std::pair<std::size_t, std::size_t>> emitted;
  auto emit = [&](std::size_t a, std::size_t b) {
    if (a == b) return;
    const std::pair<std::size_t, std::size_t> key{std::min(a, b), std::max(a, b)};
    if (hard.contains(key) || !emitted.insert(key).second) return;
    out.push_back({key.first, key.second, 1});
  };

  std::map<buffer_arena_t<B>, std::vector<std::size_t>> by_arena;
  std::vector<Interval> live(n);
  for (std::size_t i = 0; i < n; ++i) {
    live[i] = buffer_lifetime(item(i));
    by_arena[buffer_arena(item(i))].push_back(i);
  }
  struct Bucket {
    std::map<Pipe, std::vector<std::size_t>> terminal, initial;
  };
  for (auto& [arena, by_def] : by_arena) {
    std::vector<std::size_t> by_end = by_def;
    std::stable_sort(by_def.begin(), by_def.end(),
                     [&](std::size_t a, std::size_t b) { return live[a].begin < live[b].begin; });
    std::stable_sort(by_end.begin(), by_end.end(),
                     [&](std::size_t a, std::size_t b) { return live[a].end < live[b].end; });
    std::map<std::uint32_t, Bucket> buckets;
    std::size_t cursor = 0;
    for (std::size_t cur : by_def) {
      for (; cursor < by_end.size() && live[by_end[cursor]].end <= live[cur].begin; ++cursor) {
        const std::size_t r = by_end[cursor];
        if (!sum[r].usable()) continue;
        Bucket& bucket = buckets[sum[r].region];
        bucket.initial[*sum[r].first_pipe].push_back(r);
        for (const auto& [p, access] : sum[r].terminal) bucket.terminal[p].push_back(r);
      }
      const auto& q = sum[cur];
      if (!q.usable()) continue;
      auto found = buckets.find(q.region);
      if (found == buckets.end()) continue;
      const Bucket& bucket = found->second;
      const Pipe initial_pipe = *q.first_pipe;
      // Distance 0: P's last access on p precedes cur's first write on q != p.
      for (const auto& [p, list] : bucket.terminal) {
        if (p == initial_pipe) continue;
        for (std::size_t P : list)
          if (P != cur && sum[P].terminal.at(p).order <= q.first) emit(P, cur);
      }
      // Distance 1: in the next iteration, P's first write on q' waits for
      // cur's last access on p != q'.
      if (q.in_loop) {
        for (const auto& [p, access] : q.terminal)
          for (const auto& [q2, list] : bucket.initial) {
            if (q2 == p) continue;
            for (std::size_t P : list)
              if (P != cur && access.order > sum[P].first) emit(P, cur);
          }
      }
    }
  }
  return out;
}

/// The recognizer's relation in compressed form (dsa_rp/implicit_penalties.hpp):
/// a rule for the pairs whose accesses do not interleave, and an explicit
/// list for the rest. Together they hold exactly the pairs
/// recognize_reuse_penalties lists, each once, with weight 1.
struct ReusePenaltyRelation {
  ImplicitPenalties implicit;
  std::vector<ReusePenalty> listed;  ///< ascending (a, b); none of them a rule pair

  /// The number of pairs.
  [[nodiscard]] std::uint64_t size() const { return implicit_pair_count(implicit) + listed.size(); }

  /// Every pair, ascending (a, b). Costs what it lists.
  [[nodiscard]] std::vector<ReusePenalty> pairs() const {
    std::vector<ReusePenalty> out;
    for (const auto& [a, b] : implicit_pairs(implicit)) out.push_back({a, b, 1});
    const std::size_t rule = out.size();
    out.insert(out.end(), listed.begin(), listed.end());
    std::inplace_merge(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(rule), out.end(),
                       [](const ReusePenalty& x, const ReusePenalty& y) {
                         return std::pair(x.a, x.b) < std::pair(y.a, y.b);
                       });
    return out;
  }
};

namespace detail::handoff {

/// The recognizer's test for one ordered pair, P ended before Q began
/// (end(P) <= begin(Q), same arena and region, both usable): the distance-0
/// and distance-1 hand-offs of recognize_reuse_penalties.
template <class Pipe>
[[nodiscard]] bool hands_off(const Summary<Pipe>& p, const Summary<Pipe>& q) {
  for (const auto& [pipe, access] : p.terminal)
    if (pipe != *q.first_pipe && access.order <= q.first) return true;
  if (q.in_loop)
    for (const auto& [pipe, access] : q.terminal)
      if (pipe != *p.first_pipe && access.order > p.first) return true;
  return false;
}

}  // namespace detail::handoff

/// The relation of recognize_reuse_penalties (same arguments, same pairs)
/// without listing the pairs whose accesses do not interleave.
///
/// When every access of P comes before every access of Q (last order of P <
/// first order of Q), both order tests of the hand-off hold or fail by pipes
/// alone: distance 0 asks for a terminal pipe of P other than Q's first
/// pipe, distance 1 (Q in a loop) for a terminal pipe of Q other than P's
/// first pipe. So an allocation's kind is (first pipe, terminal pipes,
/// in a loop), its group (arena, region), and the rule pairs P before Q
/// when their lifetimes are strictly ordered. What the rule cannot say is
/// settled pair by pair: lifetimes that touch (end(P) == begin(Q)) are
/// tested and listed; strictly ordered pairs whose accesses interleave are
/// tested and, where the kinds' answer is wrong, listed or removed;
/// separated rule pairs are removed. Cost O(B log B + E + kinds² + the
/// touching and interleaved pairs + separations).
template <std::ranges::random_access_range Allocs, std::ranges::input_range Events,
          std::ranges::input_range Pairs = std::vector<std::pair<std::size_t, std::size_t>>>
requires Buffer<std::ranges::range_value_t<Allocs>>
[[nodiscard]] ReusePenaltyRelation recognize_reuse_penalty_relation(const Allocs& allocations,
                                                                    const Events& events,
                                                                    const Pairs& separated = {}) {
  using Event = std::ranges::range_value_t<Events>;
  using Pipe = typename Event::pipe_type;
  static_assert(std::totally_ordered<Pipe>, "pipes are bucketed in a deterministic order");
  using B = std::ranges::range_value_t<Allocs>;
  using Summary = detail::handoff::Summary<Pipe>;
  const std::size_t n = static_cast<std::size_t>(std::ranges::size(allocations));
  auto item = [&](std::size_t i) -> const B& {
    return std::ranges::begin(allocations)[static_cast<std::ptrdiff_t>(i)];
  };

  std::vector<Summary> sum(n);
  for (const auto& e : events)
    if (e.allocation < n) sum[e.allocation].add(e);

  ReusePenaltyRelation out;
  ImplicitPenalties& rule = out.implicit;
  rule.group.assign(n, ImplicitPenalties::none);
  rule.kind.assign(n, 0);
  rule.begin.resize(n);
  rule.end.resize(n);
  std::map<std::pair<buffer_arena_t<B>, std::uint32_t>, std::uint32_t> groups;
  using Kind =
      std::tuple<Pipe, std::vector<Pipe>, bool>;  // first pipe, terminal pipes (ascending), in a loop
  std::map<Kind, std::uint32_t> kinds;
  std::vector<const Kind*> kind_of;  // by kind number
  std::vector<std::uint64_t> last_order(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Interval live = buffer_lifetime(item(i));
    rule.begin[i] = live.begin;
    rule.end[i] = live.end;
    const Summary& s = sum[i];
    if (!s.usable()) continue;
    rule.group[i] =
        groups.try_emplace({buffer_arena(item(i)), s.region}, static_cast<std::uint32_t>(groups.size()))
            .first->second;
    Kind k{*s.first_pipe, {}, s.in_loop};
    for (const auto& [p, access] : s.terminal) {
      std::get<1>(k).push_back(p);
      last_order[i] = std::max(last_order[i], access.order);
    }
    auto [it, fresh] = kinds.try_emplace(std::move(k), static_cast<std::uint32_t>(kinds.size()));
    if (fresh) kind_of.push_back(&it->first);
    rule.kind[i] = it->second;
  }
  rule.kinds = static_cast<std::uint32_t>(kinds.size());
  rule.ordered.assign(static_cast<std::size_t>(rule.kinds) * rule.kinds, 0);
  auto ends_off = [](const Kind& k, const Pipe& pipe) {  // some terminal pipe other than `pipe`
    return std::ranges::any_of(std::get<1>(k), [&](const Pipe& p) { return p != pipe; });
  };
  for (std::uint32_t a = 0; a < rule.kinds; ++a)
    for (std::uint32_t b = 0; b < rule.kinds; ++b) {
      const Kind &p = *kind_of[a], &q = *kind_of[b];
      rule.ordered[static_cast<std::size_t>(a) * rule.kinds + b] =
          ends_off(p, std::get<0>(q)) || (std::get<2>(q) && ends_off(q, std::get<0>(p))) ? 1 : 0;
    }

  std::set<std::pair<std::size_t, std::size_t>> hard;
  for (const auto& [a, b] : separated)
    if (a != b && a < n && b < n) hard.insert({std::min<std::size_t>(a, b), std::max<std::size_t>(a, b)});

  // Per group: the pairs the kinds cannot answer.
  std::vector<std::vector<std::size_t>> members(groups.size());
  for (std::size_t i = 0; i < n; ++i)
    if (rule.group[i] != ImplicitPenalties::none) members[rule.group[i]].push_back(i);
  std::vector<std::pair<std::size_t, std::size_t>> listed, removed;
  for (const auto& group : members) {
    // Touching lifetimes: end(P) == begin(Q).
    std::vector<std::pair<Tick, std::size_t>> by_begin, by_end;
    for (std::size_t i : group) {
      by_begin.push_back({rule.begin[i], i});
      by_end.push_back({rule.end[i], i});
    }
    std::sort(by_begin.begin(), by_begin.end());
    std::sort(by_end.begin(), by_end.end());
    for (std::size_t e = 0, b = 0; e < by_end.size();) {
      const Tick t = by_end[e].first;
      std::size_t e2 = e;
      while (e2 < by_end.size() && by_end[e2].first == t) ++e2;
      while (b < by_begin.size() && by_begin[b].first < t) ++b;
      for (std::size_t b2 = b; b2 < by_begin.size() && by_begin[b2].first == t; ++b2)
        for (std::size_t k = e; k < e2; ++k) {
          const std::size_t p = by_end[k].second, q = by_begin[b2].second;
          if (p != q && detail::handoff::hands_off(sum[p], sum[q]))
            listed.emplace_back(std::min(p, q), std::max(p, q));
        }
      e = e2;
    }
    // Strictly ordered lifetimes whose accesses interleave: P's last order
    // >= Q's first. Sweep Q by begin; P joins once it has ended.
    std::multiset<std::pair<std::uint64_t, std::size_t>> ended;  // (last order, P)
    std::size_t next = 0;
    for (const auto& [begin, q] : by_begin) {
      for (; next < by_end.size() && by_end[next].first < begin; ++next)
        ended.insert({last_order[by_end[next].second], by_end[next].second});
      for (auto it = ended.lower_bound({sum[q].first, 0}); it != ended.end(); ++it) {
        const std::size_t p = it->second;
        const bool truth = detail::handoff::hands_off(sum[p], sum[q]);
        if (truth == rule.pays(rule.kind[p], rule.kind[q])) continue;
        (truth ? listed : removed).emplace_back(std::min(p, q), std::max(p, q));
      }
    }
  }
  // Separated pairs pay nothing.
  for (const auto& ab : hard)
    if (rule.in_rule(ab.first, ab.second)) removed.push_back(ab);
  std::sort(listed.begin(), listed.end());
  listed.erase(std::unique(listed.begin(), listed.end()), listed.end());
  std::sort(removed.begin(), removed.end());
  removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  rule.removed = std::move(removed);
  for (const auto& [a, b] : listed)
    if (!hard.contains({a, b})) out.listed.push_back({a, b, 1});
  return out;
}

/// The reuse penalties of a problem's buffers (each one allocation, as after
/// alias unification; events index problem.buffers), skipping every pair its
/// separations name; as Penalty{a, b, 1} with a the lower buffer index,
/// ready to append to problem.penalties.
template <std::ranges::input_range Events>
[[nodiscard]] std::vector<Penalty> recognize_reuse_penalties(const Problem& p, const Events& events) {
  const ProblemIndex index(p);
  std::vector<std::pair<std::size_t, std::size_t>> separated;
  for (const auto& s : p.separations) {
    const auto a = index.buffer(s.a);
    const auto b = index.buffer(s.b);
    if (a && b) separated.emplace_back(*a, *b);
  }
  std::vector<Penalty> out;
  for (const auto& e : recognize_reuse_penalties(p.buffers, events, separated))
    out.push_back({static_cast<BufferId>(e.a), static_cast<BufferId>(e.b), e.weight});
  return out;
}

}  // namespace pto_mem
