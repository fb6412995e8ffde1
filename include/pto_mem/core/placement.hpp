// A placement (an offset per buffer), its objective and planner statistics.
// A placement is only trusted after the validator has checked it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

/// offsets[i] belongs to problem.buffers[i]; nullopt = not placed.
/// arenas[i] is the arena (Arena::id) buffer i went to; empty when every
/// buffer is in its BufferSpec::arena (always so without candidate arenas).
struct Placement {
  std::vector<std::optional<Addr>> offsets;
  std::vector<std::int64_t> arenas = {};
};

/// Lexicographic objective, smaller is better: spill (the sum over buffers
/// of the position of the chosen arena among its candidates; 0 without
/// candidate arenas), then penalty, then total peak, then max peak.
/// peak_by_arena[k] belongs to problem.arenas[k].
struct Objective {
  std::uint64_t spill = 0;
  Weight penalty = 0;
  Addr total_peak = 0;
  Addr max_peak = 0;
  std::vector<Addr> peak_by_arena;

  [[nodiscard]] friend bool operator<(const Objective& a, const Objective& b) noexcept {
    if (a.spill != b.spill) return a.spill < b.spill;
    if (a.penalty != b.penalty) return a.penalty < b.penalty;
    if (a.total_peak != b.total_peak) return a.total_peak < b.total_peak;
    return a.max_peak < b.max_peak;
  }
};

/// What a planner did. The DSA-RP fields count its candidates and orders (see
/// docs/planners.md, "greedy"); other planners
/// add named counters to `extra` (kept in insertion order for stable reports).
struct Statistics {
  std::uint64_t candidates_evaluated = 0;
  std::uint64_t orders_evaluated = 0;
  std::uint64_t selected_order = 0;
  bool first_fit_feasible = false;
  bool selected_first_fit = false;
  std::vector<std::pair<std::string, std::int64_t>> extra;

  void set(const std::string& key, std::int64_t value) {
    for (auto& [k, v] : extra)
      if (k == key) {
        v = value;
        return;
      }
    extra.emplace_back(key, value);
  }
};

}  // namespace pto_mem
