// Functions and programs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/pypto/ir/stmt.hpp"
#include "pto_mem/pypto/ir/types.hpp"

namespace pto_mem::pypto {

enum class FunctionKind : std::uint8_t { InCore, AIC, AIV, Orchestration, Opaque };

[[nodiscard]] constexpr std::string_view to_string(FunctionKind k) noexcept {
  switch (k) {
    case FunctionKind::InCore: return "InCore";
    case FunctionKind::AIC: return "AIC";
    case FunctionKind::AIV: return "AIV";
    case FunctionKind::Orchestration: return "Orchestration";
    case FunctionKind::Opaque: return "Opaque";
  }
  return "Opaque";
}

[[nodiscard]] constexpr std::optional<FunctionKind> parse_function_kind(std::string_view s) noexcept {
  for (auto k : {FunctionKind::InCore, FunctionKind::AIC, FunctionKind::AIV, FunctionKind::Orchestration,
                 FunctionKind::Opaque})
    if (to_string(k) == s) return k;
  return std::nullopt;
}

/// InCore, AIC and AIV: the kinds whose tiles get on-chip addresses.
[[nodiscard]] constexpr bool is_kernel(FunctionKind k) noexcept {
  return k == FunctionKind::InCore || k == FunctionKind::AIC || k == FunctionKind::AIV;
}

enum class ParamDirection : std::uint8_t { In, Out, InOut };

[[nodiscard]] constexpr std::string_view to_string(ParamDirection d) noexcept {
  return d == ParamDirection::In ? "In" : d == ParamDirection::Out ? "Out" : "InOut";
}

struct Param {
  VarPtr var;
  ParamDirection direction = ParamDirection::In;
};

/// A function; a value type (copying shares the body, which is immutable).
/// The text format's default kind is InCore (deliberately
/// unlike PyPTO's Opaque).
struct Function {
  std::string name;
  FunctionKind kind = FunctionKind::InCore;
  std::vector<Param> params;
  std::vector<TypePtr> return_types;  ///< empty: no `->`; 2+: printed `tuple[...]`
  StmtPtr body;                       ///< usually a SeqStmts
  Loc loc;
  std::vector<Kwarg> attrs;  ///< other `@function(...)` keyword arguments, kept verbatim
};

/// A program: functions in source order. `name` is the `@program class Name:`
/// wrapper's name (empty when the text had none); `file` is used in
/// diagnostics.
struct Program {
  std::string name;
  std::string file;
  std::vector<Function> functions;

  [[nodiscard]] const Function* find(std::string_view fn) const noexcept {
    for (const auto& f : functions)
      if (f.name == fn) return &f;
    return nullptr;
  }
  [[nodiscard]] Function* find(std::string_view fn) noexcept {
    for (auto& f : functions)
      if (f.name == fn) return &f;
    return nullptr;
  }
};

}  // namespace pto_mem::pypto
