// Semantic alias classes: the sharing
// MaterializeSemanticAliases requires, as must-alias relations that the
// generic unification (algorithms/alias.hpp) joins into classes.
//
//   IR ──collect──► must-share relations ──unify_aliases──► classes with
//   member offsets ──write back──► every member's MemRef from its anchor
//
// A relation says that a value sits a number of bytes above another one:
//  * a derived value (identity_normalize.hpp: a bare alias, an in-place
//    result, a buffer-aliasing view) above its source, at the view's
//    relative offset (0 for the others);
//  * a loop's iter-arg on its init, and its return var on the iter-arg when
//    the two were one buffer (the carry keeps its storage);
//  * a value a pass decided to move (the loop-carry retarget's plans): on a
//    given MemRef.
// An anchor is a value whose window is given: one that follows nothing, or
// one placed on a MemRef. Every anchor that follows nothing, at a constant
// offset, is tied to its allocation (a node per base), so a class knows its
// bytes; a placed value that also follows a source must be where its class
// puts it, else an internal error names it and both windows (as does a
// contradiction the unification finds). A view at a run-time relative
// offset, or an anchor at a run-time offset, starts a class of its own,
// written from its source (or its own window) with the constant member
// offsets added.
//
// Written back in program order: a member takes its anchor's base and slot
// identity, its class offset, its source's space (an in-place result keeps
// its own) and size (a view keeps its own), and the very MemRef object of a
// source whose window it has.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/pypto/passes/identity_normalize.hpp"
#include "pto_mem/pypto/passes/pass_diagnostics.hpp"
#include "pto_mem/pypto/passes/pass_support.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"

namespace pto_mem::pypto::passes {

/// `var` shares `source`'s storage, `rel` bytes above it (null: 0).
struct ShareRelation {
  enum class Kind { same, in_place, view };
  VarPtr var;
  VarPtr source;
  Kind kind = Kind::same;
  ExprPtr rel;
};

/// `var` is placed on `memref` (a pass's decision).
struct Placed {
  VarPtr var;
  MemRefPtr memref;
  std::optional<MemorySpace> space;
};

/// The identity relations as share relations.
inline void add_identity_relations(const std::vector<DerivedValue>& relations,
                                   std::vector<ShareRelation>& out) {
  for (const auto& d : relations) {
    const auto kind = d.kind == DerivedValue::Kind::view       ? ShareRelation::Kind::view
                      : d.kind == DerivedValue::Kind::in_place ? ShareRelation::Kind::in_place
                                                               : ShareRelation::Kind::same;
    out.push_back({d.var, d.source, kind, d.kind == DerivedValue::Kind::view ? d.rel : nullptr});
  }
}

/// The loops of a function body, in statement order, for the carry
/// relations of several write-backs: walked again only when the body is a
/// new one (it holds the body it was taken from, so that one stays alive
/// and its address cannot come back as another body's).
class BodyLoops {
 public:
  [[nodiscard]] const std::vector<const Stmt*>& of(const StmtPtr& body) {
    if (!taken_ || body != body_) {
      body_ = body;
      taken_ = true;
      loops_.clear();
      for_each_statement(body, [&](const Stmt& s) {
        if (loop_view(&s)) loops_.push_back(&s);
      });
    }
    return loops_;
  }

 private:
  StmtPtr body_;
  bool taken_ = false;
  std::vector<const Stmt*> loops_;
};

/// Every loop carry of `loops` as it is now: the iter-arg on its init, the
/// return var on the iter-arg when they are one buffer.
inline void add_carry_relations(const std::vector<const Stmt*>& loops, std::vector<ShareRelation>& out) {
  for (const Stmt* s : loops) {
    auto loop = loop_view(s);
    for (std::size_t k = 0; k < loop->iter_args->size(); ++k) {
      const VarPtr init = as_var((*loop->iter_args)[k].init);
      const VarPtr& ia = (*loop->iter_args)[k].var;
      if (!is_planned_tile(init) || !is_planned_tile(ia)) continue;
      out.push_back({ia, init, ShareRelation::Kind::same, nullptr});
      if (k < loop->return_vars->size()) {
        const VarPtr& rv = (*loop->return_vars)[k];
        if (is_planned_tile(rv) && var_base(rv) == var_base(ia))
          out.push_back({rv, ia, ShareRelation::Kind::same, nullptr});
      }
    }
  }
}
/// Every loop carry of `f` as it is now.
inline void add_carry_relations(const Function& f, std::vector<ShareRelation>& out) {
  BodyLoops loops;
  add_carry_relations(loops.of(f.body), out);
}

namespace detail {

class AliasClassWriter {
 public:
  AliasClassWriter(const Function& f, const Program& p, PassContext& ctx, std::string_view pass)
      : f_(f), p_(p), ctx_(ctx), pass_(pass) {}

  bool run(const std::vector<ShareRelation>& relations, const std::vector<Placed>& placed) {
    // Every relation and placement already holding (most write-backs follow
    // a step that moved nothing) leaves nothing to write: asked first, before
    // any node is made.
    if (all_hold(relations, placed)) return true;
    // Nodes: every value a relation or a placement names, then the bases of
    // the anchors with a constant offset.
    for (const auto& r : relations) {
      if (!is_planned_tile(r.var) || !is_planned_tile(r.source)) continue;
      const std::size_t v = node(r.var);
      if (info_[v].follows) continue;  // one source per value (the first one)
      node(r.source);
      info_[v].follows = &r;
    }
    for (const auto& pl : placed)
      if (is_planned_tile(pl.var) && pl.memref) info_[node(pl.var)].placed = &pl;
    if (vars_.empty()) return true;  // (all_hold would have said so)

    // Program order: a source and an anchor come before what follows them.
    std::vector<std::size_t> order;
    order.reserve(vars_.size());
    std::vector<bool> seen(vars_.size(), false);
    for_each_def(f_, [&](const VarPtr& v) {
      if (const std::size_t* i = index_.find(v.get()); i && !seen[*i]) {
        seen[*i] = true;
        order.push_back(*i);
      }
    });
    // (A value no longer defined in the function is not written.)

    // The generic problem: one buffer per value (labelled by its name, which
    // the unification's diagnostics then show) and per anchored base ("@k");
    // one must-alias group per constant relation and per anchor on its base.
    const std::size_t n = vars_.size();
    std::vector<AliasNode> nodes;
    nodes.reserve(n);
    for (std::size_t i = 0; i < n; ++i) nodes.push_back(node_of(vars_[i]->name, window_of(i)));
    std::unordered_map<const Var*, std::size_t> base_node;
    std::vector<VarPtr> bases;  // base node n + k is bases[k]
    std::vector<MustAliasGroup> groups;
    for (std::size_t i = 0; i < n; ++i) {
      // A placed value that also follows a source is positioned by its
      // source; write() checks that its placement agrees.
      const MemRefPtr m = info_[i].follows ? nullptr : window_of(i);
      if (!m || !m->base) continue;
      const auto off = m->const_offset();
      if (!off || *off < 0) continue;  // a run-time window anchors its own class
      auto [it, fresh] = base_node.try_emplace(m->base.get(), nodes.size());
      if (fresh) {
        nodes.push_back(node_of("@" + std::to_string(bases.size()), nullptr));
        bases.push_back(m->base);
      }
      groups.push_back(
          {{{static_cast<BufferId>(it->second), 0}, {static_cast<BufferId>(i), static_cast<Addr>(*off)}}});
    }
    for (std::size_t i = 0; i < n; ++i) {
      const ShareRelation* r = info_[i].follows;
      if (!r || !constant_rel(*r)) continue;  // a run-time view starts a class
      groups.push_back({{{static_cast<BufferId>(*index_.find(r->source.get())), 0},
                         {static_cast<BufferId>(i), static_cast<Addr>(*rel_offset(*r))}}});
    }
    Problem problem = make_problem(nodes, OneArena{}).problem;
    problem.must_alias = std::move(groups);
    unified_ = unify_aliases(problem);
    if (!unified_.ok()) return fail(vars_.front(), unified_.diagnostics.front().message);
    // Values follow one source each and only anchors that follow nothing
    // are tied to a base, so a class holds at most one base.
    for (std::size_t k = 0; k < bases.size(); ++k)
      base_of_class_.emplace(unified_.allocation_of[n + k], n + k);
    for (std::size_t i : order)
      if (!write(i)) return false;
    return true;
  }

 private:
  struct Info {
    const ShareRelation* follows = nullptr;
    const Placed* placed = nullptr;
  };

  /// The relation's offset, when it is a constant (absent: 0).
  [[nodiscard]] static std::optional<std::int64_t> rel_offset(const ShareRelation& r) {
    return r.rel ? as_const_int(r.rel) : std::optional<std::int64_t>(0);
  }
  /// A constant, non-negative relation offset: the unification can hold it;
  /// otherwise the value starts a class of its own.
  [[nodiscard]] static bool constant_rel(const ShareRelation& r) {
    const auto rel = rel_offset(r);
    return rel && *rel >= 0;
  }
  /// One window with one slot identity and pinning: nothing to write.
  [[nodiscard]] static bool same_storage(const MemRefPtr& a, const MemRefPtr& b) {
    return same_window(a, b) && a->slot_count == b->slot_count && same_expr(a->slot_index, b->slot_index) &&
           a->is_pinned == b->is_pinned;
  }

  /// Every relation and placement already holds (most write-backs follow a
  /// step that moved nothing): then there is nothing to write.
  [[nodiscard]] static bool all_hold(const std::vector<ShareRelation>& relations,
                                     const std::vector<Placed>& placed) {
    for (const auto& pl : placed) {
      if (!is_planned_tile(pl.var) || !pl.memref) continue;
      const MemRefPtr m = var_memref(pl.var);
      if (!same_storage(m, pl.memref) || (pl.space && var_space(pl.var) != pl.space)) return false;
    }
    for (const auto& r : relations) {
      if (!is_planned_tile(r.var) || !is_planned_tile(r.source)) continue;
      const MemRefPtr m = var_memref(r.var), src = var_memref(r.source);
      if (m == src && (r.kind == ShareRelation::Kind::in_place || var_space(r.var) == var_space(r.source)))
        continue;
      if (m->base != src->base || m->slot_count != src->slot_count ||
          !same_expr(m->slot_index, src->slot_index))
        return false;
      const auto rel = rel_offset(r);
      const bool whole = r.kind != ShareRelation::Kind::view || (rel == 0 && m->size == src->size);
      if (m->is_pinned != (whole && src->is_pinned)) return false;
      if (r.kind != ShareRelation::Kind::in_place && var_space(r.var) != var_space(r.source)) return false;
      if (r.kind != ShareRelation::Kind::view && m->size != src->size) return false;
      const auto mo = m->const_offset(), so = src->const_offset();
      if (rel && mo && so) {
        if (*mo != *so + *rel) return false;
      } else if (!same_expr(m->byte_offset, add(src->byte_offset, r.rel ? r.rel : int_imm(0)))) {
        return false;
      }
    }
    return true;
  }

  std::size_t node(const VarPtr& v) {
    auto [i, fresh] = index_.try_emplace(v.get(), vars_.size());
    if (fresh) {
      vars_.push_back(v);
      info_.emplace_back();
    }
    return *i;
  }

  /// A value or a base as core/buffer.hpp reads it (one arena, no lifetimes:
  /// only the member offsets matter).
  struct AliasNode {
    std::string id;
    Addr size = 1;
    Interval lifetime{0, 1};
  };
  /// The one arena the unification needs: unnamed and unbounded.
  struct OneArena {
    [[nodiscard]] std::string name(int) const { return {}; }
    [[nodiscard]] std::optional<Addr> capacity(int) const { return max_addr; }
  };

  static AliasNode node_of(std::string id, const MemRefPtr& m) {
    return {std::move(id), m && m->size > 0 ? static_cast<Addr>(m->size) : Addr{1}, {0, 1}};
  }

  [[nodiscard]] MemRefPtr window_of(std::size_t i) const {
    if (const Placed* pl = info_[i].placed) return pl->memref;
    return var_memref(vars_[i]);
  }

  /// The class position of value i (bytes above its class's lowest point).
  [[nodiscard]] std::int64_t position(std::size_t i) const {
    return static_cast<std::int64_t>(unified_.member_offset[i]);
  }

  bool fail(const VarPtr& v, const std::string& why) {
    ctx_.diagnostics.push_back(pass_error(p_, v ? v->loc : Loc{},
                                          "internal error in " + std::string(pass_) +
                                              ": the semantic aliases of " +
                                              in_quotes(v ? v->name : std::string("?")) + " disagree: " + why,
                                          code::internal));
    return false;
  }

  /// The window class position `pos` has, given the root written so far.
  [[nodiscard]] MemRefPtr at_position(std::size_t cls, std::int64_t pos, Addr size, const MemRefPtr& slots) {
    auto root = roots_.find(cls);
    if (root == roots_.end()) return nullptr;
    const auto& [anchor, anchor_pos] = root->second;
    ExprPtr offset;
    if (auto b = base_of_class_.find(cls); b != base_of_class_.end())
      offset = int_imm(pos - position(b->second));
    else
      offset = add(anchor->byte_offset, int_imm(pos - anchor_pos));
    return make_memref(anchor->base, std::move(offset), size, slots->slot_count, slots->slot_index, false);
  }

  bool write(std::size_t i) {
    const VarPtr& v = vars_[i];
    const std::size_t cls = unified_.allocation_of[i];
    const ShareRelation* r = info_[i].follows;
    const Placed* pl = info_[i].placed;
    const MemRefPtr cur = var_memref(v);
    const bool tied = base_of_class_.contains(cls);

    // The window value i must have: its placement, else its own when it
    // follows nothing.
    MemRefPtr want = pl ? pl->memref : r ? nullptr : cur;
    std::optional<MemorySpace> space = pl && pl->space ? pl->space : var_space(v);
    if (r) {
      const MemRefPtr src = var_memref(r->source);
      const Addr size = r->kind == ShareRelation::Kind::view ? cur->size : src->size;
      MemRefPtr followed;
      if (!constant_rel(*r)) {  // a run-time view: from its source, starting a class
        if (tied) return fail(v, "it is a view at a run-time offset in a class with constant addresses");
        followed = make_memref(src->base, add(src->byte_offset, r->rel), size, src->slot_count,
                               src->slot_index, false);
      } else if (position(i) == position(*index_.find(r->source.get())) && size == src->size) {
        followed = src;  // the source's window: its very MemRef
      } else {
        followed = at_position(cls, position(i), size, src);
        if (!followed) return fail(v, "its source " + in_quotes(r->source->name) + " has no window yet");
      }
      if (want && !same_window(want, followed))
        return fail(v, "it is placed on " + describe(want) + " but shares " + in_quotes(r->source->name) +
                           "'s storage at " + describe(followed));
      want = std::move(followed);
      if (r->kind != ShareRelation::Kind::in_place) space = var_space(r->source);
    } else if (roots_.contains(cls)) {
      // A second anchor of a class: its window must be where the class puts it.
      const MemRefPtr expected = at_position(cls, position(i), want->size, want);
      if (!same_window(expected, want))
        return fail(v, "its window " + describe(want) + " is not where its class puts it (" +
                           describe(expected) + ")");
    } else if (tied && !want->const_offset()) {
      return fail(
          v, "its window " + describe(want) + " is at a run-time offset in a class with constant addresses");
    }
    if (!roots_.contains(cls)) roots_.emplace(cls, std::make_pair(want, position(i)));
    if (cur == want && var_space(v) == space) return true;
    if (cur && same_storage(cur, want))
      set_memref(v, cur, space);  // the same window: keep its MemRef
    else
      set_memref(v, want, space);
    return true;
  }

  [[nodiscard]] static std::string describe(const MemRefPtr& m) {
    if (!m) return "no window";
    std::string s = m->name() + " at ";
    if (auto o = m->const_offset())
      s += std::to_string(*o);
    else
      s += "a run-time offset";
    return s + " (" + std::to_string(m->size) + " bytes)";
  }

  const Function& f_;
  const Program& p_;
  PassContext& ctx_;
  std::string_view pass_;
  std::vector<VarPtr> vars_;
  std::vector<Info> info_;
  PointerMap<const Var*, std::size_t> index_;
  std::unordered_map<std::size_t, std::size_t> base_of_class_;  // class -> its base node
  std::unordered_map<std::size_t, std::pair<MemRefPtr, std::int64_t>>
      roots_;  // class -> first window, position
  AliasUnification unified_;
};

}  // namespace detail

/// Writes every semantic alias class of `f` back (see the file comment).
/// Returns false after adding an internal error to ctx.
inline bool write_back_alias_classes(const Function& f, const Program& p, PassContext& ctx,
                                     std::string_view pass, const std::vector<ShareRelation>& relations,
                                     const std::vector<Placed>& placed = {}) {
  detail::AliasClassWriter w(f, p, ctx, pass);
  return w.run(relations, placed);
}

}  // namespace pto_mem::pypto::passes
