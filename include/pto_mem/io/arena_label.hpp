// The names reports use for arenas: keys of JSON objects, SVG titles and
// table rows, so they must be unique and never empty.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// labels[k] names problem.arenas[k]: its name, or "arena<id>" when it has
/// none; a label shared by several arenas gets "#<id>" appended.
[[nodiscard]] PTO_MEM_IO_INLINE std::vector<std::string> arena_labels(const Problem& p);
#if PTO_MEM_IO_DEFINE
PTO_MEM_IO_INLINE std::vector<std::string> arena_labels(const Problem& p) {
  std::vector<std::string> labels;
  std::map<std::string, int> uses;
  for (const auto& a : p.arenas) {
    labels.push_back(a.name.empty() ? "arena" + std::to_string(a.id) : a.name);
    ++uses[labels.back()];
  }
  for (std::size_t k = 0; k < labels.size(); ++k)
    if (uses[labels[k]] > 1) {
      // append() rather than `+= "#" + ...`: g++ 12 -O2 warns falsely (-Wrestrict) on the latter.
      labels[k].append(1, '#').append(std::to_string(p.arenas[k].id));
    }
  return labels;
}
#endif

}  // namespace pto_mem
