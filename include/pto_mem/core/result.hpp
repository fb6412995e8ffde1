// What a planner returns. The status tells the truth about what was proved.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/search_control.hpp"

namespace pto_mem {

enum class Status {
  optimal,         ///< a placement whose objective is proved minimal
  feasible,        ///< a valid placement; optimality not proved
  no_fit,          ///< a bounded search found no placement: NOT a proof that none exists
  infeasible,      ///< a complete search proved that no placement fits
  invalid_input,   ///< the problem is malformed: the diagnostics name what to fix
  unsupported,     ///< well formed, but the chosen strategy cannot take it (the diagnostics say which can)
  internal_error,  ///< a planner bug caught by the validator; please report the problem
};

/// True for the three statuses that carry no answer about the problem's fit.
[[nodiscard]] constexpr bool is_error(Status s) noexcept {
  return s == Status::invalid_input || s == Status::unsupported || s == Status::internal_error;
}

[[nodiscard]] inline const char* to_string(Status s) noexcept {
  switch (s) {
    case Status::optimal: return "optimal";
    case Status::feasible: return "feasible";
    case Status::no_fit: return "no_fit";
    case Status::infeasible: return "infeasible";
    case Status::invalid_input: return "invalid_input";
    case Status::unsupported: return "unsupported";
    case Status::internal_error: return "internal_error";
  }
  return "internal_error";
}

[[nodiscard]] inline std::optional<Status> status_from_string(const std::string& s) noexcept {
  for (Status v : {Status::optimal, Status::feasible, Status::no_fit, Status::infeasible,
                   Status::invalid_input, Status::unsupported, Status::internal_error})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

/// Which terms of the lexicographic objective (a fit, then the least
/// penalty, then the least peak per arena) the run proved for its placement,
/// whatever goal it was asked: a search that settled the penalty says so
/// even when it was not asked to minimise the peak.
struct ProvedTerms {
  /// No placement pays less penalty weight than this one does.
  bool penalty = false;
  /// Every arena's peak equals its proved bound (PlanResult::lower_bound):
  /// no placement has a lower one.
  bool peak = false;
  /// A proved lower bound on the penalty of any placement (the placement's
  /// own penalty when `penalty` is proved; 0 when nothing better is known).
  Weight penalty_bound = 0;
};

struct PlanResult {
  Status status = Status::invalid_input;
  std::string strategy;
  std::optional<Placement> placement;  ///< present for optimal/feasible (and best-so-far when useful)
  Objective objective;
  Statistics statistics;
  /// Two bounds, per arena (aligned with problem.arenas); no placement's peak is below either.
  /// max_load_bound: the sweep's max(reserved end, max load + reserved bytes), known before any search.
  std::vector<Addr> max_load_bound;
  /// The proved bound: at least max_load_bound, raised by what a complete search proved (exact, portfolio).
  /// The objective is lexicographic, so a search's bound holds for the placements of least penalty
  /// (a placement that pays more penalty may have a lower peak); max_load_bound holds for every one.
  std::vector<Addr> lower_bound;
  Diagnostics diagnostics;
  double time_s = 0.0;
  /// What ended the search: ran to its end, a budget (nodes or time), or the
  /// caller's stop. A `feasible` answer cut by a budget or a stop is the best
  /// placement found by then; a `no_fit` one says which budget to raise.
  StopReason stopped_by = StopReason::completed;
  /// What is proved about the placement (all false without one). `optimal`
  /// means both `penalty` and `peak`.
  ProvedTerms proved;

  [[nodiscard]] bool fits() const noexcept { return status == Status::optimal || status == Status::feasible; }
};

}  // namespace pto_mem
