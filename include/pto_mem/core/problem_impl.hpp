// The definition behind core/problem.hpp's ProblemIndex constructor.
// Included by problem.hpp in header-only mode; compiled once into
// pto_mem::compiled (src/planner.cpp) otherwise.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pto_mem/core/problem.hpp"

namespace pto_mem {

PTO_MEM_PLAN_INLINE ProblemIndex::ProblemIndex(const Problem& p) : p_(&p) {
  for (std::size_t i = 0; i < p.arenas.size(); ++i) {
    arena_.try_emplace(p.arenas[i].id, i);
    dense_arenas_ = dense_arenas_ && p.arenas[i].id == static_cast<std::int64_t>(i);
  }
}

}  // namespace pto_mem
