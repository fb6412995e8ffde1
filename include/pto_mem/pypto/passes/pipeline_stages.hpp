// Pipeline-stage membership of `pl.pipeline(stage=F)` clones and the
// separation that keeps clones of different stages in different bytes.
//
// PyPTO's LowerPipelineLoops replicates a `pl.pipeline(N, stage=F)` body F
// times and tags the tile-producing call of every clone with
// `attrs={"pipeline_membership": "g:k"}`: group g (one per replicated
// region), stage k (the clone). A tile inside nested pipelines carries one
// pair per region, `"3:0;0:1"`. The clones run concurrently, so that their
// lifetimes are disjoint in program order is no reason to share a buffer.
// This library has no replication pass: it reads the tags as the IR carries
// them. A `pipeline` loop that was not replicated (ForStmt::stage > 1, one
// body) has no clones and is planned like a range loop.
//
// A base's membership is that of the first tracked tile on it whose defining
// call carries the tag; the base is a *load* when that call is tile.load or
// tile.read.
//
//  * DSA_RP: every two bases of one space that share a group at different
//    stages are a PipelineStage separation (all spaces, loads or not), which
//    the generic driver may relax after a strict no-fit (PH-DSA-001).
//  * MemoryReuse: StageGate. With a known capacity the space is *gated*: a
//    group g of requested depth D_g (its distinct stages) and slot s_g (its
//    largest tile) gets F_g = min(D_g, ⌊capacity / s_g⌋) residues, and two
//    clones whose dense stage ordinals differ modulo F_g may not share. The
//    shed loop lowers F_g (largest aligned slot first, ties lowest group)
//    while the packed footprint overflows; when nothing is left to shed the
//    space falls back to the legacy rule: L0 spaces exempt, only cross-stage
//    pairs with a load kept apart (also the rule of a space whose capacity
//    is unknown). A depth below D_g is reported as PH-MR-001.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/passes/lifetimes.hpp"
#include "pto_mem/pypto/passes/pass_diagnostics.hpp"
#include "pto_mem/pypto/passes/reserve_buffer.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"

namespace pto_mem::pypto::passes {

inline constexpr std::string_view pipeline_membership_key = "pipeline_membership";
inline constexpr const char* pipeline_depth_hint = "PH-MR-001";

/// One `group:stage` pair of a membership.
struct StageTag {
  std::int64_t group = 0;
  std::int64_t stage = 0;
  friend constexpr bool operator==(const StageTag&, const StageTag&) = default;
};

/// `"g:k;g:k"` as pairs. A token that is not `<int>:<int>` is skipped: the
/// attribute may be hand-written, and a bad one must not stop the compiler.
[[nodiscard]] inline std::vector<StageTag> parse_pipeline_membership(std::string_view text) {
  auto number = [](std::string_view s) -> std::optional<std::int64_t> {
    std::int64_t v = 0;
    const auto* end = s.data() + s.size();
    auto [ptr, ec] = std::from_chars(s.data(), end, v);
    if (s.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
    return v;
  };
  std::vector<StageTag> out;
  while (!text.empty()) {
    const std::size_t semi = text.find(';');
    const std::string_view token = text.substr(0, semi);
    text = semi == std::string_view::npos ? std::string_view{} : text.substr(semi + 1);
    const std::size_t colon = token.find(':');
    if (colon == std::string_view::npos) continue;
    const auto g = number(token.substr(0, colon)), k = number(token.substr(colon + 1));
    if (g && k) out.push_back({*g, *k});
  }
  return out;
}

/// The `pipeline_membership` entry of a call's `attrs={...}`, if any.
[[nodiscard]] inline std::optional<std::string_view> membership_attr(const Call& c) {
  const ExprPtr* attrs = c.kwarg("attrs");
  const auto* dict = attrs && *attrs ? (*attrs)->as<ListExpr>() : nullptr;
  if (!dict || !dict->dict) return std::nullopt;
  for (const auto& e : dict->elems) {
    const auto* kv = e ? e->as<TupleExpr>() : nullptr;
    if (!kv || kv->elems.size() != 2) continue;
    const auto* key = kv->elems[0] ? kv->elems[0]->as<StringImm>() : nullptr;
    const auto* value = kv->elems[1] ? kv->elems[1]->as<StringImm>() : nullptr;
    if (key && value && key->value == pipeline_membership_key) return std::string_view(value->value);
  }
  return std::nullopt;
}

/// Two memberships conflict when they share a group at different stages.
[[nodiscard]] inline bool stages_conflict(const std::vector<StageTag>& a, const std::vector<StageTag>& b) {
  for (const auto& x : a)
    for (const auto& y : b)
      if (x.group == y.group && x.stage != y.stage) return true;
  return false;
}

/// The membership of one allocation base.
struct BaseStages {
  const Var* base = nullptr;
  std::vector<StageTag> tags;
  bool load = false;  ///< the tagged tile is a tile.load / tile.read
  Loc loc;            ///< its statement
};

/// The tagged bases of `lt`, in the order of their first tagged tile.
[[nodiscard]] inline std::vector<BaseStages> base_stages(const Lifetimes& lt) {
  std::vector<BaseStages> out;
  std::unordered_map<const Var*, bool> seen;
  for (std::size_t i = 0; i < lt.size(); ++i) {
    const AssignStmt* s = lt.def_stmt[i];
    const Var* base = var_base(lt.vars[i]);
    if (!s || !base || seen.contains(base)) continue;
    const Call* c = call_of(s->value);
    if (!c) continue;
    auto text = membership_attr(*c);
    if (!text) continue;
    auto tags = parse_pipeline_membership(*text);
    if (tags.empty()) continue;
    seen.emplace(base, true);
    out.push_back({base, std::move(tags), c->op == "tile.load" || c->op == "tile.read", s->loc});
  }
  return out;
}

/// MemoryReuse's capacity-gated stage separation for one function: the
/// forbidden pairs under the current depths, the shed step and the hints.
class StageGate {
 public:
  /// A tagged reuse item.
  struct Entry {
    std::size_t item = 0;  ///< index of the reuse item (allocation base)
    MemorySpace space = MemorySpace::Vec;
    Addr size = 0;
    std::vector<StageTag> tags;
    bool load = false;
    Loc loc;
  };
  /// One pipeline group within one space.
  struct Group {
    MemorySpace space = MemorySpace::Vec;
    std::int64_t id = 0;
    Addr slot = 0;                                 ///< its largest tile
    std::map<std::int64_t, std::int64_t> ordinal;  ///< stage -> dense ordinal
    std::int64_t requested = 0;                    ///< D_g: distinct stages
    std::int64_t depth = 1;                        ///< F_g: residues kept apart
    Loc loc;                                       ///< its first tagged tile
  };

  /// `capacity(space)`: the known capacity, or nullopt (the space is not gated).
  template <class Capacity>
  StageGate(std::vector<Entry> entries, Capacity&& capacity) : entries_(std::move(entries)) {
    std::map<std::pair<MemorySpace, std::int64_t>, std::set<std::int64_t>> stages;
    for (const auto& e : entries_)
      for (const auto& t : e.tags) {
        auto [it, fresh] = group_at_.try_emplace({e.space, t.group}, groups_.size());
        if (fresh) groups_.push_back(Group{e.space, t.group, 0, {}, 0, 1, e.loc});
        Group& g = groups_[it->second];
        g.slot = std::max(g.slot, e.size);
        stages[{e.space, t.group}].insert(t.stage);
      }
    for (auto& g : groups_) {
      const auto& ks = stages[{g.space, g.id}];
      for (std::int64_t k : ks) g.ordinal.emplace(k, static_cast<std::int64_t>(g.ordinal.size()));
      g.requested = static_cast<std::int64_t>(ks.size());
      const std::optional<Addr> cap = capacity(g.space);
      if (!cap || *cap == 0 || g.slot == 0) continue;
      gated_.insert(g.space);
      g.depth = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::min<Addr>(static_cast<Addr>(g.requested), *cap / g.slot)));
    }
  }

  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
  [[nodiscard]] const std::vector<Group>& groups() const noexcept { return groups_; }
  /// Whether `space` keeps clones apart up to F_g (rather than by the legacy rule).
  [[nodiscard]] bool gated(MemorySpace space) const {
    return gated_.contains(space) && !legacy_.contains(space);
  }
  [[nodiscard]] bool fell_back(MemorySpace space) const { return legacy_.contains(space); }

  /// The item pairs that may not share under the current depths.
  [[nodiscard]] std::vector<std::pair<std::size_t, std::size_t>> forbidden() const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < entries_.size(); ++i)
      for (std::size_t j = i + 1; j < entries_.size(); ++j)
        if (entries_[i].space == entries_[j].space && apart(entries_[i], entries_[j]))
          out.emplace_back(entries_[i].item, entries_[j].item);
    return out;
  }

  /// Lowers the depth of one group of `space` by a residue: the one with the
  /// largest aligned slot (frees the most bytes), ties the lowest group id.
  /// False when every group of the space is at depth 1.
  template <class Align>
  bool shed(MemorySpace space, Align&& align) {
    Group* pick = nullptr;
    Addr best = 0;
    for (auto& g : groups_) {
      if (g.space != space || g.depth <= 1 || !gated(space)) continue;
      const Addr a = align(g.slot, space);
      if (!pick || a > best || (a == best && g.id < pick->id)) pick = &g, best = a;
    }
    if (!pick) return false;
    --pick->depth;
    return true;
  }

  /// The space keeps clones apart by the legacy rule from now on.
  void fall_back(MemorySpace space) { legacy_.insert(space); }
  [[nodiscard]] bool has_groups(MemorySpace space) const {
    return std::any_of(groups_.begin(), groups_.end(), [&](const Group& g) { return g.space == space; });
  }

 private:
  [[nodiscard]] bool apart(const Entry& a, const Entry& b) const {
    if (!gated(a.space)) {  // legacy: L0 exempt, only pairs with a load
      if (is_l0(a.space) || !(a.load || b.load)) return false;
      return stages_conflict(a.tags, b.tags);
    }
    for (const auto& x : a.tags)
      for (const auto& y : b.tags) {
        if (x.group != y.group || x.stage == y.stage) continue;
        const Group& g = groups_[group_at_.at({a.space, x.group})];
        const std::int64_t k = std::max<std::int64_t>(g.depth, 1);
        if (g.ordinal.at(x.stage) % k != g.ordinal.at(y.stage) % k) return true;
      }
    return false;
  }

  std::vector<Entry> entries_;
  std::vector<Group> groups_;
  std::map<std::pair<MemorySpace, std::int64_t>, std::size_t> group_at_;
  std::set<MemorySpace> gated_, legacy_;
};

/// PH-MR-001 for every gated group whose depth ended below the one its
/// stages ask for (spaces that fell back were warned about already).
template <class Align>
void report_pipeline_depths(const Function& f, const Program& p, PassContext& ctx, const StageGate& gate,
                            const ReserveResolution& reserve, Align&& align) {
  for (const auto& g : gate.groups()) {
    if (!gate.gated(g.space) || g.depth >= g.requested) continue;
    const Addr cap = ctx.soc && ctx.soc->capacity(g.space) ? *ctx.soc->capacity(g.space) : 0;
    const Addr floor = reserve.floor(g.space);
    const Addr free = cap > floor ? cap - floor : 0;
    const Addr slot = align(g.slot, g.space);
    const Addr need = checked_mul(slot, static_cast<Addr>(g.requested)).value_or(max_addr);
    const std::string space(to_string(g.space));
    const std::string d = std::to_string(g.requested), k = std::to_string(g.depth);
    std::string msg = "MemoryReuse in function '" + f.name + "': pipeline group " + std::to_string(g.id) +
                      " in " + space + " requested depth " + d + ", but only " + k + " of " + d +
                      " buffers fit (" + std::to_string(slot) + " bytes per stage, " + std::to_string(free) +
                      " bytes free" +
                      (floor ? " above " + std::to_string(floor) + " reserved" : std::string()) +
                      "): stages " + k + " apart share a buffer and run one after the other. ";
    if (need > free)
      msg += "Depth " + d + " alone needs " + std::to_string(need) +
             " bytes: shrink the per-stage tile to at most " +
             std::to_string(free / static_cast<Addr>(g.requested)) +
             " bytes, or lower pl.pipeline(stage=) to " + k + ".";
    else
      msg +=
          "The stages would fit on their own, but co-resident buffers (the tiles live alongside them) "
          "over-subscribe the space: keep fewer of them live at once, or lower pl.pipeline(stage=) to " +
          k + ".";
    report(ctx, p, g.loc, Severity::hint, pipeline_depth_hint, std::move(msg));
  }
}

/// A copy of `f` without the `pipeline_membership` attributes (an `attrs`
/// dict left empty is dropped): the tags are consumed by the planner and
/// must not reach later passes or codegen.
[[nodiscard]] inline Function strip_pipeline_membership(const Function& f) {
  struct Strip : IRMutator {
    ExprPtr mutate_call(const Call& c, const ExprPtr& self) override {
      ExprPtr e = IRMutator::mutate_call(c, self);
      const auto* mutated = e->as<Call>();
      if (!membership_attr(*mutated)) return e;
      std::vector<Kwarg> kwargs;
      for (const auto& kw : mutated->kwargs) {
        if (kw.name != "attrs") {
          kwargs.push_back(kw);
          continue;
        }
        std::vector<ExprPtr> kept;
        for (const auto& kv : kw.value->as<ListExpr>()->elems) {
          const auto* t = kv ? kv->as<TupleExpr>() : nullptr;
          const auto* key = t && t->elems.size() == 2 && t->elems[0] ? t->elems[0]->as<StringImm>() : nullptr;
          if (!key || key->value != pipeline_membership_key) kept.push_back(kv);
        }
        if (!kept.empty()) kwargs.push_back(Kwarg{kw.name, dict_expr(std::move(kept))});
      }
      return pypto::call(mutated->op, mutated->args, std::move(kwargs));
    }
  };
  const bool tagged = any_expr(f.body, [](const Expr& e) {
    const auto* c = e.as<Call>();
    return c && membership_attr(*c);
  });
  if (!tagged) return f;  // most kernels: nothing to strip, no walk that rebuilds
  Strip s;
  return s.mutate_function(f);
}

}  // namespace pto_mem::pypto::passes
