// DSA_RP's reuse penalties as a rule (a relation too large to list) against
// the same relation listed, through the adapter: on generated kernels (with
// pipeline clones, a tight Vec, and a long straight-line kernel whose
// relation is quadratic), the rule plus its listed exceptions are exactly the
// listed pairs, and the driver places both problems identically.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <utility>

#include "pass_support.hpp"
#include "pto_mem/pypto/passes/dsa_problem.hpp"
#include "storage_kernel_gen.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace dsa_rp_implicit_test {

/// `blocks` blocks of a Vec accumulator carried through a loop of seven
/// elementwise ops over a fresh load, then an exp and a store at the top
/// level (bench/dsa_rp_kernel.py writes the same kernel).
std::string straight_line(int blocks) {
  std::string s =
      "@function(type=InCore)\n"
      "def big(x: Tensor[[64, 64], FP32],\n"
      "        out: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n";
  const std::string tile = ": Tile[[64, 64], FP32]";
  const char* ops[] = {"tile.add", "tile.mul",     "tile.sub", "tile.maximum",
                       "tile.add", "tile.minimum", "tile.mul"};
  for (int k = 0; k < blocks; ++k) {
    const std::string b = std::to_string(k);
    s += "    a" + b + tile + " = tile.create([64, 64], dtype=FP32, target_memory=Vec)\n";
    s += "    for i" + b + ", (acc" + b + ",) in range(4, init_values=(a" + b + ",)):\n";
    s += "        l" + b + tile + " = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n";
    std::string prev = "acc" + b;
    for (int j = 0; j < 7; ++j) {
      const std::string e = "e" + b + "_" + std::to_string(j);
      s += "        " + e + tile + " = " + ops[j] + "(" + prev + ", l" + b + ")\n";
      prev = e;
    }
    s += "        r" + b + " = yield_(" + prev + ")\n";
    s += "    x" + b + tile + " = tile.exp(r" + b + ")\n";
    s += "    o" + b + ": Tensor[[64, 64], FP32] = tile.store(x" + b + ", [0, 0], out)\n";
  }
  return s + "    return out\n";
}

using Pairs = std::set<std::pair<std::size_t, std::size_t>>;

Pairs listed_pairs(const Problem& p) {
  Pairs out;
  for (const auto& e : p.penalties) out.insert({e.a, e.b});
  return out;
}

/// Builds every function's problem both ways and compares; the number of
/// rule pairs seen.
std::uint64_t compare(const std::string& text, const SocPolicy& soc) {
  const CompileResult pre = test::compile_text(text, Stage::reuse, Planner::dsa_rp, soc);
  if (!pre.ok()) return 0;
  std::uint64_t rule_pairs = 0;
  for (const auto& f : pre.program.functions) {
    PassContext ctx;
    ctx.soc = &soc;
    ctx.ops = &default_registry();
    ctx.planner = Planner::dsa_rp;
    const auto reserve = passes::resolve_reserve_buffers(f, pre.program, ctx);
    passes::DsaProblem listed, ruled;
    if (!passes::build_dsa_problem(f, pre.program, ctx, reserve, listed, std::uint64_t(-1))) continue;
    REQUIRE(passes::build_dsa_problem(f, pre.program, ctx, reserve, ruled, 0));
    CHECK_FALSE(listed.implicit);
    Pairs whole = listed_pairs(ruled.problem);
    if (ruled.implicit) {
      for (const auto& [a, b] : implicit_pairs(*ruled.implicit)) {
        CHECK(whole.insert({a, b}).second);  // never both listed and ruled
        ++rule_pairs;
      }
    }
    CHECK(whole == listed_pairs(listed.problem));
    GreedyOptions o;
    o.compat_pypto = true;
    o.trusted = true;
    const DsaRpResult want = plan_dsa_rp(listed.problem, o);
    const DsaRpResult got = plan_dsa_rp(ruled.problem, o, ruled.implicit ? &*ruled.implicit : nullptr);
    REQUIRE(got.greedy.status == want.greedy.status);
    CHECK(got.relaxed.has_value() == want.relaxed.has_value());
    CHECK(got.overlapping_pairs == want.overlapping_pairs);
    CHECK(got.greedy.statistics.candidates_evaluated == want.greedy.statistics.candidates_evaluated);
    CHECK(got.greedy.statistics.selected_order == want.greedy.statistics.selected_order);
    REQUIRE(got.greedy.placement.has_value() == want.greedy.placement.has_value());
    if (want.greedy.placement) {
      CHECK(got.greedy.placement->offsets == want.greedy.placement->offsets);
      CHECK(got.greedy.objective.penalty == want.greedy.objective.penalty);
    }
  }
  return rule_pairs;
}

}  // namespace dsa_rp_implicit_test

TEST_CASE("DSA_RP: reuse penalties kept as a rule place exactly like the listed relation") {
  using namespace dsa_rp_implicit_test;
  SocPolicy tight = soc_a2a3();
  tight.capacity(MemorySpace::Vec, 6144);
  std::uint64_t rule_pairs = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    CAPTURE(seed);
    test::StorageKernelGen gen(seed);
    const std::string text = seed % 2 ? gen.with_stage_tags().make() : gen.make();
    rule_pairs += compare(text, seed % 3 == 0 ? tight : soc_a2a3());
  }
  const std::uint64_t generated = rule_pairs;
  rule_pairs += compare(straight_line(60), soc_a2a3());
  MESSAGE("rule pairs: generated kernels " << generated << ", straight line " << rule_pairs - generated);
  CHECK(generated > 50);
  CHECK(rule_pairs - generated > 1500);  // every pair of the 60 exp results, at least
}
