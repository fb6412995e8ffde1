// InitMemRef: give every Tile and Tensor variable a
// MemRef — a window (base, relative byte offset, size) into an allocation —
// and prepend one alloc statement per on-chip (or DDR tile) allocation.
//
// Example (after InferTileMemorySpace). A slice, then an exp:
//
//     x: Tile[[64, 64], FP32, Vec] = tile.load(x_ddr, [0, 0], [64, 64], target_memory=Vec)
//     v: Tile[[32, 64], FP32, Vec] = tile.slice(x, [32, 64], [32, 0])
//     e: Tile[[32, 64], FP32, Vec] = tile.exp(v)
//
// becomes (the two DDR parameters took ids 0 and 1)
//
//     mem_vec_2: Ptr = tile.alloc(Vec, 16384)
//     mem_vec_3: Ptr = tile.alloc(Vec, 8192)
//     x: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(...)
//     v: Tile[[32, 64], FP32, MemRef(mem_vec_2, 8192, 8192), Vec] = tile.slice(x, ...)
//     e: Tile[[32, 64], FP32, MemRef(mem_vec_3, 0, 8192), Vec] = tile.exp(v)
//
// The rule: a value that is by definition part of another's storage (a view
// such as the slice v, bytes 8192-16383 of x; an in-place result; a loop's
// carry; a stored tensor) gets a window of that storage; every other tile gets
// an allocation of its own, exactly as large as the tile in its space. No
// sharing is made here that the program does not require: saving memory is
// left to MemoryReuse and AllocateMemoryAddr.
//
// Per function (every kind):
//   1. normalise the structure: nested sequences are flattened, a sequence of
//      one statement becomes that statement; alloc statements of a re-parsed
//      dump are dropped (their allocations are made again below), after the
//      tiles on a pinned one are bound to its declaration again
//      (planned_input.hpp: a planned program compiled again keeps its
//      declared allocations, pinning and slots; compile() gives its other
//      allocations their names back at the end);
//   2. collect and check the declared allocations (declared_allocations.hpp);
//      under PTOAS a single-slot declaration is rejected;
//   3. parameters, in order, get fresh MemRefs (scalars consume no id);
//   4. the body, in rewrite order (assignment: value, then target; loop:
//      bounds, iter-args, body, return vars; if: condition, then, else, phis),
//      gets MemRefs by these sharing rules: views and aliases share their
//      source's window (a slice gets its byte offset and span), a store
//      result is its output tensor's MemRef, an in-place op's result is its
//      accumulator's, a loop's init / iter-arg / return var share one MemRef
//      (tile or tensor), a tile phi takes its then-value's, a tensor phi its
//      arms' when both arms are one tensor; a bound tile gets its declared slot;
//      everything else a fresh `mem_<space>_<id>` (one id counter per
//      function; every tile or tensor loop return var and phi consumes an id
//      even when it is re-pointed afterwards, as PyPTO does). Every tile
//      obeys one set of shape rules (static, positive dims) and fits its
//      space's capacity; a view, alias or in-place result also fits its
//      window, and that window lies inside its source's (fits_source): a
//      `tile.reshape` annotated larger than its source is an error naming
//      the statement and both sizes, not a window onto other allocations;
//   5. one `tile.alloc(space, size)` (`tensor.alloc(DDR, size)` for a DDR
//      tile; `pinned=True` and slots x slot_size for a declaration) per base,
//      in first-seen order, prepended to the body.
// Tensor shapes may be dynamic (DDR is never planned): their MemRef size is
// then 0. Between steps 2 and 3, under the PYPTO and DSA_RP planners, a
// kernel call whose backend ABI needs level-3 scratch it lacks gets a Vec
// `tile.create` operand (PyPTO's ScratchInserter); PTOAS plans its own.
//
// Refines variables' types in place (docs/pypto-ir.md). verify_has_memrefs
// is the "HasMemRefs" verifier.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/passes/declared_allocations.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pass_diagnostics.hpp"
#include "pto_mem/pypto/passes/planned_input.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_call.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/sizes.hpp"

namespace pto_mem::pypto {

namespace detail::init {

/// Step 1: flattened sequences, one-statement sequences unwrapped, old alloc
/// statements dropped.
class Normaliser : public IRMutator {
 public:
  ExprPtr mutate_expr(const ExprPtr& e) override { return e; }  // statements only
  StmtPtr mutate_seq(const SeqStmts& s, const StmtPtr& self) override {
    std::vector<StmtPtr> out;  // copied from the first child that changes on
    bool changed = false;
    for (std::size_t i = 0; i < s.stmts.size(); ++i) {
      const StmtPtr& c = s.stmts[i];
      StmtPtr r = mutate_stmt(c);
      const auto* inner = r ? r->as<SeqStmts>() : nullptr;
      const bool splice = inner && inner->scope.empty();  // a with-scope stays
      if (!changed && r == c && !splice) continue;
      if (!changed) {
        out.reserve(s.stmts.size());
        out.assign(s.stmts.begin(), s.stmts.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
      if (!r) continue;
      if (splice)
        out.insert(out.end(), inner->stmts.begin(), inner->stmts.end());
      else
        out.push_back(std::move(r));
    }
    if (!changed) return s.stmts.size() == 1 && s.scope.empty() ? s.stmts.front() : self;
    if (out.size() == 1 && s.scope.empty()) return out.front();
    return seq(std::move(out), s.loc, s.scope);
  }
  StmtPtr mutate_alloc(const AllocStmt&, const StmtPtr&) override { return nullptr; }
};

/// A tile.tpop result lives in the cross-core slot: no MemRef.
[[nodiscard]] inline bool is_cross_core_receive(std::string_view op) noexcept {
  return op == "tile.tpop_from_aic" || op == "tile.tpop_from_aiv";
}

/// Level-3 scratch: the Vec workspace a backend ABI needs for a call
/// that does not carry one. PyPTO gives no scratch shape; we take one tile
/// like the data the op works on (an upper bound a backend may shrink).
struct ScratchNeed {
  std::size_t index = 0;  ///< where the scratch operand goes (appended)
  std::vector<ExprPtr> shape;
  DataType dtype = DataType::FP32;
};

/// True for `tile.cast` with an explicit `saturation_mode=0` whose output has
/// fewer bits than its input (a widening FP16->FP32 cast is not narrowing).
[[nodiscard]] inline bool is_unsaturated_narrowing_cast(const Call& c, const TypePtr& result) {
  if (std::string_view(c.op) != "tile.cast" || c.args.empty()) return false;
  const ExprPtr* m = c.kwarg("saturation_mode");
  if (!m || as_const_int(*m) != 0) return false;
  const auto din = dtype_of(expr_type(c.args[0]));
  std::optional<DataType> dout = result ? dtype_of(result) : std::nullopt;
  if (!dout)
    if (const ExprPtr* t = c.kwarg("target_type")) dout = as_dtype(*t);
  return din && dout && bit_width(*dout) < bit_width(*din);
}

/// What scratch call `c` (result type `result`, may be null) needs on `soc`,
/// or nullopt: `tile.sort32` on a2a3 and a5 (a tile like its source),
/// `tile.ci` (a tile like its result) and an unsaturated narrowing
/// `tile.cast` (a tile like its input) on a2a3. A call that already has the
/// operand (a re-parsed dump) needs nothing more.
[[nodiscard]] inline std::optional<ScratchNeed> scratch_need(const Call& c, const TypePtr& result,
                                                             const SocPolicy& soc) {
  // string_views: the lengths are compared first (most ops need no memcmp).
  const std::string_view op = c.op, soc_name = soc.soc_name;
  const bool a2a3 = soc_name == "a2a3", a5 = soc_name == "a5";
  auto like = [](const TypePtr& t, std::size_t index) -> std::optional<ScratchNeed> {
    const auto* tile = as_tile(t);
    if (!tile) return std::nullopt;
    return ScratchNeed{index, tile->shape, tile->dtype};
  };
  if (op == "tile.sort32" && (a2a3 || a5) && c.args.size() == 2) return like(expr_type(c.args[0]), 2);
  if (!a2a3) return std::nullopt;
  if (op == "tile.ci" && c.args.size() == 2) return like(result, 2);
  if (c.args.size() == 1 && is_unsaturated_narrowing_cast(c, result)) return like(expr_type(c.args[0]), 1);
  return std::nullopt;
}

/// Step 2b (PYPTO and DSA_RP planners, kernels): before each call that
/// needs level-3 scratch, a plain `<lhs>_scratch = tile.create(shape,
/// dtype=D, target_memory=Vec)`, passed to the call as its trailing scratch
/// operand. The op specs list that operand and forbid the output to share
/// it, so the scratch is an ordinary buffer from here on: it gets a MemRef,
/// an alloc, lives from its creation to the call, and counts against Vec.
class ScratchInserter : public IRMutator {
 public:
  explicit ScratchInserter(const SocPolicy& soc) : soc_(soc) {}
  std::size_t inserted = 0;

  ExprPtr mutate_expr(const ExprPtr& e) override { return e; }  // statements only
  void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) override {
    StmtPtr r = mutate_stmt(child);
    if (!r) return;
    if (r != child && r->kind == StmtKind::Seq && child->kind != StmtKind::Seq) {
      const auto& inner = r->as<SeqStmts>()->stmts;
      out.insert(out.end(), inner.begin(), inner.end());
    } else {
      out.push_back(std::move(r));
    }
  }
  StmtPtr mutate_assign(const AssignStmt& s, const StmtPtr& self) override {
    const Call* c = s.value ? s.value->as<Call>() : nullptr;
    auto need = c ? scratch_need(*c, s.var->type, soc_) : std::nullopt;
    if (!need) return self;
    auto [create, operand] = make_scratch(*need, s.var->name + "_scratch", s.loc);
    return seq({std::move(create), assign(s.var, with_operand(*c, *need, operand), s.loc)}, s.loc);
  }
  StmtPtr mutate_eval(const EvalStmt& s, const StmtPtr& self) override {
    const Call* c = s.value ? s.value->as<Call>() : nullptr;
    auto need = c ? scratch_need(*c, nullptr, soc_) : std::nullopt;
    if (!need) return self;
    auto [create, operand] = make_scratch(*need, "scratch_" + std::to_string(inserted), s.loc);
    return seq({std::move(create), eval(with_operand(*c, *need, operand), s.loc)}, s.loc);
  }

 private:
  std::pair<StmtPtr, VarPtr> make_scratch(const ScratchNeed& n, std::string name, Loc loc) {
    ++inserted;
    VarPtr v = make_var(std::move(name), tile_type(n.shape, n.dtype, MemorySpace::Vec), loc);
    ExprPtr value =
        call("tile.create", {list(n.shape)},
             {Kwarg{"dtype", dtype_imm(n.dtype)}, Kwarg{"target_memory", space_imm(MemorySpace::Vec)}});
    return {assign(v, std::move(value), loc), v};
  }
  static ExprPtr with_operand(const Call& c, const ScratchNeed& n, const VarPtr& scratch) {
    std::vector<ExprPtr> args = c.args;
    args.insert(args.begin() + static_cast<std::ptrdiff_t>(n.index), var_ref(scratch));
    return call(c.op, std::move(args), c.kwargs);
  }
  const SocPolicy& soc_;
};

/// Steps 3-4: the MemRef of every tile and tensor variable.
class MemRefBinder {
 public:
  MemRefBinder(const Program& program, const Function& f, PassContext& ctx,
               const DeclaredAllocations& declared)
      : program_(program),
        f_(f),
        ctx_(ctx),
        ops_(ctx.ops ? *ctx.ops : default_registry()),
        declared_(declared) {}

  bool failed = false;

  void params() {
    for (const auto& p : f_.params) {
      if (!is_tile(p.var->type) && !is_tensor(p.var->type)) continue;
      bind_fresh(p.var);
      if (failed) return;
    }
  }

  /// Assignments, loops and branches in program order (a loop or branch
  /// handler walks its bodies itself).
  void walk(const StmtPtr& s) { Walk{*this}.visit_stmt(s); }

 private:
  struct Walk : IRWalker<Walk> {
    MemRefBinder& b;
    explicit Walk(MemRefBinder& x) : b(x) {}
    void visit_stmt(const StmtPtr& s) {
      if (!b.failed) IRWalker<Walk>::visit_stmt(s);
    }
    void visit_expr(const ExprPtr&) {}
    void visit_assign(const AssignStmt& s) { b.assign(s); }
    void visit_for(const ForStmt& f) { b.loop(f.iter_args, f.body, f.return_vars); }
    void visit_while(const WhileStmt& w) { b.loop(w.iter_args, w.body, w.return_vars); }
    void visit_if(const IfStmt& i) { b.branch(i); }
  };

  void error(Loc loc, std::string code, std::string message) {
    report_error(ctx_, program_, loc, std::move(code), std::move(message));
    failed = true;
  }

  /// The error of a tile whose size cannot be computed (the same rules for
  /// every tile: fresh, view or in-place result).
  void size_error(const VarPtr& v, Loc at, const SizeError& e) {
    using K = SizeError::Kind;
    switch (e.kind) {
      case K::dynamic_dim:
        return error(at, "dynamic-shape",
                     "InitMemRef requires static shape for variable " + in_quotes(v->name) +
                         ", but shape element " + std::to_string(e.dim) +
                         " is dynamic; give the tile a static shape and put the runtime extent in "
                         "TileView(valid_shape=...)");
      case K::non_positive_dim:
        return error(
            at, "non-positive-shape",
            "InitMemRef requires positive shape for variable " + in_quotes(v->name) + ", but " + e.message);
      case K::acc_rank:
        return error(at, "acc-rank",
                     "InitMemRef cannot size variable " + in_quotes(v->name) + ": " + e.message);
      default:
        return error(at, "size-overflow",
                     "InitMemRef cannot represent the physical allocation size of variable " +
                         in_quotes(v->name) + ": " + e.message);
    }
  }

  /// `[64, 64] FP32` for messages.
  [[nodiscard]] static std::string describe(const TileType& t) {
    std::string out = "[";
    for (std::size_t i = 0; i < t.shape.size(); ++i) {
      if (i) out += ", ";
      auto c = as_const_int(t.shape[i]);
      out += c ? std::to_string(*c) : std::string("?");
    }
    return out + "] " + std::string(to_string(t.dtype));
  }

  /// A tile of `bytes` bytes in `space` must fit the space's capacity (when
  /// the SoC gives one): no planner can place it, and a view or in-place
  /// result takes no allocation of its own that AllocateMemoryAddr would
  /// count. Reported as "capacity" (memory does not fit), like the planners'.
  bool fits_capacity(const VarPtr& v, Loc at, MemorySpace space, Addr bytes) {
    if (!ctx_.soc || !ctx_.soc->configured || !ctx_.soc->planned(space)) return true;
    const auto cap = ctx_.soc->capacity(space);
    if (!cap || *cap == 0 || bytes <= *cap) return true;
    const auto* t = as_tile(v->type);
    error(at, "capacity",
          std::string(to_string(space)) + " buffer usage (" + std::to_string(bytes) +
              " bytes) exceeds platform limit (" + std::to_string(*cap) + " bytes): tile " +
              in_quotes(v->name) + (t ? " (" + describe(*t) + ")" : "") + " alone is larger than the whole " +
              std::string(to_string(space)) + " space; split it into smaller tiles");
    return false;
  }

  /// A view, alias or in-place result `v` of tile `src` (statement `s`, op
  /// `by`) takes the window `extra` bytes into src's window, `size` bytes
  /// long (src's size when nullopt). Its shape follows the rules of a fresh
  /// tile (static, positive), its data fits that window, the window lies
  /// inside src's, and the tile fits its space: a reshape, reinterpret or
  /// in-place result annotated larger than its source would otherwise read
  /// and write bytes of other allocations.
  bool fits_source(const AssignStmt& s, const std::string& by, const VarPtr& v, const VarPtr& src,
                   const ExprPtr& extra, std::optional<Addr> size) {
    const auto* t = as_tile(v->type);
    const MemRefPtr sm = memref_of(src->type);
    if (!t || !is_tile(src->type) || !sm) return true;  // tensor views: DDR, never planned
    const MemorySpace space = memory_space_of(src->type).value_or(MemorySpace::DDR);
    // The data bytes (an Acc view needs no row padding of its own), then the padded size in the space.
    auto data = tile_bytes(t->shape, t->dtype, std::nullopt, *ctx_.soc);
    if (!data) {
      size_error(v, s.loc, *data.error);
      return false;
    }
    auto padded = tile_bytes(t->shape, t->dtype, space, *ctx_.soc);
    if (!padded) {
      size_error(v, s.loc, *padded.error);
      return false;
    }
    const Addr window = size.value_or(sm->size);
    const std::string what =
        in_quotes(v->name) + " = " + (by.empty() ? src->name : by + "(" + src->name + ", ...)");
    if (const auto off = as_const_int(extra); off && (*off < 0 || static_cast<Addr>(*off) > sm->size ||
                                                      window > sm->size - static_cast<Addr>(*off))) {
      error(s.loc, "view-outside-source",
            what + ": the window at byte " + std::to_string(*off) + ", " + std::to_string(window) +
                " bytes long, leaves the " + std::to_string(sm->size) + "-byte window of " +
                in_quotes(src->name) + "; keep the offset and shape inside the source tile");
      return false;
    }
    if (*data > window) {
      const auto* st = as_tile(src->type);
      error(s.loc, "view-exceeds-source",
            what + ": the result " + describe(*t) + " needs " + std::to_string(*data) + " bytes, but " +
                (window == sm->size
                     ? "the source " + in_quotes(src->name) + (st ? " (" + describe(*st) + ")" : "") +
                           " has a " + std::to_string(sm->size) + "-byte window"
                     : "its window in " + in_quotes(src->name) + " is " + std::to_string(window) + " bytes") +
                "; a view or in-place result lands in its source's bytes and cannot be larger: give it a "
                "shape of "
                "at most the source's size, or produce a new tile");
      return false;
    }
    return fits_capacity(v, s.loc, space, *padded);
  }

  /// A fresh MemRef `mem_<space>_<id>` sized AllocBytes(type, space).
  void bind_fresh(const VarPtr& v) {
    const auto* tile = as_tile(v->type);
    const std::vector<ExprPtr>& shape = tile ? tile->shape : as_tensor(v->type)->shape;
    const DataType dtype = tile ? tile->dtype : as_tensor(v->type)->dtype;
    const MemorySpace space = tile && tile->space ? *tile->space : MemorySpace::DDR;
    Addr size = 0;
    auto bytes = tile_bytes(shape, dtype, tile ? tile->space : std::optional<MemorySpace>(MemorySpace::DDR),
                            *ctx_.soc);
    if (bytes) {
      size = *bytes;
      if (tile && !fits_capacity(v, v->loc, space, size)) return;
    } else if (tile) {  // a tensor may be dynamic (DDR is never planned): size 0
      return size_error(v, v->loc, *bytes.error);
    }
    std::string name = "mem_";
    name += lowercase_name(space);
    name += '_';
    name += std::to_string(next_id_++);
    VarPtr base = make_var(std::move(name), ptr_type(), v->loc);
    // A space-less tile is in DDR, and its type says so (as PyPTO's InitMemRef resolves it): the rules
    // after this pass read a value's space from its type (a loop carry starting from such a parameter
    // must not take a Vec-only producer, a yield copy into it must target DDR).
    v->type = with_memref_and_space(v->type, make_memref(std::move(base), int_imm(0), size), space);
  }

  /// A fresh MemRef that consumes an id but is then replaced (loop return
  /// vars and phis: PyPTO's id numbering counts them).
  void burn_id() { ++next_id_; }

  [[nodiscard]] static MemRefPtr memref_of_var(const ExprPtr& e) {
    VarPtr v = as_var(e);
    return v ? memref_of(v->type) : nullptr;
  }

  /// `v` shares `src`'s window, shifted by `extra` bytes and `size` long; the
  /// very same MemRef object when nothing changes. A tile takes src's space.
  void bind_view(const VarPtr& v, const VarPtr& src, const ExprPtr& extra, std::optional<Addr> size) {
    const MemRefPtr s = memref_of(src->type);
    const Addr sz = size.value_or(s->size);
    MemRefPtr m = s;
    if (!(as_const_int(extra) == 0 && sz == s->size))
      m = make_memref(s->base, add(s->byte_offset, extra), sz, s->slot_count, s->slot_index, false);
    v->type = with_memref_and_space(v->type, std::move(m), memory_space_of(src->type));
  }

  void assign(const AssignStmt& s) {
    const VarPtr& v = s.var;
    if (!is_tile(v->type) && !is_tensor(v->type)) return;
    const MemRef* declared = is_tile(v->type) ? memref_ptr(v->type) : nullptr;
    const bool bound = declared && declared->is_pinned;
    const Call* c = s.value ? s.value->as<Call>() : nullptr;
    const OpSpec* spec = c ? ops_.find(c->op) : nullptr;

    if (VarPtr src = as_var(s.value)) {  // rule 4 (a declared binding on an alias is dropped, as upstream)
      if (memref_ptr(src->type)) {
        if (!fits_source(s, "", v, src, int_imm(0), std::nullopt)) return;
        return bind_view(v, src, int_imm(0), std::nullopt);
      }
      if (is_tile(src->type) && is_tile(v->type)) return clear_memref(v);  // rule 0: alias of a slot tile
      return bind_fresh(v);
    }
    if (c && is_cross_core_receive(c->op)) return clear_memref(v);  // rule 0
    if (spec && spec->is_view() && !c->args.empty()) {
      VarPtr src = as_var(c->args[0]);
      if (src && is_tile(src->type) && !memref_ptr(src->type)) return clear_memref(v);  // rule 0
    }
    if (bound && spec && spec->lands_in_source())  // rule 1
      return error(s.loc, "declared-binding-on-view",
                   "Tile " + in_quotes(v->name) + " is produced by " + in_quotes(c->op) +
                       ", which lands in its source tile's allocation, so it cannot be given one of its own. "
                       "Bind the source tile instead.");
    if (spec && spec->is_view() && !c->args.empty())  // rule 2
      if (VarPtr src = as_var(c->args[0]); src && memref_ptr(src->type)) return view(s, *c, v, src);
    if (spec && spec->reuses_input && *spec->reuses_input < c->args.size())  // rule 3
      if (VarPtr src = as_var(c->args[*spec->reuses_input]); src && memref_ptr(src->type)) {
        if (!fits_source(s, c->op, v, src, int_imm(0), std::nullopt)) return;
        return bind_view(v, src, int_imm(0), std::nullopt);
      }
    if (bound) {  // rule 5
      if (const DeclaredAllocationInfo* d = declared_.find(declared->base.get())) {
        v->type = with_memref_and_space(v->type, resolve_declared(*d, *declared), d->space);
        return;
      }
    }
    bind_fresh(v);
  }

  /// Rule 0: a tile that owns no buffer (it lives in the cross-core slot).
  /// Its shape must still be static, as for any tile InitMemRef sees: the
  /// runtime extent belongs in valid_shape, not in the shape.
  void clear_memref(const VarPtr& v) {
    if (const auto* tile = as_tile(v->type))
      for (std::size_t i = 0; i < tile->shape.size(); ++i)
        if (!as_const_int(tile->shape[i]))
          return error(v->loc, "dynamic-shape",
                       "InitMemRef requires static shape for variable " + in_quotes(v->name) +
                           ", but shape element " + std::to_string(i) +
                           " is dynamic; give the tile a static shape and put the runtime extent in "
                           "TileView(valid_shape=...)");
    v->type = with_memref(v->type, nullptr);
  }

  /// Rule 2: a buffer-aliasing view; slices get their byte offset and span.
  void view(const AssignStmt& s, const Call& c, const VarPtr& v, const VarPtr& src) {
    if (c.op != "tile.slice" && c.op != "tensor.slice") {
      if (!fits_source(s, c.op, v, src, int_imm(0), std::nullopt)) return;
      return bind_view(v, src, int_imm(0), std::nullopt);
    }
    const auto* shape = c.args.size() > 1 ? as_sequence(c.args[1]) : nullptr;
    const auto* offset = c.args.size() > 2 ? as_sequence(c.args[2]) : nullptr;
    const auto* parent = shape_of(src->type);
    const auto dtype = dtype_of(src->type);
    if (!shape || !offset || !parent || !dtype)
      return error(s.loc, "slice-window",
                   "InitMemRef cannot compute the window of " + in_quotes(c.op) + " for " +
                       in_quotes(v->name) + ": its shape and offset arguments must be lists");
    if (c.op == "tile.slice")  // an Acc NZ window; otherwise row-major, bit for bit
      if (const auto* pt = as_tile(src->type))
        if (auto nz = acc_nz_slice_window(*pt, *offset, *shape, *ctx_.soc)) {
          if (!fits_source(s, c.op, v, src, nz->byte_offset, nz->span)) return;
          return bind_view(v, src, nz->byte_offset, nz->span);
        }
    auto w = slice_window(*parent, *dtype, *offset, *shape);
    if (!w) {
      const bool packed = w.error->kind == SizeError::Kind::packed_origin_dynamic ||
                          w.error->kind == SizeError::Kind::packed_origin_unaligned;
      return error(s.loc, packed ? "packed-slice-origin" : "slice-window",
                   w.error->message + " (slice " + in_quotes(v->name) + " of " + in_quotes(src->name) + ")");
    }
    if (!fits_source(s, c.op, v, src, w->byte_offset, w->span)) return;
    bind_view(v, src, w->byte_offset, w->span);
  }

  void loop(const std::vector<IterArg>& iter_args, const StmtPtr& body,
            const std::vector<VarPtr>& return_vars) {
    for (const auto& ia : iter_args) {
      if (!is_tile(ia.var->type) && !is_tensor(ia.var->type)) continue;
      iter_args_.insert(ia.var.get());
      VarPtr init = as_var(ia.init);
      MemRefPtr m = init ? memref_of(init->type) : nullptr;
      ia.var->type = init ? with_memref_and_space(ia.var->type, std::move(m), memory_space_of(init->type))
                          : with_memref(ia.var->type, nullptr);
    }
    walk(body);
    for (std::size_t i = 0; i < return_vars.size() && !failed; ++i) {
      const VarPtr& rv = return_vars[i];
      const VarPtr ia = i < iter_args.size() ? iter_args[i].var : nullptr;
      if (!is_tile(rv->type) && !is_tensor(rv->type)) continue;
      // A tensor carry is one tensor, as a tile carry is: after zero trips
      // the result is the initializer itself, so the return var shares its
      // MemRef rather than naming DDR storage nothing writes. Only a tensor
      // whose iter-arg has no MemRef gets its own.
      if (is_tensor(rv->type) && !(ia && memref_of(ia->type))) {
        bind_fresh(rv);
        continue;
      }
      burn_id();
      if (ia) rv->type = with_memref_and_space(rv->type, memref_of(ia->type), memory_space_of(ia->type));
    }
  }

  void branch(const IfStmt& s) {
    walk(s.then_body);
    walk(s.else_body);
    const YieldStmt* ty = terminating_yield(s.then_body);
    const YieldStmt* ey = terminating_yield(s.else_body);
    for (std::size_t i = 0; i < s.return_vars.size() && !failed; ++i) {
      const VarPtr& phi = s.return_vars[i];
      VarPtr tv = ty && i < ty->values.size() ? as_var(ty->values[i]) : nullptr;
      VarPtr ev = ey && i < ey->values.size() ? as_var(ey->values[i]) : nullptr;
      if (!is_tile(phi->type) && !is_tensor(phi->type)) continue;
      // The arm whose MemRef the phi shares, or null for a fresh one.
      const auto arm = [&]() -> VarPtr {
        // A tensor phi whose two arms are one tensor (a store into it, or
        // the tensor itself) is that tensor; otherwise it names its own.
        if (is_tensor(phi->type))
          return tv && ev && memref_of(tv->type) && same_memref(memref_of(tv->type), memref_of(ev->type))
                     ? tv
                     : nullptr;
        if (tv && !iter_args_.contains(tv.get()) && memref_of(tv->type)) return tv;
        return ev && memref_of(ev->type) ? ev : nullptr;
      };
      const VarPtr src = arm();
      if (!src) {
        bind_fresh(phi);
        continue;
      }
      burn_id();
      phi->type = with_memref_and_space(phi->type, memref_of(src->type), memory_space_of(src->type));
    }
  }

  const Program& program_;
  const Function& f_;
  PassContext& ctx_;
  const OpRegistry& ops_;
  const DeclaredAllocations& declared_;
  std::uint64_t next_id_ = 0;
  PointerSet<const Var*> iter_args_;
};

/// One allocation to declare with an alloc statement.
struct AllocEntry {
  VarPtr base;
  MemorySpace space = MemorySpace::Vec;
  Addr size = 0;
  bool pinned = false;
  Loc loc;
};

/// Step 5: the distinct bases of tile MemRefs (parameters, then the body in
/// walk order), deduplicated by MemRef object then by base. Definitions
/// suffice: in SSA form every use follows its definition.
class AllocCollector {
 public:
  explicit AllocCollector(const DeclaredAllocations& declared) : declared_(declared) {}
  std::vector<AllocEntry> allocs;
  std::optional<std::pair<Loc, std::string>> conflict;  ///< a MemRef seen in two spaces

  void collect(const Function& f) {
    for_each_def(f, [&](const VarPtr& v) { note(v); });
  }

 private:
  void note(const VarPtr& v) {
    const auto* t = v ? as_tile(v->type) : nullptr;
    if (!t || !t->memref || !t->memref->base) return;
    const MemorySpace space = t->space.value_or(MemorySpace::DDR);
    auto [it, fresh] = spaces_.try_emplace(t->memref.get(), space);
    if (!fresh) {
      if (*it != space && !conflict)
        conflict.emplace(v->loc, "Conflicting TileType.memory_space values found for the same MemRef (" +
                                     t->memref->name() + ": " + std::string(to_string(*it)) + " and " +
                                     std::string(to_string(space)) + " at " + in_quotes(v->name) + ")");
      return;
    }
    if (!bases_.insert(t->memref->base.get())) return;
    AllocEntry e{t->memref->base, space, t->memref->size, false, v->loc};
    if (const DeclaredAllocationInfo* d = declared_.find(t->memref->base.get())) {
      e.size = d->total;
      e.pinned = true;
      e.space = d->space;
    }
    allocs.push_back(std::move(e));
  }
  const DeclaredAllocations& declared_;
  PointerMap<const MemRef*, MemorySpace> spaces_;
  PointerSet<const Var*> bases_;
};

}  // namespace detail::init

/// "HasMemRefs": every tile assigned in a function has a MemRef,
/// except the buffer-less ones by design (a tile.tpop result, or a view or
/// alias of one).
PTO_MEM_PYPTO_INLINE bool verify_has_memrefs(const Program& program, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
PTO_MEM_PYPTO_INLINE bool verify_has_memrefs(const Program& program, PassContext& ctx) {
  const OpRegistry& ops = ctx.ops ? *ctx.ops : default_registry();
  bool ok = true;
  for (const auto& f : program.functions) {
    for_each_statement(f.body, [&](const Stmt& s) {
      const auto* a = s.as<AssignStmt>();
      if (!a || !is_tile(a->var->type) || memref_ptr(a->var->type)) return;
      if (const Call* c = a->value ? a->value->as<Call>() : nullptr) {
        if (detail::init::is_cross_core_receive(c->op)) return;
        const OpSpec* spec = ops.find(c->op);
        VarPtr src = spec && spec->is_view() && !c->args.empty() ? as_var(c->args[0]) : nullptr;
        if (src && is_tile(src->type) && !memref_ptr(src->type)) return;
      } else if (VarPtr src = as_var(a->value); src && is_tile(src->type) && !memref_ptr(src->type)) {
        return;
      }
      report_error(ctx, program, s.loc, "missing-memref",
                   "Tile " + in_quotes(a->var->name) + " in function " + in_quotes(f.name) +
                       " has no MemRef after InitMemRef");
      ok = false;
    });
  }
  return ok;
}
#endif

/// The pass. Stops at the first error of a function (the function is left
/// as it was normalised) and goes on with the next one.
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program init_memref(const Program& program, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program init_memref(const Program& program, PassContext& ctx) {
  using namespace detail::init;
  Program out = program;
  for (auto& f : out.functions) {
    if (!f.body) continue;
    // A planned program read back: its pinned allocations are declarations again (planned_input.hpp).
    passes::restore_declarations(f.body, ctx.ops ? *ctx.ops : default_registry());
    Normaliser norm;
    f.body = norm.mutate_stmt(f.body);

    DeclaredAllocations declared = collect_declared_allocations(f.body, *ctx.soc);
    if (declared.error) {
      report_error(ctx, program, declared.error->loc, declared.error->code, declared.error->message);
      continue;
    }
    if (ctx.planner == Planner::ptoas) {
      bool bad = false;
      for (const auto& d : declared.declarations)
        if (d.slot_count == 1) {
          report_error(
              ctx, program, d.loc, "ptoas-single-slot",
              "A single-slot declared allocation (pl.MemRef(\"" + d.base->name +
                  "\")) is not supported under memory_planner=PTOAS, which plans single buffers itself; "
                  "declare slots (pl.MemRef(\"" +
                  d.base->name + "\", slots=2)[k]) or use the pypto or dsa_rp planner");
          bad = true;
        }
      if (bad) continue;
    }

    if (is_kernel(f.kind) && ctx.planner != Planner::ptoas && ctx.soc->configured) {
      ScratchInserter scratch(*ctx.soc);
      f.body = scratch.mutate_stmt(f.body);
    }

    MemRefBinder binder(program, f, ctx, declared);
    binder.params();
    binder.walk(f.body);
    if (binder.failed) continue;

    AllocCollector collector(declared);
    collector.collect(f);
    if (collector.conflict) {
      report_error(ctx, program, collector.conflict->first, "memref-space-conflict",
                   collector.conflict->second);
      continue;
    }
    std::vector<StmtPtr> body;
    for (const auto& a : collector.allocs)
      body.push_back(alloc(a.base, a.space, a.size, a.pinned,
                           a.space == MemorySpace::DDR ? AllocOp::tensor : AllocOp::tile, a.loc));
    const bool any_alloc = !body.empty();
    if (const auto* s = f.body->as<SeqStmts>())
      body.insert(body.end(), s->stmts.begin(), s->stmts.end());
    else
      body.push_back(f.body);
    if (any_alloc) f.body = seq(std::move(body), f.body->loc);
  }
  return out;
}
#endif

}  // namespace pto_mem::pypto
