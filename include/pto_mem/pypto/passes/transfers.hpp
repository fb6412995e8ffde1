// Explicit transfers (the Buffer IR storage rules of MaterializeSemanticAliases):
// the tile.move statements the storage rules insert —
// the copies at a loop's yield into its carried windows, at a branch exit
// into the phis' windows, and the entry copy that isolates a loop input —
// and the parallel transfer scheduler.
//
// The copies at one yield are one *parallel* copy: every destination gets
// the value its source held before any of them was written. They are
// emitted in an order where no copy overwrites a window another pending
// copy still has to read; when every pending copy would (a swap, a
// rotation), one source is first saved to a fresh allocation. A source
// that partially overlaps its own destination is saved too (tile.move may
// not run in place). Fan-out (one source, several destinations) needs
// nothing special.
//
// A copy from Acc to Acc does not exist: it is reported as an error naming
// the value ("cannot reconcile divergent L0C accumulator buffers"), code
// `unsupported-copy` under Buffer IR (PyPTO's design's early "unsupported
// same-space copy" diagnostic), `internal` in the legacy pipeline.
// A save or an entry copy is only made in Vec (same-space copies in Mat,
// Left, Right and Acc are not supported); elsewhere the error names the
// value and says what to change.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "pto_mem/pypto/passes/pass_support.hpp"

namespace pto_mem::pypto::passes {

/// One copy of a parallel transfer: `src`'s value into window `dest`.
struct Transfer {
  VarPtr src;
  MemRefPtr dest;
  std::optional<MemorySpace> space;
  VarPtr result;  ///< after scheduling: the variable holding the value in `dest` (src itself when no copy)
};

/// A copy the storage rules make before a yield, as it reads back once the
/// planned program is compiled again (an ordinary statement then):
/// `v = tile.move(from, ...)` in the block that ends with `body`'s
/// terminating yield, alone on an allocation of its own, read by nothing but
/// that yield, once.
struct TrailingCopy {
  const SeqStmts* block = nullptr;
  std::size_t at = 0;  ///< the move's index in `block`
  VarPtr from;         ///< the value it copies
};

[[nodiscard]] inline std::optional<TrailingCopy> trailing_copy(const Function& f, const StmtPtr& body,
                                                               const VarPtr& v) {
  if (!is_planned_tile(v)) return std::nullopt;
  const SeqStmts* block = nullptr;
  for (const Stmt* s = body.get(); s && s->is<SeqStmts>();) {
    block = s->as<SeqStmts>();
    s = block->stmts.empty() ? nullptr : block->stmts.back().get();
  }
  if (!block || block->stmts.empty() || !block->stmts.back()->is<YieldStmt>()) return std::nullopt;
  const auto& stmts = block->stmts;
  std::size_t yielded = 0;
  for (const auto& e : stmts.back()->as<YieldStmt>()->values) yielded += as_var(e) == v;
  if (yielded != 1) return std::nullopt;
  TrailingCopy out;
  out.block = block;
  out.at = stmts.size();
  for (std::size_t k = 0; k + 1 < stmts.size(); ++k)
    if (const auto* a = stmts[k]->as<AssignStmt>(); a && a->var == v) out.at = k;
  if (out.at == stmts.size()) return std::nullopt;
  const Call* c = call_of(stmts[out.at]->as<AssignStmt>()->value);
  out.from = c && c->op == "tile.move" ? arg_var(*c, 0) : nullptr;
  if (!out.from) return std::nullopt;
  // Alone on its allocation (but for if results, which InitMemRef puts on
  // their then-value's window and the passes then give their destination),
  // and the yield is its only reader.
  const Var* base = var_base(v);
  std::size_t on_base = 0, reads = 0;
  for_each_def(f, [&](const VarPtr& x) { on_base += var_base(x) == base; });
  for_each_statement(f.body, [&](const Stmt& s) {
    if (const auto* i = s.as<IfStmt>())
      for (const auto& r : i->return_vars) on_base -= var_base(r) == base;
  });
  for_each_var_use(f.body, [&](const VarPtr& x) { reads += x == v; });
  if (on_base != 1 || reads != 1) return std::nullopt;
  return out;
}

/// The tiles of `body` that read like a copy the storage rules made before a
/// yield (a `tile.move` in the block the yield ends, read by that yield
/// once and by nothing else), wherever their windows are. A planned program
/// read back binds no such copy to a declared allocation it landed on: it
/// is the passes' copy, not the author's tile (planned_input.hpp).
[[nodiscard]] inline PointerSet<const Var*> yield_copies(const StmtPtr& body) {
  PointerMap<const Var*, std::size_t> reads;
  for_each_var_use(body, [&](const VarPtr& v) {
    if (v) ++reads[v.get()];
  });
  PointerSet<const Var*> out;
  for_each_statement(body, [&](const Stmt& s) {
    const auto* block = s.as<SeqStmts>();
    if (!block || block->stmts.empty() || !block->stmts.back()->is<YieldStmt>()) return;
    const auto& values = block->stmts.back()->as<YieldStmt>()->values;
    for (std::size_t k = 0; k + 1 < block->stmts.size(); ++k) {
      const auto* a = block->stmts[k]->as<AssignStmt>();
      const Call* c = a && a->var ? call_of(a->value) : nullptr;
      if (!c || c->op != "tile.move") continue;
      std::size_t yielded = 0;
      for (const auto& e : values) yielded += as_var(e) == a->var;
      const std::size_t* n = reads.find(a->var.get());
      if (yielded == 1 && n && *n == 1) out.insert(a->var.get());
    }
  });
  return out;
}

class TransferBuilder {
 public:
  TransferBuilder(const Function& f, const Program& p, PassContext& ctx, std::string_view pass_name)
      : f_(f), p_(p), ctx_(ctx), pass_(pass_name) {}

  [[nodiscard]] bool failed() const noexcept { return failed_; }
  [[nodiscard]] const PassContext& context() const noexcept { return ctx_; }
  /// Alloc statements of the fresh allocations, to put after the leading allocs.
  [[nodiscard]] const std::vector<StmtPtr>& new_allocs() const noexcept { return allocs_; }
  /// The variables the inserted copies define, in insertion order.
  [[nodiscard]] const std::vector<VarPtr>& made() const noexcept { return made_; }

  /// A name not used in the function yet: `want`, else `want_1`, `want_2`...
  std::string unique_name(const std::string& want) {
    if (!names_known_) {  // the function's names, collected when the first new one is needed
      for_each_def(f_, [&](const VarPtr& v) {
        if (v) names_.insert(v->name);
      });
      names_known_ = true;
    }
    std::string n = want;
    for (int k = 1; names_.contains(n); ++k) n = want + "_" + std::to_string(k);
    names_.insert(n);
    return n;
  }

  /// A new allocation of `size` bytes in `space` (`mem_<space>_<hint>`).
  MemRefPtr fresh(MemorySpace space, Addr size, const std::string& hint, Loc loc) {
    auto base =
        make_var(unique_name("mem_" + std::string(lowercase_name(space)) + "_" + hint), ptr_type(), loc);
    allocs_.push_back(alloc(base, space, size, false, AllocOp::tile, loc));
    return make_memref(std::move(base), int_imm(0), size);
  }

  /// `name = tile.move(src, target_memory=space)` typed with window `dest`.
  /// Null (and the error reported) for an Acc-to-Acc copy.
  VarPtr move(const VarPtr& src, const MemRefPtr& dest, std::optional<MemorySpace> space, Loc loc,
              std::vector<StmtPtr>& out, const std::string& suffix = "_mv") {
    if (space == MemorySpace::Acc && var_space(src) == MemorySpace::Acc) {
      error(src->loc,
            std::string(pass_) +
                " cannot reconcile divergent L0C accumulator buffers with tile.move in function '" + f_.name +
                "': '" + src->name + "' (" + var_memref(src)->name() +
                ") would have to be copied into another Acc buffer (" + dest->name() +
                "), and there is no Acc-to-Acc copy; accumulator control-flow values must be coalesced "
                "before YieldFixup (keep the accumulator chain in place: matmul_acc on the carried value, "
                "and no read of the accumulator's input after the branch)");
      return nullptr;
    }
    const MemorySpace to = space.value_or(MemorySpace::Vec);
    auto var =
        make_var(unique_name(src->name + suffix), with_memory_space(with_memref(src->type, dest), to), loc);
    out.push_back(
        assign(var, call("tile.move", {var_ref(src)}, {Kwarg{"target_memory", space_imm(to)}}), loc));
    ctx_.moves.push_back(InsertedMove{f_.name, var->name, src->name, to});
    made_.push_back(var);
    return var;
  }

  /// A private copy of `src` in a fresh allocation of its own space (a save
  /// before a parallel copy overwrites it, or a loop input's entry copy).
  VarPtr copy_to_fresh(const VarPtr& src, Loc loc, std::vector<StmtPtr>& out, const std::string& suffix,
                       std::string_view why) {
    const auto space = var_space(src);
    if (!space || *space != MemorySpace::Vec) {
      error(src->loc,
            std::string(pass_) + " in function '" + f_.name + "': '" + src->name + "' (" +
                std::string(space ? to_string(*space) : "no space") + ") " + std::string(why) +
                ", but a same-space copy is only supported in Vec; restructure the kernel so that the " +
                "value is not read again after it is overwritten (for a loop input: do not read the " +
                "initial value inside or after the loop)");
      return nullptr;
    }
    return move(src, fresh(*space, var_memref(src)->size, src->name + suffix, loc), space, loc, out, suffix);
  }

  /// Emits the transfers as one parallel copy into `out`; fills each
  /// transfer's `result`. False after an error. With `body` (the loop body
  /// or arm whose terminating yield the copies go before), a source that
  /// is already such a copy is written into its destination instead of
  /// being copied again (absorbed(), below).
  bool schedule(std::vector<Transfer>& ts, Loc loc, std::vector<StmtPtr>& out,
                const StmtPtr& body = nullptr) {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (same_window(var_memref(ts[i].src), ts[i].dest)) {
        ts[i].result = ts[i].src;
      } else {
        pending.push_back(i);
      }
    }
    if (body) absorb_pending(ts, pending, body);
    // A source that overlaps its own destination without being it: save it.
    for (std::size_t i : pending)
      if (windows_overlap(var_memref(ts[i].src), ts[i].dest)) {
        ts[i].src = copy_to_fresh(ts[i].src, loc, out, "_save", "overlaps the window it must be copied into");
        if (!ts[i].src) return false;
      }
    while (!pending.empty()) {
      auto blocked = [&](std::size_t i) {
        for (std::size_t j : pending)
          if (j != i && windows_overlap(ts[i].dest, var_memref(ts[j].src))) return true;
        return false;
      };
      auto ready = std::find_if(pending.begin(), pending.end(), [&](std::size_t i) { return !blocked(i); });
      if (ready != pending.end()) {
        const std::size_t i = *ready;
        pending.erase(ready);
        ts[i].result = move(ts[i].src, ts[i].dest, ts[i].space, loc, out);
        if (!ts[i].result) return false;
        continue;
      }
      // A cycle: the first pending copy waits for some source; save that one.
      VarPtr victim;
      for (std::size_t j : pending)
        if (j != pending.front() && windows_overlap(ts[pending.front()].dest, var_memref(ts[j].src))) {
          victim = ts[j].src;
          break;
        }
      if (!victim) return false;  // unreachable: the first copy is blocked
      const VarPtr saved =
          copy_to_fresh(victim, loc, out, "_save", "is overwritten by a parallel copy that still reads it");
      if (!saved) return false;
      for (std::size_t j : pending)
        if (ts[j].src == victim) ts[j].src = saved;
    }
    return true;
  }

  /// Writes each transfer of `ts` whose source is a copy made on an earlier
  /// run (absorbed(), below) into its destination, and leaves the others
  /// (their `result` stays null) for a later schedule(): what a pass that
  /// places its copies later (after lifetime packing) does first, so that
  /// the packing sees those copies where they belong.
  void absorb(std::vector<Transfer>& ts, const StmtPtr& body) {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (!ts[i].result && !same_window(var_memref(ts[i].src), ts[i].dest)) pending.push_back(i);
    absorb_pending(ts, pending, body);
  }

  /// Prepends the fresh allocations after the function's leading allocs.
  [[nodiscard]] Function with_allocs(Function out) const {
    if (allocs_.empty() || !out.body) return out;
    std::vector<StmtPtr> stmts =
        out.body->is<SeqStmts>() ? out.body->as<SeqStmts>()->stmts : std::vector<StmtPtr>{out.body};
    auto at = std::find_if(stmts.begin(), stmts.end(), [](const StmtPtr& s) { return !s->is<AllocStmt>(); });
    stmts.insert(at, allocs_.begin(), allocs_.end());
    out.body = seq(std::move(stmts), out.body->loc);
    return out;
  }

 private:
  /// Absorbs what it can of `pending` (indices into `ts`), keeping the rest.
  void absorb_pending(std::vector<Transfer>& ts, std::vector<std::size_t>& pending, const StmtPtr& body) {
    std::vector<std::size_t> copy;
    for (std::size_t i : pending) {
      if (!absorbed(ts, i, pending, body)) {
        copy.push_back(i);
        continue;
      }
      set_memref(ts[i].src, ts[i].dest, ts[i].space);
      ts[i].result = ts[i].src;
    }
    pending = std::move(copy);
  }

  /// Whether pending transfer `i` is a copy this builder made on an earlier
  /// run of its pass, read back as an ordinary statement (trailing_copy(),
  /// into the destination's space and fitting it), after which nothing in
  /// the block reads or writes the destination, and no other copy of this
  /// transfer reads it. Writing that move straight into the destination is
  /// then the copy this transfer would make, made where it already is:
  /// without this, every compile of a planned program would add a copy of
  /// each copy (`x_mv_mv`), and a planned program would not be a fixed point.
  bool absorbed(const std::vector<Transfer>& ts, std::size_t i, const std::vector<std::size_t>& pending,
                const StmtPtr& body) {
    const Transfer& t = ts[i];
    if (!t.dest || !t.dest->base || (t.space && var_space(t.src) != t.space)) return false;
    const auto copy = trailing_copy(f_, body, t.src);
    if (!copy || var_memref(t.src)->size > t.dest->size || windows_overlap(var_memref(copy->from), t.dest))
      return false;
    // The other pending copies are emitted after it: none may read the destination.
    for (std::size_t j : pending)
      if (j != i && !ts[j].result && windows_overlap(var_memref(ts[j].src), t.dest)) return false;
    // Nothing after the move but the yield touches the destination.
    bool clash = false;
    auto touches = [&](const VarPtr& v) {
      if (v && windows_overlap(var_memref(v), t.dest)) clash = true;
    };
    const auto& stmts = copy->block->stmts;
    for (std::size_t k = copy->at + 1; k + 1 < stmts.size() && !clash; ++k) {
      for_each_var_use(stmts[k], touches);
      for_each_def(stmts[k], touches);
    }
    return !clash;
  }

  void error(Loc loc, std::string message) {
    // Under Buffer IR the copies are planned before any planner, and a copy
    // that cannot exist is the kernel's limit (PyPTO's design: "unsupported same-space
    // copy"); in the legacy pipeline it is a broken invariant of YieldFixup.
    ctx_.diagnostics.push_back(
        pass_error(p_, loc, std::move(message), ctx_.buffer_ir ? code::unsupported_copy : code::internal));
    failed_ = true;
  }

  const Function& f_;
  const Program& p_;
  PassContext& ctx_;
  std::string_view pass_;
  std::unordered_set<std::string> names_;
  bool names_known_ = false;
  std::vector<StmtPtr> allocs_;
  std::vector<VarPtr> made_;
  bool failed_ = false;
};

/// `body` with its terminating yield replaced by `before...` then `yield`.
[[nodiscard]] inline StmtPtr replace_terminating_yield(const StmtPtr& body, std::vector<StmtPtr> before,
                                                       StmtPtr new_yield) {
  if (!body) return body;
  if (body->is<YieldStmt>()) {
    before.push_back(std::move(new_yield));
    return seq(std::move(before), body->loc);
  }
  const auto* s = body->as<SeqStmts>();
  if (!s || s->stmts.empty()) return body;
  std::vector<StmtPtr> stmts = s->stmts;
  if (stmts.back()->is<YieldStmt>()) {
    stmts.pop_back();
    for (auto& b : before) stmts.push_back(std::move(b));
    stmts.push_back(std::move(new_yield));
  } else {
    stmts.back() = replace_terminating_yield(stmts.back(), std::move(before), std::move(new_yield));
  }
  return seq(std::move(stmts), s->loc);
}

}  // namespace pto_mem::pypto::passes
