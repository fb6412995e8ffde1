// Speed of the tile-IR front end on generated kernels of 1k, 10k and 100k
// statements: parse, print, clone, a copy-on-write mutation and a visitor
// walk (the pieces every pass of the memory pipeline is built from).
#include <benchmark/benchmark.h>

#include <string>

#include "pto_mem/pypto.hpp"

using namespace pto_mem::pypto;

namespace {

/// A kernel of about `n` statements: loads and vector chains, accumulator
/// loops with carries, if/else with phis, declared slots.
std::string kernel(int n) {
  std::string s =
      "@function(type=InCore)\n"
      "def big(x: Tensor[[64, 64], FP32],\n"
      "        c: Scalar[INDEX],\n"
      "        out: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n"
      "    t0: Tile[[64, 64], FP32, Vec] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n";
  int emitted = 1, id = 1;
  auto name = [](int i) { return "t" + std::to_string(i); };
  while (emitted < n) {
    const int prev = id - 1;
    switch (id % 25) {
      case 7: {
        s += "    for i" + std::to_string(id) + ", (a" + std::to_string(id) + ",) in range(4, init_values=(" +
             name(prev) + ",)):\n";
        s += "        b" + std::to_string(id) + ": Tile[[64, 64], FP32, Vec] = tile.add(a" +
             std::to_string(id) + ", t0)\n";
        s += "        " + name(id) + " = yield_(b" + std::to_string(id) + ")\n";
        emitted += 3;
        break;
      }
      case 13: {
        s += "    if c < " + std::to_string(id) + ":\n";
        s +=
            "        e" + std::to_string(id) + ": Tile[[64, 64], FP32, Vec] = tile.exp(" + name(prev) + ")\n";
        s += "        " + name(id) + " = yield_(e" + std::to_string(id) + ")\n    else:\n";
        s += "        " + name(id) + " = yield_(" + name(prev) + ")\n";
        emitted += 4;
        break;
      }
      case 19:
        s += "    " + name(id) + ": Tile[[64, 64], FP32, MemRef(\"ping\", slots=2)[" +
             std::to_string(id % 2) + "], Vec] = tile.muls(" + name(prev) + ", 0.5)\n";
        ++emitted;
        break;
      default:
        s += "    " + name(id) + ": Tile[[64, 64], FP32, Vec] = tile.add(" + name(prev) + ", t0)\n";
        ++emitted;
    }
    ++id;
  }
  s += "    r: Tensor[[64, 64], FP32] = tile.store(" + name(id - 1) + ", [0, 0], out)\n    return r\n";
  return s;
}

void BM_parse(benchmark::State& state) {
  const std::string text = kernel(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = parse_program(text, "big.pto");
    if (!r.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_print(benchmark::State& state) {
  const Program p = parse_program(kernel(static_cast<int>(state.range(0)))).program;
  for (auto _ : state) benchmark::DoNotOptimize(print(p));
}

void BM_clone(benchmark::State& state) {
  const Program p = parse_program(kernel(static_cast<int>(state.range(0)))).program;
  for (auto _ : state) benchmark::DoNotOptimize(clone(p));
}

/// Rewrites every tile.add: the worst case for copy-on-write.
void BM_mutate_all_adds(benchmark::State& state) {
  const Program p = parse_program(kernel(static_cast<int>(state.range(0)))).program;
  struct Rename : IRMutator {
    ExprPtr mutate_call(const Call& c, const ExprPtr& self) override {
      if (c.op != "tile.add") return IRMutator::mutate_call(c, self);
      return call("tile.maximum", c.args, c.kwargs);
    }
  };
  for (auto _ : state) {
    Rename m;
    benchmark::DoNotOptimize(m.mutate_function(p.functions[0]));
  }
}

/// Counts uses of every variable: a pass's typical analysis walk.
void BM_visit(benchmark::State& state) {
  const Program p = parse_program(kernel(static_cast<int>(state.range(0)))).program;
  struct Uses : IRVisitor {
    std::size_t n = 0;
    void visit_var_use(const VarPtr&) override { ++n; }
  };
  for (auto _ : state) {
    Uses u;
    u.visit_function(p.functions[0]);
    benchmark::DoNotOptimize(u.n);
  }
}

}  // namespace

BENCHMARK(BM_parse)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_print)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_clone)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_mutate_all_adds)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_visit)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
