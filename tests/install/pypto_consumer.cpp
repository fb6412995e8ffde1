// A user of the PyPTO adapter compiled once (pkg-config pto_mem_pypto):
// parses, plans and prints a small kernel through libpto_mem_pypto.a.
#include <cstdio>

#include <pto_mem/pypto/passes/pipeline.hpp>

int main() {
  const char* text =
      "@function(type=InCore)\n"
      "def scale(x: Tensor[[64, 128], FP32], y: Out[Tensor[[64, 128], FP32]]) -> Tensor[[64, 128], FP32]:\n"
      "    for k in range(2):\n"
      "        t: Tile[[32, 128], FP32] = tile.load(x, [k * 32, 0], [32, 128], target_memory=Vec)\n"
      "        u: Tile[[32, 128], FP32] = tile.muls(t, 2.0)\n"
      "        r: Tensor[[64, 128], FP32] = tile.store(u, [k * 32, 0], y)\n"
      "    return y\n";
  const auto r = pto_mem::pypto::compile_source(text, "consumer.pto");
  if (!r.ok()) {
    std::printf("pypto consumer: compile failed (exit code %d)\n", r.exit_code());
    return 1;
  }
  std::printf("pypto consumer: %zu functions planned, %zu bytes of program text\n",
              r.program.functions.size(), pto_mem::pypto::print(r.program).size());
  return 0;
}
