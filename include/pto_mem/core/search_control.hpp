// How a searching planner is steered: what it aims at (Goal) and what it
// tells a caller while it runs (SearchProgress). Shared by the front door
// (PlanOptions) and the searches (PortfolioOptions, ExactOptions).
#pragma once

#include <functional>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

enum class Goal {
  fit,       ///< a placement under every capacity, with the least penalty; the peak is not minimised
  minimise,  ///< then drive each arena's peak down to its lower bound
};
using ExactMode = Goal;

/// A snapshot of a running search, summed over the arenas.
struct SearchProgress {
  Addr best_peak = 0;     ///< total peak of the best placement so far (0: none yet)
  Addr proved_bound = 0;  ///< total of the per-arena bounds proved so far (no peak can be lower)
  double elapsed_s = 0;   ///< since the search started
};

/// Called on the caller's thread whenever the best placement or the proved
/// bound improves; it must return quickly (a search waits for it).
using ProgressCallback = std::function<void(const SearchProgress&)>;

}  // namespace pto_mem
