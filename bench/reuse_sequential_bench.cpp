// Speed of alias unification, lifetime reuse and sequential placement:
// generated instances of 1k / 10k / 100k buffers (fixed seeds) and the
// idealloc traces. Run from a Release build:
//   build-rel/bin/bench_reuse_sequential --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/reuse.hpp"
#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/planner.hpp"

namespace {

using namespace pto_mem;

/// n buffers in two arenas: sizes 32 B .. 64 KiB (32-aligned), lifetimes of
/// 1..64 points starting uniformly over n/4 points, so about 60 buffers are
/// live at once whatever n. No capacity pressure: this measures speed.
Problem generated(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Problem p;
  p.arenas = {{0, "Vec", Addr{1} << 40, {{0, 512}}}, {1, "Mat", Addr{1} << 40, {}}};
  const auto horizon = static_cast<Tick>(std::max<std::size_t>(n / 4, 1));
  p.buffers.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    BufferSpec b;
    b.name = std::to_string(i);
    b.size = 32 * (1 + rng() % 2048);
    b.alignment = 32;
    b.arena = static_cast<std::int64_t>(rng() % 2);
    b.lifetime.begin = static_cast<Tick>(rng() % static_cast<std::uint64_t>(horizon));
    b.lifetime.end = b.lifetime.begin + 1 + static_cast<Tick>(rng() % 64);
    p.buffers.push_back(std::move(b));
  }
  return p;
}

/// The same, with one buffer in ten made a view of its neighbour (same
/// arena, at a 32-byte multiple, born while the neighbour lives), and one
/// declared allocation per 1000 buffers.
Problem generated_aliased(std::size_t n, std::uint64_t seed) {
  Problem p = generated(n, seed);
  std::mt19937_64 rng(seed + 1);
  for (std::size_t i = 0; i + 1 < n; i += 10) {
    auto& root = p.buffers[i];
    auto& view = p.buffers[i + 1];
    view.arena = root.arena;
    const Tick len = view.lifetime.end - view.lifetime.begin;
    view.lifetime.begin =
        root.lifetime.begin +
        static_cast<Tick>(rng() % static_cast<std::uint64_t>(root.lifetime.end - root.lifetime.begin));
    view.lifetime.end = view.lifetime.begin + len;
    p.must_alias.push_back(
        {{{static_cast<BufferId>(i), 0}, {static_cast<BufferId>(i + 1), 32 * (rng() % 4)}}});
  }
  for (std::size_t i = 5; i + 1 < n; i += 1000) {
    if (p.buffers[i].arena != p.buffers[i + 1].arena) continue;
    p.buffers[i].size = 2 * 4096;
    p.buffers[i + 1].size = 4096;
    p.declared.push_back({static_cast<BufferId>(i), 2, 4096, {{static_cast<BufferId>(i + 1), 1}}});
  }
  return p;
}

/// A MiniMalloc-style CSV (id,lower,upper,size[,offset]) as one arena that
/// always fits.
std::optional<Problem> load_trace(const std::string& path) {
  auto read = read_csv_file(path);
  if (!read) return std::nullopt;
  return std::move(read.file->problem);
}

std::string shared_dir() {
#ifdef PTO_MEM_SHARED_DIR
  return PTO_MEM_SHARED_DIR;
#else
  return "../shared";
#endif
}

const Problem& cached_generated(std::size_t n, bool aliased) {
  static std::map<std::pair<std::size_t, bool>, Problem> cache;
  auto it = cache.find({n, aliased});
  if (it == cache.end())
    it = cache.emplace(std::pair{n, aliased}, aliased ? generated_aliased(n, 42 + n) : generated(n, 42 + n))
             .first;
  return it->second;
}

void set_counters(benchmark::State& state, const Problem& p) {
  state.counters["buffers"] = static_cast<double>(p.buffers.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.buffers.size()));
}

void BM_Sequential(benchmark::State& state, const Problem& p) {
  for (auto _ : state) {
    auto r = place_sequential(p);
    benchmark::DoNotOptimize(r);
  }
  set_counters(state, p);
}

void BM_Reuse(benchmark::State& state, const Problem& p) {
  std::size_t slots = 0;
  for (auto _ : state) {
    auto r = reuse_lifetimes(p);
    slots = r.slots.size();
    benchmark::DoNotOptimize(r);
  }
  state.counters["slots"] = static_cast<double>(slots);
  set_counters(state, p);
}

void BM_Unify(benchmark::State& state, const Problem& p) {
  for (auto _ : state) {
    auto u = unify_aliases(p);
    benchmark::DoNotOptimize(u);
  }
  set_counters(state, p);
}

/// The whole front door: validate, lower bound, unify, strategy, expand,
/// validate the placement, objective.
void BM_Plan(benchmark::State& state, const Problem& p, const std::string& strategy) {
  PlanOptions o;
  o.strategy = *parse_strategy(strategy);  // the names registered below
  Addr peak = 0;
  for (auto _ : state) {
    auto r = plan(p, o);
    if (!r.fits()) state.SkipWithError("no placement");
    peak = r.objective.total_peak;
    benchmark::DoNotOptimize(r);
  }
  state.counters["peak"] = static_cast<double>(peak);
  set_counters(state, p);
}

void register_all() {
  for (std::size_t n : {1000, 10000, 100000}) {
    const std::string tag = "gen/" + std::to_string(n);
    const Problem& p = cached_generated(n, false);
    const Problem& q = cached_generated(n, true);
    benchmark::RegisterBenchmark(("sequential/" + tag).c_str(), BM_Sequential, std::cref(p))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("reuse/" + tag).c_str(), BM_Reuse, std::cref(p))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("unify_aliases/" + tag + "-aliased").c_str(), BM_Unify, std::cref(q))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("plan_sequential/" + tag).c_str(), BM_Plan, std::cref(p), "sequential")
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("plan_reuse/" + tag).c_str(), BM_Plan, std::cref(p), "reuse")
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("plan_reuse/" + tag + "-aliased").c_str(), BM_Plan, std::cref(q), "reuse")
        ->Unit(benchmark::kMillisecond);
  }
  static std::vector<std::pair<std::string, Problem>> traces;
  const auto dir = std::filesystem::path(shared_dir()) / "data" / "idealloc";
  if (!std::filesystem::exists(dir)) {
    std::fprintf(stderr, "note: %s not found; the idealloc traces are skipped\n", dir.c_str());
    return;
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".csv") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  traces.reserve(files.size());
  for (const auto& f : files)
    if (auto p = load_trace(f.string())) traces.emplace_back(f.stem().string(), std::move(*p));
  for (const auto& [name, p] : traces) {
    const std::string tag = "idealloc/" + name;
    benchmark::RegisterBenchmark(("sequential/" + tag).c_str(), BM_Sequential, std::cref(p))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("reuse/" + tag).c_str(), BM_Reuse, std::cref(p))
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("plan_reuse/" + tag).c_str(), BM_Plan, std::cref(p), "reuse")
        ->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
