// Small helpers the memory passes share: reading a variable's tile facts,
// refining its type in place, finding the call that defines a value, the
// diagnostics the passes emit, and walking every variable of a function.
//
// The passes refine variable types in place (Var::type is the IR's one
// mutable field, docs/pypto-ir.md): a pass that must keep its input intact
// works on clone(program).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"

namespace pto_mem::pypto::passes {

/// Diagnostic codes of the memory passes. `capacity` (memory does not fit)
/// is the one the tool maps to exit status 1.
namespace code {
inline constexpr const char* capacity = "capacity";
inline constexpr const char* internal = "internal";
inline constexpr const char* declared_slot = "declared-slot";
inline constexpr const char* reserve_buffer = "reserve-buffer";
inline constexpr const char* reuse_fallback = "reuse-fallback";
/// A copy the kernel needs that the hardware has no instruction for (Acc to
/// Acc, or a same-space copy outside Vec): the seed's Buffer IR diagnostic
/// "unsupported same-space copy" — the kernel must be restructured.
inline constexpr const char* unsupported_copy = "unsupported-copy";
}  // namespace code

// ---- tile facts of a variable --------------------------------------------------------

// The tile facts below are asked hundreds of thousands of times per 10k
// statements; g++ kept them as calls in the one large adapter unit.
[[nodiscard, gnu::always_inline]] inline const TileType* tile_of(const VarPtr& v) noexcept {
  return v ? as_tile(v->type) : nullptr;
}
/// The variable's MemRef (null for none), by reference into its type: no
/// reference count per call. Valid until the variable's type changes (a
/// `set_memref` of `v`): copy it to keep it across one.
inline const MemRefPtr no_memref{};  // constant-initialised: no guard
[[nodiscard, gnu::always_inline]] inline const MemRefPtr& var_memref(const VarPtr& v) noexcept {
  if (!v) return no_memref;
  if (const auto* tile = as_tile(v->type)) return tile->memref;
  if (const auto* tensor = as_tensor(v->type)) return tensor->memref;
  return no_memref;
}
[[nodiscard, gnu::always_inline]] inline const Var* var_base(const VarPtr& v) noexcept {
  const MemRef* m = v ? memref_ptr(v->type) : nullptr;
  return m ? m->base.get() : nullptr;
}
[[nodiscard, gnu::always_inline]] inline std::optional<MemorySpace> var_space(const VarPtr& v) noexcept {
  return v ? memory_space_of(v->type) : std::nullopt;
}

/// A tile with a MemRef on an allocation base: what the passes plan.
[[nodiscard, gnu::always_inline]] inline bool is_planned_tile(const VarPtr& v) noexcept {
  const TileType* t = tile_of(v);
  return t && t->memref && t->memref->base;
}

/// Two MemRefs are the same window: one base, the same offset and size.
/// Sharing a base is not sharing a window (slot 0 and slot 1 of a declared
/// allocation are two windows of one base).
[[nodiscard]] inline bool same_window(const MemRef& a, const MemRef& b) noexcept {
  return a.base == b.base && a.size == b.size && same_expr(a.byte_offset, b.byte_offset);
}
[[nodiscard]] inline bool same_window(const MemRefPtr& a, const MemRefPtr& b) noexcept {
  return a && b && (a == b || same_window(*a, *b));
}

/// Two windows may share a byte: the same base and, with constant offsets,
/// intersecting ranges; a symbolic offset conservatively overlaps (unless
/// both windows are the same).
[[nodiscard]] inline bool windows_overlap(const MemRef& a, const MemRef& b) noexcept {
  if (!a.base || a.base != b.base) return false;
  if (same_window(a, b)) return true;
  auto x = a.const_offset(), y = b.const_offset();
  if (!x || !y) return true;
  const auto xe = *x + static_cast<std::int64_t>(a.size), ye = *y + static_cast<std::int64_t>(b.size);
  return *x < ye && *y < xe;
}
[[nodiscard]] inline bool windows_overlap(const MemRefPtr& a, const MemRefPtr& b) noexcept {
  return a && b && windows_overlap(*a, *b);
}

/// The constant trip count of a for loop, when its bounds are constants.
[[nodiscard]] inline std::optional<std::int64_t> constant_trip_count(const Stmt& s) {
  const auto* l = s.as<ForStmt>();
  if (!l) return std::nullopt;
  auto b = as_const_int(l->start), e = as_const_int(l->stop),
       st = l->step ? as_const_int(l->step) : std::optional<std::int64_t>{1};
  if (!b || !e || !st || *st == 0) return std::nullopt;
  if (*st > 0) return *e > *b ? (*e - *b + *st - 1) / *st : 0;
  return *b > *e ? (*b - *e - *st - 1) / -*st : 0;
}

/// Whether a loop's body may run again after an iteration: not for a for
/// loop with a constant trip count of at most one (seed
/// "MaterializeSemanticAliases": constant trip counts decide which reads a
/// back-edge repeats).
[[nodiscard]] inline bool loop_repeats(const Stmt& s) {
  auto n = constant_trip_count(s);
  return !n || *n > 1;
}

/// Told of every `set_memref` on this thread while it exists: an index of
/// variables by allocation base (UseIndex) stays current as the storage
/// passes move variables between windows. Not copyable or movable (it is
/// registered by address).
class MemRefObserver {
 public:
  MemRefObserver() { registry().push_back(this); }
  MemRefObserver(const MemRefObserver&) = delete;
  MemRefObserver& operator=(const MemRefObserver&) = delete;
  virtual ~MemRefObserver() { std::erase(registry(), this); }
  /// `v` has its new type.
  virtual void memref_changed(const Var& v) = 0;

  static void notify(const Var& v) {
    for (MemRefObserver* o : registry()) o->memref_changed(v);
  }

 private:
  static std::vector<MemRefObserver*>& registry() {
    thread_local std::vector<MemRefObserver*> r;
    return r;
  }
};

/// Points `v` at MemRef `m` (and space `s` when given), in place. The passes
/// change a variable's window only through here (MemRefObserver).
inline void set_memref(const VarPtr& v, MemRefPtr m, std::optional<MemorySpace> s = std::nullopt) {
  if (!v) return;
  TypePtr t = s ? with_memref_and_space(v->type, std::move(m), s) : with_memref(v->type, std::move(m));
  if (t == v->type) return;  // already there: nothing changed, nobody to tell
  v->type = std::move(t);
  MemRefObserver::notify(*v);
}

/// Counts the `set_memref` calls that changed a variable on this thread
/// while it exists: a step that changed nothing leaves what was computed
/// before it valid.
class MemRefChangeCount final : public MemRefObserver {
 public:
  void memref_changed(const Var&) override { ++n_; }
  [[nodiscard]] std::size_t count() const noexcept { return n_; }

 private:
  std::size_t n_ = 0;
};

/// Each iter-arg of a loop (and the return var on its buffer) lives where
/// its init lives now: an earlier rewrite (an if-phi before the loop given
/// its own destination, say) may just have moved the init to another window.
/// Every storage step that reads a carry's window calls this on reaching the
/// loop, so it never decides on a window the loop is about to leave.
inline void align_loop_carries(const std::vector<IterArg>& iter_args,
                               const std::vector<VarPtr>& return_vars) {
  for (std::size_t k = 0; k < iter_args.size(); ++k) {
    const VarPtr init = as_var(iter_args[k].init);
    const VarPtr& ia = iter_args[k].var;
    if (!is_planned_tile(init) || !is_planned_tile(ia) || var_memref(ia) == var_memref(init)) continue;
    if (k < return_vars.size() && is_planned_tile(return_vars[k]) && var_base(return_vars[k]) == var_base(ia))
      set_memref(return_vars[k], var_memref(init), var_space(init));
    set_memref(ia, var_memref(init), var_space(init));
  }
}

/// True when the tile's valid shape is absent or equals its shape.
[[nodiscard]] inline bool fully_valid(const TileType& t) noexcept {
  const auto* vs = t.view.valid_shape();
  if (!vs) return true;
  if (vs->size() != t.shape.size()) return false;
  for (std::size_t i = 0; i < vs->size(); ++i)
    if (!same_expr((*vs)[i], t.shape[i])) return false;
  return true;
}

// ---- calls --------------------------------------------------------------------------------

[[nodiscard]] inline const Call* call_of(const ExprPtr& e) noexcept { return e ? e->as<Call>() : nullptr; }

/// Argument k of `c` as a variable, or null.
[[nodiscard]] inline VarPtr arg_var(const Call& c, std::size_t k) noexcept {
  return k < c.args.size() ? as_var(c.args[k]) : nullptr;
}

/// The registered spec of a call's op, or null.
[[nodiscard]] inline const OpSpec* spec_of(const PassContext& ctx, const Call& c) {
  return ctx.ops ? ctx.ops->find(c.op) : nullptr;
}

/// Argument indices the call's output may not share a buffer with:
/// every argument of a not-in-place-safe op (A5 tile.prelu: its first
/// two), the forbid_output_alias set, and the input of a widening tile.cast.
[[nodiscard]] inline std::vector<std::size_t> forbidden_operands(const OpSpec& spec, const Call& c,
                                                                 const VarPtr& out, const PassContext& ctx) {
  bool widening = false;
  if (spec.widening_cast_forbids_input)
    if (auto in = arg_var(c, 0))
      if (auto din = dtype_of(in->type), dout = out ? dtype_of(out->type) : std::nullopt; din && dout)
        widening = bit_width(*dout) > bit_width(*din);
  return spec.forbidden_operands(
      c.args.size(), ctx.soc ? std::string_view(ctx.soc->soc_name) : std::string_view{}, widening);
}

// ---- diagnostics ---------------------------------------------------------------------------

[[nodiscard]] inline Diagnostic pass_error(const Program& p, Loc loc, std::string message, const char* c) {
  Diagnostic d = error_at(p.file, loc, std::move(message));
  d.code = c;
  return d;
}
[[nodiscard]] inline Diagnostic pass_warning(const Program& p, Loc loc, std::string message, const char* c) {
  Diagnostic d = pass_error(p, loc, std::move(message), c);
  d.severity = Severity::warning;
  return d;
}

// ---- walking variables ---------------------------------------------------------------------

/// Calls fn(var) for every variable a function defines: parameters,
/// assignment targets, alloc bases, loop variables, iter-args, loop return
/// vars and if-phis, in program order.
template <class F>
void for_each_var_def(const Function& f, F&& fn) {
  for_each_def(f, [&](const VarPtr& v) {  // the lean walk: no expressions
    if (v) fn(v);
  });
}

/// About how many variables `f` defines, without a walk (its parameters
/// and top-level statements): a size to reserve per-variable tables with.
[[nodiscard]] inline std::size_t defined_estimate(const Function& f) noexcept {
  const auto* s = f.body ? f.body->as<SeqStmts>() : nullptr;
  return f.params.size() + (s ? s->stmts.size() : 1);
}

/// The iter-args of every loop of `f` (they are not "plain" variables for
/// YieldFixup and the phi rules).
[[nodiscard]] inline PointerSet<const Var*> iter_arg_set(const Function& f) {
  PointerSet<const Var*> out;
  for_each_statement(f.body, [&](const Stmt& s) {
    if (const auto* l = s.as<ForStmt>())
      for (const auto& ia : l->iter_args) out.insert(ia.var.get());
    if (const auto* w = s.as<WhileStmt>())
      for (const auto& ia : w->iter_args) out.insert(ia.var.get());
  });
  return out;
}

/// Bases that some Tile or Tensor MemRef of a variable of `f` still uses.
[[nodiscard]] inline PointerSet<const Var*> referenced_bases(const Function& f) {
  PointerSet<const Var*> out;
  for_each_var_def(f, [&](const VarPtr& v) {
    if (auto m = var_memref(v); m && m->base) out.insert(m->base.get());
  });
  return out;
}

/// Drops the top-level tile.alloc / tensor.alloc statements whose base no
/// MemRef uses any more (after MemoryReuse and the DSA-RP writeback). The
/// remaining allocs keep their order and sizes.
[[nodiscard]] inline Function drop_orphaned_allocs(const Function& f) {
  if (!f.body) return f;
  const auto used = referenced_bases(f);
  auto keep = [&](const StmtPtr& s) {
    const auto* a = s ? s->as<AllocStmt>() : nullptr;
    return !a || used.contains(a->var.get());
  };
  Function out = f;
  if (const auto* seq_body = f.body->as<SeqStmts>()) {
    std::vector<StmtPtr> stmts;
    stmts.reserve(seq_body->stmts.size());
    for (const auto& s : seq_body->stmts)
      if (keep(s)) stmts.push_back(s);
    if (stmts.size() != seq_body->stmts.size()) out.body = seq(std::move(stmts), seq_body->loc);
  } else if (!keep(f.body)) {
    out.body = seq({}, f.body->loc);
  }
  return out;
}

/// The alloc statement of every allocation base of a function (the first
/// one, at any depth). Declared (pinned) bases carry pinned=True after
/// InitMemRef.
class AllocTable {
 public:
  explicit AllocTable(const Function& f) {
    map_.reserve(defined_estimate(f));  // the allocs are top-level statements
    for_each_statement(f.body, [&](const Stmt& s) {
      if (const auto* a = s.as<AllocStmt>()) {
        map_.try_emplace(a->var.get(), a);
        any_pinned_ = any_pinned_ || a->pinned;
      }
    });
  }
  /// Whether some alloc statement is a declared one.
  [[nodiscard]] bool any_pinned() const noexcept { return any_pinned_; }
  /// The alloc statement of `base`, or null.
  [[nodiscard]] const AllocStmt* find(const Var* base) const {
    const AllocStmt* const* a = map_.find(base);
    return a ? *a : nullptr;
  }
  /// Whether `base` is a declared allocation.
  [[nodiscard]] bool pinned(const Var* base) const {
    const AllocStmt* a = find(base);
    return a && a->pinned;
  }

 private:
  PointerMap<const Var*, const AllocStmt*> map_;
  bool any_pinned_ = false;
};

[[nodiscard]] inline AllocTable alloc_statements(const Function& f) { return AllocTable(f); }

}  // namespace pto_mem::pypto::passes
