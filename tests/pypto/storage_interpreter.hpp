// A byte-window interpreter for planned programs (test only). It executes a
// planned function twice at once:
//   * on storage: byte-addressed memory per space (absolute addresses) or
//     per allocation base (relative offsets, PTOAS: each base its own
//     disjoint region); every byte a definition writes holds (tag of that
//     dynamic definition, byte index within the value);
//   * with value semantics: every SSA value is its own content, a (tag,
//     origin) pair; a view is its source's content at the view's offset in
//     the source (from the op's arguments, not from the MemRefs), a loop
//     carry or phi takes the yielded value's content, with no copy.
// Every read compares the two over the read value's window; the first
// mismatch is reported. Ops have abstract semantics only: a result is a
// fresh tag. It shares no code with the passes or the tile-storage verifier.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/sizes.hpp"

namespace pto_mem::test {

class StorageInterpreter {
 public:
  struct Options {
    bool addresses_assigned = true;  ///< kernel offsets are absolute addresses
    std::uint64_t seed = 1;          ///< branch choices, scalar parameters, while trip counts
    int max_trips = 4;  ///< a constant loop runs min(trips, max_trips) iterations (at least 2 when it has 2)
    const pypto::OpRegistry* ops = nullptr;
    std::string soc;  ///< per-SoC no-alias overrides
  };

  StorageInterpreter(const pypto::Function& f, Options o)
      : f_(f),
        o_(o),
        rng_(o.seed),
        ops_(o.ops ? *o.ops : pypto::default_registry()),
        absolute_(o.addresses_assigned && pypto::is_kernel(f.kind)),
        soc_(o.soc) {}

  /// Empty when every read observed its value; otherwise the first mismatch.
  std::string run() {
    using namespace pypto;
    for (const auto& p : f_.params) {
      if (const auto* s = p.var->type ? p.var->type->as<ScalarType>() : nullptr) {
        (void)s;
        env_[p.var.get()] = std::uniform_int_distribution<int>(0, 3)(rng_);
      } else if (window(*p.var)) {
        define(*p.var, fresh_tag(*p.var));
      }
    }
    exec(f_.body);
    return error_;
  }

 private:
  static constexpr std::int64_t max_address = std::int64_t{1} << 26;  ///< no on-chip space is near 64 MiB

  struct Cell {
    std::uint32_t tag = 0;  ///< 0: never written
    std::int64_t index = 0;
    friend bool operator==(const Cell&, const Cell&) = default;
  };
  struct Content {
    std::uint32_t tag = 0;
    std::int64_t origin = 0;  ///< byte of the defining write this value's byte 0 is
  };
  struct Region {
    pypto::MemorySpace space;
    const pypto::Var* base;
    friend auto operator<=>(const Region&, const Region&) = default;
  };
  struct Place {
    Region region;
    std::int64_t begin, end;
  };

  // ---- scalars --------------------------------------------------------------------------

  std::optional<std::int64_t> eval(const pypto::ExprPtr& e) const {
    using namespace pypto;
    if (!e) return std::nullopt;
    if (auto c = as_const_int(e)) return c;
    if (const auto* b = e->as<BoolImm>()) return b->value ? 1 : 0;
    if (auto v = as_var(e)) {
      auto it = env_.find(v.get());
      if (it == env_.end()) return std::nullopt;
      return it->second;
    }
    if (const auto* u = e->as<UnaryExpr>()) {
      auto x = eval(u->operand);
      if (!x) return std::nullopt;
      if (u->op == UnaryOp::Neg) return -*x;
      if (u->op == UnaryOp::Not) return *x ? 0 : 1;
      return ~*x;
    }
    const auto* b = e->as<BinaryExpr>();
    if (!b) return std::nullopt;
    auto l = eval(b->lhs), r = eval(b->rhs);
    if (!l || !r) return std::nullopt;
    const auto x = *l, y = *r;
    switch (b->op) {
      case BinaryOp::Add: return x + y;
      case BinaryOp::Sub: return x - y;
      case BinaryOp::Mul: return x * y;
      case BinaryOp::FloorDiv: {
        if (y == 0) return std::nullopt;
        auto q = x / y;
        return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
      }
      case BinaryOp::Mod: {
        if (y == 0) return std::nullopt;
        auto m = x % y;
        return (m != 0 && ((m < 0) != (y < 0))) ? m + y : m;
      }
      case BinaryOp::Lt: return x < y;
      case BinaryOp::Le: return x <= y;
      case BinaryOp::Gt: return x > y;
      case BinaryOp::Ge: return x >= y;
      case BinaryOp::Eq: return x == y;
      case BinaryOp::Ne: return x != y;
      case BinaryOp::And: return x && y;
      case BinaryOp::Or: return x || y;
      default: return std::nullopt;
    }
  }

  // ---- storage ----------------------------------------------------------------------------

  /// Where v's bytes are right now (its offset may depend on loop variables).
  std::optional<Place> window(const pypto::Var& v) {
    using namespace pypto;
    const auto* t = as_tile(v.type);
    if (!t || !t->memref || !t->memref->base || !t->space) return std::nullopt;
    if (*t->space == MemorySpace::DDR || *t->space == MemorySpace::ScalarLocal) return std::nullopt;
    auto off = eval(t->memref->byte_offset);
    if (!off) {
      fail("the offset of '" + v.name + "' cannot be evaluated");
      return std::nullopt;
    }
    // The value's data must fit its window (a view or in-place result larger
    // than its source would reach into bytes its window does not own).
    std::uint64_t elements = 1;
    for (const auto& d : t->shape) {
      auto c = as_const_int(d);
      if (!c || *c <= 0) {
        fail("'" + v.name + "' has a dimension that is not a positive constant");
        return std::nullopt;
      }
      elements *= static_cast<std::uint64_t>(*c);
    }
    if (auto data = storage_bytes(elements, t->dtype); !data || *data > t->memref->size) {
      fail("'" + v.name + "' holds " + (data ? std::to_string(*data) : std::string("too many")) +
           " bytes of data in a window of " + std::to_string(t->memref->size) + " bytes");
      return std::nullopt;
    }
    return Place{Region{*t->space, absolute_ ? nullptr : t->memref->base.get()}, *off,
                 *off + static_cast<std::int64_t>(t->memref->size)};
  }

  std::vector<Cell>& bytes(const Place& p) {
    auto& m = memory_[p.region];

    if (static_cast<std::int64_t>(m.size()) < p.end) m.resize(static_cast<std::size_t>(p.end));
    return m;
  }

  void store(const Place& p, Content c) {
    if (p.begin < 0) return fail("a window starts at a negative address");
    if (p.end > max_address) return fail("a window ends beyond 64 MiB (" + std::to_string(p.end) + ")");
    auto& m = bytes(p);
    for (std::int64_t a = p.begin; a < p.end; ++a)
      m[static_cast<std::size_t>(a)] = Cell{c.tag, c.origin + (a - p.begin)};
  }

  std::uint32_t fresh_tag(const pypto::Var& v) {
    writers_.push_back(&v);
    return static_cast<std::uint32_t>(writers_.size());
  }

  std::string tag_name(std::uint32_t t) const {
    if (t == 0) return "nothing";
    if (t > writers_.size()) return "a scratch write";
    const auto* v = writers_[t - 1];
    return v ? "'" + v->name + "' (line " + std::to_string(v->loc.line) + ")" : "a scratch write";
  }

  void define(const pypto::Var& v, std::uint32_t tag) {
    values_[&v] = Content{tag, 0};
    if (auto p = window(v)) store(*p, Content{tag, 0});
  }

  void fail(std::string m) {
    if (error_.empty()) error_ = std::move(m);
  }

  /// Checks that v's window holds v's content.
  void read(const pypto::Var& v, pypto::Loc at, const std::string& by) {
    auto it = values_.find(&v);
    auto p = window(v);
    if (!p) return;
    if (it == values_.end()) return fail("'" + v.name + "' is read before any definition");
    if (p->begin < 0 || p->end > max_address) return fail("'" + v.name + "' has a window outside storage");
    auto& m = bytes(*p);
    for (std::int64_t a = p->begin; a < p->end; ++a) {
      const Cell want{it->second.tag, it->second.origin + (a - p->begin)};
      const Cell got = m[static_cast<std::size_t>(a)];
      if (got == want) continue;
      return fail("line " + std::to_string(at.line) + ":" + std::to_string(at.column) + ": '" + v.name +
                  "' read by " + by + ": byte " + std::to_string(a - p->begin) +
                  " of its window should hold byte " + std::to_string(want.index) + " of " +
                  tag_name(want.tag) + " but holds byte " + std::to_string(got.index) + " of " +
                  tag_name(got.tag));
    }
  }

  // ---- statements ------------------------------------------------------------------------------

  void exec(const pypto::StmtPtr& s) {
    using namespace pypto;
    if (!s || !error_.empty()) return;
    switch (s->kind) {
      case StmtKind::Seq:
        for (const auto& c : s->as<SeqStmts>()->stmts) exec(c);
        break;
      case StmtKind::Assign: assign(*s->as<AssignStmt>()); break;
      case StmtKind::Eval:
        if (const auto* c = s->as<EvalStmt>()->value->as<Call>()) call(*c, nullptr, s->loc);
        break;
      case StmtKind::Return:
        for (const auto& v : s->as<ReturnStmt>()->values)
          if (auto x = as_var(v)) read(*x, s->loc, "the return");
        break;
      case StmtKind::If: {
        const auto* i = s->as<IfStmt>();
        auto c = eval(i->condition);
        const bool then = c ? *c != 0 : std::bernoulli_distribution(0.5)(rng_);
        const StmtPtr& arm = then ? i->then_body : i->else_body;
        exec(arm);
        if (const auto* y = arm ? terminating_yield(arm) : nullptr) bind_all(i->return_vars, y->values);
        break;
      }
      case StmtKind::For: {
        const auto* l = s->as<ForStmt>();
        auto b = eval(l->start), e = eval(l->stop), st = eval(l->step);
        std::vector<ExprPtr> inits;
        for (const auto& ia : l->iter_args) inits.push_back(ia.init);
        std::vector<VarPtr> ias;
        for (const auto& ia : l->iter_args) ias.push_back(ia.var);
        bind_all(ias, inits);
        int done = 0;
        if (b && e && st && *st != 0) {
          for (std::int64_t i = *b; (*st > 0 ? i < *e : i > *e) && done < o_.max_trips && error_.empty();
               i += *st) {
            env_[l->loop_var.get()] = i;
            iterate(l->body, ias);
            ++done;
          }
        } else {
          const int n = std::uniform_int_distribution<int>(0, 3)(rng_);
          for (int i = 0; i < n && error_.empty(); ++i) {
            env_[l->loop_var.get()] = i;
            iterate(l->body, ias);
          }
        }
        std::vector<ExprPtr> finals;
        for (const auto& v : ias) finals.push_back(var_ref(v));
        bind_all(l->return_vars, finals);
        break;
      }
      case StmtKind::While: {
        const auto* l = s->as<WhileStmt>();
        std::vector<ExprPtr> inits;
        std::vector<VarPtr> ias;
        for (const auto& ia : l->iter_args) {
          inits.push_back(ia.init);
          ias.push_back(ia.var);
        }
        bind_all(ias, inits);
        // The condition when it can be evaluated (a scalar counter), else 0-3 trips.
        const int n = std::uniform_int_distribution<int>(0, 3)(rng_);
        for (int i = 0; i < o_.max_trips && error_.empty(); ++i) {
          auto c = eval(l->condition);
          if (c ? *c == 0 : i >= n) break;
          iterate(l->body, ias);
        }
        std::vector<ExprPtr> finals;
        for (const auto& v : ias) finals.push_back(var_ref(v));
        bind_all(l->return_vars, finals);
        break;
      }
      default: break;
    }
  }

  void iterate(const pypto::StmtPtr& body, const std::vector<pypto::VarPtr>& ias) {
    exec(body);
    if (const auto* y = pypto::terminating_yield(body)) bind_all(ias, y->values);
  }

  /// targets[k] takes the content of values[k], all at once (no storage effect).
  void bind_all(const std::vector<pypto::VarPtr>& targets, const std::vector<pypto::ExprPtr>& values) {
    std::vector<std::pair<const pypto::Var*, std::optional<Content>>> next;
    std::vector<std::pair<const pypto::Var*, std::optional<std::int64_t>>> scalars;
    for (std::size_t k = 0; k < targets.size() && k < values.size(); ++k) {
      auto v = pypto::as_var(values[k]);
      if (v && values_.count(v.get()))
        next.emplace_back(targets[k].get(), values_[v.get()]);
      else
        scalars.emplace_back(targets[k].get(), eval(values[k]));
    }
    for (auto& [t, c] : next) values_[t] = *c;
    for (auto& [t, x] : scalars) {
      if (x)
        env_[t] = *x;
      else
        env_.erase(t);
    }
  }

  void assign(const pypto::AssignStmt& a) {
    using namespace pypto;
    if (const auto* c = a.value ? a.value->as<Call>() : nullptr) {
      call(*c, &a, a.loc);
      return;
    }
    if (auto src = as_var(a.value); src && values_.count(src.get())) {
      values_[a.var.get()] = values_[src.get()];  // `a = b`: the same value
      return;
    }
    if (auto x = eval(a.value))
      env_[a.var.get()] = *x;
    else
      env_.erase(a.var.get());
  }

  /// The byte offset of view `c` in its source, from the op's arguments.
  std::optional<std::int64_t> view_offset(const pypto::Call& c) const {
    using namespace pypto;
    if (c.op != "tile.slice") return 0;
    auto src = as_var(c.args[0]);
    const auto* t = src ? as_tile(src->type) : nullptr;
    const auto* shape = c.args.size() > 1 ? as_sequence(c.args[1]) : nullptr;
    const auto* offs = c.args.size() > 2 ? as_sequence(c.args[2]) : nullptr;
    if (!t || !shape || !offs) return std::nullopt;
    std::vector<ExprPtr> folded;
    for (const auto& o : *offs) {
      auto x = eval(o);
      if (!x) return std::nullopt;
      folded.push_back(int_imm(*x));
    }
    auto w = slice_window(t->shape, t->dtype, folded, *shape);
    if (!w) return std::nullopt;
    return as_const_int(w->byte_offset);
  }

  void call(const pypto::Call& c, const pypto::AssignStmt* a, pypto::Loc at) {
    using namespace pypto;
    const OpSpec* spec = ops_.find(c.op);
    const std::string by = "'" + c.op + "'";
    const Var* result = a && as_tile(a->var->type) ? a->var.get() : nullptr;
    if (result && spec && spec->is_view() && spec->evidence == AccessEvidence::no_access) {
      auto src = as_var(c.args[0]);
      auto off = view_offset(c);
      if (!src || !values_.count(src.get()) || !off) return fail("cannot interpret view " + by);
      values_[result] = Content{values_[src.get()].tag, values_[src.get()].origin + *off};
      return;
    }
    auto is_scratch = [&](std::size_t i) { return spec && i < spec->args.size() && spec->args[i].scratch; };
    // Scratch is overwritten while the op runs.
    for (std::size_t i = 0; i < c.args.size(); ++i)
      if (is_scratch(i))
        if (auto v = as_var(c.args[i]))
          if (auto p = window(*v))
            store(*p, Content{static_cast<std::uint32_t>(writers_.size() + 1000000), 0});
    // Inputs are read before the result is written, except the inputs an op
    // may not share its output with (not in-place safe, forbid_output_alias,
    // widening cast): it streams its output while reading those, so model
    // them as read after the write.
    std::vector<bool> late(c.args.size(), false);
    if (result && spec) {
      bool widening = false;
      if (auto in = c.args.empty() ? nullptr : as_var(c.args[0]))
        if (auto from = dtype_of(in->type), to = dtype_of(a->var->type); from && to)
          widening = storage_bits(*to) > storage_bits(*from);
      for (auto k : spec->forbidden_operands(c.args.size(), soc_, widening)) late[k] = true;
    }
    auto read_args = [&](bool after) {
      for (std::size_t i = 0; i < c.args.size(); ++i)
        if (!is_scratch(i) && late[i] == after)
          if (auto v = as_var(c.args[i])) read(*v, at, by);
    };
    read_args(false);
    if (result) define(*result, fresh_tag(*result));
    read_args(true);
  }

  const pypto::Function& f_;
  Options o_;
  std::mt19937_64 rng_;
  const pypto::OpRegistry& ops_;
  bool absolute_;
  std::string soc_;
  std::map<Region, std::vector<Cell>> memory_;
  std::unordered_map<const pypto::Var*, Content> values_;
  std::unordered_map<const pypto::Var*, std::int64_t> env_;
  std::vector<const pypto::Var*> writers_;
  std::string error_;
};

}  // namespace pto_mem::test
