// Positions in the text a node was parsed from. Nodes keep only line and
// column; the file name lives once on the Program.
#pragma once

#include <cstdint>
#include <string>

#include "pto_mem/core/diagnostics.hpp"

namespace pto_mem::pypto {

/// Line and column count from 1; 0 means unknown (a node built in C++).
struct Loc {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  [[nodiscard]] constexpr bool known() const noexcept { return line != 0; }
  friend constexpr bool operator==(const Loc&, const Loc&) = default;
};

[[nodiscard]] inline SourceLocation to_source_location(const std::string& file, Loc loc) {
  return SourceLocation{file, loc.line, loc.column};
}

/// An error diagnostic at `loc` of `file`.
[[nodiscard]] inline Diagnostic error_at(const std::string& file, Loc loc, std::string message) {
  Diagnostic d = error(std::move(message));
  if (loc.known() || !file.empty()) d.location = to_source_location(file, loc);
  return d;
}

}  // namespace pto_mem::pypto
