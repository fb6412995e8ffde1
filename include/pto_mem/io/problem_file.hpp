// What the problem readers return and the writers take: a problem and, when
// the file carries offsets, a placement. A reader returns either a complete,
// well-formed problem or the diagnostics that explain why not, never half.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/io/id_text.hpp"

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

/// Two buffers whose labels (buffer_label) are equal, or nullopt when every
/// label is unique. Files name each buffer by its label, so a problem built
/// in code with a repeated name (or a name equal to an unnamed buffer's
/// index) cannot be written. One sort of the labels' hashes: a million
/// buffers cost a few tens of milliseconds where a hash map of every label
/// costs a second (its nodes miss the cache).
[[nodiscard]] PTO_MEM_IO_INLINE std::optional<std::pair<BufferId, BufferId>> repeated_label(const Problem& p);

/// What a writer says when it refuses repeated_label's pair.
[[nodiscard]] PTO_MEM_IO_INLINE std::string repeated_label_message(const Problem& p,
                                                                   std::pair<BufferId, BufferId> twice);

/// The capacity a reader gives arena `arena_id` when the file gives none:
/// always_fitting_capacity (which counts every buffer that may be placed
/// there and covers every pin in it).
[[nodiscard]] PTO_MEM_IO_INLINE Addr reader_capacity(const Problem& p, std::int64_t arena_id);

/// Attributes diagnostics without a location (the validator names buffers,
/// not lines) to `file`, so that every message says which file it is about.
PTO_MEM_IO_INLINE void attribute_to_file(Diagnostics& ds, const std::string& file);
#if PTO_MEM_IO_DEFINE
PTO_MEM_IO_INLINE std::optional<std::pair<BufferId, BufferId>> repeated_label(const Problem& p) {
  const auto& bs = p.buffers;
  // The label of buffer i without a copy: its name, or its index written into `buf`.
  auto label = [&](std::size_t i, std::array<char, 24>& buf) -> std::string_view {
    if (!bs[i].name.empty()) return bs[i].name;
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), i).ptr;
    return {buf.data(), static_cast<std::size_t>(end - buf.data())};
  };
  std::array<char, 24> bx{}, by{};
  std::vector<std::pair<std::size_t, BufferId>> keys(bs.size());  // (hash of the label, buffer)
  for (std::size_t i = 0; i < bs.size(); ++i)
    keys[i] = {std::hash<std::string_view>{}(label(i, bx)), static_cast<BufferId>(i)};
  std::sort(keys.begin(), keys.end());
  for (std::size_t k = 0; k < keys.size();) {
    std::size_t run = k + 1;
    while (run < keys.size() && keys[run].first == keys[k].first) ++run;
    for (std::size_t x = k; x < run; ++x)  // equal hashes: compare the labels themselves
      for (std::size_t y = x + 1; y < run; ++y)
        if (label(keys[x].second, bx) == label(keys[y].second, by))
          return std::pair{keys[x].second, keys[y].second};
    k = run;
  }
  return std::nullopt;
}

PTO_MEM_IO_INLINE std::string repeated_label_message(const Problem& p, std::pair<BufferId, BufferId> twice) {
  const auto [a, b] = std::minmax(twice.first, twice.second);
  return "buffers " + std::to_string(a) + " and " + std::to_string(b) + " are both called '" +
         printable(buffer_label(p, a), 40) +
         "' (a buffer without a name is called by its index); a file names each buffer once: give them "
         "distinct names";
}

PTO_MEM_IO_INLINE Addr reader_capacity(const Problem& p, std::int64_t arena_id) {
  return always_fitting_capacity(p, arena_id);
}

PTO_MEM_IO_INLINE void attribute_to_file(Diagnostics& ds, const std::string& file) {
  for (auto& d : ds)
    if (!d.location && !file.empty()) d.location = SourceLocation{file, 0, 0};
}
#endif

}  // namespace pto_mem
