// The allocations AllocateMemoryAddr places and how their MemRefs get
// absolute addresses.
//
// An allocation is one base with every distinct MemRef object of a tile
// variable on it (parameters, assignment targets, iter-args, loop return
// vars, phis). Once the base has an address, each window gets a new MemRef
// with the same base, size, slot fields and pinned flag, and
//  * a constant relative offset r: address + r;
//  * a run-time offset on a declared base, or one naming its slot (a slot
//    chosen at run time: a declared ping-pong slot, a logical tile
//    selection): address + offset expression;
//  * a run-time offset on any other base: the bare address (codegen
//    re-derives that view's address from its own subview op).
// Alloc statements are left as they are.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/passes/pass_support.hpp"

namespace pto_mem::pypto::passes {

struct PlannedBase {
  VarPtr base;
  MemorySpace space = MemorySpace::Vec;
  std::vector<MemRefPtr> memrefs;  ///< distinct objects, first appearance order
  Addr largest = 0;                ///< largest member size
  bool declared = false;
  Addr declared_size = 0;  ///< the alloc statement's size for a declared base
  /// Some window names one of several slots (a logical tile selection): the
  /// allocation is every slot, its alloc statement's size (`slotted_size`).
  bool slotted = false;
  Addr slotted_size = 0;

  /// PyPTO's slot / group size: the largest member, at least the whole
  /// declaration (or every slot of a slotted allocation).
  [[nodiscard]] Addr bytes() const noexcept {
    if (declared) return std::max(largest, declared_size);
    return slotted ? std::max(largest, slotted_size) : largest;
  }
};

/// The new MemRef of every window AllocateMemoryAddr addresses, by the old
/// MemRef's identity.
using MemRefReplacements = PointerMap<const MemRef*, MemRefPtr>;

/// The on-chip allocations of `f` in first-appearance order (the policy's
/// unplanned spaces, DDR and ScalarLocal, are skipped).
[[nodiscard]] inline std::vector<PlannedBase> planned_bases(const Function& f, const PassContext& ctx,
                                                            const AllocTable& allocs) {
  std::vector<PlannedBase> out;
  PointerMap<const Var*, std::size_t> at(defined_estimate(f));
  PointerSet<const MemRef*> seen;
  seen.reserve(defined_estimate(f));
  for_each_var_def(f, [&](const VarPtr& v) {
    const TileType* t = tile_of(v);
    if (!t || !t->memref || !t->memref->base || !t->space) return;
    if (ctx.soc ? !ctx.soc->planned(*t->space)
                : (*t->space == MemorySpace::DDR || *t->space == MemorySpace::ScalarLocal))
      return;
    auto [k, fresh] = at.try_emplace(t->memref->base.get(), out.size());
    if (fresh) {
      PlannedBase b;
      b.base = t->memref->base;
      b.space = *t->space;
      if (const AllocStmt* a = allocs.find(b.base.get()); a && a->pinned) {
        b.declared = true;
        b.declared_size = a->size;
      }
      out.push_back(std::move(b));
    }
    if (!seen.insert(t->memref.get())) return;
    PlannedBase& b = out[*k];
    b.memrefs.push_back(t->memref);
    b.largest = std::max(b.largest, t->memref->size);
    if (t->memref->slot_count > 1 && !b.slotted)
      if (const AllocStmt* a = allocs.find(b.base.get())) {
        b.slotted = true;
        b.slotted_size = a->size;
      }
  });
  return out;
}
[[nodiscard]] inline std::vector<PlannedBase> planned_bases(const Function& f, const PassContext& ctx) {
  return planned_bases(f, ctx, AllocTable(f));
}

/// Addresses every window of `b` placed at `at` into `replace`; an error
/// message when an address would be negative or beyond INT64_MAX.
[[nodiscard]] inline std::optional<std::string> address_windows(const PlannedBase& b, Addr at,
                                                                MemRefReplacements& replace) {
  constexpr Addr int64_max = static_cast<Addr>(std::numeric_limits<std::int64_t>::max());
  if (at > int64_max) return "allocation '" + b.base->name + "' was placed beyond INT64_MAX";
  for (const auto& m : b.memrefs) {
    ExprPtr offset;
    if (auto r = m->const_offset()) {
      if (*r < 0)
        return "MemRef of '" + b.base->name + "' has the negative relative offset " + std::to_string(*r);
      if (static_cast<Addr>(*r) > int64_max - at)
        return "MemRef of '" + b.base->name + "' would be addressed beyond INT64_MAX";
      offset = int_imm(static_cast<std::int64_t>(at + static_cast<Addr>(*r)));
    } else if (b.declared || m->slot_index) {
      offset = add(int_imm(static_cast<std::int64_t>(at)), m->byte_offset);
    } else {
      offset = int_imm(static_cast<std::int64_t>(at));
    }
    replace[m.get()] =
        make_memref(m->base, std::move(offset), m->size, m->slot_count, m->slot_index, m->is_pinned);
  }
  return std::nullopt;
}

/// Replaces, by object identity, every MemRef of a variable of `f` found in `replace`.
inline void apply_memref_replacements(const Function& f, const MemRefReplacements& replace) {
  if (replace.empty()) return;
  for_each_var_def(f, [&](const VarPtr& v) {
    const MemRefPtr m = var_memref(v);
    if (!m) return;
    if (const MemRefPtr* r = replace.find(m.get())) set_memref(v, *r);
  });
}

}  // namespace pto_mem::pypto::passes
