// Logical tile selection (part of MaterializeSemanticAliases's storage rules;
// opt-in: PassContext::logical_tile_selection, PYPTO and DSA_RP planners).
//
// Where an if's exit would copy one of two values into its phi's window,
// the two values may instead live in the two slots of one allocation and the
// phi select one at run time:
//
//   mem_vec_p_sel: Ptr = tile.alloc(Vec, 2 * slot)
//   a: Tile[..., MemRef(mem_vec_p_sel, 0, n, slots=2)[0], Vec] = ...
//   b: Tile[..., MemRef(mem_vec_p_sel, slot, n, slots=2)[1], Vec] = ...
//   if c:
//       p, p_slot: tuple[Tile[..., MemRef(mem_vec_p_sel, p_slot * slot, n, slots=2)[p_slot], Vec],
//                        Scalar[INDEX]] = yield_(a, 0)
//   else:
//       p, p_slot: ... = yield_(b, 1)
//
// The phi's window is an ordinary run-time offset (as a declared slot
// `i % 2 * 16384` is): no new op and no copy; its descriptor is the values'
// own at `slot_index * slot` into the allocation. The two values' own
// allocations are *relocated* into the slots, every window on them moving
// with them (a renaming of storage, so everything that held before holds
// after); slot = the larger allocation, aligned.
//
// Which values (the "descriptor kinds" allowed; anything else keeps its copy):
//  * two different values of one space, Vec or Mat, with the phi's
//    descriptor: the same constant shape, dtype and view fields; constant
//    windows at the same offset and size in their allocations;
//  * compiler-owned: each on an allocation this function's compiler-made
//    `tile.alloc` holds, not pinned (no author declaration `MemRef("x")`),
//    not already slotted (no selection of a selection), every window on it
//    constant; two different allocations, neither used by another result
//    of the same if. Cross-core receives (no storage of their own), DDR,
//    Left / Right (L0 operand buffers, fixed per matmul) and Acc (NZ
//    accumulator pages, written in place by matmul_acc) are not selected.
//  * the phi is only read: it and every value derived from its storage
//    (views, aliases) are read by ops and yielded to loops (a read: the
//    loop's yield copies it), never written in place, used as scratch, as a
//    loop's initializer or as an if's arm value, and no view of it has a
//    run-time offset;
//  * nothing written on either value's allocation after the if is followed
//    by a read of the phi (on the path that selected it the phi *is* that
//    value's bytes), nor reads the phi itself (a loop carry may plan
//    `v = tile.recip(phi)` into a slot's storage: on that slot's path the op
//    would write the bytes it reads).
//
// The exit barrier: after the if, a reader of the phi reads one of two
// buffers chosen at run time, so a sync pass (not part of this library)
// must make the writers of both slots finish before the if's exit; the pass
// reports each selection as note `logical-tile-selection` naming the if,
// the phi, the slot index and the allocation.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/observation.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"

namespace pto_mem::pypto::passes {

/// Spaces whose tiles logical tile selection may put in slots.
[[nodiscard]] constexpr bool selectable_space(MemorySpace s) noexcept {
  return s == MemorySpace::Vec || s == MemorySpace::Mat;
}

/// One descriptor but for the window: space, constant shape, dtype, view fields.
[[nodiscard]] inline bool same_descriptor(const TileType& a, const TileType& b) {
  if (a.space != b.space || a.dtype != b.dtype || a.shape.size() != b.shape.size()) return false;
  for (std::size_t i = 0; i < a.shape.size(); ++i)
    if (!as_const_int(a.shape[i]) || !same_expr(a.shape[i], b.shape[i])) return false;
  if (a.view.fields.size() != b.view.fields.size()) return false;
  for (std::size_t i = 0; i < a.view.fields.size(); ++i)
    if (a.view.fields[i].name != b.view.fields[i].name ||
        !same_expr(a.view.fields[i].value, b.view.fields[i].value))
      return false;
  return true;
}

/// `e` with variable `v` bound to `value`, folded to a constant when it is
/// one (sums, differences and products of constants and `v`).
[[nodiscard]] inline std::optional<std::int64_t> fold_with(const ExprPtr& e, const Var* v,
                                                           std::int64_t value) {
  if (!e) return std::nullopt;
  if (auto c = as_const_int(e)) return c;
  if (auto x = as_var(e)) return x.get() == v ? std::optional<std::int64_t>(value) : std::nullopt;
  const auto* b = e->as<BinaryExpr>();
  if (!b || (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && b->op != BinaryOp::Mul)) return std::nullopt;
  auto l = fold_with(b->lhs, v, value), r = fold_with(b->rhs, v, value);
  if (!l || !r) return std::nullopt;
  std::int64_t out = 0;
  const bool overflow = b->op == BinaryOp::Add   ? __builtin_add_overflow(*l, *r, &out)
                        : b->op == BinaryOp::Sub ? __builtin_sub_overflow(*l, *r, &out)
                                                 : __builtin_mul_overflow(*l, *r, &out);
  if (overflow) return std::nullopt;
  return out;
}

/// What a function does with its values beyond reading them, for the
/// "the phi is only read" rule: loop initializers, if-arm values and
/// scratch operands (one walk, built when the first selection is tried).
class SelectionUses {
 public:
  SelectionUses(const Function& f, const PassContext& ctx) {
    for_each_statement(f.body, [&](const Stmt& s) {
      auto inits = [&](const std::vector<IterArg>& ias) {
        for (const auto& ia : ias)
          if (auto v = as_var(ia.init)) not_only_read_.insert(v.get());
      };
      if (const auto* l = s.as<ForStmt>()) inits(l->iter_args);
      if (const auto* w = s.as<WhileStmt>()) inits(w->iter_args);
      if (const auto* i = s.as<IfStmt>())
        for (const StmtPtr& arm : {i->then_body, i->else_body})
          if (const YieldStmt* y = terminating_yield(arm))
            for (const auto& x : y->values)
              if (auto v = as_var(x)) not_only_read_.insert(v.get());
      const Call* c = nullptr;
      if (const auto* a = s.as<AssignStmt>()) c = call_of(a->value);
      if (const auto* e = s.as<EvalStmt>()) c = call_of(e->value);
      const OpSpec* spec = c ? spec_of(ctx, *c) : nullptr;
      if (!spec) return;
      for (std::size_t k = 0; k < c->args.size() && k < spec->args.size(); ++k)
        if (spec->args[k].scratch)
          if (auto v = arg_var(*c, k)) not_only_read_.insert(v.get());
    });
  }

  /// Not a loop initializer, an if-arm value or a scratch operand.
  [[nodiscard]] bool only_read(const Var* v) const { return !not_only_read_.contains(v); }

 private:
  std::unordered_set<const Var*> not_only_read_;
};

/// The phi and the values derived from its storage (views, aliases; from
/// the relations captured before the storage steps), when every one of them
/// is only read and every view sits at a constant offset into its source;
/// else nullopt.
[[nodiscard]] inline std::optional<std::unordered_set<const Var*>> read_only_chain(
    const VarPtr& phi, const std::vector<DerivedValue>& relations, const SelectionUses& uses) {
  std::unordered_set<const Var*> chain{phi.get()};
  // Relations are in program order, and a derived value comes after its source.
  for (const auto& d : relations) {
    if (!chain.contains(d.source.get())) continue;
    if (d.writes_over_source() || (d.kind == DerivedValue::Kind::view && !as_const_int(d.rel)))
      return std::nullopt;
    chain.insert(d.var.get());
  }
  for (const Var* v : chain)
    if (!uses.only_read(v)) return std::nullopt;
  return chain;
}

/// Moves every window on allocation `from` into allocation `to` at `shift`
/// bytes, as slot `slot` of `slots`: each distinct MemRef object gets one
/// new object (variables sharing a MemRef still share it).
inline void relocate_allocation(const std::vector<VarPtr>& vars, const Var* from, const VarPtr& to,
                                std::int64_t shift, std::int64_t slot, std::uint64_t slots) {
  std::unordered_map<const MemRef*, MemRefPtr> moved;
  for (const VarPtr& v : vars) {
    const MemRefPtr m = var_memref(v);
    if (!m || m->base.get() != from) continue;
    auto [it, fresh] = moved.try_emplace(m.get());
    if (fresh)
      it->second = make_memref(to, int_imm(*m->const_offset() + shift), m->size, slots, int_imm(slot), false);
    set_memref(v, it->second);
  }
}

}  // namespace pto_mem::pypto::passes
