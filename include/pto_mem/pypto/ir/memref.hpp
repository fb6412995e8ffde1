// MemRef: a window (byte offset and size) into an allocation; two MemRefs are
// on one allocation exactly when they share the same `base` object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/expr.hpp"

namespace pto_mem::pypto {

/// `MemRef(base, byte_offset, size[, slots=N])[k]`.
///
/// * `base` is the allocation's identity: the `Ptr` variable an alloc
///   statement defines, or an interned variable for a base no alloc defines
///   (a DDR parameter's `"mem_ddr_0"`, a declaration `MemRef("ping")`). Two
///   MemRefs are on one allocation iff their `base` pointers are equal.
/// * `byte_offset` is relative to the allocation before AllocateMemoryAddr and
///   the absolute address after it; it may be symbolic (`i % 2 * 16384`).
/// * `is_pinned` marks an author declaration `MemRef("name")` between the
///   parser and InitMemRef; such a MemRef has offset 0 and size 0.
/// * `slot_count` / `slot_index` select one of the equal slots of a declared
///   allocation (`MemRef("buf", slots=2)[i % 2]`); slot_index may be null.
///
/// MemRefs are immutable and shared: several variables may hold the very same
/// MemRef object (a pure alias), which some passes rely on.
struct MemRef {
  VarPtr base;
  ExprPtr byte_offset;
  Addr size = 0;
  std::uint64_t slot_count = 1;
  ExprPtr slot_index;
  bool is_pinned = false;

  /// The allocation's name (`mem_vec_3`, or the declared name); orders placement.
  [[nodiscard]] const std::string& name() const noexcept {
    static const std::string none;
    return base ? base->name : none;
  }
  [[nodiscard]] std::optional<std::int64_t> const_offset() const noexcept {
    return as_const_int(byte_offset);
  }
};

[[nodiscard]] inline MemRefPtr make_memref(VarPtr base, ExprPtr byte_offset, Addr size,
                                           std::uint64_t slot_count = 1, ExprPtr slot_index = nullptr,
                                           bool is_pinned = false) {
  return make_node<MemRef>(
      MemRef{std::move(base), std::move(byte_offset), size, slot_count, std::move(slot_index), is_pinned});
}

/// An author declaration `MemRef("name", slots=N)[k]` as the parser makes it.
[[nodiscard]] inline MemRefPtr declared_memref(VarPtr base, std::uint64_t slot_count = 1,
                                               ExprPtr slot_index = nullptr) {
  return make_memref(std::move(base), int_imm(0), 0, slot_count, std::move(slot_index), true);
}

/// Same allocation: the bases are the same object.
[[nodiscard]] inline bool same_allocation(const MemRef& a, const MemRef& b) noexcept {
  return a.base && a.base == b.base;
}

/// Same allocation and, when both offsets are constant, intersecting byte
/// ranges; a symbolic offset conservatively aliases.
[[nodiscard]] inline bool may_alias(const MemRef& a, const MemRef& b) noexcept {
  if (!same_allocation(a, b)) return false;
  const auto oa = a.const_offset(), ob = b.const_offset();
  if (!oa || !ob) return true;
  const auto ea = *oa + static_cast<std::int64_t>(a.size), eb = *ob + static_cast<std::int64_t>(b.size);
  return *oa < eb && *ob < ea;
}

/// Field-by-field equality (base by identity, expressions structurally).
[[nodiscard]] inline bool same_memref(const MemRefPtr& a, const MemRefPtr& b) noexcept {
  if (a == b) return true;
  if (!a || !b) return false;
  return a->base == b->base && same_expr(a->byte_offset, b->byte_offset) && a->size == b->size &&
         a->slot_count == b->slot_count && same_expr(a->slot_index, b->slot_index) &&
         a->is_pinned == b->is_pinned;
}

}  // namespace pto_mem::pypto
