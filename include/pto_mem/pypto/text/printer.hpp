// Canonical printing of the tile IR. The output re-parses
// to the same IR, and print -> parse -> print is a fixed point.
//
// * 4-space indent, one statement per line, parameters one per line aligned
//   after `def name(`.
// * `Tile[[d0, d1], DTYPE, MemRef(...)?, SPACE?, TileView(...)?]`; view fields
//   equal to the space's implicit layout are omitted.
// * MemRef bases: a bare name when an alloc statement of the function defines
//   it (in the body), a "string" otherwise and in signatures.
// * `range(stop)` when start = 0 and step = 1, `range(start, stop)` when step = 1.
// * A loop's return vars / an if's phis are printed on the terminating yield,
//   `r = yield_(v)`, annotated only when their type differs from the one the
//   parser would derive (the iter-arg's, or the then-value's).
// * Variables whose names would clash in a scope, or are not identifiers, are
//   printed with a deterministic suffix so the text always re-parses.
#pragma once

#include <array>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/text/lexical.hpp"

namespace pto_mem::pypto {

/// Which spelling the printer writes. `ours` is the canonical text of
/// this library; `pypto` is what PyPTO's python printer writes
/// (`@pl.program`, `pl.Tile[..., pl.Mem.Vec]`, `pl.tile.add`, `self` calls),
/// which PyPTO's parser reads back. Both re-parse to the same IR.
enum class Syntax : std::uint8_t { ours, pypto };

struct PrintOptions {
  Syntax syntax = Syntax::ours;
};

namespace detail {

/// Printed names of one function's variables: scoped exactly like the parser.
class Namer : public IRVisitor {
 public:
  void run(const Function& f) {
    // Usually every variable already has its own valid name: then nothing is
    // renamed and no scope bookkeeping is needed.
    if (all_names_distinct(f)) {
      fast_ = true;
      return;
    }
    for (const auto& p : f.params) collect(p.var);
    for_each_def(f.body);
    push();
    for (const auto& p : f.params) name(p.var);
    if (f.body) visit_stmt(f.body);
    pop();
  }
  /// PyPTO's printer's naming: a name defined more than once in the function
  /// (anywhere, sibling blocks included) keeps it at its first definition and
  /// takes `_1`, `_2`, ... at the others.
  void run_function_wide(const Function& f) {
    if (all_names_distinct(f)) {
      fast_ = true;
      return;
    }
    struct Defs : IRVisitor {
      std::vector<const Var*> order;
      std::unordered_set<const Var*> seen;
      void visit_expr(const ExprPtr&) override {}
      void visit_var_def(const VarPtr& v) override {
        if (v && seen.insert(v.get()).second) order.push_back(v.get());
      }
    } defs;
    for (const auto& p : f.params) defs.visit_var_def(p.var);
    if (f.body) defs.visit_stmt(f.body);
    std::unordered_map<std::string, int> count;
    for (const Var* v : defs.order) ++count[sanitized(v->name)];
    std::unordered_set<std::string> used;
    for (const Var* v : defs.order)
      if (const std::string n = sanitized(v->name); count[n] == 1) {
        used.insert(n);
        names_.emplace(v, n);
      }
    for (const Var* v : defs.order) {
      const std::string base = sanitized(v->name);
      if (count[base] == 1) continue;
      std::string got = base;
      for (std::uint64_t k = 1; !used.insert(got).second; ++k) got = base + "_" + std::to_string(k);
      names_.emplace(v, got);
    }
  }
  [[nodiscard]] const std::string& of(const Var* v) const {
    if (fast_) return v->name;
    auto it = names_.find(v);
    return it == names_.end() ? v->name : it->second;
  }
  [[nodiscard]] bool is_alloc(const Var* v) const { return allocs_.count(v) != 0; }

  void visit_alloc(const AllocStmt& s) override {
    allocs_.insert(s.var.get());
    name(s.var);
  }
  void visit_assign(const AssignStmt& s) override { name(s.var); }
  void visit_for(const ForStmt& s) override {
    push();
    name(s.loop_var);
    for (const auto& ia : s.iter_args) name(ia.var);
    body(s.body);
    pop();
    for (const auto& rv : s.return_vars) name(rv);
  }
  void visit_while(const WhileStmt& s) override {
    push();
    for (const auto& ia : s.iter_args) name(ia.var);
    body(s.body);
    pop();
    for (const auto& rv : s.return_vars) name(rv);
  }
  void visit_if(const IfStmt& s) override {
    push();
    body(s.then_body);
    pop();
    push();
    body(s.else_body);
    pop();
    for (const auto& rv : s.return_vars) name(rv);
  }

 private:
  void body(const StmtPtr& b) {
    if (!b) return;
    push();  // the parser opens a scope per block
    visit_stmt(b);
    pop();
  }
  bool all_names_distinct(const Function& f) {
    struct Defs : IRVisitor {
      std::unordered_map<std::string_view, const Var*> first;
      std::unordered_set<const Var*>* allocs = nullptr;
      bool ok = true;
      void visit_alloc(const AllocStmt& s) override {
        allocs->insert(s.var.get());
        IRVisitor::visit_alloc(s);
      }
      void visit_expr(const ExprPtr&) override {}  // only definitions matter
      void visit_var_def(const VarPtr& v) override {
        if (!ok || !v) return;
        if (!is_identifier(v->name) || is_reserved_name(v->name)) {
          ok = false;
          return;
        }
        auto [it, inserted] = first.try_emplace(v->name, v.get());
        ok = inserted || it->second == v.get();
      }
    } defs;
    defs.allocs = &allocs_;
    for (const auto& p : f.params) defs.visit_var_def(p.var);
    if (f.body) defs.visit_stmt(f.body);
    return defs.ok;
  }
  void collect(const VarPtr& v) {
    if (v) taken_.insert(v->name);
  }
  void for_each_def(const StmtPtr& root) {
    struct Defs : IRVisitor {
      std::unordered_set<std::string>* taken;
      void visit_var_def(const VarPtr& v) override {
        if (v) taken->insert(v->name);
      }
    } d;
    d.taken = &taken_;
    d.visit_stmt(root);
  }
  static bool is_identifier(std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
        return false;
    return true;
  }
  /// `name` as an identifier the parser accepts for a variable.
  static std::string sanitized(std::string want) {
    if (!is_identifier(want)) {
      for (char& c : want)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
          c = '_';
      if (want.empty() || (want[0] >= '0' && want[0] <= '9')) want = "v" + want;
    }
    if (is_reserved_name(want)) want += "_";
    return want;
  }
  void name(const VarPtr& v) {
    if (!v || names_.count(v.get())) return;
    const std::string want = sanitized(v->name);
    std::string got = want;
    if (visible_.count(got) || (got != v->name && taken_.count(got))) {
      for (std::uint64_t k = 1;; ++k) {
        got = want + "_" + std::to_string(k);
        if (!visible_.count(got) && !taken_.count(got)) break;
      }
    }
    taken_.insert(got);
    names_.emplace(v.get(), got);
    ++visible_[got];
    frames_.back().push_back(got);
  }
  void push() { frames_.emplace_back(); }
  void pop() {
    for (const auto& n : frames_.back())
      if (--visible_[n] == 0) visible_.erase(n);
    frames_.pop_back();
  }

  bool fast_ = false;
  std::unordered_map<const Var*, std::string> names_;
  std::unordered_set<const Var*> allocs_;
  std::unordered_set<std::string> taken_;
  std::unordered_map<std::string, int> visible_;
  std::vector<std::vector<std::string>> frames_;
};

class Printer {
 public:
  explicit Printer(std::string& out, PrintOptions opt = {}) : out_(out), pl_(opt.syntax == Syntax::pypto) {}

  void program(const Program& p) {
    const bool wrapped = !p.name.empty() || pl_;  // PyPTO always prints the class
    for (const auto& f : p.functions) functions_.insert(f.name);
    if (wrapped)
      out_ += std::string(pl_ ? "@pl.program" : "@program") + "\nclass " +
              (p.name.empty() ? std::string("Program") : p.name) + ":\n";
    if (wrapped && p.functions.empty()) out_ += "    pass\n";
    for (std::size_t i = 0; i < p.functions.size(); ++i) {
      if (i) out_ += "\n";
      function(p.functions[i], wrapped ? 1 : 0, wrapped);
    }
  }

  void function(const Function& f, int indent = 0, bool self = false) {
    namer_ = Namer{};
    if (pl_)
      namer_.run_function_wide(f);
    else
      namer_.run(f);
    const std::string pad(static_cast<std::size_t>(indent) * 4, ' ');
    if (pl_) {
      // PyPTO leaves out `type=` for Opaque, its default.
      out_ += pad + "@pl.function";
      const bool typed = f.kind != FunctionKind::Opaque;
      if (typed || !f.attrs.empty()) out_ += "(";
      if (typed) {
        out_ += "type=pl.FunctionType.";
        out_ += to_string(f.kind);
      }
      for (std::size_t i = 0; i < f.attrs.size(); ++i) {
        if (typed || i) out_ += ", ";
        out_ += f.attrs[i].name + "=";
        expr(f.attrs[i].value, 0);
      }
      if (typed || !f.attrs.empty()) out_ += ")";
    } else {
      out_ += pad + "@function(type=";
      out_ += to_string(f.kind);
      for (const auto& kw : f.attrs) {
        out_ += ", " + kw.name + "=";
        expr(kw.value, 0);
      }
      out_ += ")";
    }
    out_ += "\n" + pad + "def " + f.name + "(";
    // PyPTO writes the signature on one line; ours aligns one parameter a line.
    const std::string sep = pl_ ? ", " : ",\n" + std::string(pad.size() + 5 + f.name.size(), ' ');
    bool first = true;
    if (self) {
      out_ += "self";
      first = false;
    }
    in_signature_ = true;
    for (const auto& p : f.params) {
      if (!first) out_ += sep;
      first = false;
      out_ += namer_.of(p.var.get()) + ": ";
      if (p.direction != ParamDirection::In) out_ += pfx() + std::string(to_string(p.direction)) + "[";
      type(p.var->type);
      if (p.direction != ParamDirection::In) out_ += "]";
    }
    out_ += ")";
    if (!f.return_types.empty()) {
      out_ += " -> ";
      if (f.return_types.size() == 1) {
        type(f.return_types[0]);
      } else {
        out_ += "tuple[";
        for (std::size_t i = 0; i < f.return_types.size(); ++i) {
          if (i) out_ += ", ";
          type(f.return_types[i]);
        }
        out_ += "]";
      }
    }
    in_signature_ = false;
    out_ += ":\n";
    block(f.body, indent + 1, {});
  }

  // ---- statements ---------------------------------------------------------------------------
  /// What a terminating yield of the block being printed defines.
  struct YieldTarget {
    const YieldStmt* stmt = nullptr;
    const std::vector<VarPtr>* vars = nullptr;
    std::vector<TypePtr> defaults;  ///< the types the parser would give the vars
  };

  void block(const StmtPtr& body, int indent, const YieldTarget& target) {
    const std::size_t before = out_.size();
    stmt(body, indent, target);
    if (out_.size() == before) line(indent) += "pass\n";
  }

  std::string& line(int indent) {
    out_.append(static_cast<std::size_t>(indent) * 4, ' ');
    return out_;
  }

  void stmt(const StmtPtr& s, int indent, const YieldTarget& target) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Seq: {
        const auto* q = s->as<SeqStmts>();
        if (!q->scope.empty()) {
          line(indent) += "with " + pfx() + q->scope + "():\n";
          block(s_without_scope(*q), indent + 1, target);
          return;
        }
        for (const auto& c : q->stmts) stmt(c, indent, target);
        return;
      }
      case StmtKind::Assign: {
        const auto* a = s->as<AssignStmt>();
        line(indent) += namer_.of(a->var.get());
        if (a->var->type) {
          out_ += ": ";
          type(a->var->type);
        }
        out_ += " = ";
        expr(a->value, 0);
        out_ += "\n";
        return;
      }
      case StmtKind::Eval: {
        const ExprPtr& value = s->as<EvalStmt>()->value;
        const auto* c = value ? value->as<Call>() : nullptr;
        if (c && c->args.empty() && c->kwargs.empty() && (c->op == "continue" || c->op == "break")) {
          line(indent) += c->op + "\n";
          return;
        }
        line(indent);
        expr(s->as<EvalStmt>()->value, 0);
        out_ += "\n";
        return;
      }
      case StmtKind::Alloc: {
        const auto* a = s->as<AllocStmt>();
        line(indent) += namer_.of(a->var.get()) + ": " + pfx() + "Ptr = " + pfx();
        out_ += to_string(a->op);
        out_ += "(";
        space_name(a->space);
        out_ += ", " + std::to_string(a->size);
        if (a->pinned) out_ += ", pinned=True";
        out_ += ")\n";
        return;
      }
      case StmtKind::For: return for_stmt(*s->as<ForStmt>(), indent);
      case StmtKind::While: return while_stmt(*s->as<WhileStmt>(), indent);
      case StmtKind::If: return if_stmt(*s->as<IfStmt>(), indent);
      case StmtKind::Yield: return yield_stmt(*s->as<YieldStmt>(), indent, target);
      case StmtKind::Return: {
        const auto& vals = s->as<ReturnStmt>()->values;
        line(indent) += "return";
        for (std::size_t i = 0; i < vals.size(); ++i) {
          out_ += i ? ", " : " ";
          expr(vals[i], 0);
        }
        out_ += "\n";
        return;
      }
    }
  }

  void yield_stmt(const YieldStmt& y, int indent, const YieldTarget& target) {
    line(indent);
    if (target.stmt == &y && target.vars && !target.vars->empty()) {
      const auto& vars = *target.vars;
      bool annotate = false;
      for (std::size_t i = 0; i < vars.size(); ++i)
        annotate |= vars[i]->type &&
                    !same_type(vars[i]->type, i < target.defaults.size() ? target.defaults[i] : nullptr);
      for (std::size_t i = 0; i < vars.size(); ++i) out_ += (i ? ", " : "") + namer_.of(vars[i].get());
      if (annotate) {
        out_ += ": ";
        if (vars.size() == 1) {
          type(vars[0]->type);
        } else {
          out_ += "tuple[";
          for (std::size_t i = 0; i < vars.size(); ++i) {
            if (i) out_ += ", ";
            type(vars[i]->type);
          }
          out_ += "]";
        }
      }
      out_ += " = ";
    }
    out_ += pfx() + "yield_(";
    for (std::size_t i = 0; i < y.values.size(); ++i) {
      if (i) out_ += ", ";
      expr(y.values[i], 0);
    }
    out_ += ")\n";
  }

  void init_values(const std::vector<IterArg>& ias) {
    out_ += "init_values=(";
    for (std::size_t i = 0; i < ias.size(); ++i) {
      if (i) out_ += ", ";
      expr(ias[i].init, 0);
    }
    if (ias.size() == 1) out_ += ",";
    out_ += ")";
  }

  static YieldTarget carry_target(const StmtPtr& body, const std::vector<IterArg>& ias,
                                  const std::vector<VarPtr>& rvs) {
    YieldTarget t{terminating_yield(body), &rvs, {}};
    for (const auto& ia : ias) t.defaults.push_back(ia.var->type);
    return t;
  }

  void for_stmt(const ForStmt& f, int indent) {
    line(indent) += "for " + (f.loop_var ? namer_.of(f.loop_var.get()) : std::string("_"));
    if (!f.iter_args.empty()) {
      out_ += ", (";
      for (std::size_t i = 0; i < f.iter_args.size(); ++i)
        out_ += (i ? ", " : "") + namer_.of(f.iter_args[i].var.get());
      if (f.iter_args.size() == 1) out_ += ",";
      out_ += ")";
    }
    out_ += " in " + pfx();
    out_ += to_string(f.for_kind);
    out_ += "(";
    const auto start = as_const_int(f.start), step = as_const_int(f.step);
    const bool plain_start = start == 0 && f.start->as<IntImm>() && !f.start->as<IntImm>()->dtype;
    const bool plain_step = step == 1 && f.step->as<IntImm>() && !f.step->as<IntImm>()->dtype;
    if (!plain_start || !plain_step) {
      expr(f.start, 0);
      out_ += ", ";
    }
    expr(f.stop, 0);
    if (!plain_step) {
      out_ += ", ";
      expr(f.step, 0);
    }
    if (!f.iter_args.empty()) {
      out_ += ", ";
      init_values(f.iter_args);
    }
    if (f.stage) out_ += ", stage=" + std::to_string(*f.stage);
    for (const auto& kw : f.attrs) {
      out_ += ", " + kw.name + "=";
      expr(kw.value, 0);
    }
    out_ += "):\n";
    block(f.body, indent + 1, carry_target(f.body, f.iter_args, f.return_vars));
  }

  void while_stmt(const WhileStmt& w, int indent) {
    if (w.iter_args.empty()) {
      line(indent) += "while ";
      expr(w.condition, 0);
      out_ += ":\n";
      block(w.body, indent + 1, {});
      return;
    }
    line(indent) += "for (";
    for (std::size_t i = 0; i < w.iter_args.size(); ++i)
      out_ += (i ? ", " : "") + namer_.of(w.iter_args[i].var.get());
    if (w.iter_args.size() == 1) out_ += ",";
    out_ += ") in " + pfx() + "while_(";
    init_values(w.iter_args);
    out_ += "):\n";
    line(indent + 1) += pfx() + "cond(";
    expr(w.condition, 0);
    out_ += ")\n";
    stmt(w.body, indent + 1, carry_target(w.body, w.iter_args, w.return_vars));
  }

  /// The statements of a scoped sequence, printed inside its `with` block.
  static StmtPtr s_without_scope(const SeqStmts& q) { return seq(q.stmts, q.loc); }

  void if_stmt(const IfStmt& s, int indent) {
    line(indent) += "if ";
    expr(s.condition, 0);
    out_ += ":\n";
    const YieldStmt* ty = terminating_yield(s.then_body);
    const YieldStmt* ey = terminating_yield(s.else_body);
    std::vector<TypePtr> defaults;
    for (std::size_t i = 0; i < s.return_vars.size(); ++i) {
      ExprPtr tv = ty && i < ty->values.size() ? ty->values[i] : nullptr;
      ExprPtr ev = ey && i < ey->values.size() ? ey->values[i] : nullptr;
      defaults.push_back(phi_type(tv, ev));
    }
    block(s.then_body, indent + 1, YieldTarget{ty, &s.return_vars, defaults});
    if (s.else_body) {
      line(indent) += "else:\n";
      block(s.else_body, indent + 1, YieldTarget{ey, &s.return_vars, defaults});
    }
  }

  // ---- types -----------------------------------------------------------------------------------
  void shape(const std::vector<ExprPtr>& dims) {
    out_ += "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (i) out_ += ", ";
      expr(dims[i], 0);
    }
    out_ += "]";
  }

  void memref(const MemRef& m) {
    if (m.is_pinned) {
      out_ += pfx() + "MemRef(";
      string_literal(m.name());
    } else {
      out_ += pfx() + "MemRef(";
      if (m.base && !in_signature_ && namer_.is_alloc(m.base.get()))
        out_ += namer_.of(m.base.get());
      else
        string_literal(m.base ? (namer_.is_alloc(m.base.get()) ? namer_.of(m.base.get()) : m.base->name)
                              : "");
      out_ += ", ";
      if (const auto* i = m.byte_offset ? m.byte_offset->as<IntImm>() : nullptr)
        out_ += std::to_string(i->value);
      else
        expr(m.byte_offset, 0);
      out_ += ", " + std::to_string(m.size);
    }
    if (m.slot_count != 1) out_ += ", slots=" + std::to_string(m.slot_count);
    out_ += ")";
    if (m.slot_index) {
      out_ += "[";
      expr(m.slot_index, 0);
      out_ += "]";
    }
  }

  void type(const TypePtr& t) {
    if (!t) {
      out_ += "None";
      return;
    }
    switch (t->kind) {
      case TypeKind::Tensor: {
        const auto* x = t->as<TensorType>();
        out_ += pfx() + "Tensor[";
        shape(x->shape);
        out_ += ", ";
        dtype_name(x->dtype);
        if (x->memref) {
          out_ += ", ";
          memref(*x->memref);
        }
        out_ += "]";
        return;
      }
      case TypeKind::Tile: {
        const auto* x = t->as<TileType>();
        out_ += pfx() + "Tile[";
        shape(x->shape);
        out_ += ", ";
        dtype_name(x->dtype);
        if (x->memref) {
          out_ += ", ";
          memref(*x->memref);
        }
        if (x->space) {
          out_ += ", ";
          space_name(*x->space);
        }
        bool any = false;
        for (const auto& f : x->view.fields) {
          if (is_implicit_view_field(f, x->space)) continue;
          out_ += any ? ", " : ", " + pfx() + "TileView(";
          any = true;
          out_ += f.name + "=";
          expr(f.value, 0);
        }
        if (any) out_ += ")";
        out_ += "]";
        return;
      }
      case TypeKind::Scalar:
        out_ += pfx() + "Scalar[";
        dtype_name(t->as<ScalarType>()->dtype);
        out_ += "]";
        return;
      case TypeKind::Ptr: out_ += pfx() + "Ptr"; return;
      case TypeKind::Unknown: out_ += pfx() + "UnknownType"; return;
      case TypeKind::Tuple: {
        out_ += "tuple[";
        const auto& e = t->as<TupleType>()->elems;
        for (std::size_t i = 0; i < e.size(); ++i) {
          if (i) out_ += ", ";
          type(e[i]);
        }
        out_ += "]";
        return;
      }
    }
  }

  // ---- expressions ---------------------------------------------------------------------------------
  void string_literal(std::string_view s) { out_ += quote(s); }

  [[nodiscard]] std::string pfx() const { return pl_ ? "pl." : ""; }
  void space_name(MemorySpace s) {
    if (pl_) out_ += "pl.Mem.";
    out_ += to_string(s);
  }
  void dtype_name(DataType d) {
    out_ += pfx();
    out_ += to_string(d);
  }

  void float_literal(double v) {
    std::array<char, 64> buf{};
    auto [p, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    std::string s(buf.data(), ec == std::errc() ? p : buf.data());
    if (s.find_first_of(".eEn") == std::string::npos) s += ".0";  // `n`: inf / nan stay as spelled
    out_ += s;
  }

  void exprs(const std::vector<ExprPtr>& es) {
    for (std::size_t i = 0; i < es.size(); ++i) {
      if (i) out_ += ", ";
      expr(es[i], 0);
    }
  }

  /// `ctx`: the precedence of the surrounding operator slot; parenthesise
  /// when this expression binds more loosely.
  void expr(const ExprPtr& e, int ctx) {
    if (!e) {
      out_ += "None";
      return;
    }
    switch (e->kind) {
      case ExprKind::Var: out_ += namer_.of(e->as<VarExpr>()->var.get()); return;
      case ExprKind::Int: {
        const auto* i = e->as<IntImm>();
        if (i->dtype) {
          out_ += pfx() + "const(" + std::to_string(i->value) + ", ";
          dtype_name(*i->dtype);
          out_ += ")";
        } else if (i->value < 0 && ctx > unary_precedence) {
          out_ += "(" + std::to_string(i->value) + ")";
        } else {
          out_ += std::to_string(i->value);
        }
        return;
      }
      case ExprKind::Float: {
        const auto* f = e->as<FloatImm>();
        if (f->dtype) {
          out_ += pfx() + "const(";
          float_literal(f->value);
          out_ += ", ";
          dtype_name(*f->dtype);
          out_ += ")";
        } else {
          const bool paren = f->value < 0 && ctx > unary_precedence;
          if (paren) out_ += "(";
          float_literal(f->value);
          if (paren) out_ += ")";
        }
        return;
      }
      case ExprKind::Bool: out_ += e->as<BoolImm>()->value ? "True" : "False"; return;
      case ExprKind::None: out_ += "None"; return;
      case ExprKind::String: string_literal(e->as<StringImm>()->value); return;
      case ExprKind::Space: space_name(e->as<SpaceImm>()->space); return;
      case ExprKind::DType: dtype_name(e->as<DTypeImm>()->dtype); return;
      case ExprKind::Enum: {
        const auto* x = e->as<EnumImm>();
        out_ += pfx() + x->enum_name + "." + x->value;
        return;
      }
      case ExprKind::Call: {
        const auto* c = e->as<Call>();
        if (pl_ && functions_.count(c->op))
          out_ += "self.";  // a function of the program
        else if (pl_ && c->op.find('.') != std::string::npos)
          out_ += "pl.";
        out_ += c->op + "(";
        exprs(c->args);
        for (std::size_t i = 0; i < c->kwargs.size(); ++i) {
          if (i || !c->args.empty()) out_ += ", ";
          out_ += c->kwargs[i].name + "=";
          expr(c->kwargs[i].value, 0);
        }
        out_ += ")";
        return;
      }
      case ExprKind::List: {
        const auto* l = e->as<ListExpr>();
        if (!l->dict) {
          out_ += "[";
          exprs(l->elems);
          out_ += "]";
          return;
        }
        out_ += "{";
        for (std::size_t i = 0; i < l->elems.size(); ++i) {
          const auto* kv = l->elems[i]->as<TupleExpr>();
          if (i) out_ += ", ";
          if (!kv || kv->elems.size() != 2) {  // not built by dict_expr: print what is there
            expr(l->elems[i], 0);
            continue;
          }
          expr(kv->elems[0], 0);
          out_ += ": ";
          expr(kv->elems[1], 0);
        }
        out_ += "}";
        return;
      }
      case ExprKind::Tuple: {
        const auto& el = e->as<TupleExpr>()->elems;
        out_ += "(";
        exprs(el);
        if (el.size() == 1) out_ += ",";
        out_ += ")";
        return;
      }
      case ExprKind::Binary: {
        const auto* b = e->as<BinaryExpr>();
        const int p = precedence(b->op);
        const bool paren = p < ctx;
        if (paren) out_ += "(";
        // Comparisons do not chain, so a comparison operand needs parentheses too.
        expr(b->lhs, is_comparison(b->op) ? p + 1 : p);
        out_ += " ";
        out_ += to_string(b->op);
        out_ += " ";
        expr(b->rhs, p + 1);
        if (paren) out_ += ")";
        return;
      }
      case ExprKind::Unary: {
        const auto* u = e->as<UnaryExpr>();
        const int p = u->op == UnaryOp::Not ? not_precedence : unary_precedence;
        const bool paren = p < ctx;
        if (paren) out_ += "(";
        out_ += u->op == UnaryOp::Neg ? "-" : u->op == UnaryOp::Invert ? "~" : "not ";
        // `- -x` must not print as `--x`-like ambiguities: a nested negative operand is parenthesised.
        expr(u->operand, p == unary_precedence ? unary_precedence + 1 : p);
        if (paren) out_ += ")";
        return;
      }
      case ExprKind::Subscript: {
        const auto* s = e->as<SubscriptExpr>();
        expr(s->value, unary_precedence + 1);
        out_ += "[";
        expr(s->index, 0);
        out_ += "]";
        return;
      }
    }
  }

 private:
  std::string& out_;
  bool pl_ = false;
  Namer namer_;
  bool in_signature_ = false;
  std::unordered_set<std::string> functions_;
};

}  // namespace detail

/// The text of a program: canonical (with the `@program class` wrapper when
/// `program.name` is set), or in PyPTO's spelling (`PrintOptions{Syntax::pypto}`,
/// always wrapped).
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const Program& p, PrintOptions options);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const Program& p, PrintOptions options) {
  std::string out;
  detail::Printer pr(out, options);
  pr.program(p);
  return out;
}
#endif
[[nodiscard]] inline std::string print(const Program& p) { return print(p, PrintOptions{}); }

/// One function; in PyPTO's spelling without the class wrapper (no `self`).
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const Function& f, PrintOptions options);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const Function& f, PrintOptions options) {
  std::string out;
  detail::Printer pr(out, options);
  pr.function(f);
  return out;
}
#endif
[[nodiscard]] inline std::string print(const Function& f) { return print(f, PrintOptions{}); }

/// An expression as it appears in the text (variables by their own names).
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const ExprPtr& e);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const ExprPtr& e) {
  std::string out;
  detail::Printer pr(out);
  pr.expr(e, 0);
  return out;
}
#endif

[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const TypePtr& t);
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string print(const TypePtr& t) {
  std::string out;
  detail::Printer pr(out);
  pr.type(t);
  return out;
}
#endif

}  // namespace pto_mem::pypto
