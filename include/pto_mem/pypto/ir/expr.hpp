// Expressions: variable references, constants, calls (positional and keyword
// arguments), lists, tuples, arithmetic and comparisons.
//
// Nodes are immutable and shared (shared_ptr<const Expr>); `as<T>()` is the
// checked downcast passes pattern-match with:
//
//     if (const Call* c = e->as<Call>(); c && c->op == "tile.load") ...
//
// The factories below fold integer constants (`2 * 64` is `128`, `x + 0` is
// `x`), so offsets and sizes built by passes stay readable.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/data_type.hpp"
#include "pto_mem/pypto/ir/fwd.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"
#include "pto_mem/pypto/ir/var.hpp"

namespace pto_mem::pypto {

enum class ExprKind : std::uint8_t {
  Var,
  Int,
  Float,
  Bool,
  None,
  String,
  Space,
  DType,
  Enum,
  Call,
  List,
  Tuple,
  Binary,
  Unary,
  Subscript
};

struct Expr {
  const ExprKind kind;

  template <class T>
  [[nodiscard]] const T* as() const noexcept {
    return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
  }
  template <class T>
  [[nodiscard]] bool is() const noexcept {
    return kind == T::static_kind;
  }

 protected:
  explicit Expr(ExprKind k) noexcept : kind(k) {}
  Expr(const Expr&) = default;
  ~Expr() = default;  // shared_ptr deletes through the dynamic type
};

/// A use of a variable.
struct VarExpr final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Var;
  VarPtr var;
  explicit VarExpr(VarPtr v) noexcept : Expr(static_kind), var(std::move(v)) {}
};

/// An integer constant; `dtype` is set for `const(v, DTYPE)` and printed back.
struct IntImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Int;
  std::int64_t value;
  std::optional<DataType> dtype;
  IntImm(std::int64_t v, std::optional<DataType> t) noexcept : Expr(static_kind), value(v), dtype(t) {}
};

struct FloatImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Float;
  double value;
  std::optional<DataType> dtype;
  FloatImm(double v, std::optional<DataType> t) noexcept : Expr(static_kind), value(v), dtype(t) {}
};

struct BoolImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Bool;
  bool value;
  explicit BoolImm(bool v) noexcept : Expr(static_kind), value(v) {}
};

/// Python's `None` (an absent optional argument).
struct NoneImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::None;
  NoneImm() noexcept : Expr(static_kind) {}
};

struct StringImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::String;
  std::string value;
  explicit StringImm(std::string v) : Expr(static_kind), value(std::move(v)) {}
};

/// A memory-space literal (`Vec`, `pl.Mem.Vec`, `pl.MemorySpace.Vec`).
struct SpaceImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Space;
  MemorySpace space;
  explicit SpaceImm(MemorySpace s) noexcept : Expr(static_kind), space(s) {}
};

/// A data-type literal (`FP32`).
struct DTypeImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::DType;
  DataType dtype;
  explicit DTypeImm(DataType t) noexcept : Expr(static_kind), dtype(t) {}
};

/// Any other enum literal, kept verbatim: `TileLayout.row_major`, `PadValue.zero`.
struct EnumImm final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Enum;
  std::string enum_name;  ///< "TileLayout"
  std::string value;      ///< "row_major"
  EnumImm(std::string e, std::string v) : Expr(static_kind), enum_name(std::move(e)), value(std::move(v)) {}
};

struct Kwarg {
  std::string name;
  ExprPtr value;
};

/// `op(args..., name=value...)`. `op` is the canonical op name (`tile.load`,
/// `system.reserve_buffer`) or the name of a function of the program.
/// Unknown keyword arguments are kept in order, so layouts round-trip.
struct Call final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Call;
  std::string op;
  std::vector<ExprPtr> args;
  std::vector<Kwarg> kwargs;
  Call(std::string o, std::vector<ExprPtr> a, std::vector<Kwarg> k)
      : Expr(static_kind), op(std::move(o)), args(std::move(a)), kwargs(std::move(k)) {}

  /// The value of keyword argument `name`, or null.
  [[nodiscard]] const ExprPtr* kwarg(std::string_view name) const noexcept {
    for (const auto& kw : kwargs)
      if (kw.name == name) return &kw.value;
    return nullptr;
  }
};

/// `[a, b]` (shapes, offsets). A dict literal `{k: v, ...}` (PyPTO's
/// `attrs={...}`) is a ListExpr with `dict` set whose elements are the
/// `(key, value)` TupleExprs: every walk sees its values as plain operands.
struct ListExpr final : Expr {
  static constexpr ExprKind static_kind = ExprKind::List;
  std::vector<ExprPtr> elems;
  bool dict = false;
  explicit ListExpr(std::vector<ExprPtr> e, bool is_dict = false)
      : Expr(static_kind), elems(std::move(e)), dict(is_dict) {}
};

/// `(a, b)`, `(a,)`, `()`.
struct TupleExpr final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Tuple;
  std::vector<ExprPtr> elems;
  explicit TupleExpr(std::vector<ExprPtr> e) : Expr(static_kind), elems(std::move(e)) {}
};

enum class BinaryOp : std::uint8_t {
  Add,
  Sub,
  Mul,
  FloorDiv,
  Div,
  Mod,
  Shl,
  Shr,
  BitAnd,
  BitOr,
  BitXor,
  Lt,
  Le,
  Gt,
  Ge,
  Eq,
  Ne,
  And,
  Or
};

[[nodiscard]] constexpr std::string_view to_string(BinaryOp op) noexcept {
  constexpr std::array<std::string_view, 19> s = {"+", "-", "*",  "//", "/",  "%",  "<<", ">>",  "&", "|",
                                                  "^", "<", "<=", ">",  ">=", "==", "!=", "and", "or"};
  return s[static_cast<std::size_t>(op)];
}

/// Python precedence, larger binds tighter.
[[nodiscard]] constexpr int precedence(BinaryOp op) noexcept {
  switch (op) {
    case BinaryOp::Or: return 1;
    case BinaryOp::And: return 2;
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge:
    case BinaryOp::Eq:
    case BinaryOp::Ne: return 4;
    case BinaryOp::BitOr: return 5;
    case BinaryOp::BitXor: return 6;
    case BinaryOp::BitAnd: return 7;
    case BinaryOp::Shl:
    case BinaryOp::Shr: return 8;
    case BinaryOp::Add:
    case BinaryOp::Sub: return 9;
    default: return 10;  // * / // %
  }
}
inline constexpr int not_precedence = 3;     ///< `not x`
inline constexpr int unary_precedence = 11;  ///< `-x`, `~x`

[[nodiscard]] constexpr bool is_comparison(BinaryOp op) noexcept { return precedence(op) == 4; }

struct BinaryExpr final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Binary;
  BinaryOp op;
  ExprPtr lhs, rhs;
  BinaryExpr(BinaryOp o, ExprPtr l, ExprPtr r)
      : Expr(static_kind), op(o), lhs(std::move(l)), rhs(std::move(r)) {}
};

enum class UnaryOp : std::uint8_t { Neg, Invert, Not };

struct UnaryExpr final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Unary;
  UnaryOp op;
  ExprPtr operand;
  UnaryExpr(UnaryOp o, ExprPtr e) : Expr(static_kind), op(o), operand(std::move(e)) {}
};

/// `value[index]` (tuple element, list element).
struct SubscriptExpr final : Expr {
  static constexpr ExprKind static_kind = ExprKind::Subscript;
  ExprPtr value, index;
  SubscriptExpr(ExprPtr v, ExprPtr i) : Expr(static_kind), value(std::move(v)), index(std::move(i)) {}
};

// ---- queries ------------------------------------------------------------------

/// The constant value of an IntImm, else nullopt.
[[nodiscard]] inline std::optional<std::int64_t> as_const_int(const ExprPtr& e) noexcept {
  if (e)
    if (const auto* i = e->as<IntImm>()) return i->value;
  return std::nullopt;
}

/// The variable of a VarExpr, else null.
[[nodiscard]] inline VarPtr as_var(const ExprPtr& e) noexcept {
  if (e)
    if (const auto* v = e->as<VarExpr>()) return v->var;
  return nullptr;
}

[[nodiscard]] inline std::optional<MemorySpace> as_space(const ExprPtr& e) noexcept {
  if (e)
    if (const auto* s = e->as<SpaceImm>()) return s->space;
  return std::nullopt;
}

[[nodiscard]] inline std::optional<DataType> as_dtype(const ExprPtr& e) noexcept {
  if (e)
    if (const auto* s = e->as<DTypeImm>()) return s->dtype;
  return std::nullopt;
}

/// Elements of a list or tuple expression, else null.
[[nodiscard]] inline const std::vector<ExprPtr>* as_sequence(const ExprPtr& e) noexcept {
  if (!e) return nullptr;
  if (const auto* l = e->as<ListExpr>()) return &l->elems;
  if (const auto* t = e->as<TupleExpr>()) return &t->elems;
  return nullptr;
}

// ---- factories ------------------------------------------------------------------

[[nodiscard]] inline ExprPtr var_ref(VarPtr v) { return make_node<VarExpr>(std::move(v)); }

/// Untyped small constants are shared: shapes and offsets are full of them.
[[nodiscard]] inline ExprPtr int_imm(std::int64_t v, std::optional<DataType> dtype = std::nullopt) {
  constexpr std::int64_t lo = -16, hi = 1024;
  if (!dtype && v >= lo && v <= hi) {
    static const auto cache = [] {
      std::vector<ExprPtr> c;
      c.reserve(static_cast<std::size_t>(hi - lo + 1));
      for (std::int64_t k = lo; k <= hi; ++k) c.push_back(make_node<IntImm>(k, std::nullopt));
      return c;
    }();
    return cache[static_cast<std::size_t>(v - lo)];
  }
  return make_node<IntImm>(v, dtype);
}
[[nodiscard]] inline ExprPtr float_imm(double v, std::optional<DataType> dtype = std::nullopt) {
  return make_node<FloatImm>(v, dtype);
}
// Literals of a closed set are shared, like small integers.
[[nodiscard]] inline ExprPtr bool_imm(bool v) {
  static const ExprPtr t = make_node<BoolImm>(true), f = make_node<BoolImm>(false);
  return v ? t : f;
}
[[nodiscard]] inline ExprPtr none_imm() {
  static const ExprPtr n = make_node<NoneImm>();
  return n;
}
[[nodiscard]] inline ExprPtr string_imm(std::string v) { return make_node<StringImm>(std::move(v)); }
[[nodiscard]] inline ExprPtr space_imm(MemorySpace s) {
  static const auto cache = [] {
    std::array<ExprPtr, memory_space_count> c;
    for (MemorySpace x : all_memory_spaces) c[index_of(x)] = make_node<SpaceImm>(x);
    return c;
  }();
  return index_of(s) < cache.size() ? cache[index_of(s)] : make_node<SpaceImm>(s);
}
[[nodiscard]] inline ExprPtr dtype_imm(DataType t) {
  static const auto cache = [] {
    std::array<ExprPtr, data_type_count> c;
    for (DataType x : all_data_types) c[static_cast<std::size_t>(x)] = make_node<DTypeImm>(x);
    return c;
  }();
  const auto i = static_cast<std::size_t>(t);
  return i < cache.size() ? cache[i] : make_node<DTypeImm>(t);
}
[[nodiscard]] inline ExprPtr enum_imm(std::string enum_name, std::string value) {
  return make_node<EnumImm>(std::move(enum_name), std::move(value));
}
[[nodiscard]] inline ExprPtr call(std::string op, std::vector<ExprPtr> args = {},
                                  std::vector<Kwarg> kwargs = {}) {
  return make_node<Call>(std::move(op), std::move(args), std::move(kwargs));
}
[[nodiscard]] inline ExprPtr list(std::vector<ExprPtr> elems) {
  return make_node<ListExpr>(std::move(elems));
}
/// `{k: v, ...}`: `pairs` are 2-element TupleExprs.
[[nodiscard]] inline ExprPtr dict_expr(std::vector<ExprPtr> pairs) {
  return make_node<ListExpr>(std::move(pairs), true);
}
[[nodiscard]] inline ExprPtr tuple(std::vector<ExprPtr> elems) {
  return make_node<TupleExpr>(std::move(elems));
}
/// `[a, b, ...]` from integers (shapes, offsets).
[[nodiscard]] inline ExprPtr int_list(const std::vector<std::int64_t>& values) {
  std::vector<ExprPtr> elems;
  elems.reserve(values.size());
  for (auto v : values) elems.push_back(int_imm(v));
  return list(std::move(elems));
}
[[nodiscard]] inline ExprPtr subscript(ExprPtr value, ExprPtr index) {
  return make_node<SubscriptExpr>(std::move(value), std::move(index));
}

namespace detail {

// Python integer semantics, or nullopt when the result needs more than 64 bits
// (the expression is then kept symbolic rather than wrapped).
[[nodiscard]] inline std::optional<std::int64_t> fold_int(BinaryOp op, std::int64_t a,
                                                          std::int64_t b) noexcept {
  std::int64_t r = 0;
  switch (op) {
    case BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinaryOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
      return r;
    case BinaryOp::FloorDiv: {
      if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) return std::nullopt;
      std::int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    }
    case BinaryOp::Mod: {
      if (b == 0 || (a == std::numeric_limits<std::int64_t>::min() && b == -1)) return std::nullopt;
      std::int64_t m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) m += b;
      return m;
    }
    case BinaryOp::Shl:
      if (b < 0 || b > 62) return a == 0 && b >= 0 ? std::optional<std::int64_t>(0) : std::nullopt;
      if (__builtin_mul_overflow(a, std::int64_t{1} << b, &r)) return std::nullopt;
      return r;
    case BinaryOp::Shr:
      if (b < 0) return std::nullopt;
      if (b > 63) return a < 0 ? -1 : 0;
      return a >> b;
    case BinaryOp::BitAnd: return a & b;
    case BinaryOp::BitOr: return a | b;
    case BinaryOp::BitXor: return a ^ b;
    default: return std::nullopt;  // true division and comparisons are not folded
  }
}

}  // namespace detail

/// `lhs op rhs`, folding untyped integer constants and the identities
/// `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x // 1`.
[[nodiscard]] inline ExprPtr binary(BinaryOp op, ExprPtr lhs, ExprPtr rhs) {
  const auto* li = lhs ? lhs->as<IntImm>() : nullptr;
  const auto* ri = rhs ? rhs->as<IntImm>() : nullptr;
  const bool lplain = li && !li->dtype, rplain = ri && !ri->dtype;
  if (lplain && rplain)
    if (auto v = detail::fold_int(op, li->value, ri->value)) return int_imm(*v);
  if (rplain && ri->value == 0 && (op == BinaryOp::Add || op == BinaryOp::Sub)) return lhs;
  if (lplain && li->value == 0 && op == BinaryOp::Add) return rhs;
  if (rplain && ri->value == 1 && (op == BinaryOp::Mul || op == BinaryOp::FloorDiv)) return lhs;
  if (lplain && li->value == 1 && op == BinaryOp::Mul) return rhs;
  // (x * c1) * c2 -> x * (c1 * c2) and (x + c1) + c2 -> x + (c1 + c2): slice
  // offsets and slot addresses are built one factor / term at a time.
  if (rplain && (op == BinaryOp::Mul || op == BinaryOp::Add))
    if (const auto* inner = lhs->as<BinaryExpr>(); inner && inner->op == op)
      if (const auto* c = inner->rhs->as<IntImm>(); c && !c->dtype)
        if (auto v = detail::fold_int(op, c->value, ri->value)) return binary(op, inner->lhs, int_imm(*v));
  return make_node<BinaryExpr>(op, std::move(lhs), std::move(rhs));
}

/// `-x`, `~x`, `not x`; folds untyped integer constants.
[[nodiscard]] inline ExprPtr unary(UnaryOp op, ExprPtr operand) {
  if (const auto* i = operand ? operand->as<IntImm>() : nullptr; i && !i->dtype) {
    if (op == UnaryOp::Neg && i->value != std::numeric_limits<std::int64_t>::min()) return int_imm(-i->value);
    if (op == UnaryOp::Invert) return int_imm(~i->value);
  }
  if (const auto* f = operand ? operand->as<FloatImm>() : nullptr; f && op == UnaryOp::Neg)
    return float_imm(-f->value, f->dtype);
  return make_node<UnaryExpr>(op, std::move(operand));
}

[[nodiscard]] inline ExprPtr add(ExprPtr a, ExprPtr b) {
  return binary(BinaryOp::Add, std::move(a), std::move(b));
}
[[nodiscard]] inline ExprPtr sub(ExprPtr a, ExprPtr b) {
  return binary(BinaryOp::Sub, std::move(a), std::move(b));
}
[[nodiscard]] inline ExprPtr mul(ExprPtr a, ExprPtr b) {
  return binary(BinaryOp::Mul, std::move(a), std::move(b));
}
[[nodiscard]] inline ExprPtr floordiv(ExprPtr a, ExprPtr b) {
  return binary(BinaryOp::FloorDiv, std::move(a), std::move(b));
}
[[nodiscard]] inline ExprPtr mod(ExprPtr a, ExprPtr b) {
  return binary(BinaryOp::Mod, std::move(a), std::move(b));
}
[[nodiscard]] inline ExprPtr lt(ExprPtr a, ExprPtr b) {
  return binary(BinaryOp::Lt, std::move(a), std::move(b));
}

/// Structural equality of expressions: same shape, same constants, same
/// variables (by identity).
[[nodiscard]] inline bool same_expr(const ExprPtr& a, const ExprPtr& b) noexcept;

namespace detail {
[[nodiscard]] inline bool same_exprs(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same_expr(a[i], b[i])) return false;
  return true;
}
}  // namespace detail

inline bool same_expr(const ExprPtr& a, const ExprPtr& b) noexcept {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case ExprKind::Var: return a->as<VarExpr>()->var == b->as<VarExpr>()->var;
    case ExprKind::Int: {
      const auto *x = a->as<IntImm>(), *y = b->as<IntImm>();
      return x->value == y->value && x->dtype == y->dtype;
    }
    case ExprKind::Float: {
      const auto *x = a->as<FloatImm>(), *y = b->as<FloatImm>();
      return x->value == y->value && x->dtype == y->dtype;
    }
    case ExprKind::Bool: return a->as<BoolImm>()->value == b->as<BoolImm>()->value;
    case ExprKind::None: return true;
    case ExprKind::String: return a->as<StringImm>()->value == b->as<StringImm>()->value;
    case ExprKind::Space: return a->as<SpaceImm>()->space == b->as<SpaceImm>()->space;
    case ExprKind::DType: return a->as<DTypeImm>()->dtype == b->as<DTypeImm>()->dtype;
    case ExprKind::Enum: {
      const auto *x = a->as<EnumImm>(), *y = b->as<EnumImm>();
      return x->enum_name == y->enum_name && x->value == y->value;
    }
    case ExprKind::Call: {
      const auto *x = a->as<Call>(), *y = b->as<Call>();
      if (x->op != y->op || !detail::same_exprs(x->args, y->args) || x->kwargs.size() != y->kwargs.size())
        return false;
      for (std::size_t i = 0; i < x->kwargs.size(); ++i)
        if (x->kwargs[i].name != y->kwargs[i].name || !same_expr(x->kwargs[i].value, y->kwargs[i].value))
          return false;
      return true;
    }
    case ExprKind::List:
      return a->as<ListExpr>()->dict == b->as<ListExpr>()->dict &&
             detail::same_exprs(a->as<ListExpr>()->elems, b->as<ListExpr>()->elems);
    case ExprKind::Tuple: return detail::same_exprs(a->as<TupleExpr>()->elems, b->as<TupleExpr>()->elems);
    case ExprKind::Binary: {
      const auto *x = a->as<BinaryExpr>(), *y = b->as<BinaryExpr>();
      return x->op == y->op && same_expr(x->lhs, y->lhs) && same_expr(x->rhs, y->rhs);
    }
    case ExprKind::Unary: {
      const auto *x = a->as<UnaryExpr>(), *y = b->as<UnaryExpr>();
      return x->op == y->op && same_expr(x->operand, y->operand);
    }
    case ExprKind::Subscript: {
      const auto *x = a->as<SubscriptExpr>(), *y = b->as<SubscriptExpr>();
      return same_expr(x->value, y->value) && same_expr(x->index, y->index);
    }
  }
  return false;
}

}  // namespace pto_mem::pypto
