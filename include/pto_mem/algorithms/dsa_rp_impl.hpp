// The definition behind algorithms/dsa_rp.hpp: plan_dsa_rp(). Included by
// dsa_rp.hpp in header-only mode; compiled once into pto_mem::compiled
// (src/planner.cpp) otherwise.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp.hpp"
#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/dsa_rp/relax.hpp"

namespace pto_mem {

PTO_MEM_PLAN_INLINE DsaRpResult plan_dsa_rp(const Problem& strict, const GreedyOptions& options,
                                            const ImplicitPenalties* implicit) {
  DsaRpResult out;
  out.greedy = canonical_greedy(strict, options, implicit);
  if (is_error(out.greedy.status)) return out;
  const std::vector<BufferPair> pairs = pipeline_pairs(strict);
  out.relaxable_pairs = pairs.size();
  if (out.greedy.status == Status::no_fit && !pairs.empty()) {
    out.relaxed = relax_separations_to_penalties(strict, pairs, 1);
    Diagnostics strict_diagnostics = std::move(out.greedy.diagnostics);
    GreedyOptions relaxed_options = options;
    relaxed_options.trusted = false;  // relaxing can overflow the penalty total: validate what we built
    out.greedy = canonical_greedy(*out.relaxed, relaxed_options, implicit);
    out.greedy.statistics.set("relaxed_pipeline_pairs", static_cast<std::int64_t>(pairs.size()));
    if (!out.greedy.placement) {
      strict_diagnostics.insert(strict_diagnostics.end(), out.greedy.diagnostics.begin(),
                                out.greedy.diagnostics.end());
      out.greedy.diagnostics = std::move(strict_diagnostics);
      out.greedy.diagnostics.push_back(error("no placement found even after relaxing " +
                                                 std::to_string(pairs.size()) +
                                                 " software-pipeline separation(s) to penalties; this "
                                                 "bounded search does not prove that none exists",
                                             "DSA-NO-FIT"));
    }
  }
  if (out.greedy.placement) {
    out.overlapping_pairs = count_overlapping_pairs(strict, *out.greedy.placement, pairs);
    if (out.relaxed)
      out.greedy.statistics.set("overlapping_pipeline_pairs",
                                static_cast<std::int64_t>(out.overlapping_pairs));
    if (out.overlapping_pairs > 0)
      out.greedy.diagnostics.push_back(
          Diagnostic{Severity::hint, "PH-DSA-001",
                     "the bounded strict search could not keep every software-pipeline separation: " +
                         std::to_string(out.overlapping_pairs) + " of " + std::to_string(pairs.size()) +
                         " relaxed pair(s) reuse physical storage, so pipeline overlap may be reduced",
                     std::nullopt});
  }
  return out;
}

}  // namespace pto_mem
