// What every tile-memory pass shares: the SoC, the planner mode, the op
// registry, and where diagnostics and inserted moves are recorded.
//
// Each pass is a function `Program pass(const Program&, PassContext&)`. A pass
// reports user errors (PyPTO ValueError) and broken invariants (InternalError)
// as error diagnostics with the location of the offending statement or
// variable and returns the program unchanged from that point; the pipeline
// stops after a pass that added an error.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/soc/policies.hpp"

namespace pto_mem::pypto {

/// AllocateMemoryAddr's planner.
enum class Planner { pypto, dsa_rp, ptoas };

[[nodiscard]] constexpr std::string_view to_string(Planner p) noexcept {
  switch (p) {
    case Planner::pypto: return "pypto";
    case Planner::dsa_rp: return "dsa_rp";
    case Planner::ptoas: return "ptoas";
  }
  return "pypto";
}

struct PassContext {
  const SocPolicy* soc = nullptr;  ///< never null while a pass runs
  Planner planner = Planner::pypto;
  const OpRegistry* ops = nullptr;  ///< never null while a pass runs
  Diagnostics diagnostics;          ///< errors, warnings, hints (with codes) of every pass
  std::vector<InsertedMove> moves;  ///< every tile.move a pass inserted, in insertion order
  /// The default storage legalisation ("Buffer IR"):
  /// loop-input isolation, explicit branch destinations and parallel
  /// transfers in MaterializeSemanticAliases under every planner. false: the
  /// legacy path (YieldFixup per planner).
  bool buffer_ir = true;
  /// Logical tile selection (opt-in, Buffer IR only, PYPTO and DSA_RP
  /// planners; docs/passes.md): where a branch exit would copy one of two
  /// compatible compiler-owned values into its phi's window, the two values
  /// take the two slots of one allocation instead, the if yields the slot
  /// index, and the phi's window is `slot * slot_bytes` into it. A sync pass
  /// must then put a barrier at the if's exit (note `logical-tile-selection`).
  bool logical_tile_selection = false;

  /// The FunctionIndex of the function being worked on (function_index.hpp),
  /// shared by the steps of a pass until one rewrites its statements.
  mutable passes::FunctionIndexCache indexes;

  [[nodiscard]] bool failed() const noexcept { return has_errors(diagnostics); }
};

/// The alignment of every allocation in `space`: the SoC's (at least one
/// byte), or 32 bytes, PyPTO's default, when the pass runs without an SoC.
[[nodiscard]] inline Addr space_alignment(const PassContext& ctx, MemorySpace space) noexcept {
  return ctx.soc ? std::max<Addr>(ctx.soc->alignment(space), 1) : 32;
}

}  // namespace pto_mem::pypto
