// The tile-memory pipeline on generated kernels of about 1k, 10k and 100k
// statements (target: 10k statements under 50 ms for the whole pipeline).
//
// A kernel mixes what the passes work on: Vec chains, view chains, Mat loads
// read in Vec (InferTileMemorySpace inserts the moves), accumulator loops
// carried in Acc whose Mat panels are moved into Left / Right inside the
// loop, if/else phis, and ping-pong slots of a declared allocation.
//
//   BM_compile_source/<planner>/<n>: parse + every pass, what `pto-mem compile` does
//   BM_pipeline/<planner>/<n>:       the passes only, on a parsed program
//   BM_pass_*/<n>:                   one pass, on the output of the ones before
//                                    (alloc_dsa_rp: after the DSA_RP alias pass)
//   BM_verify_storage/<planner>/<n>: the tile-storage verifier alone, on the
//                                    planner's output (BM_pipeline includes it)
//   --print_kernel=<n>:              writes the kernel of about n statements and exits
// Each iteration works on a fresh clone (made outside the timed region):
// the passes refine variables in place. Freeing the previous iteration's
// program is kept out of the timed region too (it costs about as much as a
// pass on large kernels and is not planning work). A run whose pipeline fails says so in
// its label.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <string_view>

#include "pto_mem/pypto.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"

using namespace pto_mem::pypto;

namespace {

/// A kernel of about `n` statements as written (yields and the return
/// included; InferTileMemorySpace adds about 0.2 moves per statement).
std::string kernel(int n) {
  std::string s =
      "@function(type=InCore)\n"
      "def big(x: Tensor[[64, 64], FP32],\n"
      "        w: Tensor[[64, 64], BF16],\n"
      "        c: Scalar[INDEX],\n"
      "        out: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n"
      "    t0: Tile[[64, 64], FP32] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n";
  const std::string tile = ": Tile[[64, 64], FP32]";
  int emitted = 1, id = 1;
  auto t = [](int i) { return "t" + std::to_string(i); };
  while (emitted < n) {
    const std::string k = std::to_string(id), prev = t(id - 1);
    switch (id % 25) {
      case 3:  // a Mat tile read in Vec: one move
        s += "    m" + k + ": Tile[[64, 64], FP32] = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n";
        s += "    " + t(id) + tile + " = tile.add(" + prev + ", m" + k + ")\n";
        emitted += 2;
        break;
      case 5:  // a view chain
        s += "    v" + k + ": Tile[[4096, 1], FP32] = tile.reshape(" + prev + ", [4096, 1])\n";
        s += "    u" + k + ": Tile[[64, 64], FP32] = tile.reshape(v" + k + ", [64, 64])\n";
        s += "    h" + k + ": Tile[[32, 64], FP32] = tile.slice(u" + k + ", [32, 64], [32, 0])\n";
        s += "    " + t(id) + tile + " = tile.exp(u" + k + ")\n";
        emitted += 4;
        break;
      case 7:  // an accumulator loop: Acc carry, L0 moves inside the body, Acc -> Vec move after
        s += "    p" + k + ": Tile[[64, 64], BF16] = tile.load(w, [0, 0], [64, 64], target_memory=Mat)\n";
        s += "    a" + k + ": Tile[[64, 64], FP32] = tile.create([64, 64], dtype=FP32, target_memory=Vec)\n";
        s += "    for k" + k + ", (acc" + k + ",) in range(4, init_values=(a" + k + ",)):\n";
        s += "        n" + k + ": Tile[[64, 64], FP32] = tile.matmul_acc(acc" + k + ", p" + k + ", p" + k +
             ")\n";
        s += "        r" + k + " = yield_(n" + k + ")\n";
        s += "    " + t(id) + tile + " = tile.add(" + prev + ", r" + k + ")\n";
        emitted += 6;
        break;
      case 13:  // if/else with a phi
        s += "    if c < " + k + ":\n";
        s += "        e" + k + tile + " = tile.exp(" + prev + ")\n";
        s += "        " + t(id) + " = yield_(e" + k + ")\n    else:\n";
        s += "        f" + k + tile + " = tile.neg(" + prev + ")\n";
        s += "        " + t(id) + " = yield_(f" + k + ")\n";
        emitted += 5;
        break;
      case 19:  // a ping-pong slot of a declared allocation
        s += "    " + t(id) + ": Tile[[64, 64], FP32, MemRef(\"ping\", slots=2)[" + std::to_string(id % 2) +
             "], Vec] = tile.muls(" + prev + ", 0.5)\n";
        ++emitted;
        break;
      default: s += "    " + t(id) + tile + " = tile.add(" + prev + ", t0)\n"; ++emitted;
    }
    ++id;
  }
  s += "    r: Tensor[[64, 64], FP32] = tile.store(" + t(id - 1) + ", [0, 0], out)\n    return r\n";
  return s;
}

std::size_t count_statements(const Program& p) {
  std::size_t n = 0;
  for (const auto& f : p.functions) for_each_stmt(f.body, [&](const Stmt& st) { n += !st.is<SeqStmts>(); });
  return n;
}

CompileOptions options(Planner planner, Stage until = Stage::alloc) {
  CompileOptions o;
  o.soc = soc_a2a3();
  o.planner = planner;
  o.until = until;
  return o;
}

void label(benchmark::State& state, std::size_t statements, const CompileResult& r, Stage until) {
  std::string l = std::to_string(statements) + " statements";
  if (!r.ok()) {
    l += "; FAILED after ";
    l += r.ran.empty() ? "nothing" : std::string(to_string(r.ran.back()));
  } else if (!r.ran.empty() && r.ran.back() != until) {
    l += "; last stage " + std::string(to_string(r.ran.back()));
  }
  state.SetLabel(l);
}

void BM_compile_source(benchmark::State& state, Planner planner) {
  const std::string text = kernel(static_cast<int>(state.range(0)));
  const std::size_t statements = count_statements(parse_program(text).program);
  const CompileOptions o = options(planner);
  CompileResult last;
  for (auto _ : state) {
    state.PauseTiming();
    last = CompileResult{};
    state.ResumeTiming();
    last = compile_source(text, "big.pto", o);
    benchmark::DoNotOptimize(last);
  }
  label(state, statements, last, Stage::alloc);
}

void BM_pipeline(benchmark::State& state, Planner planner, Stage until) {
  const Program parsed = parse_program(kernel(static_cast<int>(state.range(0))), "big.pto").program;
  const CompileOptions o = options(planner, until);
  CompileResult last;
  for (auto _ : state) {
    state.PauseTiming();
    last = CompileResult{};
    Program p = clone(parsed);
    state.ResumeTiming();
    last = compile(p, o);
    benchmark::DoNotOptimize(last);
    state.PauseTiming();
    p = Program{};
    state.ResumeTiming();
  }
  label(state, count_statements(parsed), last, until);
}

/// One pass alone, on a clone of the program the passes before it produced.
template <Program (*Pass)(const Program&, PassContext&)>
void BM_pass(benchmark::State& state, Stage before, Planner planner = Planner::pypto) {
  Program input = parse_program(kernel(static_cast<int>(state.range(0))), "big.pto").program;
  if (before != Stage::parse) input = compile(input, options(planner, before)).program;
  const SocPolicy soc = soc_a2a3();
  for (auto _ : state) {
    state.PauseTiming();
    Program p = clone(input);
    PassContext ctx;
    ctx.soc = &soc;
    ctx.ops = &default_registry();
    ctx.planner = planner;
    state.ResumeTiming();
    Program out = Pass(p, ctx);
    benchmark::DoNotOptimize(out);
    state.PauseTiming();
    out = Program{};
    p = Program{};
    state.ResumeTiming();
  }
  state.SetLabel(std::to_string(count_statements(input)) + " statements in");
}

/// The tile-storage verifier alone, on the program the planner's passes
/// produced (the pipeline runs it last, on every planned program).
void BM_verify_storage(benchmark::State& state, Planner planner) {
  const Program parsed = parse_program(kernel(static_cast<int>(state.range(0))), "big.pto").program;
  CompileOptions o = options(planner);
  o.verify_storage = false;
  const CompileResult planned = compile(parsed, o);
  TileStorageOptions vo;
  vo.addresses_assigned = planned.addresses_assigned;
  vo.soc = o.soc.soc_name;
  for (auto _ : state) {
    pto_mem::Diagnostics d = verify_tile_storage(planned.program, vo);
    benchmark::DoNotOptimize(d);
  }
  std::string l = std::to_string(count_statements(planned.program)) + " statements in";
  if (!planned.ok()) l += "; the pipeline FAILED";
  state.SetLabel(l);
}

void BM_pass_infer(benchmark::State& state) { BM_pass<infer_tile_memory_space>(state, Stage::parse); }
void BM_pass_init(benchmark::State& state) { BM_pass<init_memref>(state, Stage::infer); }
void BM_pass_alias(benchmark::State& state) { BM_pass<materialize_semantic_aliases>(state, Stage::init); }
void BM_pass_reuse(benchmark::State& state) { BM_pass<memory_reuse>(state, Stage::alias); }
void BM_pass_alloc_pypto(benchmark::State& state) { BM_pass<allocate_memory_addr>(state, Stage::reuse); }
void BM_pass_alloc_dsa_rp(benchmark::State& state) {
  BM_pass<allocate_memory_addr>(state, Stage::alias, Planner::dsa_rp);
}

}  // namespace

BENCHMARK_CAPTURE(BM_compile_source, pypto, Planner::pypto)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_pipeline, pypto_until_init, Planner::pypto, Stage::init)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_pipeline, pypto, Planner::pypto, Stage::alloc)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_pipeline, dsa_rp, Planner::dsa_rp, Stage::alloc)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_pipeline, ptoas, Planner::ptoas, Stage::alloc)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_verify_storage, pypto, Planner::pypto)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_verify_storage, dsa_rp, Planner::dsa_rp)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_verify_storage, ptoas, Planner::ptoas)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pass_infer)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pass_init)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pass_alias)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pass_reuse)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pass_alloc_pypto)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_pass_alloc_dsa_rp)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// `bench_pypto_pipeline --print_kernel=N` writes the kernel of about N
// statements to standard output and exits, so that `pto-mem compile` can be
// profiled on exactly what the benchmarks time (docs/benchmarks.md).
int main(int argc, char** argv) {
  constexpr std::string_view flag = "--print_kernel=";
  for (int i = 1; i < argc; ++i)
    if (const std::string_view a = argv[i]; a.starts_with(flag)) {
      std::fputs(kernel(std::stoi(std::string(a.substr(flag.size())))).c_str(), stdout);
      return 0;
    }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
