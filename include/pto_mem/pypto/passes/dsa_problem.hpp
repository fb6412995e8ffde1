// AllocateMemoryAddr, DSA_RP policy: the tile IR
// as a generic DSA-RP problem, solved by algorithms/dsa_rp.hpp, written back.
//
// Model:
//  * one buffer per allocation base (every tile sharing a base is one
//    allocation: views, in-place results, carries), ids dense in interval
//    order (definition order, parameters first);
//  * lifetime: the hull of its tiles' statement points (lifetimes.hpp, tile
//    parameters defined at point 0), as ticks [2·def+1, max(2·def+2,
//    2·last+1)): a read at p and a write at p do not interfere;
//  * size: the largest window on the base, at least the whole declaration;
//    alignment: the SoC's; one pool per space holding buffers (ascending
//    space), capacity from the backend or, without one, the reserved floor
//    plus every aligned size; the reserved floor as the pool's reserved range
//    (built by make_problem, space_problem.hpp: buffer k is labelled "k");
//  * separations: no-alias and the 910B hazard (no_alias.hpp), pipeline
//    clones of one group at different stages (pipeline_stages.hpp), and every
//    declared base closed to every other buffer of its space (the generic
//    alias unification does that: declared allocations with
//    closed_by_separations), cross-pool pairs dropped;
//  * penalties: the generic recognizer (algorithms/reuse_penalties.hpp) over
//    the IR's access trace (access_events.hpp); none without a backend. A
//    small relation is listed in the problem's penalties; a large one (a
//    long kernel pairs most allocations of a region with each other) stays
//    a rule beside the problem (DsaProblem::implicit) and only its
//    exceptions are listed: the placements are the same either way.
// plan_dsa_rp solves hard, then with pipeline-only separations relaxed
// (PH-DSA-001); the placement is validated independently and written back
// (address_writeback.hpp); orphaned allocs are dropped.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/dsa_rp.hpp"
#include "pto_mem/algorithms/explain.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/pypto/passes/access_events.hpp"
#include "pto_mem/pypto/passes/address_writeback.hpp"
#include "pto_mem/pypto/passes/declared_slots.hpp"
#include "pto_mem/pypto/passes/no_alias.hpp"
#include "pto_mem/pypto/passes/pipeline_stages.hpp"
#include "pto_mem/pypto/passes/reserve_buffer.hpp"
#include "pto_mem/pypto/passes/sequential_addr.hpp"
#include "pto_mem/pypto/passes/space_problem.hpp"

namespace pto_mem::pypto::passes {

/// One allocation of the plan with its inclusive statement points; a Buffer
/// model (the recognizer reads arena and lifetime).
struct DsaInterval {
  std::size_t id = 0;
  Addr size = 0;
  Addr alignment = 1;
  std::int64_t arena = 0;
  Interval lifetime;  ///< [def, last] points passed as begin/end
};

struct DsaProblem {
  std::vector<PlannedBase> bases;      ///< interval order
  std::vector<DsaInterval> intervals;  ///< aligned with bases
  Problem problem;                     ///< the strict problem (declarations closed, penalties included)
  std::vector<MemorySpace> spaces;     ///< arena k's memory space
  /// Reuse penalties kept as a rule over problem.buffers (none when the
  /// relation was small enough to list in problem.penalties).
  std::optional<ImplicitPenalties> implicit;
  /// Per base (aligned with bases): the tracked tiles on it, each with the
  /// line of its defining statement (0: unknown), to name them in errors.
  std::vector<std::vector<std::pair<std::string, std::uint32_t>>> tiles;
};

/// Reuse-penalty relations of at most this many pairs are listed in the
/// problem; larger ones stay a rule.
inline constexpr std::uint64_t listed_penalty_limit = 1 << 16;

/// Ticks of an inclusive point range: statement point p reads at tick 2p and
/// writes at tick 2p+1, so a value read last by p and the value p writes do
/// not overlap (in-place reuse stays possible); an unused value takes one tick.
[[nodiscard]] constexpr Interval dsa_ticks(Tick def, Tick last) noexcept {
  return Interval{2 * def + 1, std::max(2 * def + 2, 2 * last + 1)};
}

/// Builds the problem; false (with the error reported) on a declared-slot
/// conflict or a model the generic unification rejects. `listed_limit`: the
/// largest penalty relation listed pair by pair (tests vary it).
inline bool build_dsa_problem(const Function& f, const Program& p, PassContext& ctx,
                              const ReserveResolution& reserve, DsaProblem& out,
                              std::uint64_t listed_limit = listed_penalty_limit) {
  const auto walk = ctx.indexes.of(f);  // one walk for the lifetimes and the access trace
  const Lifetimes lt = compute_lifetimes(*walk, f, {true});
  const AllocTable allocs(f);
  if (!check_declared_slots(f, p, lt, ctx, allocs)) return false;

  // Bases in interval order: by their first tracked tile, then the rest
  // (a stable sort of (first tile, position) keys).
  std::vector<PlannedBase> all = planned_bases(f, ctx, allocs);
  PointerMap<const Var*, std::size_t> first_tile(lt.size());
  for (std::size_t i = 0; i < lt.size(); ++i) first_tile.try_emplace(var_base(lt.vars[i]), i);
  std::vector<std::pair<std::size_t, std::size_t>> keys(all.size());  // (first tile, position)
  for (std::size_t k = 0; k < all.size(); ++k) {
    const std::size_t* t = first_tile.find(all[k].base.get());
    keys[k] = {t ? *t : lt.size(), k};
  }
  std::sort(keys.begin(), keys.end());
  out.bases.reserve(all.size());
  for (const auto& [t, k] : keys) out.bases.push_back(std::move(all[k]));
  PointerMap<const Var*, std::size_t> index(out.bases.size());
  for (std::size_t k = 0; k < out.bases.size(); ++k) index.try_emplace(out.bases[k].base.get(), k);

  // Group lifetimes; a base no tracked tile holds lives over the whole function.
  std::vector<Tick> def(out.bases.size(), -1), last(out.bases.size(), 0);
  out.tiles.assign(out.bases.size(), {});
  for (std::size_t i = 0; i < lt.size(); ++i) {
    const std::size_t* at = index.find(var_base(lt.vars[i]));
    if (!at) continue;
    const std::size_t k = *at;
    const Loc loc = lt.def_stmt[i] && lt.def_stmt[i]->loc.known() ? lt.def_stmt[i]->loc : lt.vars[i]->loc;
    out.tiles[k].emplace_back(lt.vars[i]->name, loc.line);
    def[k] = def[k] < 0 ? lt.def[i] : std::min(def[k], lt.def[i]);
    last[k] = std::max(last[k], lt.last[i]);
  }

  std::vector<SpaceBuffer> buffers;
  buffers.reserve(out.bases.size());
  for (std::size_t k = 0; k < out.bases.size(); ++k) {
    const PlannedBase& b = out.bases[k];
    if (def[k] < 0) {
      def[k] = 0;
      last[k] = std::max<Tick>(lt.points - 1, 0);
    }
    buffers.push_back({k, b.bytes(), space_alignment(ctx, b.space), b.space, dsa_ticks(def[k], last[k])});
  }
  auto capacity_of = [&](MemorySpace space) {
    if (auto cap = checked_capacity(ctx, space)) return *cap;
    Addr cap = reserve.floor(space);  // no backend: room for everything, side by side
    for (const auto& b : buffers)
      if (b.arena == space) cap = saturating_add(cap, align_up(b.size, b.alignment).value_or(max_addr));
    return cap;
  };
  auto built = make_problem(buffers, SpaceArenas{ctx.soc, &reserve, capacity_of});
  Problem& prob = out.problem;
  prob = std::move(built.problem);
  out.spaces = std::move(built.arena_keys);
  for (std::size_t k = 0; k < out.bases.size(); ++k) {
    const BufferSpec& s = prob.buffers[k];
    out.intervals.push_back({k, s.size, s.alignment, s.arena, Interval{def[k], last[k]}});
    if (out.bases[k].declared)
      prob.declared.push_back(DeclaredAllocation{static_cast<BufferId>(k), 1, s.size, {}});
  }

  // Typed separations, then declared allocations closed by the unification.
  std::map<std::pair<std::size_t, std::size_t>, std::uint8_t> separated;
  for (const auto& pair : hard_base_pairs(f, lt, ctx)) {
    const std::size_t *pa = index.find(pair.a), *pb = index.find(pair.b);
    if (!pa || !pb || *pa == *pb) continue;
    const std::size_t a = *pa, b = *pb;
    if (out.bases[a].space != out.bases[b].space) continue;
    auto& r = separated[{std::min(a, b), std::max(a, b)}];
    r = static_cast<std::uint8_t>(r | pair.reasons);
  }
  // Pipeline clones of one group at different stages:
  // all of them, in every space; pipeline-only pairs may be relaxed later.
  const std::vector<BaseStages> staged = base_stages(lt);
  for (std::size_t i = 0; i < staged.size(); ++i)
    for (std::size_t j = i + 1; j < staged.size(); ++j) {
      const std::size_t *pa = index.find(staged[i].base), *pb = index.find(staged[j].base);
      if (!pa || !pb || *pa == *pb) continue;
      const std::size_t a = *pa, b = *pb;
      if (out.bases[a].space != out.bases[b].space) continue;
      if (!stages_conflict(staged[i].tags, staged[j].tags)) continue;
      auto& r = separated[{std::min(a, b), std::max(a, b)}];
      r = static_cast<std::uint8_t>(r | reason_pipeline_stage);
    }
  for (const auto& [pair, reasons] : separated)
    prob.separations.push_back(
        {static_cast<BufferId>(pair.first), static_cast<BufferId>(pair.second), reasons});
  if (!prob.declared.empty()) {
    AliasUnification u = unify_aliases(prob, UnifyOptions{true});
    if (!u.ok()) {
      ctx.diagnostics.push_back(pass_error(
          p, f.loc,
          "DSA-RP built an invalid model for function '" + f.name + "': " + u.diagnostics.front().message,
          code::internal));
      return false;
    }
    prob = std::move(u.problem);  // one buffer per allocation, same order; declarations now separations
  }

  // Reuse penalties from the access trace.
  if (ctx.soc && ctx.soc->configured) {
    std::vector<Addr> bytes;
    for (const auto& b : prob.buffers) bytes.push_back(b.size);
    const AccessTrace trace(*walk, f, ctx, index, bytes);
    std::vector<std::pair<std::size_t, std::size_t>> hard;
    for (const auto& s : prob.separations) hard.emplace_back(s.a, s.b);
    ReusePenaltyRelation relation = recognize_reuse_penalty_relation(out.intervals, trace.events(), hard);
    const bool listed = relation.size() <= listed_limit;
    for (const auto& e : listed ? relation.pairs() : relation.listed)  // ascending (a, b)
      prob.penalties.push_back({static_cast<BufferId>(e.a), static_cast<BufferId>(e.b), e.weight});
    if (!listed) out.implicit = std::move(relation.implicit);
  }
  return true;
}

/// The allocations live together at the heaviest instant of every arena
/// whose max load exceeds its capacity (buffer indices, ascending).
[[nodiscard]] inline std::vector<std::size_t> max_load_culprits(const Problem& prob,
                                                                const std::vector<ArenaLoad>& loads) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < loads.size() && k < prob.arenas.size(); ++k) {
    if (loads[k].lower_bound <= prob.arenas[k].capacity) continue;
    std::vector<std::pair<Tick, std::int64_t>> ev;  // ends (negative) before starts at a tick
    for (std::size_t i = 0; i < prob.buffers.size(); ++i)
      if (prob.buffers[i].arena == prob.arenas[k].id) {
        ev.emplace_back(prob.buffers[i].lifetime.begin, static_cast<std::int64_t>(i) + 1);
        ev.emplace_back(prob.buffers[i].lifetime.end, -static_cast<std::int64_t>(i) - 1);
      }
    std::sort(ev.begin(), ev.end());
    Addr live = 0, best = 0;
    Tick at = 0;
    for (const auto& [t, e] : ev) {
      if (e > 0) {
        live = saturating_add(live, prob.buffers[static_cast<std::size_t>(e - 1)].size);
        if (live > best) best = live, at = t;
      } else {
        live -= std::min(live, prob.buffers[static_cast<std::size_t>(-e - 1)].size);
      }
    }
    for (std::size_t i = 0; i < prob.buffers.size(); ++i)
      if (prob.buffers[i].arena == prob.arenas[k].id && prob.buffers[i].lifetime.begin <= at &&
          at < prob.buffers[i].lifetime.end)
        out.push_back(i);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

/// The buffers of a conflicting subset (explain(), under a small node
/// budget per check), when the max load does not say which.
[[nodiscard]] inline std::vector<std::size_t> explained_culprits(const Problem& prob) {
  PlanOptions o;
  o.node_limit = 20000;
  ExplainOptions eo;
  eo.least_capacity = false;
  eo.check_node_limit = 20000;
  const Explanation e = explain(prob, o, eo);
  std::vector<std::size_t> out;
  if (!e.explained) return out;
  for (const auto& m : e.members)
    if (m.kind == MemberKind::buffer || m.kind == MemberKind::declared) out.push_back(m.index);
  std::sort(out.begin(), out.end());
  return out;
}

/// " The allocations that do not fit together: 'a' (N bytes; tiles x (line
/// 3), y (line 5); live from statement point P to Q), ..." or "".
[[nodiscard]] inline std::string culprits_text(const DsaProblem& model,
                                               const std::vector<std::size_t>& which) {
  if (which.empty()) return {};
  std::string msg = " The allocations that do not fit together:";
  for (std::size_t n = 0; n < which.size(); ++n) {
    const std::size_t k = which[n];
    if (k >= model.bases.size()) continue;
    msg += std::string(n ? "," : "") + " '" + model.bases[k].base->name + "' (" +
           std::to_string(model.bases[k].bytes()) + " bytes";
    if (k < model.tiles.size() && !model.tiles[k].empty()) {
      msg += "; tiles";
      for (std::size_t t = 0; t < model.tiles[k].size(); ++t) {
        const auto& [name, line] = model.tiles[k][t];
        msg += std::string(t ? ", " : " ") + name + (line ? " (line " + std::to_string(line) + ")" : "");
      }
    }
    if (k < model.intervals.size())
      msg += "; live from statement point " + std::to_string(model.intervals[k].lifetime.begin) + " to " +
             std::to_string(model.intervals[k].lifetime.end);
    msg += ")";
  }
  return msg + ".";
}

/// Solves `model` and fills `replace`; false with the error reported.
inline bool solve_dsa_problem(const Function& f, const Program& p, PassContext& ctx,
                              const ReserveResolution& reserve, const DsaProblem& model,
                              MemRefReplacements& replace) {
  auto first = [](const Diagnostics& ds) {
    for (const auto& d : ds)
      if (d.severity == Severity::error) return d.message;
    return ds.empty() ? std::string("no diagnostic") : ds.front().message;
  };
  // The problem is validated here, once, and the placement below: the solver
  // need not check either again (GreedyOptions::trusted; a relaxed problem
  // the solver builds itself, it still validates).
  if (Diagnostics bad = validate(model.problem); has_errors(bad)) {
    ctx.diagnostics.push_back(
        pass_error(p, f.loc, "DSA-RP built an invalid problem for function '" + f.name + "': " + first(bad),
                   code::internal));
    return false;
  }
  GreedyOptions options;
  options.compat_pypto = true;  // PyPTO's placements: seed 0, 4 restarts
  options.trusted = true;
  const DsaRpResult solved = plan_dsa_rp(model.problem, options, model.implicit ? &*model.implicit : nullptr);
  const GreedyResult& r = solved.greedy;
  if (is_error(r.status)) {
    ctx.diagnostics.push_back(pass_error(
        p, f.loc, "DSA-RP built an invalid problem for function '" + f.name + "': " + first(r.diagnostics),
        code::internal));
    return false;
  }
  if (!r.placement) {
    std::string msg = "DSA-RP found no placement for function '" + f.name +
                      "' within on-chip capacities: " + first(r.diagnostics) + ".";
    if (solved.relaxed)
      msg += " Nothing fit either with its " + std::to_string(solved.relaxable_pairs) +
             " software-pipeline separation(s) relaxed to penalties.";
    const auto loads = arena_loads(solved.solved(model.problem));
    bool named = false;
    for (std::size_t k = 0; k < loads.size(); ++k) {
      const Arena& a = model.problem.arenas[k];
      if (loads[k].lower_bound <= a.capacity) continue;
      named = true;
      msg += " " + a.name + " buffer usage (at least " + std::to_string(loads[k].lower_bound) +
             " bytes live at once) exceeds platform limit (" + std::to_string(a.capacity) + " bytes)" +
             reserve_note(f, reserve, model.spaces[k]) + ".";
    }
    if (!named)
      msg +=
          " No space is over its capacity by live bytes alone: the bounded greedy search did not find a "
          "packing, "
          "which does not prove that none exists; try the PYPTO planner or shorten lifetimes.";
    msg += culprits_text(model,
                         named ? max_load_culprits(model.problem, loads) : explained_culprits(model.problem));
    ctx.diagnostics.push_back(pass_error(p, f.loc, std::move(msg), code::capacity));
    return false;
  }
  const Diagnostics errors = solved.relaxed ? validate(*solved.relaxed, *r.placement)
                                            : validate_placement(model.problem, *r.placement);
  if (has_errors(errors)) {
    ctx.diagnostics.push_back(
        pass_error(p, f.loc,
                   "independent validation rejected the DSA-RP placement for function '" + f.name +
                       "': " + first(errors),
                   code::internal));
    return false;
  }
  for (const auto& d : r.diagnostics)
    if (d.severity != Severity::error) {
      Diagnostic copy = d;
      copy.message = "function '" + f.name + "': " + copy.message;
      copy.location = to_source_location(p.file, f.loc);
      ctx.diagnostics.push_back(std::move(copy));
    }
  for (std::size_t k = 0; k < model.bases.size(); ++k)
    if (auto why = address_windows(model.bases[k], *r.placement->offsets[k], replace)) {
      ctx.diagnostics.push_back(
          pass_error(p, f.loc, "AllocateMemoryAddr in function '" + f.name + "': " + *why, code::internal));
      return false;
    }
  return true;
}

}  // namespace pto_mem::pypto::passes
