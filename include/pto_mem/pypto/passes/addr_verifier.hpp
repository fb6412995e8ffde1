// The "AllocatedMemoryAddr" property verifier, run
// after AllocateMemoryAddr: in every function with a body (Opaque and
// Orchestration ones too, as PyPTO's verifier does: AllocateMemoryAddr
// addresses only kernels, so an on-chip tile of another kind that InitMemRef
// bound and nobody addressed is reported here), every on-chip tile
// MemRef has an address expression and no negative constant address; per
// space, the high-water mark max(addr + size) over the distinct
// constant-addressed MemRefs stays within the backend's capacity (with the
// reserve note of reserve_buffer.hpp). The in-pass checks are the exact ones (they count
// unbound declared slots and run-time slot offsets); this one re-checks the
// IR as written.
#pragma once

#include <array>
#include <string>
#include <unordered_set>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/passes/reserve_buffer.hpp"
#include "pto_mem/pypto/passes/sequential_addr.hpp"

namespace pto_mem::pypto::passes {

/// Returns false (with the errors reported) when a function's addresses are
/// missing, negative or over capacity.
PTO_MEM_PYPTO_INLINE bool verify_allocated_memory_addr(const Program& p, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
PTO_MEM_PYPTO_INLINE bool verify_allocated_memory_addr(const Program& p, PassContext& ctx) {
  bool ok = true;
  for (const auto& f : p.functions) {
    if (!f.body) continue;
    std::array<Addr, memory_space_count> high{};
    std::unordered_set<const MemRef*> seen;
    for_each_var_def(f, [&](const VarPtr& v) {
      const TileType* t = tile_of(v);
      if (!t || !t->memref || !t->space || !ctx.soc || !ctx.soc->planned(*t->space)) return;
      if (!seen.insert(t->memref.get()).second) return;
      if (!t->memref->byte_offset) {
        ctx.diagnostics.push_back(pass_error(p, v->loc,
                                             "Function '" + f.name + "': tile '" + v->name +
                                                 "' has a MemRef without an address after AllocateMemoryAddr",
                                             code::internal));
        ok = false;
        return;
      }
      auto at = t->memref->const_offset();
      if (!at) return;
      if (*at < 0) {
        ctx.diagnostics.push_back(pass_error(p, v->loc,
                                             "Function '" + f.name + "': tile '" + v->name +
                                                 "' has the negative address " + std::to_string(*at),
                                             code::internal));
        ok = false;
        return;
      }
      auto& h = high[index_of(*t->space)];
      h = std::max(h, saturating_add(static_cast<Addr>(*at), t->memref->size));
    });
    // Only kernels reserve windows (system.reserve_buffer); for the other kinds
    // the capacity note has nothing to add.
    const ReserveResolution reserve =
        is_kernel(f.kind) ? resolve_reserve_buffers(f, p, ctx) : ReserveResolution{};
    for (MemorySpace s : all_memory_spaces) {
      const auto limit = checked_capacity(ctx, s);
      const Addr h = high[index_of(s)];
      if (!limit || h <= *limit) continue;
      ctx.diagnostics.push_back(pass_error(
          p, f.loc, capacity_message(f, s, std::to_string(h) + " bytes", *limit, reserve), code::capacity));
      ok = false;
    }
  }
  return ok;
}
#endif

}  // namespace pto_mem::pypto::passes
