// Variables: SSA values, loop variables, iter-args, if-phis, parameters and
// allocation bases (`Ptr` variables defined by tile.alloc).
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "pto_mem/pypto/ir/fwd.hpp"
#include "pto_mem/pypto/ir/location.hpp"
#include "pto_mem/pypto/ir/node.hpp"

namespace pto_mem::pypto {

/// A variable is identified by its address, not its name: two loops may both
/// call their counter `i`, and two MemRefs are on the same allocation exactly
/// when their `base` pointers are equal.
///
/// `type` is deliberately mutable: a memory pass that infers a space or binds
/// a MemRef refines the variable's type in place, and every use sees it. A pass
/// that must keep its input intact works on `clone(function)` (clone.hpp).
struct Var {
  std::string name;
  TypePtr type;  ///< null only while a parser or builder is still deducing it
  Loc loc;       ///< where the variable is defined
};

[[nodiscard]] inline VarPtr make_var(std::string name, TypePtr type, Loc loc = {}) {
  return make_node<Var>(Var{std::move(name), std::move(type), loc});
}

}  // namespace pto_mem::pypto
