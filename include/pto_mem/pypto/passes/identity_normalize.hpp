// Identity-chain normalisation (also MemoryReuse's first clean-up step):
// after a pass moved some values to other buffers, every value that is by
// definition another value's storage follows it again.
//
//  * a bare alias `x = y` takes y's MemRef (the very object) and space;
//  * an output_reuses_input result takes its written input's MemRef (the
//    input's full window);
//  * a buffer-aliasing view (inherit-input and in-place safe: slice,
//    reshape, reinterpret_view, transpose_view, set_validshape, assemble)
//    keeps its own size and takes its input's base at input offset plus the
//    op's relative offset (recomputed from the slice arguments, never
//    accumulated), the input's slot identity and space; a view of the whole
//    input is the input's MemRef object.
// tile.transpose and tile.extract keep their own storage.
//
// Only relations that held before the move are restored: capture them
// first (capture_identity_relations), move values, then normalise. One
// forward pass in program order, so whole chains follow; idempotent.
#pragma once

#include <optional>
#include <vector>

#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/sizes.hpp"

namespace pto_mem::pypto::passes {

struct DerivedValue {
  enum class Kind { alias, in_place, view };
  VarPtr var;
  VarPtr source;
  Kind kind = Kind::alias;
  ExprPtr rel;  ///< view: offset relative to the source window
  /// view: the op writes into its source's window (tile.assemble: an
  /// inherit-input, in-place-safe op whose access is not no_access), so the
  /// result is also a write over the source, as an in-place result is.
  bool writes_source = false;

  /// Whether the value is a write over its source's window: an in-place
  /// result, or a view whose op writes its source.
  [[nodiscard]] bool writes_over_source() const noexcept {
    return kind == Kind::in_place || (kind == Kind::view && writes_source);
  }
};

/// The derived values of `f` whose MemRef is on their source's base, in
/// program order.
[[nodiscard]] inline std::vector<DerivedValue> capture_identity_relations(const Function& f,
                                                                          const PassContext& ctx) {
  std::vector<DerivedValue> out;
  for_each_statement(f.body, [&](const Stmt& s) {
    const auto* a = s.as<AssignStmt>();
    if (!a || !is_planned_tile(a->var)) return;
    const MemRefPtr m = var_memref(a->var);
    if (auto y = as_var(a->value)) {
      if (is_planned_tile(y) && var_base(y) == m->base.get())
        out.push_back({a->var, y, DerivedValue::Kind::alias, nullptr});
      return;
    }
    const Call* c = call_of(a->value);
    const OpSpec* spec = c ? spec_of(ctx, *c) : nullptr;
    if (!spec) return;
    if (spec->reuses_input) {
      auto src = arg_var(*c, *spec->reuses_input);
      if (is_planned_tile(src) && var_base(src) == m->base.get())
        out.push_back({a->var, src, DerivedValue::Kind::in_place, nullptr});
      return;
    }
    if (!spec->is_view()) return;
    auto src = arg_var(*c, 0);
    if (!is_planned_tile(src) || var_base(src) != m->base.get()) return;
    ExprPtr rel;
    const MemRefPtr sm = var_memref(src);
    if ((c->op == "tile.slice" || c->op == "tensor.slice") && c->args.size() >= 3) {
      const auto* shape = as_sequence(c->args[1]);
      const auto* offsets = as_sequence(c->args[2]);
      const TileType* parent = tile_of(src);
      // The window InitMemRef gave the view: an Acc NZ page where
      // the SoC's predicate takes it, else row-major, bit for bit.
      if (shape && offsets && parent && c->op == "tile.slice" && ctx.soc)
        if (auto nz = acc_nz_slice_window(*parent, *offsets, *shape, *ctx.soc)) rel = nz->byte_offset;
      if (!rel && shape && offsets && parent)
        if (auto w = slice_window(parent->shape, parent->dtype, *offsets, *shape)) rel = w->byte_offset;
    }
    if (!rel) {
      auto vo = m->const_offset(), so = sm->const_offset();
      rel = vo && so ? int_imm(*vo - *so) : int_imm(0);
    }
    out.push_back(
        {a->var, src, DerivedValue::Kind::view, std::move(rel), spec->evidence != AccessEvidence::no_access});
  });
  return out;
}

/// Re-derives one captured value from its source's current MemRef.
inline void normalize_identity(const DerivedValue& d) {
  const MemRefPtr src = var_memref(d.source);
  const MemRefPtr cur = var_memref(d.var);
  if (!src || !cur) return;
  const auto space = var_space(d.source);
  if (d.kind != DerivedValue::Kind::view) {
    if (cur != src)
      set_memref(d.var, src, d.kind == DerivedValue::Kind::alias ? space : std::nullopt);
    else if (d.kind == DerivedValue::Kind::alias && var_space(d.var) != space)
      set_memref(d.var, src, space);
    return;
  }
  const ExprPtr offset = add(src->byte_offset, d.rel);
  if (cur->base == src->base && same_expr(cur->byte_offset, offset) && var_space(d.var) == space) return;
  if (as_const_int(d.rel) == 0 && cur->size == src->size) {
    set_memref(d.var, src, space);
    return;
  }
  set_memref(d.var, make_memref(src->base, offset, cur->size, src->slot_count, src->slot_index, false),
             space);
}

/// Re-derives every captured value, in program order, so chains follow.
inline void normalize_identities(const std::vector<DerivedValue>& relations) {
  for (const auto& d : relations) normalize_identity(d);
}

}  // namespace pto_mem::pypto::passes
