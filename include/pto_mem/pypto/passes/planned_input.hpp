// A planned program read back (the printed output of a compile, fed to
// InitMemRef again). Its alloc statements are dropped and its allocations
// made again, so what the author declared must be recovered from the text
// before that, or compiling a planned program would quietly plan a different
// one:
//
//   ping: Ptr = tile.alloc(Vec, 32768, pinned=True)
//   t: Tile[[32, 128], FP32, MemRef(ping, 16384 + k % 2 * 16384, 16384, slots=2)[k % 2], Vec] = tile.load(...)
//
// is the declaration `MemRef("ping", slots=2)[k % 2]` on `t`, as written
// before the first compile. So:
//   * a tile whose window is on a pinned allocation (an alloc statement with
//     `pinned=True`) and whose value is its own (not a view, alias or
//     in-place result of another tile: those inherit the window) is bound to
//     the declaration of that name again, with the window's slot count and
//     slot index (no index: slot 0, as an unsubscripted declaration is);
//   * (in InitMemRef) a tile on an allocation a later pass named after its
//     value (`mem_vec_a_in`) keeps that name and takes no id, as it took none
//     the first time, and the alloc statements keep the input's order.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"

namespace pto_mem::pypto::passes {

/// Pinned allocations of `body` (by base) from its alloc statements.
[[nodiscard]] inline PointerSet<const Var*> pinned_allocations(const StmtPtr& body) {
  PointerSet<const Var*> out;
  for_each_statement(body, [&](const Stmt& s) {
    if (const auto* a = s.as<AllocStmt>(); a && a->pinned && a->var) out.insert(a->var.get());
  });
  return out;
}

/// Whether `s` gives its variable a window of its own (not one inherited
/// from another tile: a bare alias, a view or an in-place result).
[[nodiscard]] inline bool owns_its_window(const AssignStmt& s, const OpRegistry& ops) {
  if (as_var(s.value)) return false;
  const Call* c = s.value ? s.value->as<Call>() : nullptr;
  if (!c) return true;
  const OpSpec* spec = ops.find(c->op);
  return !(spec && spec->lands_in_source());
}

/// Binds every tile of `f`'s body that owns a window on a pinned allocation
/// to that allocation's declaration again (see the header comment). Returns
/// how many tiles it bound.
inline std::size_t restore_declarations(const StmtPtr& body, const OpRegistry& ops) {
  const PointerSet<const Var*> pinned = pinned_allocations(body);
  if (pinned.size() == 0) return 0;
  std::size_t bound = 0;
  for_each_statement(body, [&](const Stmt& s) {
    const auto* a = s.as<AssignStmt>();
    if (!a || !a->var) return;
    const auto* t = as_tile(a->var->type);
    if (!t || !t->memref || !t->memref->base || t->memref->is_pinned || !t->space) return;
    if (!pinned.contains(t->memref->base.get()) || !owns_its_window(*a, ops)) return;
    a->var->type = with_memref(a->var->type, declared_memref(t->memref->base, t->memref->slot_count,
                                                             t->memref->slot_index));
    ++bound;
  });
  return bound;
}

}  // namespace pto_mem::pypto::passes
