// Speed of the foundation on the real idealloc traces: reading CSV, the
// max-load lower bound, the validator, and the JSON/SVG writers. Figures go
// to docs/benchmarks.md. Run: build-rel/bin/bench_io
#include <benchmark/benchmark.h>

#include <map>
#include <string>

#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/svg.hpp"

namespace {

using namespace pto_mem;

std::string trace_path(const std::string& name) {
  return std::string(PTO_MEM_SHARED_DIR) + "/data/idealloc/" + name;
}

/// The text of a trace, or an error state for the benchmark when it is missing.
const std::string* trace_text(benchmark::State& state, const std::string& name) {
  static std::map<std::string, std::string> cache;
  if (auto it = cache.find(name); it != cache.end()) return &it->second;
  auto src = read_source_text(trace_path(name));
  if (!src.text) {
    state.SkipWithError(("no shared data: " + trace_path(name)).c_str());
    return nullptr;
  }
  return &cache.emplace(name, std::move(*src.text)).first->second;
}

const Problem* trace_problem(benchmark::State& state, const std::string& name) {
  static std::map<std::string, Problem> cache;
  if (auto it = cache.find(name); it != cache.end()) return &it->second;
  const std::string* text = trace_text(state, name);
  if (!text) return nullptr;
  auto r = read_csv(*text);
  if (!r) {
    state.SkipWithError("trace does not load");
    return nullptr;
  }
  return &cache.emplace(name, std::move(r.file->problem)).first->second;
}

const char* const traces[] = {"Y_1.csv", "S_1.csv", "pangu_2.6B.csv"};

void csv_read(benchmark::State& state) {
  const std::string* text = trace_text(state, traces[state.range(0)]);
  if (!text) return;
  std::size_t buffers = 0;
  for (auto _ : state) {
    auto r = read_csv(*text);
    buffers = r.file->problem.buffers.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(traces[state.range(0)]) + ", " + std::to_string(buffers) + " buffers");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text->size()));
}

void lower_bound(benchmark::State& state) {
  const Problem* p = trace_problem(state, traces[state.range(0)]);
  if (!p) return;
  for (auto _ : state) benchmark::DoNotOptimize(arena_loads(*p));
  state.SetLabel(traces[state.range(0)]);
}

void validate_problem(benchmark::State& state) {
  const Problem* p = trace_problem(state, traces[state.range(0)]);
  if (!p) return;
  for (auto _ : state) benchmark::DoNotOptimize(validate(*p));
  state.SetLabel(traces[state.range(0)]);
}

void validate_placement(benchmark::State& state) {
  const Problem* p = trace_problem(state, traces[state.range(0)]);
  if (!p) return;
  const auto placed = place_sequential(*p);
  if (!placed.placement) {
    state.SkipWithError("sequential placement failed");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(validate(*p, *placed.placement));
  state.SetLabel(traces[state.range(0)]);
}

void json_write_read(benchmark::State& state) {
  const Problem* p = trace_problem(state, traces[state.range(0)]);
  if (!p) return;
  for (auto _ : state) {
    const std::string text = json_problem_text(*p);
    auto back = read_json_problem(text);
    benchmark::DoNotOptimize(back);
  }
  state.SetLabel(traces[state.range(0)]);
}

void svg_render(benchmark::State& state) {
  const Problem* p = trace_problem(state, traces[state.range(0)]);
  if (!p) return;
  const auto placed = place_sequential(*p);
  if (!placed.placement) return;
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string svg = svg_memory_map(*p, *placed.placement);
    bytes = svg.size();
    benchmark::DoNotOptimize(svg);
  }
  state.SetLabel(std::string(traces[state.range(0)]) + ", " + std::to_string(bytes / 1024) + " KiB of SVG");
}

}  // namespace

BENCHMARK(csv_read)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(lower_bound)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(validate_problem)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(validate_placement)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(json_write_read)->Arg(0)->Unit(benchmark::kMillisecond);
BENCHMARK(svg_render)->Arg(0)->Unit(benchmark::kMillisecond);
