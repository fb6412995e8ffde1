// The storage passes' "is this window still observed?" index
// (passes/observation.hpp): reads are found through the variables now on a
// window's base, and the index follows every set_memref, so a variable
// moved onto another window is asked about there and no longer on its old
// one; value chains are built once and answered lazily.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pass_support.hpp"
#include "pto_mem/pypto/passes/observation.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using namespace pto_mem::pypto::passes;

namespace {

const char* const observation_kernel = R"(@function(type=InCore)
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    a: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    b: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    c: Tile[[16, 16], FP32] = tile.exp(a)
    d: Tile[[16, 16], FP32] = tile.add(b, c)
    r: Tensor[[16, 16], FP32] = tile.store(d, [0, 0], o)
    return r
)";

/// The statement defining `v` and its path, from the index.
const UseIndex::Def& def_of(const UseIndex& uses, const VarPtr& v) {
  const UseIndex::Def* d = uses.def(v.get());
  REQUIRE(d);
  return *d;
}

struct Nothing {
  [[nodiscard]] bool contains(const Var*) const { return false; }
};

}  // namespace

TEST_CASE("observation: reads are found on the window's base, and the index follows set_memref") {
  auto r = test::compile_ok(observation_kernel, Stage::init);
  const Function& f = r.program.functions.front();
  const VarPtr a = test::var(r.program, "a"), b = test::var(r.program, "b"), c = test::var(r.program, "c");
  REQUIRE(var_base(a) != var_base(b));
  UseIndex uses(f);
  const auto& at_c = def_of(uses, c);  // after c, b is still read (by d), a no longer is
  CHECK(uses.observed(at_c.holder, at_c.path, *var_memref(b), Nothing{}, false));
  CHECK_FALSE(uses.observed(at_c.holder, at_c.path, *var_memref(a), Nothing{}, false));

  // b moves onto a's window: its read by d is now a read of a's window, and
  // b's old window is read by nobody.
  const MemRefPtr b_window = var_memref(b);
  set_memref(b, var_memref(a));
  CHECK(uses.observed(at_c.holder, at_c.path, *var_memref(a), Nothing{}, false));
  CHECK_FALSE(uses.observed(at_c.holder, at_c.path, *b_window, Nothing{}, false));

  // Excluded variables do not count (the chain of the value asked about).
  struct OnlyB {
    const Var* b;
    [[nodiscard]] bool contains(const Var* v) const { return v == b; }
  };
  CHECK_FALSE(uses.observed(at_c.holder, at_c.path, *var_memref(a), OnlyB{b.get()}, false));
}

TEST_CASE("observation: a value chain follows loops, yields and in-place results; extra members stay extra") {
  const char* const loop = R"(@function(type=InCore)
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    a: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    for i, (acc,) in range(4, init_values=(a,)):
        n: Tile[[16, 16], FP32] = tile.add(acc, acc)
        out = yield_(n)
    r: Tensor[[16, 16], FP32] = tile.store(out, [0, 0], o)
    return r
)";
  auto r = test::compile_ok(loop, Stage::init);
  const Function& f = r.program.functions.front();
  const VarPtr a = test::var(r.program, "a"), acc = test::var(r.program, "acc"),
               n = test::var(r.program, "n"), out = test::var(r.program, "out");
  const ValueChains chains(f, {});
  auto of_a = chains.of({a.get()});
  CHECK(of_a.contains(a.get()));
  CHECK(of_a.contains(acc.get()));      // a initialises the carry
  CHECK(of_a.contains(out.get()));      // and the loop's result
  CHECK_FALSE(of_a.contains(n.get()));  // n is a new value, not derived from a in place
  auto of_n = chains.of({n.get()});
  CHECK(of_n.contains(out.get()));  // n is yielded to the result
  CHECK_FALSE(of_n.contains(acc.get()));
  of_n.insert(a.get());  // an extra member does not bring its own chain
  CHECK(of_n.contains(a.get()));
  CHECK_FALSE(of_n.contains(acc.get()));
}
