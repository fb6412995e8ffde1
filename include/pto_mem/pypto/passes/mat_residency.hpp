// InferTileMemorySpace phase 4 (as PyPTO's InferTileMemorySpace
// documents it): loop-invariant Mat residency.
//
//     for k in range(8):                                       m = tile.load(w, ..., Mat,
//     compiler_bridge=True)
//         m = tile.load(w, ..., Mat, compiler_bridge=True)  =>  r = tile.move(m, target_memory=Right)
//         r = tile.move(m, target_memory=Right)                for k in range(8):
//         acc = tile.matmul_acc(acc, l, r)                         acc = tile.matmul_acc(acc, l, r)
//
// (`w` an input the kernel never writes, `l` defined before the loop.)
//
// A GM->Mat bridge load that an earlier compiler pass generated (marked with
// the kwarg `compiler_bridge=True`; a user-written load never is, and is never
// moved) and whose data does not change across a loop is moved to the loop's
// preheader, so a stationary matmul operand is loaded from GM once:
//   * the exact prefix `load(GM->Mat) -> transpose_view* -> move/extract(Mat->
//     Left/Right)`, each value used once, the L0 value once, in the matching
//     operand slot of a matmul-family call: the whole prefix moves;
//   * a Mat panel fanning out through transpose_view* and one or more
//     move/extract into matching matmul operand slots only (anywhere in the
//     loop, K-dependent staging in inner loops included): only the load moves.
// Legality, all required (anything else leaves the IR as it is):
//   * the loop is a sequential `range` with constant bounds, a positive step
//     and at least one trip; nothing in its header or body calls a function,
//     an unregistered op, a system (sync) or cross-core op;
//   * every moved statement is a direct statement of the loop body, before
//     the first control-flow or effect statement (an expression statement, a
//     call producing a tensor, a hazard call), and reads only values defined
//     outside the loop (besides the chain itself);
//   * the source is a direct `In` tensor parameter the kernel reads only
//     through tile.load; the kernel has at least one call site, every call
//     site is a direct call in a root orchestration function (one no function
//     calls), and there the argument resolves (through plain aliases and
//     tensor.slice / tensor.view / tensor.assemble) to a `tensor.create` that
//     no writable (Out / InOut) argument of the call resolves to, while every
//     writable argument resolves to a known root (a tensor.create or a
//     parameter of the orchestration function);
//   * every allocation-owning Mat / Left / Right tile of the kernel has a
//     static size and their aligned sum per space is within the SoC's
//     capacity (a whole-function bound: no planner can fail because of the
//     longer lifetime); the kernel has no system.reserve_buffer.
// One walk numbers the definitions (a loop's subtree defines a contiguous
// range, so "defined outside" is a range test), one collects every syntactic
// use and the per-loop hazards; each loop's original direct body is analysed
// once, so a chain crosses at most one lexical loop per run: O(N).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pass_diagnostics.hpp"
#include "pto_mem/pypto/passes/stmt_call.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/sizes.hpp"
#include "pto_mem/pypto/soc/soc_policy.hpp"

namespace pto_mem::pypto {

namespace detail::residency {

/// The kwarg marking a compiler-generated GM->Mat bridge load.
inline constexpr std::string_view bridge_marker = "compiler_bridge";

[[nodiscard]] inline bool is_marked_bridge(const Call& c) {
  if (c.op != "tile.load") return false;
  const ExprPtr* m = c.kwarg(bridge_marker);
  const auto* b = m && *m ? (*m)->as<BoolImm>() : nullptr;
  return b && b->value;
}

[[nodiscard]] inline std::optional<MemorySpace> space_of_var(const Var* v) {
  const auto* t = v ? as_tile(v->type) : nullptr;
  return t ? t->space : std::nullopt;
}

[[nodiscard]] inline bool is_l0_operand(std::optional<MemorySpace> s) {
  return s == MemorySpace::Left || s == MemorySpace::Right;
}

[[nodiscard]] inline bool is_matmul_family(std::string_view op) {
  return starts_with(op, "tile.matmul") || starts_with(op, "tile.gemv") ||
         starts_with(op, "tile.batch_matmul");
}

/// A syntactic use of a variable: a direct argument `arg` of the call of
/// statement `stmt`, or (call null) anything else (nested expression, kwarg,
/// alias, yield, return, loop bound or initializer, condition).
struct Use {
  const Stmt* stmt = nullptr;
  const Call* call = nullptr;
  std::size_t arg = 0;
};

/// What one walk of a kernel learns.
class Inventory {
 public:
  Inventory(const Function& f, const OpRegistry& ops) : ops_(ops) {
    for (const auto& p : f.params) number(p.var.get());
    walk(f.body);
  }

  std::unordered_map<const Var*, std::vector<Use>> uses;
  std::unordered_map<const Var*, std::size_t> def_index;
  struct LoopFacts {
    std::size_t def_begin = 0, def_end = 0;  ///< the subtree's definitions
    bool hazard = false;                     ///< a call that could order memory across iterations
  };
  std::unordered_map<const ForStmt*, LoopFacts> loops;
  bool any_reserve_buffer = false;

  [[nodiscard]] bool defined_in(const Var* v, const ForStmt* loop) const {
    auto d = def_index.find(v);
    const auto& l = loops.at(loop);
    return d != def_index.end() && d->second >= l.def_begin && d->second < l.def_end;
  }

  /// A call that may order memory in a way moving a load across iterations could break.
  [[nodiscard]] bool hazard_call(const Call& c) const {
    if (starts_with(c.op, "system.")) {
      return true;
    }
    if (c.op.find("tpush") != std::string::npos || c.op.find("tpop") != std::string::npos) return true;
    const OpSpec* spec = ops_.find(c.op);
    if (!spec) return c.op != "tensor.create";  // a function of the program, or an unknown builtin
    return spec->no_memory_spec && c.op != "tile.alloc" && c.op != "tensor.alloc";
  }

 private:
  void number(const Var* v) { def_index.emplace(v, def_index.size()); }

  /// Records the variables and calls of an expression; returns whether a hazard call is in it.
  bool other(const ExprPtr& e, const Stmt* s) {
    struct Collect : IRWalker<Collect> {
      std::vector<const Var*> vars;
      std::vector<const Call*> calls;
      void visit_var_use(const VarPtr& v) { vars.push_back(v.get()); }
      void visit_call(const Call& c) {
        calls.push_back(&c);
        IRWalker<Collect>::visit_call(c);
      }
    } c;
    c.visit_expr(e);
    for (const Var* v : c.vars) uses[v].push_back(Use{s, nullptr, 0});
    bool h = false;
    for (const Call* k : c.calls) {
      h |= hazard_call(*k);
      any_reserve_buffer |= k->op == "system.reserve_buffer";
    }
    return h;
  }

  bool value(const ExprPtr& e, const Stmt* s) {
    const Call* c = e ? e->as<Call>() : nullptr;
    if (!c) return other(e, s);
    bool h = hazard_call(*c);
    any_reserve_buffer |= c->op == "system.reserve_buffer";
    for (std::size_t i = 0; i < c->args.size(); ++i) {
      if (const auto* v = c->args[i]->as<VarExpr>())
        uses[v->var.get()].push_back(Use{s, c, i});
      else
        h |= other(c->args[i], s);
    }
    for (const auto& kw : c->kwargs) h |= other(kw.value, s);
    return h;
  }

  /// Walks `s` (and records what it finds); returns whether a hazard is below it.
  bool walk(const StmtPtr& s) {
    Walk w{*this};
    w.visit_stmt(s);
    return w.hazard;
  }

  /// The statements in program order; `hazard` collects the hazards seen.
  /// The header expressions are recorded before the loop's definitions, and
  /// a while's condition before its init values.
  struct Walk : IRWalker<Walk> {
    Inventory& in;
    bool hazard = false;
    explicit Walk(Inventory& x) : in(x) {}
    void visit_assign(const AssignStmt& a) {
      hazard |= in.value(a.value, &a);
      in.number(a.var.get());
    }
    void visit_eval(const EvalStmt& e) { hazard |= in.value(e.value, &e); }
    void visit_alloc(const AllocStmt& a) { in.number(a.var.get()); }
    void visit_for(const ForStmt& f) {
      const bool outer = hazard;
      hazard = false;
      hazard |= in.other(f.start, &f);  // all three: other() records each use it sees
      hazard |= in.other(f.stop, &f);
      hazard |= in.other(f.step, &f);
      for (const auto& ia : f.iter_args) hazard |= in.other(ia.init, &f);
      LoopFacts facts;
      facts.def_begin = in.def_index.size();
      in.number(f.loop_var.get());
      for (const auto& ia : f.iter_args) in.number(ia.var.get());
      visit_stmt(f.body);
      facts.def_end = in.def_index.size();
      facts.hazard = hazard;
      in.loops[&f] = facts;
      for (const auto& rv : f.return_vars) in.number(rv.get());
      hazard |= outer;
    }
    void visit_while(const WhileStmt& w) {
      hazard |= in.other(w.condition, &w);
      for (const auto& ia : w.iter_args) hazard |= in.other(ia.init, &w);
      for (const auto& ia : w.iter_args) in.number(ia.var.get());
      visit_stmt(w.body);
      for (const auto& rv : w.return_vars) in.number(rv.get());
    }
    void visit_if(const IfStmt& i) {
      hazard |= in.other(i.condition, &i);
      visit_stmt(i.then_body);
      visit_stmt(i.else_body);
      for (const auto& rv : i.return_vars) in.number(rv.get());
    }
    void visit_yield(const YieldStmt& y) {
      for (const auto& v : y.values) hazard |= in.other(v, &y);
    }
    void visit_return(const ReturnStmt& r) {
      for (const auto& v : r.values) hazard |= in.other(v, &r);
    }
  };

  const OpRegistry& ops_;
};

/// The storage root of `v` in orchestration function `g`: through plain
/// aliases and tensor views to a `tensor.create` (its variable) or one of
/// `g`'s parameters; null when it cannot be told.
class Roots {
 public:
  explicit Roots(const Function& g) {
    for (const auto& p : g.params) params_.insert(p.var.get());
    for_each_statement(g.body, [&](const Stmt& s) {
      if (const auto* a = s.as<AssignStmt>()) defs_.emplace(a->var.get(), a->value);
    });
  }
  [[nodiscard]] const Var* root(const Var* v) const {
    for (std::size_t guard = 0; v && guard <= defs_.size(); ++guard) {
      if (params_.contains(v)) return v;
      auto d = defs_.find(v);
      if (d == defs_.end() || !d->second) return nullptr;
      if (VarPtr src = as_var(d->second)) {
        v = src.get();
        continue;
      }
      const Call* c = d->second->as<Call>();
      if (!c) return nullptr;
      if (c->op == "tensor.create") return v;
      if ((c->op == "tensor.slice" || c->op == "tensor.view" || c->op == "tensor.assemble") &&
          !c->args.empty()) {
        VarPtr src = as_var(c->args[0]);
        v = src ? src.get() : nullptr;
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }
  [[nodiscard]] bool created(const Var* root) const {
    auto d = defs_.find(root);
    const Call* c = d != defs_.end() && d->second ? d->second->as<Call>() : nullptr;
    return c && c->op == "tensor.create";
  }

 private:
  std::unordered_set<const Var*> params_;
  std::unordered_map<const Var*, ExprPtr> defs_;
};

/// Whether parameter `k` of kernel `f` has trusted, non-aliased storage at
/// every call site (root orchestration, `tensor.create`, no writable alias).
[[nodiscard]] inline bool trusted_source(const Program& program, const Function& f, std::size_t k) {
  std::unordered_set<std::string> called;  // functions some function calls
  struct Calls : IRWalker<Calls> {
    std::unordered_set<std::string>* names;
    void visit_call(const Call& c) {
      names->insert(c.op);
      IRWalker<Calls>::visit_call(c);
    }
  } collect;
  collect.names = &called;
  for (const auto& g : program.functions) collect.visit_function(g);
  std::size_t sites = 0;
  for (const auto& g : program.functions) {
    bool ok = true;
    std::size_t here = 0;
    const bool root_orchestration = g.kind == FunctionKind::Orchestration && !called.contains(g.name);
    const Roots roots(g);
    auto check_site = [&](const Call& c, bool direct) {
      if (c.op != f.name) return;
      ++here;
      if (!direct || !root_orchestration || c.args.size() != f.params.size()) {
        ok = false;
        return;
      }
      VarPtr actual = as_var(c.args[k]);
      const Var* cand = actual ? roots.root(actual.get()) : nullptr;
      if (!cand || !roots.created(cand)) {
        ok = false;
        return;
      }
      for (std::size_t j = 0; j < f.params.size(); ++j) {
        if (f.params[j].direction == ParamDirection::In || !is_tensor(f.params[j].var->type)) continue;
        VarPtr w = as_var(c.args[j]);
        const Var* wr = w ? roots.root(w.get()) : nullptr;
        if (!wr || wr == cand) ok = false;
      }
    };
    struct Sites : IRWalker<Sites> {
      std::vector<const Call*> all;
      void visit_call(const Call& c) {
        all.push_back(&c);
        IRWalker<Sites>::visit_call(c);
      }
    } nested;
    std::unordered_set<const Call*> direct_calls;
    for_each_statement(g.body, [&](const Stmt& s) {
      if (const Call* c = stmt_call(s)) direct_calls.insert(c);
    });
    nested.visit_function(g);
    for (const Call* c : nested.all) check_site(*c, direct_calls.contains(c));
    if (!ok) return false;
    sites += here;
  }
  return sites > 0;
}

/// Whether every allocation-owning Mat / Left / Right tile of `f` has a
/// static size and their aligned sums fit the SoC's capacities.
[[nodiscard]] inline bool residency_capacity_ok(const Function& f, const OpRegistry& ops,
                                                const SocPolicy& soc) {
  if (!soc.configured) return false;
  std::array<Addr, memory_space_count> total{};
  bool ok = true;
  for_each_statement(f.body, [&](const Stmt& s) {
    const auto* a = s.as<AssignStmt>();
    const auto* t = a ? as_tile(a->var->type) : nullptr;
    if (!ok || !t || !t->space) return;
    const MemorySpace sp = *t->space;
    if (sp != MemorySpace::Mat && sp != MemorySpace::Left && sp != MemorySpace::Right) return;
    if (as_var(a->value)) return;  // an alias owns nothing
    if (const Call* c = a->value ? a->value->as<Call>() : nullptr)
      if (const OpSpec* spec = ops.find(c->op); spec && spec->lands_in_source()) return;
    auto bytes = tile_bytes(*t, soc);
    auto aligned = bytes ? align_up(*bytes, std::max<Addr>(soc.alignment(sp), 1)) : std::nullopt;
    auto sum = aligned ? checked_add(total[index_of(sp)], *aligned) : std::nullopt;
    if (!sum) {
      ok = false;
      return;
    }
    total[index_of(sp)] = *sum;
  });
  if (!ok) return false;
  for (MemorySpace sp : {MemorySpace::Mat, MemorySpace::Left, MemorySpace::Right}) {
    if (total[index_of(sp)] == 0) continue;
    auto cap = soc.capacity(sp);
    if (!cap || total[index_of(sp)] > *cap) return false;
  }
  return true;
}

/// Chooses and performs the moves, loop by loop.
class Hoister : public IRMutator {
 public:
  Hoister(const Program& program, const Function& f, const OpRegistry& ops, const SocPolicy& soc)
      : program_(program), f_(f), ops_(ops), inv_(f, ops) {
    enabled_ = !inv_.any_reserve_buffer && residency_capacity_ok(f, ops, soc);
  }

  std::size_t hoisted = 0;
  std::vector<std::pair<Loc, std::string>> moves;  ///< per loop: where, and what moved out of it

  ExprPtr mutate_expr(const ExprPtr& e) override { return e; }

  void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) override {
    const auto* loop = child ? child->as<ForStmt>() : nullptr;
    if (!loop || !enabled_) return IRMutator::mutate_seq_child(child, out);
    const std::vector<const Stmt*> moved = choose(*loop);  // from the original body
    StmtPtr r = mutate_stmt(child);
    if (moved.empty() || !r) {
      if (r) out.push_back(std::move(r));
      return;
    }
    const auto* nl = r->as<ForStmt>();
    const auto* body = nl->body->as<SeqStmts>();
    std::vector<StmtPtr> kept;
    for (const auto& s : body->stmts) {
      if (std::find(moved.begin(), moved.end(), s.get()) != moved.end())
        out.push_back(s);
      else
        kept.push_back(s);
    }
    hoisted += moved.size();
    std::string names;
    for (const Stmt* m : moved)
      names += (names.empty() ? "" : ", ") + in_quotes(m->as<AssignStmt>()->var->name);
    moves.emplace_back(loop->loc, std::move(names));
    out.push_back(make_node<ForStmt>(nl->loop_var, nl->start, nl->stop, nl->step, nl->iter_args,
                                     seq(std::move(kept), body->loc), nl->return_vars, nl->for_kind,
                                     nl->stage, nl->attrs, nl->loc));
  }

 private:
  [[nodiscard]] bool loop_ok(const ForStmt& l) const {
    if (l.for_kind != ForKind::Range || inv_.loops.at(&l).hazard) return false;
    auto a = as_const_int(l.start), b = as_const_int(l.stop), st = as_const_int(l.step);
    return a && b && st && *st > 0 && *b > *a && l.body && l.body->is<SeqStmts>();
  }

  /// Every variable the call reads (args and kwargs, nested) other than `except` is defined outside `l`.
  [[nodiscard]] bool reads_invariant(const Call& c, const ForStmt& l, const Var* except) const {
    struct Collect : IRWalker<Collect> {
      std::vector<const Var*> vars;
      void visit_var_use(const VarPtr& v) { vars.push_back(v.get()); }
    } col;
    col.visit_call(c);
    return std::all_of(col.vars.begin(), col.vars.end(),
                       [&](const Var* v) { return v == except || !inv_.defined_in(v, &l); });
  }

  [[nodiscard]] const std::vector<Use>& uses_of(const Var* v) const {
    static const std::vector<Use> none;
    auto it = inv_.uses.find(v);
    return it == inv_.uses.end() ? none : it->second;
  }

  /// The one use of `v` as argument 0 of a direct statement of the open prefix, or null.
  [[nodiscard]] const AssignStmt* single_prefix_use(const Var* v,
                                                    const std::unordered_set<const Stmt*>& prefix) const {
    const auto& us = uses_of(v);
    if (us.size() != 1 || !us[0].call || us[0].arg != 0 || !prefix.contains(us[0].stmt)) return nullptr;
    return us[0].stmt->as<AssignStmt>();
  }

  /// A use in the matching operand slot of a matmul-family call.
  [[nodiscard]] bool matmul_slot(const Use& u, MemorySpace l0) const {
    if (!u.call || !is_matmul_family(u.call->op)) return false;
    const OpSpec* spec = ops_.find(u.call->op);
    return spec && spec->canonical_space(u.arg) == l0;
  }

  /// `s` turns a Mat value into an L0 operand: move / extract into Left / Right.
  [[nodiscard]] static bool to_l0(const AssignStmt& s) {
    const Call* c = s.value ? s.value->as<Call>() : nullptr;
    return c && (c->op == "tile.move" || c->op == "tile.extract") && is_l0_operand(space_of_var(s.var.get()));
  }
  [[nodiscard]] static bool is_transpose_view(const AssignStmt& s) {
    const Call* c = s.value ? s.value->as<Call>() : nullptr;
    return c && c->op == "tile.transpose_view" && space_of_var(s.var.get()) == MemorySpace::Mat;
  }

  /// Whether every read path of Mat value `v` is transpose_view* then move /
  /// extract into L0 whose values feed matching matmul slots only.
  [[nodiscard]] bool panel_paths(const Var* v, const ForStmt& l, std::size_t depth = 0) const {
    const auto& us = uses_of(v);
    if (us.empty() || depth > 64) return false;
    for (const Use& u : us) {
      const auto* a = u.stmt ? u.stmt->as<AssignStmt>() : nullptr;
      if (!u.call || u.arg != 0 || !a || a->value.get() != static_cast<const Expr*>(u.call)) return false;
      if (is_transpose_view(*a)) {
        if (!panel_paths(a->var.get(), l, depth + 1)) return false;
      } else if (to_l0(*a)) {
        const auto l0 = *space_of_var(a->var.get());
        const auto& vs = uses_of(a->var.get());
        if (vs.empty() ||
            !std::all_of(vs.begin(), vs.end(), [&](const Use& x) { return matmul_slot(x, l0); }))
          return false;
      } else {
        return false;
      }
    }
    return true;
  }

  /// The statements of `l`'s original body to move before it, in order.
  [[nodiscard]] std::vector<const Stmt*> choose(const ForStmt& l) const {
    std::vector<const Stmt*> out;
    if (!loop_ok(l)) return out;
    std::unordered_set<const Stmt*> prefix;  // the open prefix: before any control flow or effect
    std::vector<const AssignStmt*> order;
    for (const auto& s : l.body->as<SeqStmts>()->stmts) {
      const auto* a = s->as<AssignStmt>();
      const Call* c = a && a->value ? a->value->as<Call>() : nullptr;
      if (!a || (c && (is_tensor(a->var->type) || inv_.hazard_call(*c)))) break;
      prefix.insert(s.get());
      order.push_back(a);
    }
    std::unordered_set<const Stmt*> chosen;
    for (const AssignStmt* load : order) {
      const Call* c = load->value ? load->value->as<Call>() : nullptr;
      if (!c || !is_marked_bridge(*c) || space_of_var(load->var.get()) != MemorySpace::Mat || c->args.empty())
        continue;
      if (!reads_invariant(*c, l, nullptr) || !trusted_param(c->args[0])) continue;
      // The exact prefix: load -> transpose_view* -> move/extract, one use each.
      std::vector<const Stmt*> chain{load};
      const Var* cur = load->var.get();
      bool exact = false;
      for (std::size_t guard = 0; guard < order.size(); ++guard) {
        const AssignStmt* next = single_prefix_use(cur, prefix);
        if (!next || !reads_invariant(*next->value->as<Call>(), l, cur)) break;
        chain.push_back(next);
        if (is_transpose_view(*next)) {
          cur = next->var.get();
          continue;
        }
        if (to_l0(*next)) {
          const auto& fin = uses_of(next->var.get());
          exact = fin.size() == 1 && matmul_slot(fin[0], *space_of_var(next->var.get()));
        }
        break;
      }
      if (exact) {
        chosen.insert(chain.begin(), chain.end());
      } else if (panel_paths(load->var.get(), l)) {
        chosen.insert(load);
      }
    }
    for (const AssignStmt* a : order)
      if (chosen.contains(a)) out.push_back(a);
    return out;
  }

  /// `e` is a direct In tensor parameter of the kernel, read only by loads,
  /// with trusted storage at every call site.
  [[nodiscard]] bool trusted_param(const ExprPtr& e) const {
    VarPtr v = as_var(e);
    if (!v) return false;
    for (std::size_t k = 0; k < f_.params.size(); ++k) {
      if (f_.params[k].var != v) continue;
      if (f_.params[k].direction != ParamDirection::In || !is_tensor(v->type)) return false;
      for (const Use& u : uses_of(v.get()))
        if (!u.call || u.call->op != "tile.load" || u.arg != 0) return false;
      auto it = trusted_.find(k);
      if (it == trusted_.end()) it = trusted_.emplace(k, trusted_source(program_, f_, k)).first;
      return it->second;
    }
    return false;
  }

  const Program& program_;
  const Function& f_;
  const OpRegistry& ops_;
  Inventory inv_;
  bool enabled_ = false;
  mutable std::unordered_map<std::size_t, bool> trusted_;
};

}  // namespace detail::residency

/// Phase 4 on kernel `f` of `program` (after phases 0-3): `f`'s body with the
/// provably loop-invariant Mat bridge chains moved to their loops' preheaders;
/// each loop that lost statements gets a hint (`mat-residency`) naming them.
[[nodiscard]] inline StmtPtr hoist_loop_invariant_mat(const Program& program, const Function& f,
                                                      PassContext& ctx) {
  if (!f.body || !ctx.soc) return f.body;
  // Only a marked bridge load assigned to a variable can move: a kernel
  // without one (most) needs none of the analysis.
  bool bridge = false;
  for_each_statement(f.body, [&](const Stmt& s) {
    const auto* a = s.as<AssignStmt>();
    const Call* c = a && a->value ? a->value->as<Call>() : nullptr;
    bridge = bridge || (c && detail::residency::is_marked_bridge(*c));
  });
  if (!bridge) return f.body;
  detail::residency::Hoister h(program, f, ctx.ops ? *ctx.ops : default_registry(), *ctx.soc);
  StmtPtr body = h.mutate_stmt(f.body);
  for (auto& [loc, names] : h.moves)
    report(ctx, program, loc, Severity::hint, "mat-residency",
           "loop-invariant Mat residency: " + names + " moved before this loop in function " +
               in_quotes(f.name) + " (loaded from GM once instead of every iteration)");
  return body;
}

/// The bridge marker is provenance for phase 4 only: the pass consumes it on
/// every call of the kernel, moved or not (other keyword arguments stay), so
/// a later run cannot take an already-moved chain for a fresh candidate and
/// bubble it out of one more loop (the pass is idempotent, as PyPTO's).
[[nodiscard]] inline StmtPtr strip_bridge_markers(const StmtPtr& body) {
  struct Stripper final : IRMutator {
    ExprPtr mutate_call(const Call& c, const ExprPtr& self) override {
      ExprPtr e = IRMutator::mutate_call(c, self);
      const auto* m = e->as<Call>();
      if (!m || !m->kwarg(detail::residency::bridge_marker)) return e;
      std::vector<Kwarg> kwargs;
      for (const auto& kw : m->kwargs)
        if (kw.name != detail::residency::bridge_marker) kwargs.push_back(kw);
      return call(m->op, m->args, std::move(kwargs));
    }
  };
  const bool marked = any_expr(body, [](const Expr& e) {
    const auto* c = e.as<Call>();
    return c && c->kwarg(detail::residency::bridge_marker);
  });
  if (!marked) return body;  // most kernels: no walk that rebuilds anything
  Stripper s;
  return s.mutate_stmt(body);
}

}  // namespace pto_mem::pypto
