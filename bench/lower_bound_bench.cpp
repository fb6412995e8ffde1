// The max-load bound (arena_loads) with and without alias classes. A class
// (a must-alias group or a declaration with its bindings) occupies, at each
// instant, at least its largest live member; the bound keeps those maxima in
// Boost.ICL's interval_map. This benchmark keeps the measurement that choice
// rests on: plain problems (no classes: the sweep alone, the path plan()
// takes on big CSV inputs), many small classes (the adapter's shape) and a
// few large ones (where an interval map pays most per member).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench_support.hpp"
#include "pto_mem/analysis/lower_bound.hpp"

namespace {

using pto_mem::BufferId;
using pto_mem::Problem;

/// generated_instance(n) with its buffers cut into must-alias groups of
/// `group` consecutive buffers (0: no groups). The members keep their own
/// lifetimes: the bound takes, per group and instant, the largest live one.
Problem with_groups(std::size_t n, std::size_t group) {
  Problem p = pto_mem::bench::generated_instance(n, 42);
  if (group < 2) return p;
  for (std::size_t first = 0; first + group <= n; first += group) {
    pto_mem::MustAliasGroup g;
    for (std::size_t k = 0; k < group; ++k) g.members.push_back({static_cast<BufferId>(first + k), 0});
    p.must_alias.push_back(std::move(g));
  }
  return p;
}

void BM_arena_loads(benchmark::State& state) {
  const Problem p =
      with_groups(static_cast<std::size_t>(state.range(0)), static_cast<std::size_t>(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(pto_mem::arena_loads(p));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * state.range(0));
}

// (buffers, members per group)
BENCHMARK(BM_arena_loads)
    ->Args({100000, 0})
    ->Args({100000, 4})
    ->Args({100000, 1000})
    ->Unit(benchmark::kMillisecond);

}  // namespace
