// MaterializeSemanticAliases: the sharing that program
// semantics require, before any opportunistic reuse. A loop's carried
// buffer holds what its body yields (loop_carry_retarget.hpp), in-place
// results and views follow their inputs (identity_normalize.hpp). Runs under
// every planner, on every function except Orchestration ones.
//
// Example (after InitMemRef). A loop carries `acc`; its body yields `t`:
//
//     acc0: Tile[..., MemRef(mem_vec_3, 0, 16384), Vec] = tile.create(...)
//     for i, (acc,) in range(4, init_values=(acc0,)):      # acc is on mem_vec_3
//         t: Tile[..., MemRef(mem_vec_4, 0, 16384), Vec] = tile.add(acc, x)
//         out = yield_(t)
//
// At the end of each iteration the carried buffer, mem_vec_3, must hold
// what the body yields. Nothing reads acc after the add, so the add writes
// straight into the carried buffer: `t` moves onto mem_vec_3 (mem_vec_4 is
// left unused). Had the body read acc again after the add
// (`u = tile.mul(acc, t)`), writing `t` there would clobber that read: `t`
// keeps its own buffer and `t_mv = tile.move(t, target_memory=Vec)`, written
// into mem_vec_3, is yielded instead.
//
// The rule: values the program makes one (a loop's init, carry, yield and
// result; an if's result and its arms' values; a view and its source; an
// in-place result and its input) end up in one allocation, and never by
// overwriting bytes that a later statement still reads: where sharing would,
// an explicit copy (tile.move) is made instead.
//
// Planner extras:
//  * PYPTO: nothing more; MemoryReuse reconciles carries and phis later.
//  * PTOAS: YieldFixup for loops only (ptoas reconciles branch phis).
//  * DSA_RP (MemoryReuse does not run): accumulator if-phi coalescing, full
//    YieldFixup (loops and ifs), identity normalisation.
//
// With PassContext::buffer_ir (the default; the "Buffer IR"
// pipeline) the storage is legalised here for every planner,
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
//     (branch_storage.hpp), on the windows as they now are; with
//     PassContext::logical_tile_selection, logical tile selection instead of
//     a branch-exit copy where it applies (tile_selection.hpp), each
//     reported as note `logical-tile-selection` (the exit barrier a sync
//     pass must add);
//  5. the copies at each loop's yield as one parallel copy (yield_fixup.hpp
//     for loops, transfers.hpp);
//  6. an in-place op outside Vec (an accumulator's matmul_acc) whose input is
//     still read is refused: no instruction makes that copy;
// after each step the semantic alias classes are written back (derived
// values on their sources, carries on their inits: semantic_alias_classes.hpp,
// through the generic unify_aliases). The later planners then only
// pack lifetimes and place allocations. Without it (legacy), the planner
// extras above run instead.
//
// Orphaned allocs (bases no MemRef uses after retargeting) are kept: they
// are dropped by MemoryReuse or by the DSA-RP AllocateMemoryAddr — and,
// under Buffer IR with PTOAS (which has no later pass that would), here.
//
// Variable types are refined in place (see pass_support.hpp).
#pragma once

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/acc_phi_coalesce.hpp"
#include "pto_mem/pypto/passes/branch_storage.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/loop_carry_retarget.hpp"
#include "pto_mem/pypto/passes/loop_input_isolation.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pass_diagnostics.hpp"
#include "pto_mem/pypto/passes/semantic_alias_classes.hpp"
#include "pto_mem/pypto/passes/yield_fixup.hpp"

namespace pto_mem::pypto {

namespace passes {

/// Writes the semantic alias classes of `f` back (semantic_alias_classes.hpp):
/// derived values on their sources, with `carries` every loop carry on its
/// init, and the given placements.
/// `loops`, when given, keeps the body's loops between calls.
inline bool share_storage(const Function& f, const Program& program, PassContext& ctx,
                          const std::vector<DerivedValue>& relations, bool carries,
                          const std::vector<Placed>& placed = {}, BodyLoops* loops = nullptr) {
  std::vector<ShareRelation> share;
  share.reserve(relations.size());
  add_identity_relations(relations, share);
  if (carries) {
    BodyLoops own;
    add_carry_relations((loops ? *loops : own).of(f.body), share);
  }
  return write_back_alias_classes(f, program, ctx, "MaterializeSemanticAliases", share, placed);
}

/// The note a sync pass needs for a logical tile selection: where to put the exit barrier.
inline void report_tile_selection(const Function& f, const Program& program, PassContext& ctx,
                                  const TileSelection& s) {
  report(ctx, program, s.at, Severity::note, "logical-tile-selection",
         "MaterializeSemanticAliases in function '" + f.name + "': '" + s.phi +
             "' selects at run time slot '" + s.slot_index + "' of allocation " + s.allocation +
             " (slot 0: '" + s.then_value + "', slot 1: '" + s.else_value + "', " +
             std::to_string(s.slot_bytes) +
             " bytes each) instead of copying; a sync pass must put a barrier at this if's exit, so that the "
             "writers of both slots finish before any reader of '" +
             s.phi + "'");
}

/// The Buffer IR storage legalisation of one function (steps 1-5 above).
[[nodiscard]] inline Function legalize_storage(const Function& in, const Program& program, PassContext& ctx) {
  constexpr std::string_view name = "MaterializeSemanticAliases";
  Function f = in;
  // 0. In-place ops whose input is still read work on a copy.
  std::vector<DerivedValue> relations;
  {
    TransferBuilder tb(f, program, ctx, name);
    auto before = capture_identity_relations(f, ctx);
    const StmtPtr body = f.body;
    MemRefChangeCount moved;
    if (!isolate_in_place_inputs(f, ctx, before, tb)) return f;
    f = tb.with_allocs(std::move(f));
    // The relations are captured from the statements and the variables'
    // types; when the step changed neither, they are the ones just captured.
    relations = f.body == body && moved.count() == 0 ? std::move(before) : capture_identity_relations(f, ctx);
  }
  // The steps read the function's FunctionIndex through ctx.indexes: a step
  // that adds statements (an entry copy, a branch destination, a parallel
  // copy) leaves a new body, and the next step's index is built from it; the
  // steps that only move values between windows share one.
  //
  // Loop carries follow their inits and derived values their sources: after
  // each step that moved a value, so the next one sees the windows as they
  // now are.
  BodyLoops loops;  // walked again only after a step that rewrote the body
  auto realign = [&](const std::vector<Placed>& placed = {}) {
    return share_storage(f, program, ctx, relations, true, placed, &loops);
  };
  // 1. Accumulator phis.
  coalesce_accumulator_phis(f, program, ctx, name);
  if (ctx.failed() || !realign()) return f;
  // 2. Loop inputs still observed get entry copies.
  {
    TransferBuilder tb(f, program, ctx, name);
    if (!isolate_loop_inputs(f, relations, tb)) return f;
    f = tb.with_allocs(std::move(f));
  }
  if (!realign()) return f;
  // 3. Loop-carry retarget (onto the isolated carries).
  {
    LoopCarryRetarget retarget(f, ctx);
    retarget.run();
    if (!realign(retarget.placements())) return f;
  }
  // 4. Branch destinations, on the windows as they now are.
  {
    TransferBuilder tb(f, program, ctx, name);
    BranchStorage branches(f, ctx, tb, relations);
    f.body = branches.mutate_stmt(f.body);
    if (tb.failed() || ctx.failed()) return f;
    f = tb.with_allocs(std::move(f));
    for (const auto& sel : branches.selections()) report_tile_selection(f, program, ctx, sel);
  }
  if (!realign()) return f;
  // 5. Parallel copies at loop yields.
  f = yield_fixup(f, program, ctx, {true, false, true, name}, &relations);
  if (ctx.failed() || !realign()) return f;
  // 6. An in-place op outside Vec whose input is still read would need a
  //    copy no instruction makes (after step 1, whose accumulator rules
  //    merge or refuse the peeled accumulator phis first).
  if (in_place_input_read_again(f, relations)) {
    TransferBuilder tb(f, program, ctx, name);
    (void)isolate_in_place_inputs(f, ctx, relations, tb, true);
  }
  return f;
}

}  // namespace passes

[[nodiscard]] PTO_MEM_PYPTO_INLINE Program materialize_semantic_aliases(const Program& program,
                                                                        PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program materialize_semantic_aliases(const Program& program,
                                                                        PassContext& ctx) {
  using namespace passes;
  Program out = program;
  if (ctx.logical_tile_selection && (!ctx.buffer_ir || ctx.planner == Planner::ptoas))
    report_warning(
        ctx, program, {}, "logical-tile-selection",
        std::string("logical tile selection is not applied ") +
            (ctx.buffer_ir ? "under the ptoas planner (ptoas places allocations and reconciles branch phis "
                             "itself)"
                           : "by the legacy storage path (it needs the Buffer IR legalisation)") +
            "; branch exits copy as without it");
  for (auto& f : out.functions) {
    if (f.kind == FunctionKind::Orchestration || !f.body) continue;
    if (ctx.buffer_ir) {
      f = legalize_storage(f, program, ctx);
      if (ctx.failed()) return out;
      // Under PTOAS no later pass drops the allocations the rewrites left
      // without users (a redirected branch producer's own one): PyPTO's design's
      // legalisation never lets them reach PTOAS planning.
      if (ctx.planner == Planner::ptoas) f = drop_orphaned_allocs(f);
      continue;
    }
    const auto relations = capture_identity_relations(f, ctx);
    {
      LoopCarryRetarget retarget(f, ctx);
      retarget.run();
      if (!share_storage(f, program, ctx, relations, false, retarget.placements())) return out;
    }

    if (ctx.planner == Planner::dsa_rp) {
      const auto before_fixup = capture_identity_relations(f, ctx);
      coalesce_accumulator_phis(f, program, ctx, "MaterializeSemanticAliases");
      if (ctx.failed() || !share_storage(f, program, ctx, before_fixup, false)) return out;
      f = yield_fixup(f, program, ctx, {true, true, true, "MaterializeSemanticAliases"}, &before_fixup);
      if (ctx.failed() || !share_storage(f, program, ctx, before_fixup, false)) return out;
    } else if (ctx.planner == Planner::ptoas) {
      const auto before_fixup = capture_identity_relations(f, ctx);
      f = yield_fixup(f, program, ctx, {true, false, true, "MaterializeSemanticAliases"}, &before_fixup);
      if (ctx.failed() || !share_storage(f, program, ctx, before_fixup, false)) return out;
    }
  }
  return out;
}
#endif

}  // namespace pto_mem::pypto
