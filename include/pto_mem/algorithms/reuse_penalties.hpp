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
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ranges>
#include <set>
#include <utility>
#include <vector>

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
  std::uint64_t first = 0;           // smallest order
  bool first_read = false;           // some access at `first` is a read
  bool first_pipes_differ = false;   // accesses at `first` on more than one pipe
  std::optional<Pipe> first_pipe;
  std::map<Pipe, Access<Pipe>> terminal;

  [[nodiscard]] bool usable() const {
    return seen && !poisoned && !partial && !several_regions && !first_read && !first_pipes_differ && first_pipe;
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
[[nodiscard]] std::vector<ReusePenalty> recognize_reuse_penalties(const Allocs& allocations, const Events& events,
                                                                  const Pairs& separated = {}) {
  using Event = std::ranges::range_value_t<Events>;
  using Pipe = typename Event::pipe_type;
  static_assert(std::totally_ordered<Pipe>, "pipes are bucketed in a deterministic order");
  using B = std::ranges::range_value_t<Allocs>;
  const std::size_t n = static_cast<std::size_t>(std::ranges::size(allocations));
  auto item = [&](std::size_t i) -> const B& { return std::ranges::begin(allocations)[static_cast<std::ptrdiff_t>(i)]; };

  std::vector<detail::handoff::Summary<Pipe>> sum(n);
  for (const auto& e : events)
    if (e.allocation < n) sum[e.allocation].add(e);

  std::set<std::pair<std::size_t, std::size_t>> hard;
  for (const auto& [a, b] : separated) hard.insert({std::min<std::size_t>(a, b), std::max<std::size_t>(a, b)});

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
    std::stable_sort(by_def.begin(), by_def.end(), [&](std::size_t a, std::size_t b) { return live[a].begin < live[b].begin; });
    std::stable_sort(by_end.begin(), by_end.end(), [&](std::size_t a, std::size_t b) { return live[a].end < live[b].end; });
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
    out.push_back({p.buffers[e.a].id, p.buffers[e.b].id, e.weight});
  return out;
}

}  // namespace pto_mem
