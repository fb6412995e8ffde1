// A byte-window interpreter for planned programs (passes_property_test.cpp):
// it executes the program with storage — every write stamps a fresh tag on
// the 32-byte granules of its window, every read checks that the window
// still holds the tag of the value it reads — and so compares the planned
// program with value semantics. It knows nothing of the passes: a view
// reads and writes nothing, an in-place op writes its input's window, any
// other tile op writes its output window, an op that is not in-place safe
// may not write a window it reads. Windows are absolute addresses per
// memory space after AllocateMemoryAddr, and (base, relative offset) when
// addresses were not assigned (PTOAS). Loops run their constant trip count
// (else 0 to 3 times, chosen at random), if-arms are chosen at random.
#pragma once

#include <map>
#include <optional>
#include <random>
#include <string>

#include "pto_mem/pypto.hpp"

namespace pto_mem::test {

class PassesStorageInterpreter {
 public:
  PassesStorageInterpreter(const pypto::Function& f, std::uint64_t seed, bool addressed)
      : f_(f), rng_(seed), addressed_(addressed) {}

  /// Empty when every read found its value; otherwise what went wrong first.
  std::string run() {
    exec(f_.body);
    return error_;
  }

 private:
  struct Window {
    const void* key;
    Addr begin, end;
  };

  std::optional<Window> window(const pypto::VarPtr& v) {
    using namespace pypto;
    const auto* t = as_tile(v->type);
    if (!t || !t->memref || !t->memref->base || !t->space || *t->space == MemorySpace::DDR) return std::nullopt;
    auto at = t->memref->const_offset();
    if (!at) return std::nullopt;  // a run-time slot: not modelled
    const void* key = addressed_ ? static_cast<const void*>(&spaces_[static_cast<int>(*t->space)])
                                 : static_cast<const void*>(t->memref->base.get());
    return Window{key, static_cast<Addr>(*at), static_cast<Addr>(*at) + t->memref->size};
  }

  void fail(std::string m) {
    if (error_.empty()) error_ = std::move(m);
  }

  void write(const Window& w, std::uint64_t tag) {
    for (Addr a = w.begin / 32 * 32; a < w.end; a += 32) memory_[{w.key, a}] = tag;
  }
  void check(const pypto::VarPtr& v, const std::string& where) {
    auto w = window(v);
    auto tag = tags_.find(v.get());
    if (!w || tag == tags_.end()) return;
    for (Addr a = w->begin / 32 * 32; a < w->end; a += 32) {
      auto it = memory_.find({w->key, a});
      if (it == memory_.end() || it->second != tag->second) {
        fail("'" + v->name + "' read by " + where + " was overwritten (byte " + std::to_string(a) + " of its window" +
             (it == memory_.end() ? std::string(" was never written") : " holds '" + writer_[it->second] + "'") + ")");
        return;
      }
    }
  }
  void check_expr(const pypto::ExprPtr& e, const std::string& where) {
    using namespace pypto;
    if (!e) return;
    if (auto v = as_var(e)) {
      check(v, where);
      return;
    }
    if (const auto* c = e->as<Call>())
      for (const auto& a : c->args) check_expr(a, where);
    if (const auto* l = e->as<ListExpr>())
      for (const auto& a : l->elems) check_expr(a, where);
    if (const auto* l = e->as<TupleExpr>())
      for (const auto& a : l->elems) check_expr(a, where);
  }

  void bind(const pypto::VarPtr& v, const pypto::ExprPtr& e) {
    auto src = pypto::as_var(e);
    if (!src) return;
    if (auto it = tags_.find(src.get()); it != tags_.end()) tags_[v.get()] = it->second;
  }

  void exec(const pypto::StmtPtr& s) {
    using namespace pypto;
    if (!s || !error_.empty()) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const auto& c : s->as<SeqStmts>()->stmts) exec(c);
        break;
      case StmtKind::Assign: assign(*s->as<AssignStmt>()); break;
      case StmtKind::Eval: check_expr(s->as<EvalStmt>()->value, "a statement"); break;
      case StmtKind::Return:
        for (const auto& v : s->as<ReturnStmt>()->values) check_expr(v, "the return");
        break;
      case StmtKind::Yield:
        for (const auto& v : s->as<YieldStmt>()->values) check_expr(v, "a yield");
        break;
      case StmtKind::If: {
        const auto* i = s->as<IfStmt>();
        const bool then = !i->else_body || std::bernoulli_distribution(0.5)(rng_);
        const StmtPtr& arm = then ? i->then_body : i->else_body;
        exec(arm);
        const auto* y = terminating_yield(arm);
        for (std::size_t k = 0; y && k < i->return_vars.size() && k < y->values.size(); ++k)
          bind(i->return_vars[k], y->values[k]);
        break;
      }
      case StmtKind::For: {
        const auto* l = s->as<ForStmt>();
        std::int64_t trips = std::uniform_int_distribution<int>(0, 3)(rng_);
        if (auto n = passes::constant_trip_count(*s)) trips = *n;
        loop(l->iter_args, l->body, l->return_vars, trips);
        break;
      }
      case StmtKind::While: {
        const auto* w = s->as<WhileStmt>();
        loop(w->iter_args, w->body, w->return_vars, std::uniform_int_distribution<int>(0, 3)(rng_));
        break;
      }
      default: break;
    }
  }

  void loop(const std::vector<pypto::IterArg>& iter_args, const pypto::StmtPtr& body,
            const std::vector<pypto::VarPtr>& return_vars, std::int64_t trips) {
    using namespace pypto;
    for (const auto& ia : iter_args) {
      check_expr(ia.init, "a loop's initial value");
      bind(ia.var, ia.init);
    }
    const auto* y = terminating_yield(body);
    for (std::int64_t it = 0; it < trips && error_.empty(); ++it) {
      exec(body);
      std::vector<std::optional<std::uint64_t>> next;  // the yield is one parallel assignment
      for (std::size_t k = 0; y && k < iter_args.size() && k < y->values.size(); ++k) {
        auto v = as_var(y->values[k]);
        auto t = v ? tags_.find(v.get()) : tags_.end();
        next.push_back(t == tags_.end() ? std::nullopt : std::optional<std::uint64_t>(t->second));
      }
      for (std::size_t k = 0; k < next.size(); ++k)
        if (next[k]) tags_[iter_args[k].var.get()] = *next[k];
    }
    for (std::size_t k = 0; k < return_vars.size() && k < iter_args.size(); ++k)
      bind(return_vars[k], var_ref(iter_args[k].var));
  }

  void assign(const pypto::AssignStmt& a) {
    using namespace pypto;
    const std::string where = "'" + a.var->name + "'";
    const Call* c = a.value ? a.value->as<Call>() : nullptr;
    if (!c) {
      check_expr(a.value, where);
      bind(a.var, a.value);
      return;
    }
    for (const auto& arg : c->args) check_expr(arg, where);
    if (!as_tile(a.var->type)) return;  // a store or a scalar: nothing on chip is written
    const OpSpec* spec = default_registry().find(c->op);
    if (spec && spec->is_view()) {  // a view reads and writes nothing
      bind(a.var, c->args[0]);
      return;
    }
    auto w = window(a.var);
    if (!w) return;
    if (spec && !spec->inplace_safe)
      for (const auto& arg : c->args)
        if (auto v = as_var(arg))
          if (auto r = window(v); r && r->key == w->key && r->begin < w->end && w->begin < r->end)
            fail(where + " = " + c->op + " writes over its input '" + v->name + "'");
    const std::uint64_t tag = next_tag_++;
    writer_[tag] = a.var->name;
    write(*w, tag);
    tags_[a.var.get()] = tag;
  }

  const pypto::Function& f_;
  std::mt19937_64 rng_;
  bool addressed_;
  char spaces_[16] = {};
  std::map<std::pair<const void*, Addr>, std::uint64_t> memory_;
  std::map<const pypto::Var*, std::uint64_t> tags_;
  std::map<std::uint64_t, std::string> writer_;
  std::uint64_t next_tag_ = 1;
  std::string error_;
};

}  // namespace pto_mem::test
