// What a planner returns. The status tells the truth about what was proved.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"

namespace pto_mem {

enum class Status {
  optimal,     ///< a placement whose objective is proved minimal
  feasible,    ///< a valid placement; optimality not proved
  no_fit,      ///< a bounded search found no placement: NOT a proof that none exists
  infeasible,  ///< a complete search proved that no placement fits
  invalid,     ///< the problem is malformed (see diagnostics)
};

[[nodiscard]] inline const char* to_string(Status s) noexcept {
  switch (s) {
    case Status::optimal: return "optimal";
    case Status::feasible: return "feasible";
    case Status::no_fit: return "no_fit";
    case Status::infeasible: return "infeasible";
    case Status::invalid: return "invalid";
  }
  return "invalid";
}

[[nodiscard]] inline std::optional<Status> status_from_string(const std::string& s) noexcept {
  for (Status v : {Status::optimal, Status::feasible, Status::no_fit, Status::infeasible, Status::invalid})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

struct PlanResult {
  Status status = Status::invalid;
  std::string strategy;
  std::optional<Placement> placement;  ///< present for optimal/feasible (and best-so-far when useful)
  Objective objective;
  Statistics statistics;
  std::vector<Addr> lower_bound;       ///< per arena, aligned with problem.arenas
  Diagnostics diagnostics;
  double time_s = 0.0;

  [[nodiscard]] bool fits() const noexcept {
    return status == Status::optimal || status == Status::feasible;
  }
};

}  // namespace pto_mem
