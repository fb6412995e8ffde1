// MaterializeSemanticAliases (pypto SPEC.md §5): the sharing that program
// semantics require, before any opportunistic reuse. A loop's carried
// buffer holds what its body yields (loop_carry_retarget.hpp), in-place
// results and views follow their inputs (identity_normalize.hpp). Runs under
// every planner, on every function except Orchestration ones.
//
// Planner extras (§5.2):
//  * PYPTO: nothing more; MemoryReuse reconciles carries and phis later.
//  * PTOAS: YieldFixup for loops only (ptoas reconciles branch phis).
//  * DSA_RP (MemoryReuse does not run): accumulator if-phi coalescing, full
//    YieldFixup (loops and ifs), identity normalisation.
//
// Orphaned allocs (bases no MemRef uses after retargeting) are kept: they
// are dropped by MemoryReuse or by the DSA-RP AllocateMemoryAddr.
//
// Variable types are refined in place (see pass_support.hpp).
#pragma once

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/acc_phi_coalesce.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/loop_carry_retarget.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/yield_fixup.hpp"

namespace pto_mem::pypto {

[[nodiscard]] inline Program materialize_semantic_aliases(const Program& program, PassContext& ctx) {
  using namespace passes;
  Program out = program;
  for (auto& f : out.functions) {
    if (f.kind == FunctionKind::Orchestration || !f.body) continue;
    const auto relations = capture_identity_relations(f, ctx);
    LoopCarryRetarget retarget(f, ctx);
    retarget.run();
    retarget.apply();
    normalize_identities(relations);

    if (ctx.planner == Planner::dsa_rp) {
      const auto before_fixup = capture_identity_relations(f, ctx);
      coalesce_accumulator_phis(f, program, ctx, "MaterializeSemanticAliases");
      if (ctx.failed()) return out;
      normalize_identities(before_fixup);
      f = yield_fixup(f, program, ctx, {true, true, true, "MaterializeSemanticAliases"}, &before_fixup);
      if (ctx.failed()) return out;
      normalize_identities(before_fixup);
    } else if (ctx.planner == Planner::ptoas) {
      const auto before_fixup = capture_identity_relations(f, ctx);
      f = yield_fixup(f, program, ctx, {true, false, true, "MaterializeSemanticAliases"}, &before_fixup);
      if (ctx.failed()) return out;
      normalize_identities(before_fixup);
    }
  }
  return out;
}

}  // namespace pto_mem::pypto
