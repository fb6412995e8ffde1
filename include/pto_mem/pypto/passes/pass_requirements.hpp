// What a memory pass needs of its input when it is run on its own (`pto-mem
// compile --passes init,...`, or CompileOptions::passes), as PyPTO's pass
// tests run one pass on a prepared program: InitMemRef needs every kernel
// tile's memory space (TileMemoryInferred), the passes after it need every
// tile's MemRef (HasMemRefs). The check re-uses the property verifiers and
// reports the first violation, with the pass that would establish it.
#pragma once

#include <string>
#include <string_view>

#include "pto_mem/pypto/passes/infer_tile_memory_space.hpp"
#include "pto_mem/pypto/passes/init_memref.hpp"

namespace pto_mem::pypto::passes {

enum class Property { TileMemoryInferred, HasMemRefs };

[[nodiscard]] constexpr std::string_view to_string(Property p) noexcept {
  return p == Property::TileMemoryInferred ? "TileMemoryInferred" : "HasMemRefs";
}

/// Whether `program` has property `p`; when not, one error naming `pass`, the
/// property, the first offending place and the pass that establishes it.
inline bool require(Property p, std::string_view pass, const Program& program, PassContext& ctx) {
  PassContext probe;
  probe.soc = ctx.soc;
  probe.planner = ctx.planner;
  probe.ops = ctx.ops;
  const bool ok = p == Property::TileMemoryInferred ? verify_tile_memory_inferred(program, probe)
                                                    : verify_has_memrefs(program, probe);
  if (ok) return true;
  Diagnostic d;
  for (const auto& x : probe.diagnostics)
    if (x.severity == Severity::error) {
      d = x;
      break;
    }
  d.severity = Severity::error;
  d.code = "missing-property";
  d.message = std::string(pass) + " needs its input to have the property " + std::string(to_string(p)) +
              ", which is missing: " + d.message + " (run " +
              (p == Property::TileMemoryInferred ? "InferTileMemorySpace first: --passes infer,..."
                                                 : "InitMemRef first: --passes init,...") +
              ")";
  ctx.diagnostics.push_back(std::move(d));
  return false;
}

}  // namespace pto_mem::pypto::passes
