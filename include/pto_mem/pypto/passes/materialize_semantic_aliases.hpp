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
// With PassContext::buffer_ir (the default; the seed's "Buffer IR"
// pipeline, SPEC.md §5.5) the storage is legalised here for every planner,
// in this order:
//  0. in-place input isolation: an in-place op whose input is still read
//     afterwards works on a copy (loop_input_isolation.hpp);
//  1. peeled accumulator if-phi coalescing (acc_phi_coalesce.hpp), only when
//     the accumulator's input has no independent read after the if;
//  2. loop-input isolation: entry copies of loop inputs still observed
//     (loop_input_isolation.hpp);
//  3. the loop-carry retarget (loop_carry_retarget.hpp), onto the isolated
//     carries;
//  4. explicit branch destinations and branch-exit transfers
//     (branch_storage.hpp), on the windows as they now are;
//  5. the copies at each loop's yield as one parallel copy (yield_fixup.hpp
//     for loops, transfers.hpp);
// identity chains re-derived after each step. The later planners then only
// pack lifetimes and place allocations. Without it (legacy), the planner
// extras above run instead.
//
// Orphaned allocs (bases no MemRef uses after retargeting) are kept: they
// are dropped by MemoryReuse or by the DSA-RP AllocateMemoryAddr — and,
// under Buffer IR with PTOAS (which has no later pass that would), here.
//
// Variable types are refined in place (see pass_support.hpp).
#pragma once

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/acc_phi_coalesce.hpp"
#include "pto_mem/pypto/passes/branch_storage.hpp"
#include "pto_mem/pypto/passes/loop_input_isolation.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/loop_carry_retarget.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/yield_fixup.hpp"

namespace pto_mem::pypto {

namespace passes {

/// The Buffer IR storage legalisation of one function (steps 1-5 above).
[[nodiscard]] inline Function legalize_storage(const Function& in, const Program& program, PassContext& ctx) {
  constexpr std::string_view name = "MaterializeSemanticAliases";
  Function f = in;
  // 0. In-place ops whose input is still read work on a copy.
  {
    TransferBuilder tb(f, program, ctx, name);
    auto before = capture_identity_relations(f, ctx);
    if (!isolate_in_place_inputs(f, ctx, before, tb)) return f;
    f = tb.with_allocs(std::move(f));
  }
  const auto relations = capture_identity_relations(f, ctx);
  // Loop carries follow their inits and derived values their sources, in
  // program order (YieldFixup without copies): after each step that moved a
  // value, so the next one sees the windows as they now are.
  auto realign = [&] {
    f = yield_fixup(f, program, ctx, {false, false, true, name}, &relations);
    normalize_identities(relations);
  };
  // 1. Accumulator phis.
  coalesce_accumulator_phis(f, program, ctx, name);
  if (ctx.failed()) return f;
  realign();
  // 2. Loop inputs still observed get entry copies.
  {
    TransferBuilder tb(f, program, ctx, name);
    if (!isolate_loop_inputs(f, relations, tb)) return f;
    f = tb.with_allocs(std::move(f));
  }
  realign();
  // 3. Loop-carry retarget (onto the isolated carries).
  {
    LoopCarryRetarget retarget(f, ctx);
    retarget.run();
    retarget.apply();
  }
  realign();
  // 4. Branch destinations, on the windows as they now are.
  {
    TransferBuilder tb(f, program, ctx, name);
    BranchStorage branches(f, ctx, tb, relations);
    f.body = branches.mutate_stmt(f.body);
    if (tb.failed() || ctx.failed()) return f;
    f = tb.with_allocs(std::move(f));
  }
  realign();
  // 5. Parallel copies at loop yields.
  f = yield_fixup(f, program, ctx, {true, false, true, name}, &relations);
  if (ctx.failed()) return f;
  normalize_identities(relations);
  return f;
}

}  // namespace passes

[[nodiscard]] inline Program materialize_semantic_aliases(const Program& program, PassContext& ctx) {
  using namespace passes;
  Program out = program;
  for (auto& f : out.functions) {
    if (f.kind == FunctionKind::Orchestration || !f.body) continue;
    if (ctx.buffer_ir) {
      f = legalize_storage(f, program, ctx);
      if (ctx.failed()) return out;
      // Under PTOAS no later pass drops the allocations the rewrites left
      // without users (a redirected branch producer's own one): the seed's
      // legalisation never lets them reach PTOAS planning.
      if (ctx.planner == Planner::ptoas) f = drop_orphaned_allocs(f);
      continue;
    }
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
