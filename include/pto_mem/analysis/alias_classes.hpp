// Alias classes: which buffers are one allocation. Must-alias group members
// and the bindings of a declared allocation (with the declaration itself) are
// unioned with Boost's disjoint sets. Unknown buffer names are skipped here;
// the validator reports them.
//
// Declared here (PTO_MEM_PLAN_INLINE, core/compiled_mode.hpp); defined in
// alias_classes_impl.hpp, included here unless PTO_MEM_COMPILED is defined
// (then compiled once in pto_mem::compiled, src/planner.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

struct AliasClasses {
  /// class_of[i]: a class number in [0, count); buffers of one class share
  /// storage. Numbered by first member in problem order (deterministic).
  std::vector<std::size_t> class_of;
  std::size_t count = 0;
  /// True for buffers that belong to a class with more than one member.
  std::vector<bool> grouped;
};

[[nodiscard]] PTO_MEM_PLAN_INLINE AliasClasses alias_classes(const Problem& p, const ProblemIndex& index);

[[nodiscard]] PTO_MEM_PLAN_INLINE AliasClasses alias_classes(const Problem& p);

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/analysis/alias_classes_impl.hpp"
#endif
