// AllocateMemoryAddr: absolute
// addresses for every on-chip tile MemRef of the kernel functions (InCore,
// AIC, AIV; other kinds are returned unchanged).
//
// Example: the three 16 KiB Vec tiles of MemoryReuse's example, x (live
// until the add), e (from the exp to the add) and s (from the add on):
//
//     x = tile.load(x_ddr, ...)
//     e = tile.exp(x)
//     s = tile.add(e, x)
//
//  * PYPTO: after MemoryReuse put s on x's allocation, the two allocations
//    are laid one after the other in name order: x and s at address 0, e at
//    16384 (peak 32 KiB).
//  * DSA_RP (no MemoryReuse before it): three allocations, placed by the
//    canonical greedy: x at 0, e at 16384 and s at 16384 too, because e is
//    read for the last time by the add that writes s (peak 32 KiB).
//
// The rule: every allocation gets an address in its memory space such that
// two allocations live at the same time never share a byte, every address
// is aligned as the SoC asks, no allocation enters a reserved window, and
// the space's peak stays within its capacity (otherwise an error names the
// space, its usage and the limit). Each MemRef's offset then holds its
// absolute address: its allocation's address plus its offset within it.
//
// Per kernel: resolve the system.reserve_buffer windows (reserve_buffer.hpp),
// then place the allocations
//  * PYPTO (and PTOAS, should the pass be run under it: the pipeline skips
//    it there): sequentially in name order (sequential_addr.hpp);
//  * DSA_RP: the canonical-greedy DSA-RP model (dsa_problem.hpp), which also
//    drops the allocs no MemRef uses any more;
// write the addresses into the MemRefs and the resolved bases into the
// reserve_buffer calls, and finally run the AllocatedMemoryAddr verifier
// (addr_verifier.hpp). Memory that does not fit is reported with code
// "capacity" (the tool's exit status 1). Alloc statements never carry
// addresses.
#pragma once

#include <unordered_map>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/addr_verifier.hpp"
#include "pto_mem/pypto/passes/dsa_problem.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/sequential_addr.hpp"

namespace pto_mem::pypto {

namespace passes {

/// Addresses one kernel; returns it unchanged when it failed (errors reported).
[[nodiscard]] inline Function allocate_function(const Function& f, const Program& p, PassContext& ctx) {
  ReserveResolution reserve = resolve_reserve_buffers(f, p, ctx);
  if (!reserve.errors.empty()) {
    ctx.diagnostics.insert(ctx.diagnostics.end(), reserve.errors.begin(), reserve.errors.end());
    return f;
  }
  MemRefReplacements replace;
  if (ctx.planner == Planner::dsa_rp) {
    DsaProblem model;
    if (!build_dsa_problem(f, p, ctx, reserve, model)) return f;
    if (model.bases.empty()) return write_reserve_bases(f, reserve);  // X1: nothing to place
    if (!solve_dsa_problem(f, p, ctx, reserve, model, replace)) return f;
    apply_memref_replacements(f, replace);
    // The clone tags of pipeline stages have been read.
    return write_reserve_bases(strip_pipeline_membership(drop_orphaned_allocs(f)), reserve);
  }
  const std::vector<PlannedBase> bases = planned_bases(f, ctx);
  if (!place_bases_sequentially(f, p, ctx, reserve, bases, replace)) return f;
  apply_memref_replacements(f, replace);
  return write_reserve_bases(f, reserve);
}

}  // namespace passes

[[nodiscard]] PTO_MEM_PYPTO_INLINE Program allocate_memory_addr(const Program& program, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program allocate_memory_addr(const Program& program, PassContext& ctx) {
  Program out = program;
  for (auto& f : out.functions) {
    if (!is_kernel(f.kind) || !f.body) continue;
    f = passes::allocate_function(f, program, ctx);
    if (ctx.failed()) return out;
  }
  passes::verify_allocated_memory_addr(out, ctx);
  return out;
}
#endif

}  // namespace pto_mem::pypto
