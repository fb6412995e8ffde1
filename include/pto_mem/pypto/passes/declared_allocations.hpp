// Author-declared allocations (`MemRef("name", slots=N)[k]`):
// collecting them from a function body, checking them, and resolving a bound
// tile's window. Used by InitMemRef.
//
// Every tile bound to one declaration (any slot) must have a static shape and
// live in one memory space; all references agree on the slot count (>= 1);
// the slots are uniform: slot_size = the largest bound tile, and the whole
// allocation is slot_count x slot_size bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/sizes.hpp"

namespace pto_mem::pypto {

/// One declaration after collection.
struct DeclaredAllocationInfo {
  VarPtr base;  ///< the declaration's interned base (its name is the allocation's)
  MemorySpace space = MemorySpace::Vec;
  std::uint64_t slot_count = 1;
  Addr slot_size = 0;
  Addr total = 0;  ///< slot_count x slot_size
  Loc loc;         ///< where it is first referenced
};

/// A rejected declaration: what to say and where.
struct DeclarationError {
  std::string code;
  std::string message;
  Loc loc;
};

struct DeclaredAllocations {
  std::vector<DeclaredAllocationInfo> declarations;  ///< first-reference order
  std::unordered_map<const Var*, std::size_t> by_base;
  std::optional<DeclarationError> error;  ///< the first violation found

  [[nodiscard]] const DeclaredAllocationInfo* find(const Var* base) const {
    auto it = by_base.find(base);
    return it == by_base.end() ? nullptr : &declarations[it->second];
  }
};

/// Collects and checks the declarations bound in `body` (parameters cannot
/// carry declarations: the parser rejects them). Stops at the first violation.
[[nodiscard]] inline DeclaredAllocations collect_declared_allocations(const StmtPtr& body,
                                                                      const SocPolicy& soc) {
  DeclaredAllocations out;
  // Only bound tiles matter; each variable is defined once, before its uses.
  std::vector<VarPtr> bound;
  for_each_def(body, [&](const VarPtr& v) {
    const auto* t = as_tile(v->type);
    if (t && t->memref && t->memref->is_pinned && t->memref->base) bound.push_back(v);
  });
  auto fail = [&](std::string code, std::string message, Loc loc) {
    out.error = DeclarationError{std::move(code), std::move(message), loc};
    return std::move(out);
  };
  for (const auto& v : bound) {
    const auto* t = as_tile(v->type);
    const MemRef& m = *t->memref;
    const std::string& name = m.name();
    auto [it, fresh] = out.by_base.try_emplace(m.base.get(), out.declarations.size());
    if (fresh) {
      DeclaredAllocationInfo info;
      info.base = m.base;
      info.slot_count = m.slot_count;
      info.space = t->space.value_or(MemorySpace::Vec);
      info.loc = v->loc;
      out.declarations.push_back(std::move(info));
    }
    DeclaredAllocationInfo& d = out.declarations[it->second];
    if (m.slot_count < 1)
      return fail("declared-slot-count", "The declared allocation '" + name + "' must have at least one slot",
                  v->loc);
    if (m.slot_count != d.slot_count)
      return fail("declared-slot-count",
                  "References to the declared allocation '" + name + "' disagree on how many slots it has (" +
                      std::to_string(d.slot_count) + " vs " + std::to_string(m.slot_count) +
                      "); write the same slots=N on every MemRef(\"" + name + "\", ...)",
                  v->loc);
    if (t->space && *t->space != d.space)
      return fail("declared-mixed-space",
                  "Tiles bound to the declared allocation '" + name +
                      "' must all live in the same memory space, but '" + v->name + "' is " +
                      std::string(to_string(*t->space)) + " while the allocation is already " +
                      std::string(to_string(d.space)),
                  v->loc);
    auto bytes = tile_bytes(*t, soc);
    if (!bytes) {
      if (bytes.error->kind == SizeError::Kind::dynamic_dim)
        return fail("declared-dynamic-shape",
                    "Tile '" + v->name + "' is bound to the declared allocation '" + name +
                        "' but has a dynamic shape; a declared allocation must be sized at compile time",
                    v->loc);
      return fail("declared-size",
                  "Tile '" + v->name + "' is bound to the declared allocation '" + name +
                      "' but its size cannot be computed: " + bytes.error->message,
                  v->loc);
    }
    d.slot_size = std::max(d.slot_size, *bytes);
  }
  for (auto& d : out.declarations) {
    auto total = checked_mul(static_cast<Addr>(d.slot_count), d.slot_size);
    if (!total)
      return fail("declared-size-overflow",
                  "The declared allocation '" + d.base->name + "' (" + std::to_string(d.slot_count) +
                      " slots of " + std::to_string(d.slot_size) + " bytes) overflows a 64-bit size",
                  d.loc);
    d.total = *total;
  }
  return out;
}

/// The window of a tile bound to `d` through declaration reference `ref`:
/// slot k at k x slot_size (an index expression when k is a runtime value,
/// the original offset 0 when unsubscripted), slot_size bytes.
[[nodiscard]] inline MemRefPtr resolve_declared(const DeclaredAllocationInfo& d, const MemRef& ref) {
  ExprPtr offset =
      ref.slot_index ? mul(ref.slot_index, int_imm(static_cast<std::int64_t>(d.slot_size))) : ref.byte_offset;
  if (!offset) offset = int_imm(0);
  return make_memref(d.base, std::move(offset), d.slot_size, d.slot_count, ref.slot_index, false);
}

}  // namespace pto_mem::pypto
