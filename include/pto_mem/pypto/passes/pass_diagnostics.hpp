// How a tile-memory pass reports: a diagnostic with a stable code, located at
// the statement or variable it is about (file from the Program, line:column
// from the IR node), recorded in the PassContext.
#pragma once

#include <string>

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"

namespace pto_mem::pypto {

/// Adds a diagnostic of `severity` at `loc` (unknown locations keep just the file).
inline void report(PassContext& ctx, const Program& program, Loc loc, Severity severity, std::string code,
                   std::string message) {
  Diagnostic d{severity, std::move(code), std::move(message), std::nullopt};
  if (loc.known() || !program.file.empty()) d.location = to_source_location(program.file, loc);
  ctx.diagnostics.push_back(std::move(d));
}

inline void report_error(PassContext& ctx, const Program& program, Loc loc, std::string code,
                         std::string message) {
  report(ctx, program, loc, Severity::error, std::move(code), std::move(message));
}

inline void report_warning(PassContext& ctx, const Program& program, Loc loc, std::string code,
                           std::string message) {
  report(ctx, program, loc, Severity::warning, std::move(code), std::move(message));
}

/// `'name'` as diagnostics quote names.
[[nodiscard]] inline std::string in_quotes(const std::string& name) { return "'" + name + "'"; }

}  // namespace pto_mem::pypto
