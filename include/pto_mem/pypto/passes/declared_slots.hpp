// Declared-allocation slot check:
// two tiles bound independently to one slot of a declared allocation
// (`MemRef("buf", slots=2)[0]`) may not be live at the same time — they
// would overwrite each other. Different slots may be co-live.
//
// Per (declared base, constant byte offset) the tiles written there by their
// own op are gathered: bare aliases and outputs that land in their source's
// buffer (views, in-place results) inherit the slot and are not checked;
// tiles whose slot is chosen at run time are skipped, and so are the copies
// the passes inserted and, in a planned program read back, the same-space
// copies yielded into a carry or phi (a transfer into a carry or phi window
// continues the value that window holds; it is not a binding of its own). A user error names
// both tiles, their statement-point ranges and the declaration.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/passes/lifetimes.hpp"

namespace pto_mem::pypto::passes {

/// Returns false (and adds the error) when two tiles share a slot while live.
inline bool check_declared_slots(const Function& f, const Program& p, const Lifetimes& lt, PassContext& ctx,
                                 const AllocTable& allocs) {
  if (!allocs.any_pinned()) return true;  // no declared allocation: no slot to share
  std::unordered_set<std::string> inserted;
  for (const auto& m : ctx.moves)
    if (m.function == f.name) inserted.insert(m.name);
  // A same-space copy yielded into a carry or phi is such a transfer too when
  // the program was planned before (read back, the copy is no longer known
  // as inserted): it continues the value of the window it writes.
  PointerSet<const Var*> yielded;
  for_each_statement(f.body, [&](const Stmt& s) {
    if (const auto* y = s.as<YieldStmt>())
      for (const auto& v : y->values)
        if (auto var = as_var(v)) yielded.insert(var.get());
  });
  auto is_transfer = [&](const AssignStmt& s) {
    const Call* c = call_of(s.value);
    if (!c || c->op != "tile.move" || c->args.empty() || !yielded.contains(s.var.get())) return false;
    const auto src = as_var(c->args[0]);
    return src && memory_space_of(src->type) == memory_space_of(s.var->type);
  };
  std::map<std::pair<std::size_t, std::int64_t>, std::vector<std::size_t>>
      slots;  // (base rank, offset) -> tiles
  PointerMap<const Var*, std::size_t> base_rank;
  for (std::size_t i = 0; i < lt.size(); ++i) {
    const MemRefPtr m = var_memref(lt.vars[i]);
    if (!m || !m->base) continue;
    if (!allocs.pinned(m->base.get())) continue;
    const auto offset = m->const_offset();
    if (!offset) continue;  // slot chosen at run time
    if (const AssignStmt* s = lt.def_stmt[i]) {
      if (as_var(s->value)) continue;
      if (inserted.contains(lt.vars[i]->name) || is_transfer(*s))
        continue;  // a bare alias inherits its source's slot
      if (const Call* c = call_of(s->value))
        if (const OpSpec* spec = spec_of(ctx, *c); spec && spec->lands_in_source()) continue;
    }
    const std::size_t rank = *base_rank.try_emplace(m->base.get(), base_rank.size()).first;
    slots[{rank, *offset}].push_back(i);
  }
  for (auto& [key, tiles] : slots) {
    std::stable_sort(tiles.begin(), tiles.end(),
                     [&](std::size_t a, std::size_t b) { return lt.def[a] < lt.def[b]; });
    std::size_t longest = tiles.front();  // the tile seen so far that lives longest
    for (std::size_t k = 1; k < tiles.size(); ++k) {
      const std::size_t cur = tiles[k];
      if (lt.last[longest] > lt.def[cur]) {
        const VarPtr& a = lt.vars[longest];
        const VarPtr& b = lt.vars[cur];
        auto range = [&](std::size_t i) {
          return "[" + std::to_string(lt.def[i]) + ", " + std::to_string(lt.last[i]) + "]";
        };
        ctx.diagnostics.push_back(pass_error(
            p, b->loc,
            "Tiles '" + a->name + "' and '" + b->name +
                "' are both bound to the same slot of the declared allocation '" + var_memref(b)->name() +
                "' in function '" + f.name + "' but are live at the same time (" + a->name + ": " +
                range(longest) + ", " + b->name + ": " + range(cur) +
                " in statement points). Bind them to different slots, declare separate allocations, or end "
                "'" +
                a->name + "''s last use before '" + b->name + "' is written",
            code::declared_slot));
        return false;
      }
      if (lt.last[cur] > lt.last[longest]) longest = cur;
    }
  }
  return true;
}

inline bool check_declared_slots(const Function& f, const Program& p, const Lifetimes& lt, PassContext& ctx) {
  return check_declared_slots(f, p, lt, ctx, AllocTable(f));
}

}  // namespace pto_mem::pypto::passes
