// InferTileMemorySpace: give every tile of a kernel
// a memory space, insert a tile.move wherever a constrained op input is in a
// space the op does not accept, and pin retargetable producers (tile.load,
// tile.create) to the space their result was given.
//
// Example (SoC a2a3). A matmul reads its operands in Left and Right, but the
// kernel loaded them into Mat:
//
//     a: Tile[[64, 64], BF16] = tile.load(a_ddr, [0, 0], [64, 64], target_memory=Mat)
//     b: Tile[[64, 64], BF16] = tile.load(b_ddr, [0, 0], [64, 64], target_memory=Mat)
//     c: Tile[[64, 64], FP32] = tile.matmul(a, b)
//
// becomes
//
//     a: Tile[[64, 64], BF16, Mat] = tile.load(a_ddr, [0, 0], [64, 64], target_memory=Mat)
//     b: Tile[[64, 64], BF16, Mat] = tile.load(b_ddr, [0, 0], [64, 64], target_memory=Mat)
//     a_Left: Tile[[64, 64], BF16, Left] = tile.move(a, target_memory=Left)
//     b_Right: Tile[[64, 64], BF16, Right] = tile.move(b, target_memory=Right)
//     c: Tile[[64, 64], FP32, Acc] = tile.matmul(a_Left, b_Right)
//
// The rule: every tile gets one memory space, the one its op's output rule
// gives (a matmul writes Acc); a load or create without an explicit space
// takes the space its consumers ask for when it can write there (Vec or
// Mat), else Vec.
// An operand in a space its op does not accept is copied into the op's
// canonical space by one tile.move, placed just before the first consumer
// that needs it and shared by the later ones in the same block.
//
// Per kernel function (InCore, AIC, AIV — the library treats all
// kernel kinds alike), in phases:
//   0. backward demand: a constrained input wants its canonical space, and the
//      want flows back through inherit-input view chains (one reverse sweep);
//   1. forward resolution by the op table, loop iter-arg / return-var
//      propagation (a yield overrides init, iter-arg and return var: an
//      accumulator loop becomes Acc) and if-phi merging;
//   2. the moves needed: (variable, canonical space) for every constrained
//      plain-variable input in a wrong space (iter-args never get moves) —
//      decided at each consumer while rewriting;
//   3. rewrite: retype variables in place, insert each move right before its
//      first consumer, scoped per block (a move made in a `then` arm never
//      leaks into `else`; one made before an `if` is reused inside it),
//      substitute the consumers' arguments, rewrite retargetable kwargs.
//   4. loop-invariant Mat residency: a compiler-marked GM->Mat
//      bridge chain that provably does not change across a loop moves to the
//      loop's preheader (passes/mat_residency.hpp).
// Moves carry only `target_memory` (the layout kwargs are
// informational and not attached).
//
// Like every pass it refines the variables' types in place (docs/pypto-ir.md:
// `Var` is the one mutable node); clone the program first to keep the input.
// verify_tile_memory_inferred is the "TileMemoryInferred" verifier.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/passes/mat_residency.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pass_diagnostics.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_call.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"

namespace pto_mem::pypto {

namespace detail::infer {

/// A (variable, space) pair: one needed or materialised move.
struct MoveKey {
  const Var* var = nullptr;
  MemorySpace space = MemorySpace::Vec;
  friend bool operator==(const MoveKey&, const MoveKey&) = default;
};
struct MoveKeyHash {
  std::size_t operator()(const MoveKey& k) const noexcept {
    return std::hash<const Var*>{}(k.var) * 31u + static_cast<std::size_t>(k.space);
  }
};
using SpaceMap = PointerMap<const Var*, MemorySpace>;
using VarSet = PointerSet<const Var*>;

/// A tile view without the layout triple: the implicit layout of its (new) space.
[[nodiscard]] inline TileView without_layout(const TileView& v) {
  TileView out;
  for (const auto& f : v.fields)
    if (f.name != "blayout" && f.name != "slayout" && f.name != "fractal") out.fields.push_back(f);
  return out;
}

/// Demand merge rule: the first demand wins, except that a Vec demand
/// gives way to any other.
inline void merge_demand(SpaceMap& demand, const Var* v, MemorySpace s) {
  auto [it, inserted] = demand.try_emplace(v, s);
  if (!inserted && *it == MemorySpace::Vec && s != MemorySpace::Vec) *it = s;
}

/// Phase 0: demands of constrained inputs, propagated back through
/// inherit-input edges (one reverse sweep: SSA reaches the fixed point).
[[nodiscard]] inline SpaceMap collect_demand(const StmtPtr& body, const OpRegistry& ops) {
  SpaceMap demand;
  VarSet iter_args;
  std::vector<std::pair<const Var*, const Var*>> edges;  // dst -> src, program order
  for_each_statement(body, [&](const Stmt& s) {
    if (const auto* f = s.as<ForStmt>())
      for (const auto& ia : f->iter_args) iter_args.insert(ia.var.get());
    if (const auto* w = s.as<WhileStmt>())
      for (const auto& ia : w->iter_args) iter_args.insert(ia.var.get());
    const Call* c = stmt_call(s);
    const OpSpec* spec = c ? ops.find(c->op) : nullptr;
    if (!spec) return;
    if (spec->has_input_constraints())
      for (std::size_t i = 0; i < c->args.size(); ++i) {
        auto canon = spec->canonical_space(i);
        const auto* v = c->args[i]->as<VarExpr>();
        if (canon && v && !iter_args.contains(v->var.get())) merge_demand(demand, v->var.get(), *canon);
      }
    if (const auto* a = s.as<AssignStmt>(); a && spec->is_inherit_input())
      for (const auto& arg : c->args)
        if (VarPtr v = as_var(arg); v && (is_tile(v->type) || is_tensor(v->type))) {
          edges.emplace_back(a->var.get(), v.get());
          break;
        }
  });
  for (auto it = edges.rbegin(); it != edges.rend(); ++it)
    if (const MemorySpace* d = demand.find(it->first)) merge_demand(demand, it->second, *d);
  return demand;
}

/// Phase 1: forward resolution of every tile variable's space.
class SpaceResolver {
 public:
  SpaceResolver(const OpRegistry& ops, const SpaceMap& demand) : ops_(ops), demand_(demand) {}
  SpaceMap space;
  PointerMap<const Var*, VarPtr> vars;  ///< the variables `space` refers to

  void set(const VarPtr& v, MemorySpace s) {
    space.set(v.get(), s);
    vars.try_emplace(v.get(), v);
  }

  /// Assignments, loops and branches in program order (a loop or branch
  /// handler walks its bodies itself).
  void walk(const StmtPtr& s) { Walk{*this}.visit_stmt(s); }

 private:
  struct Walk : IRWalker<Walk> {
    SpaceResolver& b;
    explicit Walk(SpaceResolver& x) : b(x) {}
    void visit_stmt(const StmtPtr& s) { IRWalker<Walk>::visit_stmt(s); }
    void visit_expr(const ExprPtr&) {}
    void visit_assign(const AssignStmt& s) { b.assign(s); }
    void visit_for(const ForStmt& f) { b.loop(f.iter_args, f.body, f.return_vars); }
    void visit_while(const WhileStmt& w) { b.loop(w.iter_args, w.body, w.return_vars); }
    void visit_if(const IfStmt& i) { b.branch(i); }
  };

 public:
  /// The recorded space of `v`, else its annotation.
  [[nodiscard]] std::optional<MemorySpace> known_or_annotated(const VarPtr& v) const {
    if (!v) return std::nullopt;
    if (const MemorySpace* s = space.find(v.get())) return *s;
    if (const auto* t = as_tile(v->type)) return t->space;
    return std::nullopt;
  }

 private:
  void assign(const AssignStmt& s) {
    if (!is_tile(s.var->type)) return;
    if (const Call* c = s.value ? s.value->as<Call>() : nullptr) {
      set(s.var, resolve(*c, *s.var));
    } else if (VarPtr src = as_var(s.value)) {
      if (auto sp = known_or_annotated(src)) set(s.var, *sp);
    }
  }

  /// The space the result of `c` gets from its op's output rule.
  [[nodiscard]] MemorySpace resolve(const Call& c, const Var& lhs) const {
    using enum MemorySpace;
    if (!starts_with(c.op, "tile.")) return Vec;  // user functions, pld.*, ...
    const OpSpec* spec = ops_.find(c.op);
    if (!spec) return starts_with(c.op, "tile.matmul_mx") ? Acc : Vec;
    if (spec->output == OutputSpace::none || spec->output == OutputSpace::call_type) {
      const auto* t = as_tile(lhs.type);
      return t && t->space && *t->space != DDR ? *t->space : Vec;
    }
    if (auto s = spec->resolve_output(c)) return *s;
    if (spec->is_retargetable()) {
      if (const MemorySpace* d = demand_.find(&lhs); d && (*d == Vec || *d == Mat)) return *d;
    }
    return inherited(c).value_or(Vec);
  }

  /// The space of the first argument whose space is known (iter-args included).
  [[nodiscard]] std::optional<MemorySpace> inherited(const Call& c) const {
    for (const auto& a : c.args)
      if (VarPtr v = as_var(a))
        if (const MemorySpace* s = space.find(v.get())) return *s;
    return std::nullopt;
  }

  void loop(const std::vector<IterArg>& iter_args, const StmtPtr& body,
            const std::vector<VarPtr>& return_vars) {
    for (const auto& ia : iter_args) {
      if (!is_tile(ia.var->type)) continue;
      if (auto s = known_or_annotated(as_var(ia.init))) set(ia.var, *s);
    }
    walk(body);
    const YieldStmt* y = terminating_yield(body);
    for (std::size_t i = 0; i < return_vars.size(); ++i) {
      if (!is_tile(return_vars[i]->type) || !y || i >= y->values.size()) continue;
      auto s = known_or_annotated(as_var(y->values[i]));
      if (!s) continue;
      // The yield overrides return var, iter-arg and init (an accumulator
      // loop turns its init Acc even when the init was made elsewhere).
      set(return_vars[i], *s);
      if (i < iter_args.size()) {
        set(iter_args[i].var, *s);
        if (VarPtr init = as_var(iter_args[i].init); init && is_tile(init->type)) set(init, *s);
      }
    }
  }

  void branch(const IfStmt& s) {
    walk(s.then_body);
    walk(s.else_body);
    const YieldStmt* ty = terminating_yield(s.then_body);
    const YieldStmt* ey = terminating_yield(s.else_body);
    for (std::size_t i = 0; i < s.return_vars.size(); ++i) {
      const VarPtr& phi = s.return_vars[i];
      if (!is_tile(phi->type)) continue;
      auto t = ty && i < ty->values.size() ? known_or_annotated(as_var(ty->values[i])) : std::nullopt;
      auto e = ey && i < ey->values.size() ? known_or_annotated(as_var(ey->values[i])) : std::nullopt;
      if (t && e && *t != *e) continue;  // left as written: no move is invented
      if (auto r = t ? t : e ? e : as_tile(phi->type)->space) set(phi, *r);
    }
  }

  const OpRegistry& ops_;
  const SpaceMap& demand_;
};

/// Phases 2 and 3 (statements): a constrained plain-variable input whose
/// known space is not allowed needs the move (variable, canonical space)
/// (phase 2, decided at each consumer); the move is made right before its
/// first consumer, scoped per block; consumers' arguments are substituted;
/// retargetable kwargs are rewritten. Expressions are not walked: only
/// consumer statements change.
class MoveInserter : public IRMutator {
 public:
  MoveInserter(const OpRegistry& ops, const SpaceMap& space, std::string function,
               std::vector<InsertedMove>& moves)
      : ops_(ops), space_(space), function_(std::move(function)), moves_(moves) {}

  ExprPtr mutate_expr(const ExprPtr& e) override { return e; }

  StmtPtr mutate_seq(const SeqStmts& s, const StmtPtr& self) override {
    scopes_.emplace_back();
    StmtPtr r = IRMutator::mutate_seq(s, self);
    scopes_.pop_back();
    return r;
  }
  void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) override {
    if (child && (child->is<AssignStmt>() || child->is<EvalStmt>()))
      rewrite(child, out);
    else
      IRMutator::mutate_seq_child(child, out);
  }
  /// A consumer that is a whole body on its own (not in a sequence) is a
  /// block of one statement: its moves go into a new sequence around it.
  StmtPtr mutate_stmt(const StmtPtr& s) override {
    if (!s || !(s->is<AssignStmt>() || s->is<EvalStmt>())) return IRMutator::mutate_stmt(s);
    scopes_.emplace_back();
    std::vector<StmtPtr> out;
    rewrite(s, out);
    scopes_.pop_back();
    return out.size() == 1 ? out.front() : seq(std::move(out), s->loc);
  }
  StmtPtr mutate_for(const ForStmt& s, const StmtPtr& self) override {
    for (const auto& ia : s.iter_args) iter_args_.insert(ia.var.get());
    return IRMutator::mutate_for(s, self);
  }
  StmtPtr mutate_while(const WhileStmt& s, const StmtPtr& self) override {
    for (const auto& ia : s.iter_args) iter_args_.insert(ia.var.get());
    return IRMutator::mutate_while(s, self);
  }

 private:
  [[nodiscard]] VarPtr materialised(const MoveKey& k) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto m = it->find(k); m != it->end()) return m->second;
    return nullptr;
  }

  void rewrite(const StmtPtr& s, std::vector<StmtPtr>& out) {
    const Call* c = stmt_call(*s);
    const OpSpec* spec = c ? ops_.find(c->op) : nullptr;
    if (!c || !spec) {
      out.push_back(s);
      return;
    }
    // Arguments and kwargs are copied only once something changes: most
    // statements stay as they are.
    std::optional<std::vector<ExprPtr>> args;
    if (spec->has_input_constraints()) {
      for (std::size_t i = 0; i < c->args.size(); ++i) {
        auto canon = spec->canonical_space(i);
        const auto* ve = c->args[i]->as<VarExpr>();
        if (!canon || !ve || iter_args_.contains(ve->var.get())) continue;
        const MemorySpace* sp = space_.find(ve->var.get());
        if (!sp || spec->accepts(i, *sp)) continue;
        const MoveKey key{ve->var.get(), *canon};
        VarPtr moved = materialised(key);
        if (!moved) {
          moved = make_move(ve->var, *canon, s->loc, out);
          if (!scopes_.empty()) scopes_.back().emplace(key, moved);
        }
        if (!args) args = c->args;
        (*args)[i] = var_ref(moved);
      }
    }
    std::optional<std::vector<Kwarg>> kwargs;
    if (const auto* a = s->as<AssignStmt>(); a && spec->is_retargetable()) {
      if (const MemorySpace* sp = space_.find(a->var.get())) {
        const ExprPtr* k = c->kwarg("target_memory");
        if (!k || as_space(*k) != *sp) {
          kwargs = c->kwargs;
          set_target_memory(*kwargs, *sp);
          if (const auto* t = as_tile(a->var->type))
            a->var->type = with_view(a->var->type, without_layout(t->view));
        }
      }
    }
    if (!args && !kwargs) {
      out.push_back(s);
      return;
    }
    ExprPtr value = call(c->op, args ? std::move(*args) : c->args, kwargs ? std::move(*kwargs) : c->kwargs);
    if (const auto* a = s->as<AssignStmt>())
      out.push_back(assign(a->var, std::move(value), s->loc));
    else
      out.push_back(eval(std::move(value), s->loc));
  }

  static void set_target_memory(std::vector<Kwarg>& kwargs, MemorySpace s) {
    for (auto& kw : kwargs)
      if (kw.name == "target_memory") {
        kw.value = space_imm(s);
        return;
      }
    kwargs.push_back(Kwarg{"target_memory", space_imm(s)});
  }

  /// `<v>_<Space> = tile.move(v, target_memory=<Space>)`, typed like v in the
  /// new space with the layout of PyPTO's move rule (moved_view, types.hpp).
  /// An Acc -> Vec move lands un-fractalised, so, as PyPTO does, it says
  /// `blayout=row_major, slayout=none_box` on the call.
  VarPtr make_move(const VarPtr& v, MemorySpace target, Loc loc, std::vector<StmtPtr>& out) {
    const auto* src = as_tile(v->type);
    std::vector<Kwarg> kwargs{Kwarg{"target_memory", space_imm(target)}};
    if (src && src->space == MemorySpace::Acc && target == MemorySpace::Vec) {
      kwargs.push_back(Kwarg{"blayout", enum_imm("TileLayout", "row_major")});
      kwargs.push_back(Kwarg{"slayout", enum_imm("TileLayout", "none_box")});
    }
    const ExprPtr* bk = kwargs.size() > 1 ? &kwargs[1].value : nullptr;
    const ExprPtr* sk = kwargs.size() > 2 ? &kwargs[2].value : nullptr;
    TypePtr type = src ? tile_type(src->shape, src->dtype, target, nullptr,
                                   moved_view(src->view, src->space, target, bk, sk))
                       : v->type;
    VarPtr m = make_var(v->name + "_" + std::string(to_string(target)), std::move(type), loc);
    out.push_back(assign(m, call("tile.move", {var_ref(v)}, std::move(kwargs)), loc));
    moves_.push_back(InsertedMove{function_, m->name, v->name, target, loc});
    return m;
  }

  const OpRegistry& ops_;
  const SpaceMap& space_;
  std::string function_;
  std::vector<InsertedMove>& moves_;
  std::vector<std::unordered_map<MoveKey, VarPtr, MoveKeyHash>> scopes_;
  VarSet iter_args_;
};

/// Phase 3.1: every variable with a recorded space gets it; a variable whose
/// annotated space changes loses its layout triple (the new space's implicit
/// layout applies); MemRefs (declared allocations) are kept.
inline void retype(const SpaceResolver& resolved) {
  resolved.vars.for_each([&](const Var* key, const VarPtr& var) {
    const MemorySpace s = *resolved.space.find(key);
    const auto* t = as_tile(var->type);
    if (!t || t->space == s) return;
    TileView view = t->space ? without_layout(t->view) : t->view;
    var->type = tile_type(t->shape, t->dtype, s, t->memref, std::move(view));
  });
}

}  // namespace detail::infer

/// "TileMemoryInferred": every tile a kernel defines has a space, and
/// every constrained input that is a variable with a space is in an allowed
/// one. Adds an error per violation; returns whether none was found.
///
/// PyPTO's check names assignment targets only; this also names if-phis, loop
/// return vars and iter-args left without a space (arms that disagree and
/// nothing annotated), which InitMemRef would otherwise silently place in
/// the then-value's space (the pass's output contract: every tile has a space).
PTO_MEM_PYPTO_INLINE bool verify_tile_memory_inferred(const Program& program, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
PTO_MEM_PYPTO_INLINE bool verify_tile_memory_inferred(const Program& program, PassContext& ctx) {
  const OpRegistry& ops = ctx.ops ? *ctx.ops : default_registry();
  bool ok = true;
  for (const auto& f : program.functions) {
    if (!is_kernel(f.kind)) continue;
    auto unset = [&](const VarPtr& v, Loc at) {
      if (!is_tile(v->type) || as_tile(v->type)->space) return;
      report_error(ctx, program, v->loc.known() ? v->loc : at, "memory-space-unset",
                   "TileType variable " + in_quotes(v->name) + " has no memory_space set in function " +
                       in_quotes(f.name) + "; annotate its space or produce it with an op that decides one");
      ok = false;
    };
    for_each_statement(f.body, [&](const Stmt& s) {
      if (const auto* a = s.as<AssignStmt>()) unset(a->var, s.loc);
      if (const auto* l = s.as<ForStmt>()) {
        for (const auto& ia : l->iter_args) unset(ia.var, s.loc);
        for (const auto& rv : l->return_vars) unset(rv, s.loc);
      }
      if (const auto* w = s.as<WhileStmt>()) {
        for (const auto& ia : w->iter_args) unset(ia.var, s.loc);
        for (const auto& rv : w->return_vars) unset(rv, s.loc);
      }
      if (const auto* i = s.as<IfStmt>())
        for (const auto& rv : i->return_vars) unset(rv, s.loc);
      const Call* c = stmt_call(s);
      const OpSpec* spec = c ? ops.find(c->op) : nullptr;
      if (!spec) return;
      for (std::size_t i = 0; i < c->args.size(); ++i) {
        const auto* ve =
            c->args[i] ? c->args[i]->as<VarExpr>() : nullptr;  // read, not copied: no count per argument
        const Var* v = ve ? ve->var.get() : nullptr;
        const auto* t = v ? as_tile(v->type) : nullptr;
        if (!t || !t->space || spec->accepts(i, *t->space)) continue;
        std::string allowed;
        for (auto a : spec->allowed_spaces(i))
          allowed += (allowed.empty() ? "" : "/") + std::string(to_string(a));
        report_error(ctx, program, s.loc, "memory-space-mismatch",
                     "Op " + in_quotes(c->op) + " input " + std::to_string(i) + " (" + in_quotes(v->name) +
                         ") requires " + allowed + " but is in " + std::string(to_string(*t->space)));
        ok = false;
      }
    });
  }
  return ok;
}
#endif

/// The pass. Non-kernel functions are returned unchanged; a kernel with a
/// Tile-typed parameter is rejected (an error per such parameter).
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program infer_tile_memory_space(const Program& program, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program infer_tile_memory_space(const Program& program, PassContext& ctx) {
  using namespace detail::infer;
  const OpRegistry& ops = ctx.ops ? *ctx.ops : default_registry();
  Program out = program;
  for (auto& f : out.functions) {
    if (!is_kernel(f.kind)) continue;
    bool tile_param = false;
    for (const auto& p : f.params)
      if (is_tile(p.var->type)) {
        report_error(ctx, program, p.var->loc.known() ? p.var->loc : f.loc, "tile-parameter",
                     "Parameter " + in_quotes(p.var->name) + " of function " + in_quotes(f.name) +
                         " has TileType, but " + std::string(to_string(f.kind)) +
                         " parameters must be TensorType; pass a Tensor and tile.load it inside the kernel");
        tile_param = true;
      }
    if (tile_param || !f.body) continue;

    const SpaceMap demand = collect_demand(f.body, ops);
    SpaceResolver resolver(ops, demand);
    {  // about one tile per top-level statement: no regrowth on the way
      const auto* top = f.body->as<SeqStmts>();
      const std::size_t expected = f.params.size() + (top ? top->stmts.size() : 1);
      resolver.space.reserve(expected);
      resolver.vars.reserve(expected);
    }
    resolver.walk(f.body);
    retype(resolver);
    MoveInserter inserter(ops, resolver.space, f.name, ctx.moves);
    f.body = inserter.mutate_stmt(f.body);
    f.body = hoist_loop_invariant_mat(program, f, ctx);  // phase 4
    f.body = strip_bridge_markers(f.body);               // the marker is consumed here
  }
  return out;
}
#endif

}  // namespace pto_mem::pypto
