// How a searching planner is steered: what it aims at (Goal), when it must
// stop (a deadline from a budget in seconds), why it stopped (StopReason) and
// what it tells a caller while it runs (SearchProgress). Shared by the front
// door (PlanOptions) and the searches (PortfolioOptions, ExactOptions).
#pragma once

#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string_view>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

enum class Goal {
  fit,       ///< a placement under every capacity, with the least penalty; the peak is not minimised
  minimise,  ///< then drive each arena's peak down to its lower bound
};
using ExactMode = Goal;

/// What ended a search. Strategies that do not search (sequential, reuse,
/// and a greedy that ran every pass) end `completed`.
enum class StopReason {
  completed,    ///< the strategy ran to its end: nothing was cut short
  node_limit,   ///< the node budget ran out (deterministic)
  deadline,     ///< the wall-clock budget ran out
  interrupted,  ///< the caller asked it to stop (a stop token: Ctrl-C, another thread)
};

[[nodiscard]] constexpr std::string_view to_string(StopReason s) noexcept {
  switch (s) {
    case StopReason::completed: return "completed";
    case StopReason::node_limit: return "node_limit";
    case StopReason::deadline: return "deadline";
    case StopReason::interrupted: return "interrupted";
  }
  return "completed";
}

[[nodiscard]] constexpr std::optional<StopReason> stop_reason_from_string(std::string_view s) noexcept {
  for (StopReason v :
       {StopReason::completed, StopReason::node_limit, StopReason::deadline, StopReason::interrupted})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

/// Budgets of this many seconds or more (about 31 years), and infinite ones,
/// mean "no deadline": converting them to clock ticks would overflow into a
/// deadline in the past.
inline constexpr double unlimited_seconds = 1e9;

/// The deadline `seconds` after `start`; time_point::max() when `seconds` is
/// not a positive number below unlimited_seconds (0, negative, NaN, inf: no
/// deadline). Every strategy turns its time budget into a deadline here.
template <class Clock = std::chrono::steady_clock>
[[nodiscard]] typename Clock::time_point deadline_after(typename Clock::time_point start,
                                                        double seconds) noexcept {
  if (!(seconds > 0) || !(seconds < unlimited_seconds)) return Clock::time_point::max();
  return start + std::chrono::duration_cast<typename Clock::duration>(std::chrono::duration<double>(seconds));
}

/// True when `seconds` asks for a deadline at all (see deadline_after).
[[nodiscard]] inline bool has_deadline(double seconds) noexcept {
  return seconds > 0 && seconds < unlimited_seconds;
}

/// A snapshot of a running search, summed over the arenas.
struct SearchProgress {
  Addr best_peak = 0;       ///< total peak of the best placement so far (0: none yet)
  Weight best_penalty = 0;  ///< activated penalty weight of that placement
  Addr proved_bound = 0;    ///< total of the per-arena bounds proved so far (no peak can be lower)
  double elapsed_s = 0;     ///< since the search started
  /// (best_peak - proved_bound) / proved_bound; 0 when there is no placement
  /// yet or the bound is 0.
  [[nodiscard]] double gap() const noexcept {
    if (best_peak == 0 || proved_bound == 0 || best_peak <= proved_bound) return 0.0;
    return static_cast<double>(best_peak - proved_bound) / static_cast<double>(proved_bound);
  }
};

/// Called on the caller's thread whenever the best placement or the proved
/// bound improves; it must return quickly (a search waits for it).
using ProgressCallback = std::function<void(const SearchProgress&)>;

}  // namespace pto_mem
