// The lower bound of arena_loads for structured problems (several live
// intervals, exclusions, pins, candidate arenas, a conflict graph).
//
// A set of buffers that pairwise conflict in time (a clique of the conflict
// relation) and that all sit in one arena needs disjoint bytes there, away
// from every reserved window: the arena's peak is at least the clique's
// bytes plus the reserved bytes. Any clique gives a sound bound; this one
// takes, at each instant, every live buffer that no exclusion involves (they
// pairwise conflict) plus a greedy clique of the live ones that exclusions
// involve, heaviest first. With a conflict graph, a greedy clique around
// each buffer, heaviest neighbours first. Only buffers that cannot leave the
// arena count (one candidate), and a buffer of an alias group or declared
// allocation does not count (its bytes may be shared with its class); an
// exclusive pin is a reserved window, and every pin's end lies below the
// peak.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

namespace detail::structured_bound {

inline std::uint64_t pair_key(std::size_t a, std::size_t b) {
  return (static_cast<std::uint64_t>(std::min(a, b)) << 32) | static_cast<std::uint64_t>(std::max(a, b));
}

/// Past this many exclusion-involved buffers live at once, they are left out
/// of the clique (still sound, only weaker): the greedy clique is quadratic.
constexpr std::size_t max_involved_live = 512;
/// Past this many graph edges, the graph bound keeps only single buffers.
constexpr std::size_t max_graph_edges = 4'000'000;

}  // namespace detail::structured_bound

/// arena_loads for a problem that is not plain (is_plain false); sound for
/// every problem. `max_load` is the heaviest clique found, `max_live` its
/// number of buffers; `buffers` counts the buffers that may go to the arena.
[[nodiscard]] inline std::vector<ArenaLoad> structured_arena_loads(const Problem& p) {
  using detail::structured_bound::pair_key;
  const ProblemIndex index(p);
  const std::size_t n = p.buffers.size(), na = p.arenas.size();
  std::vector<ArenaLoad> out(na);

  std::vector<bool> grouped(n, false);
  for (const auto& g : p.must_alias)
    for (const auto& m : g.members)
      if (m.buffer < n) grouped[m.buffer] = true;
  for (const auto& d : p.declared) {
    if (d.buffer < n) grouped[d.buffer] = true;
    for (const auto& b : d.bindings)
      if (b.buffer < n) grouped[b.buffer] = true;
  }

  // Which arena each counted buffer is fixed to (na: not counted).
  std::vector<std::size_t> fixed(n, na);
  std::vector<std::vector<AddrRange>> windows(na);
  for (std::size_t k = 0; k < na; ++k)
    for (const auto& r : p.arenas[k].reserved)
      if (!r.empty()) windows[k].push_back(r);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& b = p.buffers[i];
    const auto k = index.arena(b.arena);
    if (!k || b.lifetime.begin >= b.lifetime.end) continue;
    if (b.candidate_arenas.size() <= 1)
      ++out[*k].buffers;
    else
      for (const auto a : b.candidate_arenas)
        if (const auto c = index.arena(a)) ++out[*c].buffers;
    if (b.candidate_arenas.size() > 1) continue;
    if (b.pin) {
      const Addr end = saturating_add(b.pin->offset, b.size);
      out[*k].reserved_end = std::max(out[*k].reserved_end, end);
      if (b.pin->exclusive) {
        windows[*k].push_back({b.pin->offset, end});
        continue;
      }
    }
    if (!grouped[i]) fixed[i] = *k;
  }

  std::unordered_set<std::uint64_t> excluded;
  std::vector<bool> involved(n, false);
  for (const auto& x : p.exclusions)
    if (x.a < n && x.b < n) {
      excluded.insert(pair_key(x.a, x.b));
      involved[x.a] = involved[x.b] = true;
    }

  if (p.conflict_graph) {
    // The conflict graph among the counted buffers of each arena (Boost.Graph:
    // set out-edge lists drop repeated edges and answer "adjacent?" in
    // O(log degree)); around each buffer a greedy clique, heaviest
    // neighbours first, is a set of buffers pairwise live together.
    using Graph = boost::adjacency_list<boost::setS, boost::vecS, boost::undirectedS>;
    Graph g(n);
    if (p.conflict_graph->size() <= detail::structured_bound::max_graph_edges)
      for (const auto& c : *p.conflict_graph) {
        if (c.a >= n || c.b >= n || c.a == c.b || fixed[c.a] == na || fixed[c.a] != fixed[c.b]) continue;
        if (excluded.contains(pair_key(c.a, c.b))) continue;
        boost::add_edge(c.a, c.b, g);
      }
    std::vector<std::size_t> nb, clique;
    for (std::size_t v = 0; v < n; ++v) {
      if (fixed[v] == na) continue;
      const auto [first, last] = boost::adjacent_vertices(v, g);
      nb.assign(first, last);
      std::sort(nb.begin(), nb.end(), [&](std::size_t a, std::size_t b) {
        return p.buffers[a].size > p.buffers[b].size || (p.buffers[a].size == p.buffers[b].size && a < b);
      });
      clique.assign(1, v);
      Addr bytes = p.buffers[v].size;
      for (std::size_t u : nb)
        if (std::all_of(clique.begin() + 1, clique.end(),
                        [&](std::size_t w) { return boost::edge(u, w, g).second; })) {
          clique.push_back(u);
          bytes = saturating_add(bytes, p.buffers[u].size);
        }
      auto& a = out[fixed[v]];
      if (bytes > a.max_load) {
        a.max_load = bytes;
        a.max_live = clique.size();
      }
    }
  } else {
    // Sweep the live intervals of each arena: at every start, the free live
    // bytes plus a greedy clique of the involved live buffers.
    struct Event {
      Tick tick;
      bool starts;
      std::size_t buffer;
      bool operator<(const Event& o) const {
        if (tick != o.tick) return tick < o.tick;
        if (starts != o.starts) return !starts;  // ends first: [a, b) and [b, c) never meet
        return buffer < o.buffer;
      }
    };
    std::vector<std::vector<Event>> events(na);
    for (std::size_t i = 0; i < n; ++i) {
      if (fixed[i] == na) continue;
      const auto& b = p.buffers[i];
      const std::vector<Interval> one{b.lifetime};
      for (const auto& l : b.live.empty() ? one : b.live) {
        events[fixed[i]].push_back({l.begin, true, i});
        events[fixed[i]].push_back({l.end, false, i});
      }
    }
    for (std::size_t k = 0; k < na; ++k) {
      auto& ev = events[k];
      std::sort(ev.begin(), ev.end());
      Addr free_bytes = 0;
      std::size_t free_count = 0;
      // Involved live buffers, heaviest first.
      std::set<std::pair<Addr, std::size_t>, std::greater<>> live_involved;
      for (std::size_t e = 0; e < ev.size();) {
        const Tick t = ev[e].tick;
        bool started = false;
        for (; e < ev.size() && ev[e].tick == t; ++e) {
          const std::size_t i = ev[e].buffer;
          const Addr size = p.buffers[i].size;
          if (involved[i]) {
            if (ev[e].starts)
              live_involved.insert({size, i});
            else
              live_involved.erase({size, i});
          } else if (ev[e].starts) {
            free_bytes = saturating_add(free_bytes, size);
            ++free_count;
          } else {
            free_bytes -= std::min(free_bytes, size);
            --free_count;
          }
          started = started || ev[e].starts;
        }
        if (!started) continue;
        Addr bytes = free_bytes;
        std::size_t count = free_count;
        if (live_involved.size() <= detail::structured_bound::max_involved_live) {
          std::vector<std::size_t> clique;
          for (const auto& entry : live_involved) {
            // Named copies, not a structured binding: clang before 16 cannot capture a binding in a lambda.
            const Addr size = entry.first;
            const std::size_t i = entry.second;
            if (std::none_of(clique.begin(), clique.end(),
                             [&](std::size_t j) { return excluded.contains(pair_key(i, j)); })) {
              clique.push_back(i);
              bytes = saturating_add(bytes, size);
            }
          }
          count += clique.size();
        }
        if (bytes > out[k].max_load) {
          out[k].max_load = bytes;
          out[k].max_live = count;
        }
      }
    }
  }

  for (std::size_t k = 0; k < na; ++k) {
    auto& a = out[k];
    for (const auto& r : windows[k]) a.reserved_end = std::max(a.reserved_end, r.end);
    a.reserved_bytes = covered_bytes(std::move(windows[k]));
    a.lower_bound = std::max(a.reserved_end, saturating_add(a.max_load, a.reserved_bytes));
  }
  return out;
}

}  // namespace pto_mem
