// Statements: sequences, assignments, expression statements,
// allocations, for / if / while with their SSA carries, yield and return.
//
// Loop-carried values have four roles per carry i: the init value
// (`iter_args[i].init`), the iter-arg (`iter_args[i].var`, the name inside the
// body), the yielded value (`i`-th value of the body's terminating yield) and
// the return var (`return_vars[i]`, the value after the loop). An IfStmt's
// return vars are its phis: return_vars[i] receives the i-th value of the
// then- or else-arm's terminating yield.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/expr.hpp"
#include "pto_mem/pypto/ir/location.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"

namespace pto_mem::pypto {

enum class StmtKind : std::uint8_t { Seq, Assign, Eval, Alloc, For, If, While, Yield, Return };

struct Stmt {
  const StmtKind kind;
  Loc loc;

  template <class T>
  [[nodiscard]] const T* as() const noexcept {
    return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
  }
  template <class T>
  [[nodiscard]] bool is() const noexcept {
    return kind == T::static_kind;
  }

 protected:
  Stmt(StmtKind k, Loc l) noexcept : kind(k), loc(l) {}
  Stmt(const Stmt&) = default;
  ~Stmt() = default;
};

/// A sequence. `scope` names a PyPTO `with pl.<scope>():` block around it
/// (`manual_scope`, `auto_scope`; empty: a plain sequence). A scope has no
/// memory meaning: its names stay visible after it, as in Python.
struct SeqStmts final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::Seq;
  std::vector<StmtPtr> stmts;
  std::string scope;
  explicit SeqStmts(std::vector<StmtPtr> s, Loc l = {}, std::string sc = {})
      : Stmt(static_kind, l), stmts(std::move(s)), scope(std::move(sc)) {}
};

/// `var: type = value`; the variable's type is `var->type`.
struct AssignStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::Assign;
  VarPtr var;
  ExprPtr value;
  AssignStmt(VarPtr v, ExprPtr e, Loc l = {})
      : Stmt(static_kind, l), var(std::move(v)), value(std::move(e)) {}
};

/// A call evaluated for its effect (`tile.write(x, [0, 0], v)`).
struct EvalStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::Eval;
  ExprPtr value;
  explicit EvalStmt(ExprPtr e, Loc l = {}) : Stmt(static_kind, l), value(std::move(e)) {}
};

enum class AllocOp : std::uint8_t { tile, tensor };

[[nodiscard]] constexpr std::string_view to_string(AllocOp op) noexcept {
  return op == AllocOp::tile ? "tile.alloc" : "tensor.alloc";
}

/// `var: Ptr = tile.alloc(space, size[, pinned=True])` (or `tensor.alloc` for
/// a DDR tile base): declares the allocation whose identity is `var`.
/// Never carries an address; addresses live in MemRefs.
struct AllocStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::Alloc;
  VarPtr var;
  MemorySpace space;
  Addr size;
  bool pinned;
  AllocOp op;
  AllocStmt(VarPtr v, MemorySpace s, Addr sz, bool p = false, AllocOp o = AllocOp::tile, Loc l = {})
      : Stmt(static_kind, l), var(std::move(v)), space(s), size(sz), pinned(p), op(o) {}
};

/// `Spmd` is PyPTO's `for i in pl.spmd(n)` (an SPMD launch over n blocks),
/// `Unroll` its `pl.unroll(...)`.
enum class ForKind : std::uint8_t { Range, Parallel, Pipeline, Unroll, Spmd };

/// The text-format spelling: `range`, `parallel`, `pipeline`, `unroll`, `spmd`.
[[nodiscard]] constexpr std::string_view to_string(ForKind k) noexcept {
  switch (k) {
    case ForKind::Range: return "range";
    case ForKind::Parallel: return "parallel";
    case ForKind::Pipeline: return "pipeline";
    case ForKind::Unroll: return "unroll";
    case ForKind::Spmd: return "spmd";
  }
  return "range";
}

struct IterArg {
  VarPtr var;    ///< the carried value inside the body
  ExprPtr init;  ///< its value before the first iteration
};

/// `for i, (a, b) in range(start, stop, step, init_values=(x, y)):`.
struct ForStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::For;
  VarPtr loop_var;
  ExprPtr start, stop, step;
  std::vector<IterArg> iter_args;
  StmtPtr body;
  std::vector<VarPtr> return_vars;
  ForKind for_kind = ForKind::Range;
  std::optional<std::int64_t> stage;  ///< `pipeline(..., stage=F)`
  std::vector<Kwarg> attrs;           ///< other loop keyword arguments, kept verbatim
  ForStmt(VarPtr lv, ExprPtr b, ExprPtr e, ExprPtr st, std::vector<IterArg> ia, StmtPtr bd,
          std::vector<VarPtr> rv, ForKind k = ForKind::Range, std::optional<std::int64_t> stg = std::nullopt,
          std::vector<Kwarg> at = {}, Loc l = {})
      : Stmt(static_kind, l),
        loop_var(std::move(lv)),
        start(std::move(b)),
        stop(std::move(e)),
        step(std::move(st)),
        iter_args(std::move(ia)),
        body(std::move(bd)),
        return_vars(std::move(rv)),
        for_kind(k),
        stage(stg),
        attrs(std::move(at)) {}
};

/// `if cond: ... else: ...`; `else_body` may be null.
struct IfStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::If;
  ExprPtr condition;
  StmtPtr then_body;
  StmtPtr else_body;
  std::vector<VarPtr> return_vars;
  IfStmt(ExprPtr c, StmtPtr t, StmtPtr e, std::vector<VarPtr> rv, Loc l = {})
      : Stmt(static_kind, l),
        condition(std::move(c)),
        then_body(std::move(t)),
        else_body(std::move(e)),
        return_vars(std::move(rv)) {}
};

/// `while cond:` (no carries) or `for (a, b) in while_(init_values=(x, y)):`
/// with `cond(...)` as the body's first line.
struct WhileStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::While;
  ExprPtr condition;
  std::vector<IterArg> iter_args;
  StmtPtr body;
  std::vector<VarPtr> return_vars;
  WhileStmt(ExprPtr c, std::vector<IterArg> ia, StmtPtr b, std::vector<VarPtr> rv, Loc l = {})
      : Stmt(static_kind, l),
        condition(std::move(c)),
        iter_args(std::move(ia)),
        body(std::move(b)),
        return_vars(std::move(rv)) {}
};

/// Terminates a loop or if body; its values feed the enclosing statement's
/// return vars (printed `r = yield_(v)`).
struct YieldStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::Yield;
  std::vector<ExprPtr> values;
  explicit YieldStmt(std::vector<ExprPtr> v, Loc l = {}) : Stmt(static_kind, l), values(std::move(v)) {}
};

struct ReturnStmt final : Stmt {
  static constexpr StmtKind static_kind = StmtKind::Return;
  std::vector<ExprPtr> values;
  explicit ReturnStmt(std::vector<ExprPtr> v, Loc l = {}) : Stmt(static_kind, l), values(std::move(v)) {}
};

// ---- factories ------------------------------------------------------------------

[[nodiscard]] inline StmtPtr seq(std::vector<StmtPtr> stmts, Loc l = {}, std::string scope = {}) {
  return make_node<SeqStmts>(std::move(stmts), l, std::move(scope));
}
[[nodiscard]] inline StmtPtr assign(VarPtr v, ExprPtr e, Loc l = {}) {
  return make_node<AssignStmt>(std::move(v), std::move(e), l);
}
[[nodiscard]] inline StmtPtr eval(ExprPtr e, Loc l = {}) { return make_node<EvalStmt>(std::move(e), l); }
[[nodiscard]] inline StmtPtr alloc(VarPtr v, MemorySpace s, Addr size, bool pinned = false,
                                   AllocOp op = AllocOp::tile, Loc l = {}) {
  return make_node<AllocStmt>(std::move(v), s, size, pinned, op, l);
}
[[nodiscard]] inline StmtPtr yield(std::vector<ExprPtr> values, Loc l = {}) {
  return make_node<YieldStmt>(std::move(values), l);
}
[[nodiscard]] inline StmtPtr ret(std::vector<ExprPtr> values, Loc l = {}) {
  return make_node<ReturnStmt>(std::move(values), l);
}

// ---- structure helpers ----------------------------------------------------------

/// The yield that terminates `body`: its last statement, descending into the
/// last element of nested sequences. Null when there is none.
[[nodiscard]] inline const YieldStmt* terminating_yield(const StmtPtr& body) noexcept {
  const Stmt* s = body.get();
  while (s) {
    if (const auto* q = s->as<SeqStmts>()) {
      s = q->stmts.empty() ? nullptr : q->stmts.back().get();
      continue;
    }
    return s->as<YieldStmt>();
  }
  return nullptr;
}

namespace detail {
inline void flatten_into(const StmtPtr& s, std::vector<StmtPtr>& out) {
  if (!s) return;
  if (const auto* q = s->as<SeqStmts>()) {
    for (const auto& c : q->stmts) flatten_into(c, out);
  } else {
    out.push_back(s);
  }
}
}  // namespace detail

/// The statements of `body` with nested sequences spliced in (not recursing
/// into loop or branch bodies).
[[nodiscard]] inline std::vector<StmtPtr> flatten(const StmtPtr& body) {
  std::vector<StmtPtr> out;
  detail::flatten_into(body, out);
  return out;
}

}  // namespace pto_mem::pypto
