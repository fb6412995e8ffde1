// MemoryReuse (specs/pypto/SPEC.md). PLACEHOLDER: the pass is being written; until
// then it reports that it is not implemented and leaves the program as is.
#pragma once

#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"

namespace pto_mem::pypto {

[[nodiscard]] inline Program memory_reuse(const Program& program, PassContext& ctx) {
  ctx.diagnostics.push_back(error("MemoryReuse is not implemented yet", "not-implemented"));
  return program;
}

}  // namespace pto_mem::pypto
