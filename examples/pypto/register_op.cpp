// Registering a new op with its memory contract, then using it in a program.
//
// `my.scale_bias(x, scale, bias)` computes x * scale + bias on the vector
// unit: x and bias must be in Vec (Vec is the canonical space a move would
// target), scale is a scalar; the output is a fresh Vec tile that may not
// share x's buffer (the op reads x twice), and its type is x's.
#include <cstdlib>
#include <iostream>
#include <string>

#include "pto_mem/pypto.hpp"

using namespace pto_mem::pypto;

namespace {

int fail(const std::string& what) {
  std::cerr << "register_op: " << what << "\n";
  return EXIT_FAILURE;
}

}  // namespace

int main() {
  OpSpec scale_bias = OpSpec("my.scale_bias")
                          .arg("x", {MemorySpace::Vec})
                          .arg("scale")
                          .arg("bias", {MemorySpace::Vec})
                          .fixed(MemorySpace::Vec)
                          .forbid_alias({0})
                          .access(pto_mem::AccessEvidence::functional)
                          .typed(type_rules::like_arg(0, MemorySpace::Vec))
                          .note("x * scale + bias");

  // 1. Into the process-wide registry the parser and passes use by default.
  std::string why;
  if (!register_op(scale_bias, &why)) return fail("could not register: " + why);
  // Registering the same name twice is refused, with the reason.
  if (register_op(scale_bias, &why)) return fail("a duplicate registration was accepted");
  std::cout << "duplicate refused: " << why << "\n";
  // A contradictory contract is refused too.
  OpSpec broken = OpSpec("my.broken").arg("x").reuses(3).fixed(MemorySpace::Vec);
  if (register_op(broken, &why)) return fail("an inconsistent op was accepted");
  std::cout << "inconsistent refused: " << why << "\n";

  // 2. The contract as the passes read it.
  const OpSpec* spec = default_registry().find("my.scale_bias");
  if (!spec) return fail("op not found after registration");
  std::cout << spec->name << ": canonical space of x = " << to_string(*spec->canonical_space(0))
            << ", scale unconstrained = " << spec->allowed_spaces(1).empty()
            << ", forbidden operands = " << spec->forbidden_operands(3).size()
            << ", view = " << spec->is_view() << "\n";

  // 3. A program using it: the unannotated result is typed by the op's rule.
  const char* text = R"(@function(type=InCore)
def kernel(x: Tensor[[64, 64], FP32],
           s: Scalar[FP32],
           out: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:
    t: Tile[[64, 64], FP32, Vec] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)
    y = my.scale_bias(t, s, t)
    r: Tensor[[64, 64], FP32] = tile.store(y, [0, 0], out)
    return r
)";
  ParseResult parsed = parse_program(text, "register_op.pto");
  if (!parsed.ok()) return fail(pto_mem::format(parsed.diagnostics.front()));
  const std::string printed = print(parsed.program);
  std::cout << printed;
  if (printed.find("y: Tile[[64, 64], FP32, Vec] = my.scale_bias(t, s, t)") == std::string::npos)
    return fail("the result type was not deduced from the op's rule");

  // 4. A private registry (e.g. per compilation) works the same way.
  OpRegistry mine = OpRegistry::with_builtins();
  if (!mine.add(scale_bias, &why)) return fail(why);
  ParseOptions options;
  options.registry = &mine;
  if (!parse_program(text, "register_op.pto", options).ok()) return fail("private registry parse failed");
  return EXIT_SUCCESS;
}
