// What the problem readers return and the writers take: a problem and, when
// the file carries offsets, a placement. A reader returns either a complete,
// well-formed problem or the diagnostics that explain why not, never half.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

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

/// A capacity every placement fits into, for files that give none (the tool
/// then minimises the peak): the highest reserved end plus, per buffer, its
/// size rounded up to its alignment plus one alignment of slack (saturating).
/// The same rule make_problem applies to policies without a capacity.
[[nodiscard]] inline Addr always_fitting_capacity(const Problem& p, std::int64_t arena_id) {
  Addr cap = 0;
  for (const auto& a : p.arenas)
    if (a.id == arena_id)
      for (const auto& r : a.reserved) cap = std::max(cap, r.end);
  for (const auto& b : p.buffers) {
    if (b.arena != arena_id) continue;
    const Addr align = std::max<Addr>(b.alignment, 1);
    cap = saturating_add(saturating_add(cap, align_up(b.size, align).value_or(max_addr)), align);
  }
  return std::max<Addr>(cap, 1);
}

/// Attributes diagnostics without a location (the validator names buffers,
/// not lines) to `file`, so that every message says which file it is about.
inline void attribute_to_file(Diagnostics& ds, const std::string& file) {
  for (auto& d : ds)
    if (!d.location && !file.empty()) d.location = SourceLocation{file, 0, 0};
}

}  // namespace pto_mem
