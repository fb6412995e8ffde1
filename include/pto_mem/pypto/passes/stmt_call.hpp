// The call a statement evaluates: the value of an assignment or of an
// expression statement (the places where op contracts apply).
#pragma once

#include <string>
#include <string_view>

#include "pto_mem/pypto/ir/stmt.hpp"

namespace pto_mem::pypto {

/// The call of `var = op(...)` or `op(...)`, else null.
[[nodiscard]] inline const Call* stmt_call(const Stmt& s) noexcept {
  if (const auto* a = s.as<AssignStmt>()) return a->value ? a->value->as<Call>() : nullptr;
  if (const auto* e = s.as<EvalStmt>()) return e->value ? e->value->as<Call>() : nullptr;
  return nullptr;
}

[[nodiscard]] inline bool starts_with(std::string_view s, std::string_view prefix) noexcept {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace pto_mem::pypto
