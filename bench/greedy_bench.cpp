// Speed of DSA-RP canonical greedy: one pass (size order, the first-fit pass)
// and the full solve (first fit + every order + restarts), in fast and compat
// mode, on generated traces of 1k / 10k / 100k buffers (fixed seeds) and on
// the idealloc traces. Targets: one pass over Y_1 under 100 ms; the
// full solve on 100k generated buffers under 3 s.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "bench_support.hpp"
#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"

namespace {

using namespace pto_mem;

const Problem& generated(std::size_t n) {
  static std::map<std::size_t, std::unique_ptr<Problem>> cache;
  auto& slot = cache[n];
  if (!slot) slot = std::make_unique<Problem>(bench::generated_instance(n, 1000 + n));
  return *slot;
}

const Problem* trace(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Problem>> cache;
  auto& slot = cache[name];
  if (!slot) {
    auto p = bench::read_csv_instance(std::filesystem::path(PTO_MEM_SHARED_DIR) / "data/idealloc" /
                                      (name + ".csv"));
    if (p) slot = std::make_unique<Problem>(std::move(*p));
  }
  return slot.get();
}

void one_pass(benchmark::State& state, const Problem& p) {
  const auto space = dsa::build_search_space(p);
  const auto order = dsa::size_order(space);
  dsa::CanonicalPlacer placer(space, false);
  for (auto _ : state) {
    bool ok = placer.place(order, dsa::PassKind::canonical);
    benchmark::DoNotOptimize(ok);
  }
  state.counters["buffers"] = static_cast<double>(p.buffers.size());
}

void full_solve(benchmark::State& state, const Problem& p, bool compat, unsigned threads = 1) {
  GreedyResult r;
  GreedyOptions options{0, 4, compat};
  options.threads = threads;
  for (auto _ : state) {
    r = canonical_greedy(p, options);
    benchmark::DoNotOptimize(r);
  }
  state.counters["buffers"] = static_cast<double>(p.buffers.size());
  state.counters["orders"] = static_cast<double>(r.statistics.orders_evaluated);
  state.counters["peak"] = static_cast<double>(r.objective.max_peak);
  if (r.status != Status::feasible) state.SkipWithError("no placement");
}

void BM_PassGenerated(benchmark::State& s) { one_pass(s, generated(static_cast<std::size_t>(s.range(0)))); }
void BM_SolveGenerated(benchmark::State& s) {
  full_solve(s, generated(static_cast<std::size_t>(s.range(0))), false);
}
void BM_SolveGeneratedCompat(benchmark::State& s) {
  full_solve(s, generated(static_cast<std::size_t>(s.range(0))), true);
}
void BM_SolveGenerated2Threads(benchmark::State& s) {
  full_solve(s, generated(static_cast<std::size_t>(s.range(0))), false, 2);
}
BENCHMARK(BM_PassGenerated)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SolveGenerated)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_SolveGenerated2Threads)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SolveGeneratedCompat)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void register_traces() {
  for (const char* name : {"iree_mobilebert", "G_1", "resnet50", "bert_base", "pangu_2.6B", "S_1", "Y_1"}) {
    const Problem* p = trace(name);
    if (!p) continue;
    benchmark::RegisterBenchmark((std::string("BM_PassTrace/") + name).c_str(), [p](benchmark::State& s) {
      one_pass(s, *p);
    })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("BM_SolveTrace/") + name).c_str(),
                                 [p](benchmark::State& s) { full_solve(s, *p, false); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark((std::string("BM_SolveTraceCompat/") + name).c_str(),
                                 [p](benchmark::State& s) { full_solve(s, *p, true); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_traces();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
