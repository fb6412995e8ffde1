// The binder of the tile-IR text parser: what the names of a program mean.
// The parser (parser.hpp) reads the syntax and builds the IR as it goes; at
// each name it asks the binder, which keeps
//   * scopes and SSA renaming: the variable a name is bound to in the open
//     blocks, a re-binding made a fresh variable of the same name (PyPTO's
//     DSL re-binds freely; `ParseOptions::allow_rebinding`), or refused
//     where the text would have to say more (a re-binding inside a loop body
//     makes a carried value), and the numbering PyPTO gives implicit carries
//     and phis (`x__iter_v1`, `x__rv_v2`, `x__phi_v3`);
//   * allocation bases: one function-wide namespace where alloc statements,
//     bare MemRef bases and quoted external bases meet (a parameter's
//     `MemRef("mem_vec_0", ...)` and the body's `mem_vec_0: Ptr =
//     tile.alloc(...)` are one base), and declared allocations
//     (`MemRef("name", slots=N)[k]`);
//   * type deduction: the type of an unannotated assignment from its op (or
//     the function it calls), and what a `pl.` call's partial annotation
//     leaves to the op (its memory space, its valid region and padding).
// Errors it finds are located parse errors, thrown as ParseFailure.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/text/dsl_names.hpp"
#include "pto_mem/pypto/text/lexical.hpp"
#include "pto_mem/pypto/text/parse_options.hpp"

namespace pto_mem::pypto::detail {

class Binder {
 public:
  Binder(std::string file, const ParseOptions& opt)
      : file_(std::move(file)), opt_(opt), reg_(opt.registry ? *opt.registry : default_registry()) {}

  [[noreturn]] void fail(Loc loc, std::string message) {
    throw ParseFailure{error_at(file_, loc, std::move(message))};
  }

 protected:
  // ---- scopes --------------------------------------------------------------------------------
  enum class BlockKind { function, loop, arm };
  struct Binding {
    VarPtr var;  ///< null: not bound in any open scope
    ExprPtr ref;
    std::size_t frame = 0;  ///< index of the scope frame that bound it
  };
  template <class V>
  using NameMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;
  /// What a definition overwrote, restored when its scope closes.
  struct Undo {
    Binding* slot;
    Binding previous;
    std::string_view name;  ///< the slot's key (map keys are stable)
  };

  void push_scope() { frames_.emplace_back(); }
  void pop_scope() {
    auto& frame = frames_.back();
    for (auto it = frame.rbegin(); it != frame.rend(); ++it) *it->slot = std::move(it->previous);
    frames_.pop_back();
  }
  const Binding* lookup(std::string_view name) const {
    auto it = names_.find(name);
    return it == names_.end() || !it->second.var ? nullptr : &it->second;
  }
  void check_name(std::string_view name, Loc loc) {
    switch (classify_word(name).kind) {
      case Word::Kind::none: return;
      case Word::Kind::space:
        fail(loc, "'" + std::string(name) + "' is a memory space name; choose another variable name");
      case Word::Kind::dtype:
        fail(loc, "'" + std::string(name) + "' is a data type name; choose another variable name");
      default: fail(loc, "'" + std::string(name) + "' is a keyword; choose another variable name");
    }
  }
  void define(const VarPtr& v, Loc loc) {
    check_name(v->name, loc);
    if (const Binding* b = lookup(v->name)) {
      const std::string where =
          " at line " + std::to_string(b->var->loc.line) + ", column " + std::to_string(b->var->loc.column);
      if (!opt_.allow_rebinding)
        fail(loc, "'" + v->name + "' is already defined" + where +
                      "; each value needs its own name (the IR is in SSA form)");
      if (b->frame < block_root_) {
        // PyPTO's ConvertToSSA would turn this into a carried value or a phi;
        // the text has to say so itself.
        if (block_kind_ == BlockKind::loop)
          fail(loc, "'" + v->name + "' (defined" + where +
                        ") is re-bound inside a loop body, which makes it a loop-carried value; carry it "
                        "explicitly: "
                        "for i, (" +
                        v->name + "_iter,) in range(..., init_values=(" + v->name + ",)) ... " + v->name +
                        "_out = yield_(...)");
        // Re-bound inside an if arm: the if gets an implicit phi of it (parse_if).
      }
    }
    bind_as(v->name, v);
    ++versions_[v->name];
  }
  /// Binds `name` to `v` in the innermost scope, whatever `v` is called (an
  /// implicit iter-arg, return variable or phi answers to the name it carries).
  void bind_as(std::string_view name, const VarPtr& v) {
    auto it =
        names_.try_emplace(std::string(name)).first;  // map nodes are stable: the undo log points at them
    Binding& slot = it->second;
    frames_.back().push_back(Undo{&slot, std::move(slot), it->first});
    slot = Binding{v, var_ref(v), frames_.size() - 1};
  }
  /// PyPTO's name for an implicit carry or phi of `name`: `x__iter_v1`,
  /// `x__rv_v2`, `x__phi_v3`, numbered by the definitions of `name` so far in
  /// the function.
  std::string implicit_name(const std::string& name, std::string_view role) {
    int& k = versions_[name];
    return name + "__" + std::string(role) + "_v" + std::to_string(k++);
  }

  /// The compound statement's own yield names, for one annotation: bound in
  /// a scope of their own to the variables the statement will bind them to.
  struct OwnYieldNames {
    Binder& p;
    OwnYieldNames(Binder& parser, const std::vector<std::string>& names, Loc loc) : p(parser) {
      p.push_scope();
      if (p.yield_names_.empty()) return;
      for (const auto& n : names) {
        VarPtr& v = p.yield_names_.back()[n];
        if (!v) v = make_var(n, nullptr, loc);
        auto it = p.names_.try_emplace(n).first;
        Binding& slot = it->second;
        p.frames_.back().push_back(Undo{&slot, std::move(slot), it->first});
        slot = Binding{v, var_ref(v), p.frames_.size() - 1};
      }
    }
    ~OwnYieldNames() { p.pop_scope(); }
    OwnYieldNames(const OwnYieldNames&) = delete;
    OwnYieldNames& operator=(const OwnYieldNames&) = delete;
  };
  /// Opens the yield names of one compound statement (closed when it ends).
  struct YieldNameFrame {
    Binder& p;
    explicit YieldNameFrame(Binder& parser) : p(parser) { p.yield_names_.emplace_back(); }
    ~YieldNameFrame() { p.yield_names_.pop_back(); }
    YieldNameFrame(const YieldNameFrame&) = delete;
    YieldNameFrame& operator=(const YieldNameFrame&) = delete;
  };

  /// Forgets every binding: a new function starts.
  void reset_bindings() {
    block_root_ = 0;
    block_kind_ = BlockKind::function;
    names_.clear();
    frames_.clear();
    bases_.clear();
    alloc_vars_.clear();
    pending_bare_.clear();
    declared_.clear();
    free_symbols_.clear();
    yield_names_.clear();
    versions_.clear();
  }

  // ---- allocation bases -------------------------------------------------------------------------
  // One function-wide namespace for allocation bases: alloc statements, bare
  // names and strings in MemRef(...) all meet here, so a parameter's
  // MemRef("mem_vec_0", ...) (a forward reference) and the body's
  // `mem_vec_0: Ptr = tile.alloc(...)` are one base.
  VarPtr string_base(const std::string& name, Loc loc) {
    auto it = bases_.find(name);
    if (it != bases_.end()) return it->second;
    auto v = make_var(name, ptr_type(), loc);
    bases_.emplace(name, v);
    return v;
  }
  VarPtr bare_base(const std::string& name, Loc loc) {
    if (const Binding* b = lookup(name)) {
      if (!alloc_vars_.count(b->var.get()))
        fail(loc, "'" + name +
                      "' is not an allocation: a bare MemRef base must be defined by tile.alloc or "
                      "tensor.alloc (write \"" +
                      name + "\" for an external base)");
      return b->var;
    }
    auto it = bases_.find(name);
    if (it != bases_.end()) {
      if (!alloc_vars_.count(it->second.get())) pending_bare_.emplace_back(name, loc);
      return it->second;
    }
    auto v = make_var(name, ptr_type(), loc);
    bases_.emplace(name, v);
    pending_bare_.emplace_back(name, loc);
    return v;
  }
  VarPtr define_alloc(const std::string& name, Loc loc) {
    VarPtr v;
    if (auto it = bases_.find(name); it != bases_.end()) {
      if (alloc_vars_.count(it->second.get()))
        fail(loc, "allocation '" + name + "' is defined twice (first at line " +
                      std::to_string(it->second->loc.line) + ")");
      v = it->second;  // an earlier forward reference: the same base object
      v->loc = loc;
    } else {
      v = make_var(name, ptr_type(), loc);
      bases_.emplace(name, v);
    }
    alloc_vars_.insert(v.get());
    define(v, loc);
    return v;
  }
  VarPtr declared_base(const std::string& name, Loc loc) {
    auto it = declared_.find(name);
    if (it != declared_.end()) return it->second;
    auto v = make_var(name, ptr_type(), loc);
    declared_.emplace(name, v);
    return v;
  }

  /// A name an if arm bound in its own scope: what it was before the arm
  /// (no var: new in the arm) and at the arm's end.
  struct Rebind {
    std::string name;
    Binding before, after;
  };

  /// The names the innermost scope bound, with their bindings before it and now.
  std::vector<Rebind> collect_rebinds() {
    std::vector<Rebind> out;
    std::unordered_map<std::string_view, std::size_t> seen;
    for (const auto& u : frames_.back()) {
      if (seen.count(u.name)) continue;
      seen.emplace(u.name, out.size());
      if (u.slot->var && alloc_vars_.count(u.slot->var.get())) continue;
      out.push_back(Rebind{std::string(u.name), u.previous, *u.slot});
    }
    return out;
  }

  // ---- what compound statements bind ----------------------------------------------------------------
  /// The names a `yield_` assignment defines (`a, b = yield_(...)`), with
  /// their annotation.
  struct YieldInfo {
    bool named = false;
    std::vector<std::string> names;
    TypePtr annotation;  ///< for several names, a TupleType
    Loc loc;
    bool pl = false;  ///< `pl.yield_`: a partial annotation takes the carried value's space
    const YieldStmt* stmt = nullptr;
  };

  /// Types of the return vars: the annotation's, else the defaults.
  std::vector<TypePtr> yielded_types(const YieldInfo& y, const std::vector<TypePtr>& defaults) {
    std::vector<TypePtr> out = defaults;
    if (y.annotation) {
      if (y.names.size() == 1)
        out[0] = y.annotation;
      else if (const auto* tt = y.annotation->as<TupleType>())
        out = tt->elems;
    }
    if (y.pl)  // PyPTO types a return var from its value; the annotation only restates it
      for (std::size_t i = 0; i < out.size() && i < defaults.size(); ++i) {
        const auto* a = as_tile(out[i]);
        const auto* d = as_tile(defaults[i]);
        if (a && !a->space && d && d->space) out[i] = with_memory_space(out[i], d->space);
      }
    return out;
  }

  std::vector<VarPtr> bind_return_vars(const YieldInfo& y, const std::vector<TypePtr>& types) {
    std::vector<VarPtr> rvs;
    for (std::size_t i = 0; i < y.names.size(); ++i) {
      VarPtr v;
      if (!yield_names_.empty())
        if (auto it = yield_names_.back().find(y.names[i]); it != yield_names_.back().end()) {
          v = it->second;  // named by an annotation of this statement's yields
          v->type = types[i];
          v->loc = y.loc;
        }
      if (!v) v = make_var(y.names[i], types[i], y.loc);
      define(v, y.loc);
      rvs.push_back(std::move(v));
    }
    return rvs;
  }

  /// Adds the implicit carries `names` to `iter_args` (named as PyPTO names
  /// them), returning the names their return variables will take.
  std::vector<std::string> add_implicit_iter_args(const std::vector<std::string>& names, Loc loc,
                                                  std::vector<IterArg>& iter_args,
                                                  std::vector<TypePtr>& types) {
    std::vector<std::string> rv_names;
    for (const auto& n : names) {
      const Binding* b = lookup(n);
      iter_args.push_back(IterArg{make_var(implicit_name(n, "iter"), b->var->type, loc), b->ref});
      types.push_back(b->var->type);
      rv_names.push_back(implicit_name(n, "rv"));
    }
    return rv_names;
  }

  // ---- type deduction ----------------------------------------------------------------------------
  /// PyPTO builds a call's result type from the op, so a `pl.` call whose
  /// annotation leaves out the memory space gets the op's (`x: pl.Tile[[64,
  /// 64], pl.FP32] = pl.tile.load(..., target_memory=pl.Mem.Mat)` is in Mat),
  /// and one that leaves out the TileView gets the op's valid_shape and pad
  /// (a load's narrower valid region, a fillpad's pad value) when the ranks
  /// agree; layout fields stay as annotated.
  TypePtr complete_annotation(const TypePtr& ann, const ExprPtr& rhs) {
    const auto* a = as_tile(ann);
    if (!a || (a->space && !a->view.empty())) return ann;
    const TypePtr deduced = deduce(rhs);  // kept alive: d points into it
    const auto* d = as_tile(deduced);
    std::optional<MemorySpace> space = d ? d->space : std::nullopt;
    if (!space)  // an op without a type rule still has the space its spec gives (sort32: Vec)
      if (const auto* c = rhs->as<Call>())
        if (const OpSpec* spec = reg_.find(c->op)) space = spec->resolve_output(*c);
    TypePtr out = ann;
    if (!a->space && space) out = with_memory_space(out, space);
    if (d && a->view.empty() && d->shape.size() == a->shape.size()) {
      TileView v;  // what the op says of the data (valid region, padding); layouts stay as annotated
      for (const auto& f : d->view.fields)
        if (f.name == "valid_shape" || f.name == "pad") v.fields.push_back(f);
      if (!v.empty()) out = with_view(out, std::move(v));
    }
    return out;
  }

  TypePtr deduce(const ExprPtr& rhs) {
    if (const auto* c = rhs->as<Call>()) {
      if (const OpSpec* spec = reg_.find(c->op); spec && spec->type_rule) return spec->type_rule(*c);
      if (TypePtr t = dsl::fallback_type(*c)) return t;
      if (const Function* f = program_ ? program_->find(c->op) : nullptr) {  // a call of an earlier function
        if (f->return_types.size() == 1) return f->return_types[0];
        if (f->return_types.size() > 1) return tuple_type(f->return_types);
      }
      return nullptr;
    }
    if (const auto* s = rhs->as<SubscriptExpr>()) {  // one element of a tuple: `a = _tuple_tmp[0]`
      const TypePtr whole = deduce(s->value);
      const auto* tt = whole ? whole->as<TupleType>() : nullptr;
      const auto k = as_const_int(s->index);
      if (tt && k && *k >= 0 && static_cast<std::size_t>(*k) < tt->elems.size())
        return tt->elems[static_cast<std::size_t>(*k)];
      return nullptr;
    }
    return expr_type(rhs);
  }

  std::string file_;
  ParseOptions opt_;
  const OpRegistry& reg_;
  std::size_t block_root_ = 0;  ///< frames below this one belong to an enclosing block
  BlockKind block_kind_ = BlockKind::function;
  const Program* program_ = nullptr;  // functions parsed so far (typing calls to them)
  NameMap<Binding> names_;
  /// Definitions of each name so far in the function (PyPTO numbers its
  /// implicit carries and phis by them).
  std::unordered_map<std::string, int> versions_;
  std::vector<std::vector<Undo>> frames_;
  NameMap<VarPtr> bases_;
  std::unordered_set<const Var*> alloc_vars_;
  std::vector<std::pair<std::string, Loc>> pending_bare_;
  NameMap<VarPtr> declared_;
  NameMap<ExprPtr> free_symbols_;
  /// Per compound statement being parsed (if, loop), innermost last: the
  /// variables its yield annotations named before the statement binds them
  /// (an if-phi's MemRef may use a sibling phi, a logical tile selection's
  /// slot index: `p, p_slot: tuple[Tile[..., MemRef(m, p_slot * 512, 512,
  /// slots=2)[p_slot], Vec], Scalar[INDEX]] = yield_(a, 0)`).
  std::vector<NameMap<VarPtr>> yield_names_;
};

}  // namespace pto_mem::pypto::detail
