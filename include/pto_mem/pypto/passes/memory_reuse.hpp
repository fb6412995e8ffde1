// MemoryReuse: opportunistic sharing of independent
// buffers whose lifetimes do not overlap, then the repairs that keep loop
// carries and if-phis in one buffer, then removal of dead allocs. PyPTO's
// default planner (PYPTO) runs it; the pipeline skips it under DSA_RP and
// PTOAS. Orchestration functions and functions without tile MemRefs are
// returned unchanged.
//
// Example (after MaterializeSemanticAliases, three 16 KiB Vec tiles):
//
//     x: Tile[..., MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(x_ddr, ...)
//     e: Tile[..., MemRef(mem_vec_3, 0, 16384), Vec] = tile.exp(x)
//     s: Tile[..., MemRef(mem_vec_4, 0, 16384), Vec] = tile.add(e, x)
//
// x is read for the last time by the add that writes s, so the two never
// hold live data at once: s moves onto mem_vec_2 and mem_vec_4's alloc is
// dropped (48 KiB of allocations become 32 KiB). e cannot share with x: both
// are live between the exp and the add.
//
// The rule: two allocations of one memory space may become one when their
// lifetimes do not overlap (a value read for the last time by a statement
// does not overlap the value that statement writes) and no pair rule forbids
// it (an op whose output may not overwrite one of its inputs, the SoC's
// hazard pairs, clones of different software-pipeline stages). Larger
// allocations are packed first; a joining allocation takes the first slot
// whose lifetimes it does not meet.
//
//  1. Lifetimes (lifetimes.hpp) and the declared-slot check (declared_slots.hpp).
//  2. One reuse item per allocation base: the tracked tiles on it, their
//     hull [min def, max last], the first tile's MemRef size and space;
//     declared (pinned) bases are closed.
//  3. Packing: the generic reuse_lifetimes (algorithms/reuse.hpp) with the
//     phi families as LiveParts and, as forbidden pairs, the no-alias /
//     hazard pairs of no_alias.hpp and the pipeline-stage pairs of
//     pipeline_stages.hpp: with a known capacity, clones of
//     different stages stay apart up to the affordable depth, and while a
//     space's packed footprint exceeds the capacity it is first packed by
//     aligned sub-ranges of larger buffers (pack_subranges), then the depth
//     of one group is shed and the items re-packed; with nothing left to shed the space
//     falls back to the legacy rule with a warning (PyPTO's "legacy
//     packing" fallback, also given when no pipeline is involved). A depth
//     below the requested one is hint PH-MR-001.
//  4. Sharing: each joining base moves onto its slot representative's
//     base: its first tile (and every variable holding that very MemRef)
//     takes the representative's MemRef object, the other windows keep their
//     offsets relative to it.
//  Before step 2, each if-phi is given its buffer (yield_fixup.hpp): an
//  arm-local value's, or a fresh one both arms copy into.
//  5. Loop carries re-aligned on their init's buffer; peeled accumulator
//     if-phis coalesced (acc_phi_coalesce.hpp); YieldFixup
//     (yield_fixup.hpp); identity chains normalised; orphaned allocs dropped;
//     the pipeline_membership attributes stripped.
//
// Variable types are refined in place (see pass_support.hpp).
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/algorithms/reuse.hpp"
#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/acc_phi_coalesce.hpp"
#include "pto_mem/pypto/passes/declared_slots.hpp"
#include "pto_mem/pypto/passes/def_sites.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/lifetimes.hpp"
#include "pto_mem/pypto/passes/no_alias.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pipeline_stages.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/reserve_buffer.hpp"
#include "pto_mem/pypto/passes/yield_fixup.hpp"

namespace pto_mem::pypto {

namespace passes {

/// One allocation base as an item of the generic lifetime reuse (a Buffer model).
struct ReuseItem {
  std::size_t id = 0;
  Addr size = 0;
  Addr alignment = 1;
  MemorySpace arena = MemorySpace::Vec;
  Interval lifetime;
};

/// The tracked tiles of one base, in definition order.
struct BaseGroup {
  const Var* base = nullptr;
  std::vector<std::size_t> tiles;  ///< indices into Lifetimes
};

/// Base groups of the planned on-chip tiles of `lt`, in order of their first tile.
[[nodiscard]] inline std::vector<BaseGroup> base_groups(const Lifetimes& lt) {
  std::vector<BaseGroup> out;
  PointerMap<const Var*, std::size_t> at(lt.size());
  for (std::size_t i = 0; i < lt.size(); ++i) {
    const VarPtr& v = lt.vars[i];
    const auto space = var_space(v);
    if (!is_planned_tile(v) || !space || *space == MemorySpace::DDR || *space == MemorySpace::ScalarLocal)
      continue;
    auto [g, fresh] = at.try_emplace(var_base(v), out.size());
    if (fresh) out.push_back({var_base(v), {}});
    out[*g].tiles.push_back(i);
  }
  return out;
}

/// Every variable of `f` holding a MemRef, by base, in definition order
/// (pointers to the IR's own VarPtrs: `f` must outlive it and keep its
/// statements).
class VarsByBase {
 public:
  explicit VarsByBase(const Function& f) {
    index_.reserve(defined_estimate(f));
    std::vector<std::pair<std::uint32_t, const VarPtr*>> found;
    for_each_var_def(f, [&](const VarPtr& v) {
      const Var* b = var_base(v);
      if (!b) return;
      auto [k, fresh] = index_.try_emplace(b, static_cast<std::uint32_t>(start_.size()));
      if (fresh) start_.push_back(0);
      ++start_[*k];
      found.emplace_back(*k, &v);
    });
    std::uint32_t at = 0;
    for (auto& s : start_) at += std::exchange(s, at);
    start_.push_back(at);
    vars_.resize(found.size());
    std::vector<std::uint32_t> next(start_.begin(), start_.end() - 1);
    for (const auto& [k, v] : found) vars_[next[k]++] = v;
  }
  /// The variables on `base` (empty when none).
  [[nodiscard]] std::span<const VarPtr* const> of(const Var* base) const {
    const std::uint32_t* k = index_.find(base);
    if (!k) return {};
    return {vars_.data() + start_[*k], start_[*k + 1] - start_[*k]};
  }

 private:
  PointerMap<const Var*, std::uint32_t> index_;
  std::vector<std::uint32_t> start_;
  std::vector<const VarPtr*> vars_;
};

/// Every iter-arg and return var whose base differs from its
/// init's takes the init's MemRef and space, outer loops first.
inline void realign_loop_carries(const Function& f) {
  for_each_statement(f.body, [&](const Stmt& s) {
    auto loop = loop_view(&s);
    if (!loop) return;
    for (std::size_t i = 0; i < loop->iter_args->size(); ++i) {
      auto init = as_var((*loop->iter_args)[i].init);
      if (!is_planned_tile(init)) continue;
      const MemRefPtr m = var_memref(init);
      const VarPtr& ia = (*loop->iter_args)[i].var;
      if (var_base(ia) != m->base.get()) set_memref(ia, m, var_space(init));
      if (i < loop->return_vars->size()) {
        const VarPtr& rv = (*loop->return_vars)[i];
        if (is_planned_tile(rv) && var_base(rv) != m->base.get()) set_memref(rv, m, var_space(init));
      }
    }
  });
}

/// Sub-range packing of one space, tried when the whole-buffer packing of
/// that space does not fit its capacity: items largest first; an item joins
/// the first slot with an aligned offset at which it fits inside the slot's
/// (largest, first) member and shares bytes only with members it may share a
/// buffer with (lifetimes apart, or one phi family; no forbidden pair; the
/// offsets tried are 0 and the aligned ends of the members), else opens a
/// slot of its own. Items of other spaces keep their slots. `offset[i]` is
/// item i's byte offset inside its slot (0 for the slot's first member);
/// `fixed[i]` items (a window at a run-time offset) keep a slot of their own,
/// and a slot they head takes others only at offset 0.
inline void pack_subranges(ReuseResult& packed, std::vector<Addr>& offset, std::span<const ReuseItem> items,
                           const ReuseRules& rules,
                           const std::vector<std::pair<std::size_t, std::size_t>>& forbidden,
                           const std::vector<bool>& fixed, MemorySpace space, Addr alignment) {
  const std::size_t n = items.size();
  std::vector<std::vector<std::size_t>> apart(n);
  for (const auto& [a, b] : forbidden)
    if (a < n && b < n && a != b) {
      apart[a].push_back(b);
      apart[b].push_back(a);
    }
  auto may_overlap = [&](std::size_t c, std::size_t m) {
    if (std::find(apart[c].begin(), apart[c].end(), m) != apart[c].end()) return false;
    if (!interferes(items[c].lifetime, items[m].lifetime)) return true;
    return pto_mem::detail::reuse::family_exception(rules.parts, c, m);
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < n; ++i)
    if (items[i].arena == space) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (items[a].size != items[b].size) return items[a].size > items[b].size;
    return items[a].lifetime.begin < items[b].lifetime.begin;
  });
  const Addr align = std::max<Addr>(alignment, 1);
  std::vector<ReuseSlot> slots;
  for (std::size_t c : order) {
    const bool is_closed = c < rules.closed.size() && rules.closed[c];
    bool placed = false;
    for (std::size_t k = 0; k < slots.size() && !is_closed && !fixed[c] && !placed; ++k) {
      ReuseSlot& slot = slots[k];
      if (slot.closed || items[c].size > slot.size) continue;
      std::vector<Addr> starts{0};
      if (!fixed[c] && !fixed[slot.representative])
        for (std::size_t m : slot.members)
          if (auto e = align_up(saturating_add(offset[m], items[m].size), align)) starts.push_back(*e);
      std::sort(starts.begin(), starts.end());
      starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
      for (Addr o : starts) {
        if (o > slot.size - items[c].size) break;
        const Addr end = o + items[c].size;
        const bool ok = std::all_of(slot.members.begin(), slot.members.end(), [&](std::size_t m) {
          const bool bytes_meet = offset[m] < end && o < offset[m] + items[m].size;
          return !bytes_meet || may_overlap(c, m);
        });
        if (!ok) continue;
        offset[c] = o;
        slot.members.push_back(c);
        slot.lifetime.begin = std::min(slot.lifetime.begin, items[c].lifetime.begin);
        slot.lifetime.end = std::max(slot.lifetime.end, items[c].lifetime.end);
        placed = true;
        break;
      }
    }
    if (placed) continue;
    offset[c] = 0;
    ReuseSlot fresh;
    fresh.representative = c;
    fresh.members = {c};
    fresh.closed = is_closed;
    fresh.size = items[c].size;
    fresh.lifetime = items[c].lifetime;
    slots.push_back(std::move(fresh));
  }
  // The other spaces' slots as they were, then this space's.
  ReuseResult out;
  out.slot_of.assign(n, 0);
  out.cut_short = packed.cut_short;
  for (const auto& slot : packed.slots)
    if (items[slot.representative].arena != space) out.slots.push_back(slot);
  for (auto& slot : slots) out.slots.push_back(std::move(slot));
  for (std::size_t k = 0; k < out.slots.size(); ++k)
    for (std::size_t m : out.slots[k].members) out.slot_of[m] = k;
  packed = std::move(out);
}

/// The then-arm copies YieldFixup will add after packing: a phi living in
/// the else arm's own buffer receives, at the end of the then arm, the then
/// value (one from before the if, or an iter-arg). The two buffers may not be
/// one slot, or that copy would run in place (tile.move may not); nothing
/// else keeps them apart, as the then value's last read precedes the else
/// value's definition.
[[nodiscard]] inline std::vector<std::pair<const Var*, const Var*>> then_arm_copies(const Function& f) {
  std::vector<std::pair<const Var*, const Var*>> out;
  for_each_statement(f.body, [&](const Stmt& s) {
    const auto* i = s.as<IfStmt>();
    if (!i || i->return_vars.empty() || !i->else_body) return;
    std::unordered_set<const Var*> then_defs, else_defs;
    auto collect = [](const StmtPtr& body, std::unordered_set<const Var*>& into) {
      for_each_def(body, [&](const VarPtr& v) { into.insert(v.get()); });
    };
    collect(i->then_body, then_defs);
    collect(i->else_body, else_defs);
    for (std::size_t k = 0; k < i->return_vars.size(); ++k) {
      const VarPtr t = yielded_var(i->then_body, k), e = yielded_var(i->else_body, k);
      if (!is_planned_tile(t) || !is_planned_tile(e) || then_defs.contains(t.get()) ||
          !else_defs.contains(e.get()))
        continue;
      if (var_base(t) != var_base(e)) out.emplace_back(var_base(t), var_base(e));
    }
  });
  return out;
}

[[nodiscard]] inline Function reuse_function(const Function& in, const Program& p, PassContext& ctx) {
  const auto relations = capture_identity_relations(in, ctx);
  // Where each if-phi lives, before lifetimes are packed (yield_fixup.hpp).
  // With Buffer IR, MaterializeSemanticAliases has made every carry and phi
  // explicit already: only lifetimes are packed here.
  const Function f =
      ctx.buffer_ir
          ? in
          : yield_fixup(in, p, ctx, {false, ctx.planner != Planner::ptoas, false, "MemoryReuse"}, &relations);
  if (ctx.failed()) return in;
  const Lifetimes lt = compute_lifetimes(*ctx.indexes.of(f), f);
  const AllocTable allocs(f);
  if (!check_declared_slots(f, p, lt, ctx, allocs)) return f;
  auto declared = [&](const Var* base) { return allocs.pinned(base); };
  // A logical tile selection's allocation (its windows name one of several
  // slots) is every slot at once: its alloc statement's size, shared with
  // nothing (the phi's run-time window may be either slot).
  std::unordered_map<const Var*, Addr> slotted;
  for (std::size_t i = 0; i < lt.size(); ++i)
    if (const MemRefPtr m = var_memref(lt.vars[i]); m && m->slot_count > 1 && !declared(m->base.get()))
      if (const AllocStmt* a = allocs.find(m->base.get())) slotted.emplace(m->base.get(), a->size);

  // Items and rules of the generic reuse.
  const std::vector<BaseGroup> groups = base_groups(lt);
  std::vector<ReuseItem> items(groups.size());
  ReuseRules rules;
  rules.closed.resize(groups.size());
  rules.parts.resize(groups.size());
  PointerMap<const Var*, std::size_t> group_of(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const VarPtr& first = lt.vars[groups[g].tiles.front()];
    items[g] =
        ReuseItem{g, var_memref(first)->size, 1, *var_space(first), {lt.def[groups[g].tiles.front()], 0}};
    if (auto sl = slotted.find(groups[g].base); sl != slotted.end())
      items[g].size = std::max(items[g].size, sl->second);
    rules.parts[g].reserve(groups[g].tiles.size());
    for (std::size_t i : groups[g].tiles) {
      items[g].lifetime.begin = std::min(items[g].lifetime.begin, lt.def[i]);
      items[g].lifetime.end = std::max(items[g].lifetime.end, lt.last[i]);
      rules.parts[g].push_back(LivePart{Interval{lt.def[i], lt.last[i]}, lt.families[i]});
    }
    rules.closed[g] = declared(groups[g].base) || slotted.contains(groups[g].base);
    group_of.try_emplace(groups[g].base, g);
  }
  for (const auto& pair : hard_base_pairs(f, lt, ctx)) {
    const std::size_t *a = group_of.find(pair.a), *b = group_of.find(pair.b);
    if (a && b) rules.forbidden.emplace_back(*a, *b);
  }
  if (!ctx.buffer_ir)
    for (const auto& [x, y] : then_arm_copies(f)) {
      const std::size_t *a = group_of.find(x), *b = group_of.find(y);
      if (a && b) rules.forbidden.emplace_back(*a, *b);
    }

  // Pipeline clones (pipeline_stages.hpp): kept apart up to the affordable
  // depth where the capacity is known, by the legacy rule elsewhere.
  std::vector<StageGate::Entry> staged;
  for (const auto& b : base_stages(lt))
    if (const std::size_t* g = group_of.find(b.base))
      staged.push_back({*g, items[*g].arena, items[*g].size, b.tags, b.load, b.loc});
  StageGate stages(std::move(staged), [&](MemorySpace space) -> std::optional<Addr> {
    if (!ctx.soc || !ctx.soc->configured) return std::nullopt;
    return ctx.soc->capacity(space);
  });
  // Spaces packed by sub-range (below) stay so after every re-pack.
  std::vector<Addr> offset(items.size(), 0);
  std::set<MemorySpace> subranged;
  std::vector<bool> fixed(items.size(), false);
  const VarsByBase by_base(f);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const VarPtr* w : by_base.of(groups[g].base))
      if (const MemRefPtr m = var_memref(*w); m && !m->const_offset()) fixed[g] = true;
  auto subrange = [&](ReuseResult& r, MemorySpace space) {
    std::vector<std::pair<std::size_t, std::size_t>> apart = rules.forbidden;
    for (const auto& pair : stages.forbidden()) apart.push_back(pair);
    pack_subranges(r, offset, items, rules, apart, fixed, space, ctx.soc ? ctx.soc->alignment(space) : 1);
  };
  auto pack = [&] {
    ReuseResult r;
    if (stages.empty()) {
      r = reuse_lifetimes(items, rules);
    } else {
      ReuseRules with_stages = rules;
      for (const auto& pair : stages.forbidden()) with_stages.forbidden.push_back(pair);
      r = reuse_lifetimes(items, with_stages);
    }
    std::fill(offset.begin(), offset.end(), Addr{0});
    for (MemorySpace space : subranged) subrange(r, space);
    return r;
  };
  ReuseResult packed = pack();

  // The packed footprint against a known capacity: shed pipeline depth while
  // a space overflows, then PyPTO's fallback warning.
  if (ctx.soc && ctx.soc->configured) {
    const auto reserve = resolve_reserve_buffers(f, p, ctx);  // errors are AllocateMemoryAddr's to report
    auto align = [&](Addr bytes, MemorySpace space) {
      return align_up(bytes, space_alignment(ctx, space)).value_or(max_addr);
    };
    auto footprints = [&] {
      std::map<MemorySpace, std::pair<Addr, Addr>> use;  // space -> (footprint, largest slot), floor included
      for (const auto& slot : packed.slots) {
        const ReuseItem& r = items[slot.representative];
        Addr bytes = slot.size;
        if (const AllocStmt* a = allocs.find(groups[slot.representative].base); a && a->pinned)
          bytes = std::max(bytes, a->size);
        auto [it, fresh] = use.try_emplace(r.arena, reserve.floor(r.arena), reserve.floor(r.arena));
        it->second.first = saturating_add(it->second.first, align(bytes, r.arena));
        it->second.second =
            std::max(it->second.second, saturating_add(reserve.floor(r.arena), align(bytes, r.arena)));
      }
      return use;
    };
    constexpr int max_sheds = 256;  // a bound on re-packs; past it a space falls back to the legacy rule
    int sheds = 0;
    std::set<MemorySpace> settled;
    for (;;) {
      std::optional<MemorySpace> over;
      for (const auto& [space, u] : footprints()) {
        const auto cap = ctx.soc->capacity(space);
        if (!settled.contains(space) && cap && *cap != 0 && u.first > *cap) {
          over = space;
          break;
        }
      }
      if (!over) break;
      // Before any pipeline depth is given up: smaller tiles may take
      // aligned sub-ranges of a larger buffer that died before them.
      if (!subranged.contains(*over)) {
        ReuseResult trial = packed;
        const std::vector<Addr> kept = offset;
        subrange(trial, *over);
        std::swap(trial, packed);
        const auto cap = ctx.soc->capacity(*over);
        if (footprints()[*over].first <= *cap) {
          subranged.insert(*over);
          continue;
        }
        std::swap(trial, packed);
        offset = kept;
      }
      if (++sheds <= max_sheds && stages.shed(*over, align)) {
        packed = pack();
        continue;
      }
      settled.insert(*over);
      const bool fell_back = stages.has_groups(*over);
      if (fell_back) {
        stages.fall_back(*over);
        packed = pack();
      }
      const Addr cap = *ctx.soc->capacity(*over);
      const auto use = footprints()[*over];
      const Addr floor = reserve.floor(*over);
      if (use.second > cap) continue;  // one buffer alone is too big: AllocateMemoryAddr says so
      const std::string head = "MemoryReuse in function '" + f.name + "': the packed " +
                               std::string(to_string(*over)) + " footprint";
      const std::string reserved = std::to_string(floor) + " of them reserved";
      std::string msg;
      if (use.first > cap)
        msg = head + " (" + std::to_string(use.first) + " bytes, " + reserved +
              ") exceeds the platform limit (" + std::to_string(cap) + " bytes)" +
              (fell_back ? " at every software-pipeline depth," : "") +
              " although every buffer fits on its own" +
              "; fell back to the legacy packing (lifetime sharing only" +
              (fell_back ? ", pipeline stages kept apart only for loads outside L0" : "") +
              "), so AllocateMemoryAddr will report the overflow unless fewer tiles are live at once "
              "(or plan with --planner dsa_rp)";
      else
        msg =
            head + " exceeded the platform limit (" + std::to_string(cap) +
            " bytes) at every software-pipeline depth; fell back to the legacy packing (pipeline stages kept "
            "apart only for loads outside L0), which needs " +
            std::to_string(use.first) + " bytes (" + reserved + ")";
      ctx.diagnostics.push_back(pass_warning(p, f.loc, std::move(msg), code::reuse_fallback));
    }
    report_pipeline_depths(f, p, ctx, stages, reserve, align);
  }

  // Sharing: each joining base moves onto its representative's base.
  bool shared = false;
  const VarsByBase& on_base = by_base;
  for (const auto& slot : packed.slots) {
    if (slot.members.size() < 2) continue;
    const VarPtr& rep = lt.vars[groups[slot.representative].tiles.front()];
    const MemRefPtr rep_m = var_memref(rep);
    const auto rep_space = var_space(rep);
    // In a slot packed by sub-ranges every member keeps a window of its own
    // size (the representative's whole window would cover its neighbours).
    const bool by_subrange =
        std::any_of(slot.members.begin(), slot.members.end(), [&](std::size_t c) { return offset[c] != 0; });
    for (std::size_t c : slot.members) {
      if (c == slot.representative) continue;
      shared = true;
      const MemRefPtr c_m = var_memref(lt.vars[groups[c].tiles.front()]);
      const auto at = static_cast<std::int64_t>(offset[c]);  // a sub-range of the representative's window
      std::unordered_map<const MemRef*, MemRefPtr> rebased;
      for (const VarPtr* wp : on_base.of(groups[c].base)) {
        const VarPtr& w = *wp;
        const MemRefPtr m = var_memref(w);
        const auto mo = m->const_offset(), co = c_m->const_offset(), ro = rep_m->const_offset();
        if (by_subrange && mo && co && ro) {  // one new MemRef per old one: windows that shared one still do
          auto [it, fresh] = rebased.try_emplace(m.get(), nullptr);
          if (fresh)
            it->second = make_memref(rep_m->base, int_imm(*ro + at + (*mo - *co)), m->size, m->slot_count,
                                     m->slot_index);
          set_memref(w, it->second, rep_space);
          continue;
        }
        if (m == c_m) {
          set_memref(w, rep_m, rep_space);
          continue;
        }
        if (!mo || !co || !ro) {
          set_memref(w, rep_m, rep_space);
          continue;
        }
        const std::int64_t rel = *mo - *co;
        if (rel == 0 && m->size == rep_m->size) {
          set_memref(w, rep_m, rep_space);
          continue;
        }
        set_memref(w, make_memref(rep_m->base, int_imm(*ro + rel), m->size, m->slot_count, m->slot_index),
                   rep_space);
      }
    }
  }
  if (shared) realign_loop_carries(f);
  if (ctx.buffer_ir) {
    normalize_identities(relations);
    return strip_pipeline_membership(drop_orphaned_allocs(f));
  }

  coalesce_accumulator_phis(f, p, ctx, "MemoryReuse");
  if (ctx.failed()) return f;
  normalize_identities(relations);
  Function out =
      yield_fixup(f, p, ctx, {true, ctx.planner != Planner::ptoas, true, "MemoryReuse"}, &relations);
  if (ctx.failed()) return out;
  normalize_identities(relations);
  return strip_pipeline_membership(drop_orphaned_allocs(out));
}

}  // namespace passes

[[nodiscard]] PTO_MEM_PYPTO_INLINE Program memory_reuse(const Program& program, PassContext& ctx);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE Program memory_reuse(const Program& program, PassContext& ctx) {
  Program out = program;
  for (auto& f : out.functions) {
    if (f.kind == FunctionKind::Orchestration || !f.body) continue;
    bool any = false;
    passes::for_each_var_def(f, [&](const VarPtr& v) { any = any || passes::is_planned_tile(v); });
    if (!any) continue;
    f = passes::reuse_function(f, program, ctx);
    if (ctx.failed()) return out;
  }
  return out;
}
#endif

}  // namespace pto_mem::pypto
