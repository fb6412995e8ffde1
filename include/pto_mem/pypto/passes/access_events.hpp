// The access trace the generic reuse-penalty recognizer reads
// (algorithms/reuse_penalties.hpp), built from the tile IR: which op reads
// and writes which allocation, in which order, with what evidence and pipe.
//
//     a = tile.load(x, ...)      # order 0: writes alloc(a)          region 0
//     if c:
//         b = tile.exp(a)        # order 1: reads alloc(a), writes alloc(b)   region 1
//     tile.store(b, ...)         # order 2: reads alloc(b)           region 0
//
// Read from a FunctionIndex (function_index.hpp). Every assignment,
// expression statement and return takes one order number (yield, if, for
// and while take none: FunctionIndex::op_number, derived from the lifetime
// numbering by leaving out the points no op sits at). The top level is region 0; each
// if arm and each loop body opens a fresh region (loop bodies are "in a
// loop", arms inherit it). Each call in an assignment, an expression
// statement or directly in a return reads its tile arguments and writes its
// results (a tuple's extracted elements, `x = t[k]`) that live on planned
// allocations.
//
// The route (TileOpRoute, a HazardRoute model) gives the op registry's
// access evidence, promoting a whole tile.store (3 arguments, fully valid
// source) and a whole tile.assemble (same shapes, fully valid, zero
// offsets, result on the target's allocation; its target is then not
// read) to functional, and the pipe the SoC's transfer routes map the op
// to (soc/pipe_inference.hpp). An access is "whole" when its MemRef starts
// the allocation (constant offset 0), spans all of it and the tile is fully
// valid; an accessing value without a memory space poisons its allocation.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "pto_mem/algorithms/reuse_penalties.hpp"
#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/soc/pipe_inference.hpp"

namespace pto_mem::pypto::passes {

/// One call site as the route sees it.
struct TileOpSite {
  const Call* call = nullptr;
  const OpSpec* spec = nullptr;              ///< null: unregistered (unknown evidence)
  std::optional<MemorySpace> result;         ///< the unique space of the results, if any
  std::vector<MemorySpace> argument_spaces;  ///< spaces of the arguments that have one
  bool whole_transfer = false;               ///< a whole store / whole assemble (promoted to functional)
};

/// HazardRoute over tile-IR call sites: evidence from the op registry, pipe
/// from the SoC's transfer routes.
struct TileOpRoute {
  using pipe_type = Pipe;
  const SocPolicy* soc = nullptr;

  [[nodiscard]] AccessEvidence evidence(const TileOpSite& s) const {
    if (s.whole_transfer) return AccessEvidence::functional;
    return s.spec ? s.spec->evidence : AccessEvidence::unknown;
  }
  [[nodiscard]] std::optional<Pipe> pipe(const TileOpSite& s) const {
    if (!soc || !s.call) return std::nullopt;
    return infer_pipe(s.spec, s.call->op, s.result, s.argument_spaces, *soc);
  }
};

static_assert(HazardRoute<TileOpRoute, TileOpSite>);

class AccessTrace {
 public:
  /// `allocation_of` maps each planned base to its allocation index,
  /// `allocation_bytes` gives each allocation's full planned size; `index`
  /// was built from `f` as it is now.
  AccessTrace(const FunctionIndex& index, const Function& f, const PassContext& ctx,
              const PointerMap<const Var*, std::size_t>& allocation_of,
              const std::vector<Addr>& allocation_bytes)
      : ctx_(ctx), alloc_(allocation_of), bytes_(allocation_bytes), route_{ctx.soc} {
    assert(index.built_from(f));
    (void)f;
    run(index);
  }
  /// Same, building the index.
  AccessTrace(const Function& f, const PassContext& ctx,
              const PointerMap<const Var*, std::size_t>& allocation_of,
              const std::vector<Addr>& allocation_bytes)
      : ctx_(ctx), alloc_(allocation_of), bytes_(allocation_bytes), route_{ctx.soc} {
    run(FunctionIndex(f));
  }

  [[nodiscard]] const std::vector<AccessEvent<Pipe>>& events() const noexcept { return events_; }

 private:
  void run(const FunctionIndex& index) {
    const auto& points = index.points();
    for (const auto& p : points) {  // the elements extracted from tuples first (tuples are few)
      const auto* a = p.stmt->as<AssignStmt>();
      const auto* sub = a && a->value ? a->value->as<SubscriptExpr>() : nullptr;
      if (!sub) continue;
      auto t = as_var(sub->value);
      auto k = as_const_int(sub->index);
      if (!t || !k || *k < 0 || !t->type || !t->type->is<TupleType>()) continue;
      auto& elems = elements_[t.get()];
      if (elems.size() <= static_cast<std::size_t>(*k)) elems.resize(static_cast<std::size_t>(*k) + 1);
      elems[static_cast<std::size_t>(*k)] = a->var;
    }
    for (std::size_t t = 0; t < points.size(); ++t) {
      const auto& p = points[t];
      if (p.kind != FunctionIndex::PointKind::op) continue;
      const std::uint64_t at = index.op_number(static_cast<Tick>(t));
      region_ = p.region;
      in_loop_ = p.in_loop;
      if (const auto* a = p.stmt->as<AssignStmt>()) {
        if (const Call* c = call_of(a->value)) site(*c, a->var, at);
      } else if (const auto* e = p.stmt->as<EvalStmt>()) {
        if (const Call* c = call_of(e->value)) site(*c, nullptr, at);
      } else if (const auto* r = p.stmt->as<ReturnStmt>()) {
        for (const auto& v : r->values)
          if (const Call* c = call_of(v)) site(*c, nullptr, at);
      }
    }
  }

  std::optional<std::size_t> allocation(const VarPtr& v) const {
    if (!tile_of(v)) return std::nullopt;
    const Var* b = var_base(v);
    const std::size_t* a = b ? alloc_.find(b) : nullptr;
    if (!a) return std::nullopt;
    return *a;
  }

  OperandAccess access(const VarPtr& v, std::size_t a) const {
    const TileType* t = tile_of(v);
    const MemRefPtr m = t->memref;
    const bool whole = m->const_offset() == 0 && m->size == bytes_[a] && fully_valid(*t);
    return OperandAccess{a, whole, t->space.has_value()};
  }

  static void spaces_of(const TypePtr& t, std::vector<MemorySpace>& out) {
    if (!t) return;
    if (const auto* tup = t->as<TupleType>()) {
      for (const auto& e : tup->elems) spaces_of(e, out);
      return;
    }
    if (auto s = memory_space_of(t)) out.push_back(*s);
  }

  /// tile.assemble(target, source, offsets) writing all of target.
  bool whole_assemble(const Call& c, const VarPtr& result) const {
    if (c.op != "tile.assemble" || c.args.size() < 3 || !result) return false;
    auto target = arg_var(c, 0), source = arg_var(c, 1);
    const TileType *t = tile_of(target), *s = tile_of(source), *r = tile_of(result);
    if (!t || !s || !r || !t->memref || !s->memref || !r->memref) return false;
    auto same_shape = [](const TileType& x, const TileType& y) {
      if (x.shape.size() != y.shape.size()) return false;
      for (std::size_t i = 0; i < x.shape.size(); ++i)
        if (!same_expr(x.shape[i], y.shape[i])) return false;
      return true;
    };
    if (!same_shape(*t, *s) || !same_shape(*t, *r) || !fully_valid(*t) || !fully_valid(*s) ||
        !fully_valid(*r))
      return false;
    const auto* offsets = as_sequence(c.args[2]);
    if (!offsets) return false;
    for (const auto& o : *offsets)
      if (as_const_int(o) != 0) return false;
    return r->memref->base == t->memref->base;
  }

  void site(const Call& c, const VarPtr& lhs, std::uint64_t at) {
    // The site's vectors are the walk's own, cleared per site (no allocation per statement).
    std::vector<VarPtr>& results = results_;
    results.clear();
    if (lhs) {
      if (lhs->type && lhs->type->is<TupleType>()) {
        if (auto it = elements_.find(lhs.get()); it != elements_.end())
          for (const auto& e : it->second)
            if (e) results.push_back(e);
      } else {
        results.push_back(lhs);
      }
    }
    TileOpSite& op = op_;
    op.argument_spaces.clear();
    op.result.reset();
    op.call = &c;
    op.spec = spec_of(ctx_, c);
    const bool assemble =
        whole_assemble(c, results.size() == 1 && lhs && !lhs->type->is<TupleType>() ? lhs : nullptr);
    const bool store = c.op == "tile.store" && c.args.size() == 3 && tile_of(arg_var(c, 0)) &&
                       fully_valid(*tile_of(arg_var(c, 0)));
    op.whole_transfer = assemble || store;

    OpAccesses& where = where_;
    where.reads.clear();
    where.writes.clear();
    where.order = at;
    where.region = region_;
    where.in_loop = in_loop_;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
      auto v = as_var(c.args[k]);
      if (!v) continue;
      if (auto s = memory_space_of(v->type)) op.argument_spaces.push_back(*s);
      if (k == 0 && assemble) continue;  // overwritten whole: not read
      if (auto a = allocation(v)) where.reads.push_back(access(v, *a));
    }
    for (const auto& r : results)
      if (auto a = allocation(r)) where.writes.push_back(access(r, *a));
    if (where.reads.empty() && where.writes.empty()) return;
    std::vector<MemorySpace>& result_spaces = result_spaces_;
    result_spaces.clear();
    if (lhs) spaces_of(lhs->type, result_spaces);
    if (!result_spaces.empty() && std::all_of(result_spaces.begin(), result_spaces.end(),
                                              [&](MemorySpace s) { return s == result_spaces[0]; }))
      op.result = result_spaces[0];
    record_op_accesses(route_, op, where, events_);
  }

  const PassContext& ctx_;
  const PointerMap<const Var*, std::size_t>& alloc_;
  const std::vector<Addr>& bytes_;
  TileOpRoute route_;
  std::unordered_map<const Var*, std::vector<VarPtr>> elements_;
  std::vector<AccessEvent<Pipe>> events_;
  // Reused by every site.
  std::vector<VarPtr> results_;
  TileOpSite op_;
  OpAccesses where_;
  std::vector<MemorySpace> result_spaces_;
  std::uint32_t region_ = 0;
  bool in_loop_ = false;
};

}  // namespace pto_mem::pypto::passes
