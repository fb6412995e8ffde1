// The JSON report of a plan: status, strategy, what stopped the search,
// which objective terms are proved, placement, objective, lower bounds,
// statistics, diagnostics and time, keys always in this order so that two
// reports diff cleanly. See docs/formats.md.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/core/result.hpp"
#include "pto_mem/io/arena_label.hpp"
#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/json_text.hpp"

namespace pto_mem {

/// The report document. Arenas are keyed by arena_labels(); placement
/// entries follow problem.buffers (offset null for an unplaced buffer).
[[nodiscard]] PTO_MEM_IO_INLINE nlohmann::ordered_json report_json(const Problem& p, const PlanResult& r);

/// report_json as text.
[[nodiscard]] PTO_MEM_IO_INLINE std::string report_text(const Problem& p, const PlanResult& r);

/// Writes the report to `path` atomically; returns the errors (empty on success).
[[nodiscard]] PTO_MEM_IO_INLINE Diagnostics write_report_file(const std::filesystem::path& path,
                                                              const Problem& p, const PlanResult& r);

#if PTO_MEM_IO_DEFINE
PTO_MEM_IO_INLINE nlohmann::ordered_json report_json(const Problem& p, const PlanResult& r) {
  using oj = nlohmann::ordered_json;
  const auto labels = arena_labels(p);
  oj doc = oj::object();
  doc["status"] = to_string(r.status);
  doc["strategy"] = r.strategy;
  doc["stopped_by"] = std::string(to_string(r.stopped_by));
  doc["proved"] =
      oj{{"penalty", r.proved.penalty}, {"peak", r.proved.peak}, {"penalty_bound", r.proved.penalty_bound}};
  oj placement = oj::array();
  if (r.placement) {
    const bool arenas = detail::writes_chosen_arenas(p, *r.placement);
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
      const auto& off = i < r.placement->offsets.size() ? r.placement->offsets[i] : std::nullopt;
      oj e{{"id", detail::json_buffer(p, static_cast<BufferId>(i))},
           {"offset", off ? oj(*off) : oj(nullptr)}};
      if (arenas) e["arena"] = r.placement->arenas[i];
      placement.push_back(std::move(e));
    }
  }
  doc["placement"] = std::move(placement);

  oj peaks = oj::object();
  for (std::size_t k = 0; k < labels.size() && k < r.objective.peak_by_arena.size(); ++k)
    peaks[labels[k]] = r.objective.peak_by_arena[k];
  // spill (how far down their candidate lists buffers went) only when some
  // buffer has a choice: reports of other problems keep their keys.
  const bool choice = std::any_of(p.buffers.begin(), p.buffers.end(),
                                  [](const BufferSpec& b) { return b.candidate_arenas.size() > 1; });
  oj objective = oj::object();
  if (choice) objective["spill"] = r.objective.spill;
  objective["penalty"] = r.objective.penalty;
  objective["total_peak"] = r.objective.total_peak;
  objective["max_peak"] = r.objective.max_peak;
  objective["peak_by_arena"] = std::move(peaks);
  doc["objective"] = std::move(objective);

  // Two bounds under two names: the max-load sweep's, and the one proved
  // (at least the max-load bound; a complete search may raise it).
  auto per_arena = [&](const std::vector<Addr>& v) {
    oj bounds = oj::object();
    for (std::size_t k = 0; k < labels.size() && k < v.size(); ++k) bounds[labels[k]] = v[k];
    return bounds;
  };
  doc["max_load_bound"] = per_arena(r.max_load_bound);
  doc["proved_bound"] = per_arena(r.lower_bound);

  const auto& s = r.statistics;
  oj stats = oj{{"candidates_evaluated", s.candidates_evaluated},
                {"orders_evaluated", s.orders_evaluated},
                {"selected_order", s.selected_order},
                {"first_fit_feasible", s.first_fit_feasible},
                {"selected_first_fit", s.selected_first_fit}};
  for (const auto& [key, value] : s.extra) stats[key] = value;
  doc["statistics"] = std::move(stats);

  oj diags = oj::array();
  for (const auto& d : r.diagnostics) {
    oj j{{"severity", to_string(d.severity)}, {"message", d.message}};
    if (!d.code.empty()) j["code"] = d.code;
    if (d.location) {
      const auto& l = *d.location;
      j["location"] = oj{{"file", l.file}, {"line", l.line}, {"column", l.column}};
    }
    diags.push_back(std::move(j));
  }
  doc["diagnostics"] = std::move(diags);
  doc["time_s"] = r.time_s;
  return doc;
}

PTO_MEM_IO_INLINE std::string report_text(const Problem& p, const PlanResult& r) {
  return json_text(report_json(p, r));
}

PTO_MEM_IO_INLINE Diagnostics write_report_file(const std::filesystem::path& path, const Problem& p,
                                                const PlanResult& r) {
  if (auto bad = write_file_atomically(path, report_text(p, r))) return {*bad};
  return {};
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
