// Decomposition of a problem into independent subproblems for the exact
// search: one per arena and, inside an arena, one per time block -- a set of
// buffers that no lifetime, hard separation or soft penalty joins to the
// rest. A placement of the whole problem is any combination of placements of
// the parts (they share no constraint), the arena's peak is the largest part
// peak, and the penalty is the sum of the parts' penalties; so each part is
// searched on its own.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <boost/pending/disjoint_sets.hpp>

#include "pto_mem/algorithms/exact/free_space.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem::exact {

/// One buffer of a subproblem.
struct Item {
  std::size_t buffer = 0;  ///< index in problem.buffers
  Addr size = 0;
  Addr alignment = 1;
  Interval lifetime;
};

struct PenaltyLink {
  std::uint32_t other = 0;
  Weight weight = 0;  ///< duplicated penalties are summed, as evaluate_objective counts them
};

struct Subproblem {
  std::size_t arena = 0;  ///< index in problem.arenas
  FreeSpace space;        ///< the arena's capacity and reserved windows
  std::vector<Item> items;
  /// Hard separations between buffers whose lifetimes do not meet (separated
  /// buffers that interfere anyway need nothing more). Symmetric.
  std::vector<std::vector<std::uint32_t>> separated;
  /// Soft penalties (always between lifetime-disjoint buffers). Symmetric.
  std::vector<std::vector<PenaltyLink>> penalties;
  /// Per item, byte ranges it must not touch (sorted, disjoint): the buffers
  /// that stay where they are while a window of a placement is searched
  /// again (window_lns.hpp). Empty for the parts of a problem.
  std::vector<std::vector<AddrRange>> blocked;
  Addr max_load = 0;  ///< largest total size live at one instant
  /// No placement of this part has a lower peak: max(highest reserved end,
  /// max load + reserved bytes).
  Addr lower_bound = 0;

  [[nodiscard]] std::size_t size() const noexcept { return items.size(); }
  [[nodiscard]] bool has_penalties() const noexcept {
    return std::any_of(penalties.begin(), penalties.end(), [](const auto& l) { return !l.empty(); });
  }
  [[nodiscard]] bool has_separations() const noexcept {
    return std::any_of(separated.begin(), separated.end(), [](const auto& l) { return !l.empty(); });
  }
};

namespace detail {

/// Boost's disjoint sets over 0..n-1 with their own storage. Which element
/// is a set's root is Boost's choice; decompose() numbers the parts by their
/// first buffer, so the answer does not depend on it.
class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : rank_(n, 0), parent_(n), sets_(rank_.data(), parent_.data()) {
    for (std::size_t i = 0; i < n; ++i) sets_.make_set(i);
  }
  UnionFind(const UnionFind&) = delete;
  UnionFind& operator=(const UnionFind&) = delete;
  std::size_t find(std::size_t x) { return sets_.find_set(x); }
  void unite(std::size_t a, std::size_t b) { sets_.union_set(a, b); }

 private:
  std::vector<std::size_t> rank_, parent_;
  boost::disjoint_sets<std::size_t*, std::size_t*> sets_;
};

/// Largest total size live at one instant (ends before starts at a tick).
inline Addr max_load(const std::vector<Item>& items) {
  std::vector<std::pair<Tick, std::int64_t>> ev;  // (tick, +1 start / -1 end) by index
  ev.reserve(items.size() * 2);
  for (std::size_t i = 0; i < items.size(); ++i) {
    ev.emplace_back(items[i].lifetime.begin, static_cast<std::int64_t>(i) + 1);
    ev.emplace_back(items[i].lifetime.end, -static_cast<std::int64_t>(i) - 1);
  }
  std::sort(ev.begin(), ev.end());  // at a tick, negative (ends) sort first
  Addr live = 0, best = 0;
  for (const auto& [t, e] : ev) {
    if (e > 0)
      live = saturating_add(live, items[static_cast<std::size_t>(e - 1)].size);
    else
      live -= std::min(live, items[static_cast<std::size_t>(-e - 1)].size);
    best = std::max(best, live);
  }
  return best;
}

}  // namespace detail

/// Splits a validated problem without must-alias groups or declared
/// allocations (the caller checks) into independent subproblems, ordered by
/// arena index, then by the first buffer index of the part. Deterministic.
[[nodiscard]] inline std::vector<Subproblem> decompose(const Problem& p) {
  const ProblemIndex index(p);
  const std::size_t n = p.buffers.size();
  std::vector<std::size_t> arena_of(n);
  for (std::size_t i = 0; i < n; ++i) arena_of[i] = *index.arena(p.buffers[i].arena);

  detail::UnionFind uf(n);
  // Time blocks per arena: sorted by start, a buffer joins the running block
  // while it starts before the block's latest end.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (arena_of[a] != arena_of[b]) return arena_of[a] < arena_of[b];
    if (p.buffers[a].lifetime.begin != p.buffers[b].lifetime.begin)
      return p.buffers[a].lifetime.begin < p.buffers[b].lifetime.begin;
    return a < b;
  });
  for (std::size_t k = 0; k < n;) {
    std::size_t j = k;
    Tick reach = p.buffers[order[k]].lifetime.end;
    while (j + 1 < n && arena_of[order[j + 1]] == arena_of[order[k]] &&
           p.buffers[order[j + 1]].lifetime.begin < reach) {
      ++j;
      uf.unite(order[k], order[j]);
      reach = std::max(reach, p.buffers[order[j]].lifetime.end);
    }
    k = j + 1;
  }
  std::vector<std::pair<std::size_t, std::size_t>> seps;
  for (const auto& s : p.separations) {
    const auto a = *index.buffer(s.a), b = *index.buffer(s.b);
    if (interferes(p.buffers[a].lifetime, p.buffers[b].lifetime)) continue;  // implied by the lifetimes
    seps.emplace_back(std::min(a, b), std::max(a, b));
    uf.unite(a, b);
  }
  std::sort(seps.begin(), seps.end());
  seps.erase(std::unique(seps.begin(), seps.end()), seps.end());
  std::map<std::pair<std::size_t, std::size_t>, Weight> pens;
  for (const auto& pen : p.penalties) {
    const auto a = *index.buffer(pen.a), b = *index.buffer(pen.b);
    if (pen.weight == 0) continue;
    auto& w = pens[{std::min(a, b), std::max(a, b)}];
    w = saturating_add(w, pen.weight);
    uf.unite(a, b);
  }

  // Parts in order of (arena, smallest buffer index).
  std::vector<std::size_t> part_of_root(n, SIZE_MAX);
  std::vector<Subproblem> parts;
  std::vector<std::uint32_t> local(n, 0);
  std::vector<std::size_t> part_of(n, 0);
  std::vector<std::size_t> by_arena(n);
  std::iota(by_arena.begin(), by_arena.end(), std::size_t{0});
  std::stable_sort(by_arena.begin(), by_arena.end(),
                   [&](std::size_t a, std::size_t b) { return arena_of[a] < arena_of[b]; });
  for (std::size_t i : by_arena) {
    const std::size_t r = uf.find(i);
    if (part_of_root[r] == SIZE_MAX) {
      part_of_root[r] = parts.size();
      Subproblem sp;
      sp.arena = arena_of[i];
      sp.space = FreeSpace(p.arenas[arena_of[i]].capacity, p.arenas[arena_of[i]].reserved);
      parts.push_back(std::move(sp));
    }
    auto& sp = parts[part_of_root[r]];
    part_of[i] = part_of_root[r];
    local[i] = static_cast<std::uint32_t>(sp.items.size());
    const auto& b = p.buffers[i];
    sp.items.push_back({i, b.size, b.alignment, b.lifetime});
  }
  for (auto& sp : parts) {
    sp.separated.assign(sp.items.size(), {});
    sp.penalties.assign(sp.items.size(), {});
  }
  for (const auto& [a, b] : seps) {
    auto& sp = parts[part_of[a]];
    sp.separated[local[a]].push_back(local[b]);
    sp.separated[local[b]].push_back(local[a]);
  }
  for (const auto& [ab, w] : pens) {
    auto& sp = parts[part_of[ab.first]];
    sp.penalties[local[ab.first]].push_back({local[ab.second], w});
    sp.penalties[local[ab.second]].push_back({local[ab.first], w});
  }
  for (auto& sp : parts) {
    sp.max_load = detail::max_load(sp.items);
    Addr reserved_bytes = 0, reserved_end = 0;
    for (const auto& w : sp.space.windows()) {
      reserved_bytes += w.size();
      reserved_end = std::max(reserved_end, w.end);
    }
    sp.lower_bound = std::max(reserved_end, saturating_add(sp.max_load, reserved_bytes));
  }
  return parts;
}

/// Every canonical offset and peak of `sp` is a multiple of this granule g,
/// so proved lower bounds round up to it. g divides every size and window
/// bound, and every alignment a either divides g or is a multiple of it:
/// then align_up(h, a) of a multiple h of g is h itself (a | g) or a
/// multiple of a (g | a) -- a multiple of g either way -- and sums of
/// multiples of g stay multiples of g.
[[nodiscard]] inline Addr granule(const Subproblem& sp) {
  auto gcd = [](Addr a, Addr b) {
    while (b != 0) {
      const Addr t = a % b;
      a = b;
      b = t;
    }
    return a;
  };
  Addr g = 0;
  for (const auto& it : sp.items) g = gcd(g, it.size);
  for (const auto& w : sp.space.windows()) g = gcd(gcd(g, w.begin), w.end);
  // Blocked ranges bound offsets as windows do (an open-ended one has no end).
  for (const auto& bl : sp.blocked)
    for (const auto& r : bl) g = gcd(gcd(g, r.begin), r.end == max_addr ? 0 : r.end);
  if (g == 0) return 1;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& it : sp.items)
      if (g % it.alignment != 0 && it.alignment % g != 0) {
        g = gcd(g, it.alignment);
        changed = true;
      }
  }
  return g;
}

}  // namespace pto_mem::exact
