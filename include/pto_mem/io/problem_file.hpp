// What the problem readers return and the writers take: a problem and, when
// the file carries offsets, a placement. A reader returns either a complete,
// well-formed problem or the diagnostics that explain why not, never half.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

struct ProblemFile {
  Problem problem;
  std::optional<Placement> placement;  ///< present when the file carries offsets
  /// Per arena (aligned with problem.arenas): the file gave no capacity, so
  /// the reader set always_fitting_capacity. Nothing to check against then.
  std::vector<bool> no_capacity;
};

struct ReadResult {
  std::optional<ProblemFile> file;  ///< present exactly when there is no error
  Diagnostics diagnostics;
  explicit operator bool() const noexcept { return file.has_value(); }
};

/// A writer's output text, or the reasons the format cannot hold the input.
struct TextResult {
  std::optional<std::string> text;
  Diagnostics diagnostics;
  explicit operator bool() const noexcept { return text.has_value(); }
};

// always_fitting_capacity (a capacity every placement fits into, for files
// that give none) lives in core/problem.hpp: plan() reads it too.

/// Attributes diagnostics without a location (the validator names buffers,
/// not lines) to `file`, so that every message says which file it is about.
PTO_MEM_IO_INLINE void attribute_to_file(Diagnostics& ds, const std::string& file);
#if PTO_MEM_IO_DEFINE
PTO_MEM_IO_INLINE void attribute_to_file(Diagnostics& ds, const std::string& file) {
  for (auto& d : ds)
    if (!d.location && !file.empty()) d.location = SourceLocation{file, 0, 0};
}
#endif

}  // namespace pto_mem
