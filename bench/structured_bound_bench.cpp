// Why the structured bound keeps a hand-written sweep for interval
// lifetimes beside the Boost.Graph clique bound it uses for explicit
// conflict graphs: the bound runs at every node of the search over arena
// choices (planner_impl.hpp, search_arena_choices), so its cost is paid
// many times over.
//
// The workload: 2,000 buffers, a quarter of them with two live intervals,
// 200 exclusions. BM_Sweep bounds them as they are (the event sweep over
// live intervals, with a greedy clique of the excluded buffers live at each
// start); BM_Graph bounds the same conflicts stated as an explicit conflict
// graph (one edge per pair live together), through the Boost.Graph
// adjacency list and a greedy clique around each buffer. The sweep's bound
// is at least the graph's (at each instant it takes every live buffer no
// exclusion involves) and it needs no edge list.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "pto_mem/algorithms/structured.hpp"
#include "pto_mem/analysis/lower_bound.hpp"  // first: it brings the structured bound in the right order

namespace {

using pto_mem::Addr;

pto_mem::Problem intervals() {
  std::mt19937_64 g(34);
  auto below = [&](std::uint64_t n) { return static_cast<std::int64_t>(g() % n); };
  pto_mem::Problem p;
  p.arenas.push_back({0, "a", Addr{1} << 40, {}});
  for (int i = 0; i < 2000; ++i) {
    pto_mem::BufferSpec b;
    b.size = static_cast<Addr>(32 * (1 + below(64)));
    const std::int64_t s = below(20000), len = 1 + below(400);
    b.lifetime = {s, s + len};
    if (i % 4 == 0) {
      const std::int64_t gap = 1 + below(200);
      b.live = {{s, s + len}, {s + len + gap, s + len + gap + 1 + below(100)}};
      b.lifetime = {s, b.live.back().end};
    }
    p.buffers.push_back(b);
  }
  for (int k = 0; k < 200; ++k)
    p.exclusions.push_back(
        {static_cast<pto_mem::BufferId>(below(2000)), static_cast<pto_mem::BufferId>(below(2000))});
  return p;
}

/// The same conflicts as an explicit graph: an edge per pair live together.
pto_mem::Problem as_graph(pto_mem::Problem p) {
  p.conflict_graph.emplace();
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    for (std::size_t j = i + 1; j < p.buffers.size(); ++j)
      if (pto_mem::detail::lowering::live_meet(p.buffers[i], p.buffers[j]))
        p.conflict_graph->push_back({static_cast<pto_mem::BufferId>(i), static_cast<pto_mem::BufferId>(j)});
  return p;
}

void BM_Sweep(benchmark::State& state) {
  const auto p = intervals();
  for (auto _ : state) benchmark::DoNotOptimize(pto_mem::structured_arena_loads(p));
  state.counters["bound"] = static_cast<double>(pto_mem::structured_arena_loads(p)[0].lower_bound);
}
BENCHMARK(BM_Sweep)->Unit(benchmark::kMillisecond);

void BM_Graph(benchmark::State& state) {
  const auto p = as_graph(intervals());
  for (auto _ : state) benchmark::DoNotOptimize(pto_mem::structured_arena_loads(p));
  state.counters["bound"] = static_cast<double>(pto_mem::structured_arena_loads(p)[0].lower_bound);
  state.counters["edges"] = static_cast<double>(p.conflict_graph->size());
}
BENCHMARK(BM_Graph)->Unit(benchmark::kMillisecond);

}  // namespace
