// Peeled accumulator if-phi coalescing (a corner case).
//
// A peeled accumulator loop yields, per phi slot, a fresh seed in one arm
// (`seed = tile.matmul(...)`) and an in-place accumulation in the other
// (`acc = tile.matmul_acc(prev, ...)`, on prev's buffer). The two values
// overlap in time (prev is live across the if), so lifetime packing cannot
// join them, and YieldFixup may not copy Acc to Acc. Since the arms are
// exclusive, the seed may simply be written into the accumulator's buffer.
//
// Per phi slot of an if with both arms: the yielded values are plain
// variables, exactly one is an in-place accumulator (an output_reuses_input
// result on its input's allocation) in Acc, the other (the seed) is on a
// different allocation, is defined by a call inside its own arm, and the
// accumulator's buffer is neither read nor written after the seed in that
// arm, and the accumulator's reused input has no independent read after the
// if (PyPTO's MaterializeSemanticAliases design: on the path where the seed runs, the
// input's bytes would hold the seed — a read of the input after the if, or
// on a later iteration of a loop the input was defined outside of, would see
// it; observation.hpp). Then the seed takes the accumulator's MemRef,
// ignoring global liveness. Op legality (the seed's op must produce Acc, carry no other
// target_memory, and not read the accumulator through a forbidden operand)
// must hold: otherwise "cannot coalesce L0C accumulator across a peeled
// if-phi" (internal error). Slots that do not match are left to YieldFixup.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/def_sites.hpp"
#include "pto_mem/pypto/passes/observation.hpp"

namespace pto_mem::pypto::passes {

/// Returns the number of seeds moved; on an internal error adds it to
/// ctx.diagnostics. Identity chains of the moved seeds are not re-derived
/// here (normalise afterwards).
inline std::size_t coalesce_accumulator_phis(const Function& f, const Program& p, PassContext& ctx,
                                             std::string_view pass_name) {
  // Built when the first slot with an Acc value needs them (most functions
  // have none).
  std::optional<DefSites> defs_built;
  PointerSet<const Var*> iter_args;
  std::vector<DerivedValue> relations;
  auto analyse = [&] {
    if (defs_built) return;
    defs_built.emplace(ctx.indexes.of(f));
    iter_args = iter_arg_set(f);
    relations = capture_identity_relations(f, ctx);
  };
  std::optional<UseIndex> uses;  // not const: it follows set_memref (MemRefObserver)
  std::optional<ValueChains> chains;
  LaterTouches touches;
  std::size_t moved = 0;

  auto plain = [&](const YieldStmt* y, std::size_t k) -> VarPtr {
    if (!y || k >= y->values.size()) return nullptr;
    auto v = as_var(y->values[k]);
    return is_planned_tile(v) && !iter_args.contains(v.get()) ? v : nullptr;
  };
  auto in_place_accumulator = [&](const VarPtr& v) {
    const DefSite* d = defs_built->find(v.get());
    if (!d || d->kind != DefSite::Kind::assign) return false;
    const Call* c = call_of(d->stmt->as<AssignStmt>()->value);
    const OpSpec* spec = c ? spec_of(ctx, *c) : nullptr;
    if (!spec || !spec->reuses_input) return false;
    auto src = arg_var(*c, *spec->reuses_input);
    return src && var_base(src) && var_base(src) == var_base(v);
  };

  bool failed = false;
  for_each_statement(f.body, [&](const Stmt& s) {
    const auto* i = s.as<IfStmt>();
    if (failed || !i || !i->else_body || i->return_vars.empty()) return;
    const YieldStmt* ty = terminating_yield(i->then_body);
    const YieldStmt* ey = terminating_yield(i->else_body);
    for (std::size_t k = 0; k < i->return_vars.size() && !failed; ++k) {
      // The accumulator is one of the two values, in Acc: nothing else can match.
      auto acc_value = [&](const YieldStmt* y) {
        return y && k < y->values.size() && var_space(as_var(y->values[k])) == MemorySpace::Acc;
      };
      if (!acc_value(ty) && !acc_value(ey)) continue;
      analyse();
      const DefSites& defs = *defs_built;
      const VarPtr t = plain(ty, k), e = plain(ey, k);
      if (!t || !e) continue;
      const bool t_acc = in_place_accumulator(t), e_acc = in_place_accumulator(e);
      if (t_acc == e_acc) continue;
      const VarPtr acc = t_acc ? t : e, seed = t_acc ? e : t;
      const std::size_t seed_arm = t_acc ? 1 : 0;
      if (var_space(acc) != MemorySpace::Acc || var_base(seed) == var_base(acc)) continue;
      const DefSite* d = defs.find(seed.get());
      if (!d || d->kind != DefSite::Kind::assign) continue;
      const Call* c = call_of(d->stmt->as<AssignStmt>()->value);
      if (!c) continue;
      bool inside = false;
      for (const auto& e2 : d->path) inside |= e2.stmt == i && e2.child == seed_arm;
      if (!inside) continue;
      if (touches.live_after(d->path, var_base(acc), i)) continue;
      {  // the reused input may not be read independently after the if
        const Call* ac = call_of(defs.find(acc.get())->stmt->as<AssignStmt>()->value);
        const VarPtr src = arg_var(*ac, *spec_of(ctx, *ac)->reuses_input);
        if (!uses) uses.emplace(ctx.indexes.of(f)), chains.emplace(f, relations);
        const auto* at = uses->def(i->return_vars[k].get());
        if (!at || uses->observed(i, at->path, *var_memref(src),
                                  chains->of({i->return_vars[k].get(), acc.get()}), false))
          continue;
      }

      // The preconditions hold: the seed must be able to write Acc in place.
      const OpSpec* spec = spec_of(ctx, *c);
      std::string why;
      if (!spec) why = "its op '" + c->op + "' is not registered";
      if (why.empty())
        if (const ExprPtr* kw = c->kwarg("target_memory"); kw && as_space(*kw) != MemorySpace::Acc)
          why = "its target_memory is not Acc";
      if (why.empty())
        if (auto r = spec->resolve_output(*c); r && *r != MemorySpace::Acc)
          why = "'" + c->op + "' produces " + std::string(to_string(*r)) + ", not Acc";
      if (why.empty())
        for (std::size_t a : forbidden_operands(*spec, *c, seed, ctx))
          if (auto v = arg_var(*c, a); v && var_base(v) == var_base(acc))
            why = "'" + c->op + "' may not write the accumulator it reads ('" + v->name + "')";
      if (!why.empty()) {
        ctx.diagnostics.push_back(pass_error(
            p, seed->loc,
            std::string(pass_name) + " cannot coalesce L0C accumulator across a peeled if-phi in function '" +
                f.name + "': the seed '" + seed->name +
                "' cannot be written into the buffer of accumulator '" + acc->name + "' because " + why,
            code::internal));
        failed = true;
        return;
      }
      set_memref(seed, var_memref(acc), MemorySpace::Acc);
      touches = LaterTouches{};  // the tables read the types this just changed
      ++moved;
    }
  });
  return moved;
}

}  // namespace pto_mem::pypto::passes
