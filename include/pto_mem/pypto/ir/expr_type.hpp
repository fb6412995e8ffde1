// The type of an expression that is not a call: variables, constants and
// scalar arithmetic. Calls are typed by the op registry (ops/type_rules.hpp).
#pragma once

#include "pto_mem/pypto/ir/types.hpp"

namespace pto_mem::pypto {

/// The type of `e`, or null when it cannot be told without the op registry.
[[nodiscard]] inline TypePtr expr_type(const ExprPtr& e) {
  if (!e) return nullptr;
  switch (e->kind) {
    case ExprKind::Var: return e->as<VarExpr>()->var->type;
    case ExprKind::Int: return scalar_type(e->as<IntImm>()->dtype.value_or(DataType::INDEX));
    case ExprKind::Float: return scalar_type(e->as<FloatImm>()->dtype.value_or(DataType::FP32));
    case ExprKind::Bool: return scalar_type(DataType::BOOL);
    case ExprKind::Binary: {
      const auto* b = e->as<BinaryExpr>();
      if (is_comparison(b->op) || b->op == BinaryOp::And || b->op == BinaryOp::Or)
        return scalar_type(DataType::BOOL);
      auto l = expr_type(b->lhs);
      if (l && l->is<ScalarType>()) {
        if (b->lhs->is<IntImm>() && !b->lhs->as<IntImm>()->dtype)
          if (auto r = expr_type(b->rhs); r && r->is<ScalarType>()) return r;  // `2 * n` takes n's type
        return l;
      }
      return expr_type(b->rhs);
    }
    case ExprKind::Unary: {
      const auto* u = e->as<UnaryExpr>();
      return u->op == UnaryOp::Not ? scalar_type(DataType::BOOL) : expr_type(u->operand);
    }
    default: return nullptr;
  }
}

/// The type of an if-phi whose arms yield `then_value` / `else_value`: the
/// then value's when it is a variable, else the else value's, else whatever
/// the values' types are.
[[nodiscard]] inline TypePtr phi_type(const ExprPtr& then_value, const ExprPtr& else_value) {
  if (auto v = as_var(then_value)) return v->type;
  if (auto v = as_var(else_value)) return v->type;
  if (auto t = expr_type(then_value)) return t;
  return expr_type(else_value);
}

}  // namespace pto_mem::pypto
