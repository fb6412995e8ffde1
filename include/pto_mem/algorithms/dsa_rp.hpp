// The hard-then-relaxed DSA-RP driver. Solve with every
// separation hard; if the bounded search finds nothing and some separations
// only keep software-pipeline depth, solve once more with those pairs as unit
// penalties, and say so (PH-DSA-001) only when the placement really overlaps
// one of them.
//
// This header declares plan_dsa_rp() (PTO_MEM_PLAN_INLINE,
// core/compiled_mode.hpp); its definition is in dsa_rp_impl.hpp, included
// here unless PTO_MEM_COMPILED is defined (then it is compiled once in
// pto_mem::compiled, src/planner.cpp).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/dsa_rp/relax.hpp"
#include "pto_mem/core/compiled_mode.hpp"

namespace pto_mem {

struct DsaRpResult {
  GreedyResult greedy;                ///< the final solve
  std::optional<Problem> relaxed;     ///< the problem that was solved, when relaxation happened
  std::size_t relaxable_pairs = 0;    ///< pipeline-only pairs (N)
  std::size_t overlapping_pairs = 0;  ///< of those, pairs the placement overlaps (k)

  /// The problem the placement answers: the relaxed one if relaxation happened.
  [[nodiscard]] const Problem& solved(const Problem& strict) const { return relaxed ? *relaxed : strict; }
};

/// `implicit`: unit reuse penalties by rule over strict's buffer positions,
/// in addition to strict.penalties (see canonical_greedy); it is kept
/// through the relaxation, which only turns separations into penalties.
[[nodiscard]] PTO_MEM_PLAN_INLINE DsaRpResult plan_dsa_rp(const Problem& strict,
                                                          const GreedyOptions& options = {},
                                                          const ImplicitPenalties* implicit = nullptr);

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/algorithms/dsa_rp_impl.hpp"
#endif
