// Writing IR in C++: operands that convert from variables and literals, and a
// FunctionBuilder with a block stack for loops and branches.
//
//     FunctionBuilder fb("main");
//     auto x = fb.param("x", tensor_type({64, 64}, DataType::FP32));
//     auto out = fb.param("out", tensor_type({64, 64}, DataType::FP32), ParamDirection::Out);
//     auto t = fb.let("t", tile_type({64, 64}, DataType::FP32),
//                     op("tile.load", {x, {0, 0}, {64, 64}}, {{"target_memory", MemorySpace::Vec}}));
//     auto loop = fb.begin_for("i", 0, 4, 1, {{"acc", t}});
//     auto next = fb.let("next", tile_type({64, 64}, DataType::FP32), op("tile.add", {loop.iter_args[0],
//     t})); auto r = fb.end_for({next}, {"r"}); auto res = fb.let("res", out->type, op("tile.store", {r[0],
//     {0, 0}, out})); fb.ret({res}); Function f = fb.build();
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ir/function.hpp"

namespace pto_mem::pypto {

/// Anything that reads as an expression operand in C++ code.
struct Operand {
  ExprPtr expr;
  Operand(ExprPtr e) : expr(std::move(e)) {}      // NOLINT(google-explicit-constructor)
  Operand(const VarPtr& v) : expr(var_ref(v)) {}  // NOLINT
  Operand(int v) : expr(int_imm(v)) {}            // NOLINT
  Operand(long v) : expr(int_imm(v)) {}           // NOLINT
  Operand(long long v) : expr(int_imm(static_cast<std::int64_t>(v))) {}  // NOLINT
  Operand(double v) : expr(float_imm(v)) {}                              // NOLINT
  Operand(bool v) : expr(bool_imm(v)) {}                                 // NOLINT
  Operand(const char* s) : expr(string_imm(s)) {}                        // NOLINT
  Operand(MemorySpace s) : expr(space_imm(s)) {}                         // NOLINT
  Operand(DataType t) : expr(dtype_imm(t)) {}                            // NOLINT
  /// `{0, 0}`: an integer list (shapes, offsets).
  Operand(std::initializer_list<std::int64_t> values) : expr(int_list(values)) {}  // NOLINT
};

/// `name(args..., kw=value...)`.
[[nodiscard]] inline ExprPtr op(std::string name, std::initializer_list<Operand> args = {},
                                std::initializer_list<std::pair<std::string, Operand>> kwargs = {}) {
  std::vector<ExprPtr> a;
  a.reserve(args.size());
  for (const auto& x : args) a.push_back(x.expr);
  std::vector<Kwarg> k;
  k.reserve(kwargs.size());
  for (const auto& [n, v] : kwargs) k.push_back(Kwarg{n, v.expr});
  return call(std::move(name), std::move(a), std::move(k));
}

/// Builds one function statement by statement. Misuse (an `end_for` without
/// a `begin_for`, mismatched carries) throws std::logic_error: it is a bug in
/// the calling code, not bad user data.
class FunctionBuilder {
 public:
  explicit FunctionBuilder(std::string name, FunctionKind kind = FunctionKind::InCore) {
    fn_.name = std::move(name);
    fn_.kind = kind;
    frames_.push_back(Frame{});
  }

  /// Where the next statements and variables are said to come from.
  void at(Loc loc) noexcept { loc_ = loc; }

  VarPtr param(std::string name, TypePtr type, ParamDirection dir = ParamDirection::In) {
    auto v = make_var(std::move(name), std::move(type), loc_);
    fn_.params.push_back(Param{v, dir});
    return v;
  }
  void returns(std::vector<TypePtr> types) { fn_.return_types = std::move(types); }

  /// `name: type = value`; with a null type the type of a variable or scalar
  /// expression is used.
  VarPtr let(std::string name, TypePtr type, const Operand& value) {
    if (!type) type = expr_type(value.expr);
    auto v = make_var(std::move(name), std::move(type), loc_);
    add(assign(v, value.expr, loc_));
    return v;
  }
  /// `name: Ptr = tile.alloc(space, size[, pinned=True])`.
  VarPtr alloc(std::string name, MemorySpace space, Addr size, bool pinned = false) {
    auto v = make_var(std::move(name), ptr_type(), loc_);
    add(pypto::alloc(v, space, size, pinned, space == MemorySpace::DDR ? AllocOp::tensor : AllocOp::tile,
                     loc_));
    return v;
  }
  void eval(const Operand& value) { add(pypto::eval(value.expr, loc_)); }
  void ret(std::initializer_list<Operand> values = {}) { add(pypto::ret(exprs(values), loc_)); }
  void yield(std::initializer_list<Operand> values = {}) { add(pypto::yield(exprs(values), loc_)); }
  void add(StmtPtr s) { frames_.back().stmts.push_back(std::move(s)); }

  struct Loop {
    VarPtr loop_var;
    std::vector<VarPtr> iter_args;
  };

  /// Opens `for name, (carries...) in kind(start, stop, step, init_values=...)`.
  /// Each carry is (iter-arg name, init value); the iter-arg takes the init's type.
  Loop begin_for(std::string loop_var, const Operand& start, const Operand& stop, const Operand& step = 1,
                 std::vector<std::pair<std::string, Operand>> carries = {}, ForKind kind = ForKind::Range,
                 std::optional<std::int64_t> stage = std::nullopt) {
    Frame f;
    f.kind = FrameKind::For;
    f.loc = loc_;
    f.loop_var = make_var(std::move(loop_var), scalar_type(DataType::INDEX), loc_);
    f.start = start.expr;
    f.stop = stop.expr;
    f.step = step.expr;
    f.for_kind = kind;
    f.stage = stage;
    for (auto& [name, init] : carries)
      f.iter_args.push_back(IterArg{make_var(name, expr_type(init.expr), loc_), init.expr});
    Loop out{f.loop_var, {}};
    for (const auto& ia : f.iter_args) out.iter_args.push_back(ia.var);
    frames_.push_back(std::move(f));
    return out;
  }
  /// Closes the innermost loop: yields `values` (one per carry) and defines the
  /// return vars `names`, typed like the iter-args.
  std::vector<VarPtr> end_for(std::initializer_list<Operand> values = {},
                              std::vector<std::string> names = {}) {
    if (frames_.back().kind != FrameKind::For) throw std::logic_error("end_for without begin_for");
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (values.size() != f.iter_args.size() || names.size() != f.iter_args.size())
      throw std::logic_error("end_for needs one yielded value and one return name per carry");
    if (!f.iter_args.empty()) f.stmts.push_back(pypto::yield(exprs(values), loc_));
    std::vector<VarPtr> rvs;
    for (std::size_t i = 0; i < names.size(); ++i)
      rvs.push_back(make_var(names[i], f.iter_args[i].var->type, loc_));
    add(make_node<ForStmt>(f.loop_var, f.start, f.stop, f.step, f.iter_args, seq(std::move(f.stmts), f.loc),
                           rvs, f.for_kind, f.stage, std::vector<Kwarg>{}, f.loc));
    return rvs;
  }

  /// Opens `for (carries...) in while_(init_values=...)`; the condition is
  /// given at end_while (it may read the iter-args).
  Loop begin_while(std::vector<std::pair<std::string, Operand>> carries = {}) {
    Frame f;
    f.kind = FrameKind::While;
    f.loc = loc_;
    for (auto& [name, init] : carries)
      f.iter_args.push_back(IterArg{make_var(name, expr_type(init.expr), loc_), init.expr});
    Loop out{nullptr, {}};
    for (const auto& ia : f.iter_args) out.iter_args.push_back(ia.var);
    frames_.push_back(std::move(f));
    return out;
  }
  std::vector<VarPtr> end_while(const Operand& condition, std::initializer_list<Operand> values = {},
                                std::vector<std::string> names = {}) {
    if (frames_.back().kind != FrameKind::While) throw std::logic_error("end_while without begin_while");
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    if (values.size() != f.iter_args.size() || names.size() != f.iter_args.size())
      throw std::logic_error("end_while needs one yielded value and one return name per carry");
    if (!f.iter_args.empty()) f.stmts.push_back(pypto::yield(exprs(values), loc_));
    std::vector<VarPtr> rvs;
    for (std::size_t i = 0; i < names.size(); ++i)
      rvs.push_back(make_var(names[i], f.iter_args[i].var->type, loc_));
    add(make_node<WhileStmt>(condition.expr, f.iter_args, seq(std::move(f.stmts), f.loc), rvs, f.loc));
    return rvs;
  }

  void begin_if(const Operand& condition) {
    Frame f;
    f.kind = FrameKind::Then;
    f.loc = loc_;
    f.start = condition.expr;
    frames_.push_back(std::move(f));
  }
  void begin_else() {
    if (frames_.back().kind != FrameKind::Then) throw std::logic_error("begin_else without begin_if");
    frames_.back().kind = FrameKind::Else;
    std::swap(frames_.back().stmts, frames_.back().then_stmts);
  }
  /// Closes the innermost if. With `names`, both arms must have ended with
  /// `yield({...})`; each phi takes the then-arm value's type (else-arm's
  /// when the then value has none).
  std::vector<VarPtr> end_if(std::vector<std::string> names = {}) {
    auto k = frames_.back().kind;
    if (k != FrameKind::Then && k != FrameKind::Else) throw std::logic_error("end_if without begin_if");
    Frame f = std::move(frames_.back());
    frames_.pop_back();
    StmtPtr then_body, else_body;
    if (k == FrameKind::Then) {
      then_body = seq(std::move(f.stmts), f.loc);
    } else {
      then_body = seq(std::move(f.then_stmts), f.loc);
      else_body = seq(std::move(f.stmts), f.loc);
    }
    std::vector<VarPtr> rvs;
    if (!names.empty()) {
      const auto* ty = terminating_yield(then_body);
      const auto* ey = terminating_yield(else_body);
      if (!ty || !ey || ty->values.size() != names.size() || ey->values.size() != names.size())
        throw std::logic_error("end_if with names needs both arms to end with a yield of that many values");
      for (std::size_t i = 0; i < names.size(); ++i) {
        TypePtr t = expr_type(ty->values[i]);
        if (!t) t = expr_type(ey->values[i]);
        rvs.push_back(make_var(names[i], std::move(t), loc_));
      }
    }
    add(make_node<IfStmt>(f.start, std::move(then_body), std::move(else_body), rvs, f.loc));
    return rvs;
  }

  /// The finished function; the builder must not have open blocks.
  [[nodiscard]] Function build() {
    if (frames_.size() != 1) throw std::logic_error("FunctionBuilder::build with an open loop or if");
    Function out = fn_;
    out.body = seq(frames_.back().stmts, fn_.loc);
    return out;
  }

 private:
  enum class FrameKind { Body, For, While, Then, Else };
  struct Frame {
    FrameKind kind = FrameKind::Body;
    std::vector<StmtPtr> stmts;
    std::vector<StmtPtr> then_stmts;
    Loc loc;
    VarPtr loop_var;
    ExprPtr start, stop, step;  // `start` doubles as an if's condition
    std::vector<IterArg> iter_args;
    ForKind for_kind = ForKind::Range;
    std::optional<std::int64_t> stage;
  };
  static std::vector<ExprPtr> exprs(std::initializer_list<Operand> values) {
    std::vector<ExprPtr> out;
    for (const auto& v : values) out.push_back(v.expr);
    return out;
  }

  Function fn_;
  std::vector<Frame> frames_;
  Loc loc_;
};

}  // namespace pto_mem::pypto
