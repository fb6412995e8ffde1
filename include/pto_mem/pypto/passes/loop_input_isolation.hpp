// Loop-input isolation (the Buffer IR storage rules of
// MaterializeSemanticAliases: loop inputs that are still observed).
//
// Example. The body reads the loop's initializer `init` while the carry
// `acc`, which starts as `init`, is rewritten each iteration:
//
//     init = tile.load(x, ...)                           # on mem_vec_2
//     for i, (acc,) in range(4, init_values=(init,)):    # acc on mem_vec_2 too
//         t = tile.exp(init)                             # reads init every iteration
//         nxt = tile.add(acc, t)
//         out = yield_(nxt)
//
// Writing `nxt` into the carried buffer would overwrite `init` before the
// next iteration's exp reads it. So the loop starts from a copy:
//
//     init_in = tile.move(init, target_memory=Vec)       # on mem_vec_init_in
//     for i, (acc,) in range(4, init_values=(init_in,)):
//         t = tile.exp(init)                             # still reads mem_vec_2
//         nxt = tile.add(acc, t)                         # now on mem_vec_init_in
//
// InitMemRef puts a loop's init, iter-arg and result on one window: the loop
// then writes its carried values over the init's bytes. That is only right
// when nothing reads the init's storage once the loop has started. A carry
// gets an *entry copy* — `<init>_in = tile.move(init)` right before the
// loop, in a fresh allocation the iter-arg and the result then live in —
// when its init is still observed:
//  * some variable on an overlapping window, other than the carry's own
//    chain (the iter-arg, the result, what is derived from them and what the
//    body defines, and values written whole after the loop, which hold
//    their own bytes), is read
//    inside the body or after the loop, or inside an enclosing loop that the
//    value was defined outside of (the next outer iteration reads it again,
//    also as this loop's init) — observation.hpp;
//  * or another carry of the loop starts from an overlapping window (two
//    carries need two windows: every such carry gets its own copy).
// The copy is outside the body, so a zero-trip loop still yields the init's
// value. A loop whose trip count is the constant 0 writes nothing and needs
// none. DDR carries (tensors, write-only outputs) are never copied; a copy in
// another space than Vec is refused with an error naming the value.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/passes/def_sites.hpp"
#include "pto_mem/pypto/passes/observation.hpp"
#include "pto_mem/pypto/passes/transfers.hpp"

namespace pto_mem::pypto::passes {

/// A program-order walk that keeps every window current as it goes, so a
/// storage decision made at a statement sees the windows the values will
/// have: a rewrite earlier in the walk (an entry copy, an in-place copy) may
/// have moved a value, and what stands for it later must move with it — a
/// loop's carries follow their inits on reaching the loop
/// (align_loop_carries); aliases and views follow their sources (the
/// captured relations) at their definition; an if-phi both of whose arms
/// yield values on one window takes that window after its arms (branch
/// destinations keep that common window for it, so a read of the phi is a
/// read of it). Subclasses hook loops and assignments.
template <class Derived>
struct CurrentWindowsWalk : IRWalker<Derived> {
  using Walker = IRWalker<Derived>;
  explicit CurrentWindowsWalk(const std::vector<DerivedValue>& relations) {
    for (const auto& d : relations) derived_[d.var.get()].push_back(&d);
  }
  /// Hooks: a loop before its header is walked, an assignment after its
  /// sources were followed; both with the enclosing statements.
  void on_loop(const Stmt&, const std::vector<PathEntry>&) {}
  void on_assign(const AssignStmt&, const std::vector<PathEntry>&) {}

  void enter_child(const Stmt& s, std::size_t child) { path_.push_back({&s, child}); }
  void leave_child(const Stmt&) { path_.pop_back(); }
  /// The statements enclosing the node being visited, outermost first.
  [[nodiscard]] const std::vector<PathEntry>& path() const noexcept { return path_; }

  void visit_for(const ForStmt& s) {
    align_loop_carries(s.iter_args, s.return_vars);
    this->self().on_loop(s, path_);
    Walker::visit_for(s);
  }
  void visit_while(const WhileStmt& s) {
    align_loop_carries(s.iter_args, s.return_vars);
    this->self().on_loop(s, path_);
    Walker::visit_while(s);
  }
  void visit_assign(const AssignStmt& s) {
    follow_source(s.var);
    this->self().on_assign(s, path_);
    Walker::visit_assign(s);
  }
  void visit_if(const IfStmt& s) {
    Walker::visit_if(s);
    const YieldStmt* ty = terminating_yield(s.then_body);
    const YieldStmt* ey = terminating_yield(s.else_body);
    if (!ty || !ey) return;
    for (std::size_t k = 0; k < s.return_vars.size() && k < ty->values.size() && k < ey->values.size(); ++k) {
      const VarPtr t = as_var(ty->values[k]), e = as_var(ey->values[k]);
      const VarPtr& phi = s.return_vars[k];
      if (!is_planned_tile(t) || !is_planned_tile(e) || !is_planned_tile(phi)) continue;
      if (same_window(var_memref(t), var_memref(e)) && !same_window(var_memref(phi), var_memref(t)))
        set_memref(phi, var_memref(t), var_space(t));
    }
  }
  void visit_expr(const ExprPtr&) {}

 protected:
  /// `v`'s aliases-and-views relations re-derived from their sources' current windows.
  void follow_source(const VarPtr& v, bool in_place_too = true) {
    if (const auto* ds = derived_.find(v.get()))
      for (const DerivedValue* d : *ds)
        if (in_place_too || d->kind != DerivedValue::Kind::in_place) normalize_identity(*d);
  }

 private:
  PointerMap<const Var*, std::vector<const DerivedValue*>> derived_;
  std::vector<PathEntry> path_;
};

/// Whether a variable's bytes were all written after statement `at`, so
/// that reading it observes nothing stored before `at`: it is defined after
/// `at` in an enclosing sequence (UseIndex::defined_after), and it is
///  * the result of an op that writes a new value (not a view, an in-place
///    result or an alias of an older one, and not `tile.create`, whose bytes
///    are whatever the window held), or
///  * a phi all of whose arm values are such, or an alias of one
///    (transitively; a loop's carries never are: the init may be older).
class WrittenAfter {
 public:
  WrittenAfter(const UseIndex& uses, const PassContext& ctx, const Stmt* at,
               const std::vector<PathEntry>& at_path)
      : uses_(uses), ctx_(ctx), at_(at), at_path_(at_path) {}

  [[nodiscard]] bool operator()(const Var* v) const { return check(v, 0); }

 private:
  [[nodiscard]] bool check(const Var* v, int depth) const {
    if (depth > 64) return false;  // a deep phi nest: not worth proving
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    bool fresh = false;
    if (uses_.defined_after(v, at_, at_path_)) {
      const Stmt* holder = uses_.def(v)->holder;
      if (const auto* a = holder->as<AssignStmt>()) {
        if (const Call* c = call_of(a->value)) {
          const OpSpec* spec = spec_of(ctx_, *c);
          fresh = spec && !spec->reuses_input && !spec->is_inherit_input() && c->op != "tile.create";
        } else if (auto src = as_var(a->value)) {
          fresh = check(src.get(), depth + 1);  // a plain alias
        }
      } else if (const auto* i = holder->as<IfStmt>()) {
        const YieldStmt* ty = terminating_yield(i->then_body);
        const YieldStmt* ey = terminating_yield(i->else_body);
        for (std::size_t k = 0; ty && ey && k < i->return_vars.size(); ++k) {
          if (i->return_vars[k].get() != v) continue;
          const VarPtr t = k < ty->values.size() ? as_var(ty->values[k]) : nullptr;
          const VarPtr e = k < ey->values.size() ? as_var(ey->values[k]) : nullptr;
          fresh = t && e && check(t.get(), depth + 1) && check(e.get(), depth + 1);
        }
      }
    }
    memo_.emplace(v, fresh);
    return fresh;
  }

  const UseIndex& uses_;
  const PassContext& ctx_;
  const Stmt* at_;
  const std::vector<PathEntry>& at_path_;
  mutable std::unordered_map<const Var*, bool> memo_;
};

/// Inserts the entry copies; false after an error (reported).
inline bool isolate_loop_inputs(Function& f, const std::vector<DerivedValue>& relations,
                                TransferBuilder& tb) {
  // Built when the first loop input needs them.
  std::optional<UseIndex> uses;  // not const: it follows set_memref (MemRefObserver)
  std::optional<ValueChains> chains;
  struct Copy {
    std::size_t carry;
    VarPtr var;
    StmtPtr stmt;
  };
  std::unordered_map<const Stmt*, std::vector<Copy>> copies;
  bool ok = true;
  // The walk keeps every window current as it goes (CurrentWindowsWalk), so
  // each loop is judged on the windows its values will have.
  struct Walk : CurrentWindowsWalk<Walk> {
    using CurrentWindowsWalk<Walk>::CurrentWindowsWalk;
    std::function<void(const Stmt&, const std::vector<PathEntry>&)> loop_hook;
    void on_loop(const Stmt& s, const std::vector<PathEntry>& path) { loop_hook(s, path); }
  } w(relations);
  w.loop_hook = [&](const Stmt& s, const std::vector<PathEntry>& path) {
    if (!ok) return;
    auto loop = loop_view(&s);
    if (auto n = constant_trip_count(s); n && *n == 0) return;
    const auto& ia = *loop->iter_args;
    for (std::size_t k = 0; k < ia.size() && ok; ++k) {
      const VarPtr init = as_var(ia[k].init);
      if (!is_planned_tile(init) || !is_planned_tile(ia[k].var)) continue;
      const auto space = var_space(init);
      if (!space || *space == MemorySpace::DDR) continue;
      const MemRefPtr window = var_memref(init);
      bool observed = false;
      for (std::size_t j = 0; j < ia.size() && !observed; ++j) {
        if (j == k) continue;
        const VarPtr other = as_var(ia[j].init);
        observed = is_planned_tile(other) && windows_overlap(var_memref(other), var_memref(init));
      }
      if (!observed) {
        std::vector<const Var*> seeds{ia[k].var.get()};
        if (k < loop->return_vars->size()) seeds.push_back((*loop->return_vars)[k].get());
        // Values defined in the body hold the carry's new values, whatever window they are on.
        if (!uses) uses.emplace(tb.context().indexes.of(f)), chains.emplace(f, relations);
        auto chain = chains->of(std::move(seeds));
        for_each_def(*loop->body, [&](const VarPtr& v) { chain.insert(v.get()); });
        // A value written after the loop holds its own bytes: reading it
        // observes nothing the loop's start left there.
        const WrittenAfter fresh(*uses, tb.context(), &s, path);
        struct Exclusion {
          const decltype(chain)& own;
          const WrittenAfter& fresh;
          [[nodiscard]] bool contains(const Var* v) const { return own.contains(v) || fresh(v); }
        } exclude{chain, fresh};
        // Reads inside the body count when the body may run again: in a loop
        // of at most one trip the carry's window is written only by the
        // iteration's own result (the retarget and the yield's copies check
        // the body's later reads themselves), so only reads after the loop
        // (or repeated by an enclosing loop) observe the initializer.
        observed = uses->observed(&s, path, *window, exclude, loop_repeats(s));
      }
      if (!observed) continue;
      std::vector<StmtPtr> out;
      VarPtr copy = tb.copy_to_fresh(init, s.loc, out, "_in",
                                     "is still read after the loop that carries its bytes starts");
      if (!copy) {
        ok = false;
        return;
      }
      set_memref(ia[k].var, var_memref(copy), var_space(copy));
      if (k < loop->return_vars->size()) {
        const VarPtr& rv = (*loop->return_vars)[k];
        if (is_planned_tile(rv)) set_memref(rv, var_memref(copy), var_space(copy));
      }
      copies[&s].push_back(Copy{k, copy, out.front()});
    }
  };
  w.visit_function(f);
  if (!ok) return false;
  if (copies.empty()) return true;

  // Each loop with copies becomes `copies...; loop` (spliced into its sequence).
  struct Rewrite : IRMutator {
    std::unordered_map<const Stmt*, std::vector<Copy>>* copies = nullptr;
    StmtPtr mutate_stmt(const StmtPtr& s) override {
      auto it = s ? copies->find(s.get()) : copies->end();
      StmtPtr r = IRMutator::mutate_stmt(s);
      if (it == copies->end()) return r;
      std::vector<StmtPtr> out;
      for (const auto& c : it->second) out.push_back(c.stmt);
      out.push_back(with_inits(r, it->second));
      return seq(std::move(out), s->loc);
    }
    void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) override {
      const bool splice = copies->contains(child.get());
      StmtPtr r = mutate_stmt(child);
      if (!r) return;
      if (splice)
        for (const auto& x : r->as<SeqStmts>()->stmts) out.push_back(x);
      else
        out.push_back(std::move(r));
    }
    static StmtPtr with_inits(const StmtPtr& s, const std::vector<Copy>& cs) {
      auto replace = [&](std::vector<IterArg> ia) {
        for (const auto& c : cs) ia[c.carry].init = var_ref(c.var);
        return ia;
      };
      if (const auto* l = s->as<ForStmt>())
        return make_node<ForStmt>(l->loop_var, l->start, l->stop, l->step, replace(l->iter_args), l->body,
                                  l->return_vars, l->for_kind, l->stage, l->attrs, l->loc);
      const auto* wl = s->as<WhileStmt>();
      return make_node<WhileStmt>(wl->condition, replace(wl->iter_args), wl->body, wl->return_vars, wl->loc);
    }
  } r;
  r.copies = &copies;
  f.body = r.mutate_stmt(f.body);
  return true;
}

}  // namespace pto_mem::pypto::passes

namespace pto_mem::pypto::passes {

/// Whether some in-place op outside Vec and DDR has an input that more than
/// that op reads: a cheap walk that tells whether the full check of
/// isolate_in_place_inputs(..., other_spaces = true) can find anything its
/// way (an accumulator is usually read by its matmul_acc alone).
inline bool in_place_input_read_again(const Function& f, const std::vector<DerivedValue>& relations) {
  PointerMap<const Var*, int> reads;
  for (const auto& d : relations)
    if (d.writes_over_source())
      if (const auto sp = var_space(d.var); sp && *sp != MemorySpace::Vec && *sp != MemorySpace::DDR)
        reads.try_emplace(d.source.get(), 0);
  if (reads.empty()) return false;
  bool again = false;
  for_each_var_use(f.body, [&](const VarPtr& v) {
    if (int* n = reads.find(v.get())) again = again || ++*n > 1;
  });
  return again;
}

/// In-place input isolation (PyPTO's MaterializeSemanticAliases design: in-place
/// results are writes over their input). `r = op(..., src, ...)` with
/// `output_reuses_input` writes `src`'s window, and so does a view that
/// writes into its source (`r = tile.assemble(src, part, offsets)`, whole
/// window of `src`); when `src`'s storage is
/// still observed after the statement (read after it, or again on a later
/// iteration of a loop `src` was defined outside of, by a value other than
/// `r`'s own chain), `src` is first copied to a fresh Vec allocation and the
/// op works in place on the copy. Outside Vec nothing is changed (no
/// same-space copy exists there; the Acc accumulator rules apply). Runs on
/// the program as InitMemRef left it. False after an error.
///
/// With `other_spaces` (once the legalisation is done) it looks only at the
/// ops outside Vec and DDR instead: one whose input is still observed would
/// need a copy no instruction makes, and is refused with an error naming the
/// input (DDR is never looked at: stores into one output tensor are partial
/// writes).
inline bool isolate_in_place_inputs(Function& f, const PassContext& ctx,
                                    const std::vector<DerivedValue>& relations, TransferBuilder& tb,
                                    bool other_spaces = false) {
  // Built when the first in-place op needs them.
  std::optional<UseIndex> uses;  // not const: it follows set_memref (MemRefObserver)
  std::optional<ValueChains> chains;
  struct Plan {
    std::size_t arg;
    VarPtr copy;
    StmtPtr stmt;
  };
  std::unordered_map<const Stmt*, Plan> plans;
  // In program order with every window kept current (CurrentWindowsWalk): a
  // phi of a value an earlier in-place op moved to a copy follows it, so an
  // in-place op over that phi sees whose storage it would overwrite.
  struct Walk : CurrentWindowsWalk<Walk> {
    explicit Walk(const std::vector<DerivedValue>& r) : CurrentWindowsWalk<Walk>(r) {}
    std::function<void(const AssignStmt&, const std::vector<PathEntry>&)> assign_hook;
    void visit_assign(const AssignStmt& s) {
      follow_source(s.var, false);  // views and aliases; an in-place result is decided by the hook
      assign_hook(s, path());
    }
  } w(relations);
  // In place at InitMemRef: the result followed its input's window.
  PointerMap<const Var*, const DerivedValue*> in_place;
  for (const auto& d : relations)
    if (d.writes_over_source()) in_place.try_emplace(d.var.get(), &d);
  w.assign_hook = [&](const AssignStmt& s, const std::vector<PathEntry>& path) {
    if (tb.failed()) return;
    const DerivedValue* const* found = in_place.find(s.var.get());
    if (!found) return;
    const DerivedValue* ip = *found;
    if (const auto sp = var_space(s.var);
        !sp || *sp == MemorySpace::DDR || (*sp == MemorySpace::Vec) == other_spaces)
      return;
    const VarPtr src = ip->source;
    // An in-place result follows its input, which may itself be a copy now
    // (a view followed it already, in follow_source).
    if (ip->kind == DerivedValue::Kind::in_place && !other_spaces) set_memref(s.var, var_memref(src));
    const Call* c = call_of(s.value);
    const OpSpec* spec = c ? spec_of(ctx, *c) : nullptr;
    if (!spec) return;
    // The argument the op writes: output_reuses_input's, or a writing view's
    // source (argument 0), only when the view covers its source's whole
    // window (the copy then takes the view's place one for one).
    std::optional<std::size_t> written = spec->reuses_input;
    if (ip->kind == DerivedValue::Kind::view) {
      const MemRefPtr vm = var_memref(s.var), sm = var_memref(src);
      if (as_const_int(ip->rel) != 0 || !vm || !sm || vm->size != sm->size) return;
      written = 0;
    }
    if (!written || arg_var(*c, *written) != src) return;
    if (!uses) uses.emplace(ctx.indexes.of(f)), chains.emplace(f, relations);
    if (!uses->observed(&s, path, *var_memref(src), chains->of({s.var.get()}), false)) return;
    std::vector<StmtPtr> out;
    VarPtr copy =
        tb.copy_to_fresh(src, s.loc, out, "_keep", "is still read after an in-place op overwrites it");
    if (!copy) return;
    set_memref(s.var, var_memref(copy), var_space(copy));
    plans.emplace(&s, Plan{*written, copy, out.front()});
  };
  w.visit_function(f);
  if (tb.failed()) return false;
  if (plans.empty()) return true;
  struct Rewrite : IRMutator {
    std::unordered_map<const Stmt*, Plan>* plans = nullptr;
    // A block of one statement may be that statement on its own (InitMemRef
    // leaves it so): its copy and the rewritten op become a sequence.
    StmtPtr mutate_stmt(const StmtPtr& s) override {
      if (!s || s->is<SeqStmts>() || !plans->contains(s.get())) return IRMutator::mutate_stmt(s);
      std::vector<StmtPtr> out;
      mutate_seq_child(s, out);
      return seq(std::move(out), s->loc);
    }
    void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) override {
      auto it = plans->find(child.get());
      if (it == plans->end()) {
        if (auto r = mutate_stmt(child)) out.push_back(std::move(r));
        return;
      }
      const auto* a = child->as<AssignStmt>();
      const Call* c = call_of(a->value);
      std::vector<ExprPtr> args = c->args;
      args[it->second.arg] = var_ref(it->second.copy);
      out.push_back(it->second.stmt);
      out.push_back(assign(a->var, call(c->op, std::move(args), c->kwargs), a->loc));
    }
  } r;
  r.plans = &plans;
  f.body = r.mutate_stmt(f.body);
  return true;
}

}  // namespace pto_mem::pypto::passes
