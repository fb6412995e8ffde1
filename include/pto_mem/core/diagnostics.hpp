// Diagnostics: what went wrong, where, and (in the message) what to change.
// User data errors are returned as diagnostics, never thrown.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto_mem {

enum class Severity { error, warning, note, hint };

[[nodiscard]] inline const char* to_string(Severity s) noexcept {
  switch (s) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::note: return "note";
    case Severity::hint: return "hint";
  }
  return "error";
}

/// A position in an input file; line and column count from 1 (0 = unknown).
struct SourceLocation {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
};

struct Diagnostic {
  Severity severity = Severity::error;
  std::string code;  ///< stable machine-readable code, e.g. "PH-DSA-001"; may be empty
  std::string message;
  std::optional<SourceLocation> location;
};

using Diagnostics = std::vector<Diagnostic>;

[[nodiscard]] inline Diagnostic error(std::string message, std::string code = {}) {
  return Diagnostic{Severity::error, std::move(code), std::move(message), std::nullopt};
}
[[nodiscard]] inline Diagnostic warning(std::string message, std::string code = {}) {
  return Diagnostic{Severity::warning, std::move(code), std::move(message), std::nullopt};
}

[[nodiscard]] inline Diagnostic note(std::string message, std::string code = {}) {
  return Diagnostic{Severity::note, std::move(code), std::move(message), std::nullopt};
}

[[nodiscard]] inline bool has_errors(const Diagnostics& ds) noexcept {
  return std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.severity == Severity::error; });
}

/// `file:line:column: error: message`, the form compilers print.
[[nodiscard]] inline std::string format(const Diagnostic& d) {
  std::string out;
  if (d.location) {
    const auto& l = *d.location;
    if (!l.file.empty()) out += l.file + ":";
    if (l.line != 0) {
      out += std::to_string(l.line) + ":";
      if (l.column != 0) out += std::to_string(l.column) + ":";
    }
    if (!out.empty()) out += " ";
  }
  out += to_string(d.severity);
  out += ": ";
  out += d.message;
  if (!d.code.empty()) out += " [" + d.code + "]";
  return out;
}

}  // namespace pto_mem
