// A planned program read back (the printed output of a compile, fed to
// InitMemRef again). Its alloc statements are dropped and its allocations
// made again, so what the author declared must be recovered from the text
// before that, or compiling a planned program would quietly plan a different
// one:
//
//   ping: Ptr = tile.alloc(Vec, 32768, pinned=True)
//   t: Tile[[32, 128], FP32, MemRef(ping, 16384 + k % 2 * 16384, 16384, slots=2)[k % 2], Vec] =
//   tile.load(...)
//
// is the declaration `MemRef("ping", slots=2)[k % 2]` on `t`, as written
// before the first compile. So:
//   * a tile whose window is on a pinned allocation (an alloc statement with
//     `pinned=True`) and whose value is its own (not a view, alias or
//     in-place result of another tile: those inherit the window) is bound to
//     the declaration of that name again, with the window's slot count and
//     slot index (no index: slot 0, as an unsubscripted declaration is) --
//     except a copy the storage passes made before a yield into a carry or
//     phi on that allocation (transfers.hpp, yield_copies): that is theirs to
//     make again where it is, not a tile the author bound;
//   * its other allocations are made again by InitMemRef's numbering (and a
//     later pass's names), which need not be the names they had: a tile
//     inserted by a pass the first time is an ordinary statement now and
//     takes a number. So compile() notes each tile's allocation name before
//     the passes (planned_names) and, after them, gives every allocation the
//     name its first tile had, when no other allocation has it, puts the
//     alloc statements back in the input's order and drops an allocation
//     the re-plan made that no tile uses (restore_names).
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/passes/transfers.hpp"

namespace pto_mem::pypto::passes {

/// Pinned allocations of `body` (by base) from its alloc statements.
[[nodiscard]] inline PointerSet<const Var*> pinned_allocations(const StmtPtr& body) {
  PointerSet<const Var*> out;
  for_each_statement(body, [&](const Stmt& s) {
    if (const auto* a = s.as<AllocStmt>(); a && a->pinned && a->var) out.insert(a->var.get());
  });
  return out;
}

/// Whether `s` gives its variable a window of its own (not one inherited
/// from another tile: a bare alias, a view or an in-place result).
[[nodiscard]] inline bool owns_its_window(const AssignStmt& s, const OpRegistry& ops) {
  if (as_var(s.value)) return false;
  const Call* c = s.value ? s.value->as<Call>() : nullptr;
  if (!c) return true;
  const OpSpec* spec = ops.find(c->op);
  return !(spec && spec->lands_in_source());
}

/// Binds every tile of `f`'s body that owns a window on a pinned allocation
/// to that allocation's declaration again (see the header comment). Returns
/// how many tiles it bound.
inline std::size_t restore_declarations(const StmtPtr& body, const OpRegistry& ops) {
  const PointerSet<const Var*> pinned = pinned_allocations(body);
  if (pinned.size() == 0) return 0;
  const PointerSet<const Var*> copies = yield_copies(body);
  std::size_t bound = 0;
  for_each_statement(body, [&](const Stmt& s) {
    const auto* a = s.as<AssignStmt>();
    if (!a || !a->var) return;
    const auto* t = as_tile(a->var->type);
    if (!t || !t->memref || !t->memref->base || t->memref->is_pinned || !t->space) return;
    if (!pinned.contains(t->memref->base.get()) || !owns_its_window(*a, ops) || copies.contains(a->var.get()))
      return;
    a->var->type = with_memref(
        a->var->type, declared_memref(t->memref->base, t->memref->slot_count, t->memref->slot_index));
    ++bound;
  });
  return bound;
}

/// The allocation names of a planned program read back, before the passes:
/// per function that has alloc statements, each tile with the name of its
/// allocation (program order) and the alloc statements' names in order.
struct PlannedNames {
  struct Function {
    std::vector<std::pair<const Var*, std::string>> tiles;
    std::vector<std::string> allocs;
  };
  std::map<std::string, Function> functions;
};

[[nodiscard]] inline PlannedNames planned_names(const Program& p) {
  PlannedNames out;
  for (const auto& f : p.functions) {
    PlannedNames::Function fn;
    for_each_statement(f.body, [&](const Stmt& s) {
      if (const auto* a = s.as<AllocStmt>(); a && a->var) fn.allocs.push_back(a->var->name);
    });
    if (fn.allocs.empty()) continue;
    for_each_def(f, [&](const VarPtr& v) {
      if (const MemRef* m = memref_ptr(v->type); m && m->base && !m->base->name.empty())
        fn.tiles.emplace_back(v.get(), m->base->name);
    });
    out.functions.emplace(f.name, std::move(fn));
  }
  return out;
}

/// Gives each allocation of `p` the name its first tile's allocation had in
/// the input (when no other allocation of the function has that name) and
/// orders the leading alloc statements as the input did. Returns, per
/// function, each renamed allocation's old name and new one.
inline std::map<std::string, std::map<std::string, std::string>> restore_names(Program& p,
                                                                               const PlannedNames& names) {
  std::map<std::string, std::map<std::string, std::string>> renamed;
  for (auto& f : p.functions) {
    auto in = names.functions.find(f.name);
    if (in == names.functions.end() || !f.body) continue;
    // Each allocation takes the name its first tile's allocation had (each
    // name once); one that takes none keeps its own unless that is now
    // another's, then it gets a free variant of it.
    std::vector<Var*> bases;  // mutable: a base's name is what is restored
    PointerSet<const Var*> seen;
    for_each_def(f, [&](const VarPtr& v) {
      if (const MemRef* m = memref_ptr(v->type); m && m->base && seen.insert(m->base.get()))
        bases.push_back(m->base.get());
    });
    PointerMap<const Var*, std::string> chosen;
    std::unordered_set<std::string> taken;
    for (const auto& [var, want] : in->second.tiles) {
      const MemRef* m = memref_ptr(var->type);
      if (!m || !m->base || !seen.contains(m->base.get()) || chosen.find(m->base.get()) ||
          taken.contains(want))
        continue;
      chosen.try_emplace(m->base.get(), want);
      taken.insert(want);
    }
    std::vector<std::pair<Var*, std::string>> plan;
    for (Var* b : bases) {
      if (const std::string* name = chosen.find(b)) {
        plan.emplace_back(b, *name);
        continue;
      }
      std::string name = b->name;
      for (std::size_t k = 1; taken.contains(name); ++k) name = b->name + "_" + std::to_string(k);
      taken.insert(name);
      plan.emplace_back(b, std::move(name));
    }
    auto& out = renamed[f.name];
    for (auto& [b, name] : plan)
      if (b->name != name) {
        out.emplace(b->name, name);
        b->name = std::move(name);
      }
    // The alloc statements in the input's order, new ones after them.
    auto* seqp = f.body->as<SeqStmts>();
    if (!seqp) continue;
    std::unordered_map<std::string, std::size_t> order;
    for (const auto& n : in->second.allocs) order.try_emplace(n, order.size());
    std::vector<StmtPtr> stmts = seqp->stmts;
    std::size_t lead = 0;
    while (lead < stmts.size() && stmts[lead] && stmts[lead]->kind == StmtKind::Alloc) ++lead;
    auto rank = [&](const StmtPtr& s) {
      auto it = order.find(s->as<AllocStmt>()->var->name);
      return it == order.end() ? order.size() : it->second;
    };
    std::stable_sort(stmts.begin(), stmts.begin() + static_cast<std::ptrdiff_t>(lead),
                     [&](const StmtPtr& a, const StmtPtr& b) { return rank(a) < rank(b); });
    // An allocation the re-plan made that no tile uses (a copy the first plan
    // put on its destination directly was numbered, then moved there) goes,
    // unless the input had an unused allocation of that name too.
    std::unordered_set<std::string> used_in_input, unused_in_input;
    for (const auto& t : in->second.tiles) used_in_input.insert(t.second);
    for (const auto& n : in->second.allocs)
      if (!used_in_input.contains(n)) unused_in_input.insert(n);
    const auto unused = std::remove_if(
        stmts.begin(), stmts.begin() + static_cast<std::ptrdiff_t>(lead), [&](const StmtPtr& st) {
          const auto* a = st->as<AllocStmt>();
          return !seen.contains(a->var.get()) && !unused_in_input.contains(a->var->name);
        });
    stmts.erase(unused, stmts.begin() + static_cast<std::ptrdiff_t>(lead));
    if (stmts.size() != seqp->stmts.size() || !std::equal(stmts.begin(), stmts.end(), seqp->stmts.begin()))
      f.body = seq(std::move(stmts), seqp->loc, seqp->scope);
  }
  return renamed;
}

}  // namespace pto_mem::pypto::passes
