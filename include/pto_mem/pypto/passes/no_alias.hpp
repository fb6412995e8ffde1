// Which allocations may never share bytes whatever their lifetimes (an op's
// output and the inputs it may not overwrite, and the Ascend910B hazard
// pairs). MemoryReuse turns these into forbidden
// pairs of the generic reuse, DSA-RP into typed separations.
//
//  * No-alias: an op that reads an operand while writing its output must not
//    run in place: the output's base and the base of every forbidden operand
//    (all of them for a not-in-place-safe op, A5 tile.prelu only its first
//    two, the forbid_output_alias set, the input of a widening tile.cast). A
//    tuple-returning call hands its forbidden operands to every extracted
//    element (`x = t[k]`).
//  * Target hazard [CORNER]: on Ascend910B, in a split-mode AIV function, a
//    writer that reads a tile.tpop_from_aic value must not land on a
//    load-derived tile (a tile.load or a view chain of one) whose last read
//    is the writer's own statement.
//
// Pairs are of bases (allocation identities); a pair inside one base is
// dropped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/core/problem.hpp"
#include "pto_mem/pypto/passes/lifetimes.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"

namespace pto_mem::pypto::passes {

struct BasePair {
  const Var* a = nullptr;
  const Var* b = nullptr;
  std::uint8_t reasons = reason_semantic_no_alias;  ///< SeparationReason bits
};

/// True when the 910B load+tpop hazard guard applies to `f`: Ascend910B, an
/// AIV function, split mode (a `split` attribute other than None / NONE / 0,
/// or `split_aiv=True`).
[[nodiscard]] inline bool tpop_hazard_guard(const Function& f, const PassContext& ctx) {
  if (!ctx.soc || ctx.soc->soc_name != "a2a3" || f.kind != FunctionKind::AIV) return false;
  for (const auto& kw : f.attrs) {
    if (kw.name == "split_aiv")
      if (const auto* b = kw.value ? kw.value->as<BoolImm>() : nullptr) return b->value;
    if (kw.name != "split" || !kw.value) continue;
    if (kw.value->is<NoneImm>()) return false;
    if (auto i = as_const_int(kw.value)) return *i != 0;
    if (const auto* e = kw.value->as<EnumImm>()) return e->value != "NONE" && e->value != "none";
    if (const auto* s = kw.value->as<StringImm>())
      return s->value != "none" && s->value != "NONE" && !s->value.empty();
    return true;
  }
  return false;
}

/// The hard pairs of `f` over the tracked tiles of `lt`, each pair once
/// (reasons merged), in a deterministic order.
[[nodiscard]] inline std::vector<BasePair> hard_base_pairs(const Function& f, const Lifetimes& lt,
                                                           const PassContext& ctx) {
  // Calls that define tuples, for `x = t[k]`.
  PointerMap<const Var*, const Call*> tuple_call;
  for_each_statement(f.body, [&](const Stmt& s) {
    if (const auto* a = s.as<AssignStmt>())
      if (a->var && a->var->type && a->var->type->is<TupleType>())
        if (const Call* c = call_of(a->value)) tuple_call.try_emplace(a->var.get(), c);
  });
  auto defining_call = [&](const AssignStmt& a) -> const Call* {
    if (const Call* c = call_of(a.value)) return c;
    if (const auto* sub = a.value ? a.value->as<SubscriptExpr>() : nullptr)
      if (auto t = as_var(sub->value))
        if (const Call* const* c = tuple_call.find(t.get())) return *c;
    return nullptr;
  };

  std::vector<BasePair> out;
  std::unordered_map<std::uint64_t, std::size_t> seen;       // (writer index, operand base) dedup
  PointerMap<const Var*, std::size_t> base_rank(lt.size());  // first tracked tile on each base, for keys
  for (std::size_t i = 0; i < lt.size(); ++i) base_rank.try_emplace(var_base(lt.vars[i]), i);
  auto add = [&](const Var* a, const Var* b, std::uint8_t why) {
    if (!a || !b || a == b) return;
    const std::size_t *ra = base_rank.find(a), *rb = base_rank.find(b);
    if (!ra || !rb) return;
    std::size_t x = *ra, y = *rb;
    if (x > y) std::swap(x, y), std::swap(a, b);
    const std::uint64_t key = (static_cast<std::uint64_t>(x) << 32) ^ static_cast<std::uint64_t>(y);
    auto [it, fresh] = seen.try_emplace(key, out.size());
    if (fresh)
      out.push_back({a, b, why});
    else
      out[it->second].reasons = static_cast<std::uint8_t>(out[it->second].reasons | why);
  };

  for (std::size_t i = 0; i < lt.size(); ++i) {
    const AssignStmt* s = lt.def_stmt[i];
    if (!s) continue;
    const Call* c = defining_call(*s);
    if (!c) continue;
    const OpSpec* spec = spec_of(ctx, *c);
    if (!spec) continue;
    const Var* out_base = var_base(lt.vars[i]);
    for (std::size_t k : forbidden_operands(*spec, *c, lt.vars[i], ctx))
      if (auto a = arg_var(*c, k)) add(out_base, var_base(a), reason_semantic_no_alias);
  }

  if (tpop_hazard_guard(f, ctx)) {
    // Values defined by tile.tpop_from_aic and load-derived values (a load
    // or a view chain of one).
    std::unordered_set<const Var*> tpop, load_derived;
    for (std::size_t i = 0; i < lt.size(); ++i) {
      const AssignStmt* s = lt.def_stmt[i];
      const Call* c = s ? call_of(s->value) : nullptr;
      if (!c) continue;
      if (c->op == "tile.tpop_from_aic") tpop.insert(lt.vars[i].get());
      if (c->op == "tile.load") load_derived.insert(lt.vars[i].get());
      const OpSpec* spec = spec_of(ctx, *c);
      if (spec && spec->is_view())
        if (auto src = arg_var(*c, 0); src && load_derived.contains(src.get()))
          load_derived.insert(lt.vars[i].get());
    }
    std::unordered_map<Tick, std::vector<std::size_t>> dying_at;  // load-derived values by last use
    for (std::size_t i = 0; i < lt.size(); ++i)
      if (load_derived.contains(lt.vars[i].get())) dying_at[lt.last[i]].push_back(i);
    for (std::size_t w = 0; w < lt.size(); ++w) {
      const AssignStmt* s = lt.def_stmt[w];
      const Call* c = s ? call_of(s->value) : nullptr;
      if (!c) continue;
      const bool reads_tpop = std::any_of(c->args.begin(), c->args.end(), [&](const ExprPtr& a) {
        auto v = as_var(a);
        return v && tpop.contains(v.get());
      });
      if (!reads_tpop) continue;
      if (auto it = dying_at.find(lt.def[w]); it != dying_at.end())
        for (std::size_t o : it->second)
          if (o != w) add(var_base(lt.vars[w]), var_base(lt.vars[o]), reason_target_hazard);
    }
  }
  return out;
}

}  // namespace pto_mem::pypto::passes
