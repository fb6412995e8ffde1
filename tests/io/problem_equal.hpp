// Field-by-field comparison of problems for round-trip tests; the first
// difference is returned as text so a failure says what changed.
#pragma once

#include <optional>
#include <string>

#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem::test {

inline std::string first_difference(const Problem &a, const Problem &b) {
  if (a.arenas.size() != b.arenas.size()) return "arena count";
  for (std::size_t k = 0; k < a.arenas.size(); ++k) {
    const auto &x = a.arenas[k], &y = b.arenas[k];
    if (x.id != y.id || x.name != y.name || x.capacity != y.capacity || x.reserved != y.reserved)
      return "arena " + std::to_string(k);
  }
  if (a.buffers.size() != b.buffers.size()) return "buffer count";
  for (std::size_t i = 0; i < a.buffers.size(); ++i) {
    const auto &x = a.buffers[i], &y = b.buffers[i];
    // Labels, not names: a file names every buffer, so an unnamed buffer
    // reads back named by its index, which is the label it had.
    const auto id = static_cast<BufferId>(i);
    const std::string lx = buffer_label(a, id), ly = buffer_label(b, id);
    if (lx != ly || x.size != y.size || x.alignment != y.alignment || x.arena != y.arena ||
        x.lifetime != y.lifetime)
      return "buffer " + std::to_string(i) + " (" + lx + " vs " + ly + ")";
    if (x.live != y.live) return "live intervals of buffer " + std::to_string(i);
    if (x.candidate_arenas != y.candidate_arenas) return "candidate arenas of buffer " + std::to_string(i);
    if (x.pin.has_value() != y.pin.has_value() ||
        (x.pin && (x.pin->offset != y.pin->offset || x.pin->exclusive != y.pin->exclusive)))
      return "pin of buffer " + std::to_string(i);
  }
  if (a.exclusions.size() != b.exclusions.size()) return "exclusion count";
  for (std::size_t s = 0; s < a.exclusions.size(); ++s)
    if (a.exclusions[s].a != b.exclusions[s].a || a.exclusions[s].b != b.exclusions[s].b)
      return "exclusion " + std::to_string(s);
  if (a.conflict_graph.has_value() != b.conflict_graph.has_value()) return "conflict graph presence";
  if (a.conflict_graph) {
    if (a.conflict_graph->size() != b.conflict_graph->size()) return "conflict-graph edge count";
    for (std::size_t s = 0; s < a.conflict_graph->size(); ++s)
      if ((*a.conflict_graph)[s].a != (*b.conflict_graph)[s].a ||
          (*a.conflict_graph)[s].b != (*b.conflict_graph)[s].b)
        return "conflict-graph edge " + std::to_string(s);
  }
  if (a.must_alias.size() != b.must_alias.size()) return "must-alias count";
  for (std::size_t g = 0; g < a.must_alias.size(); ++g) {
    const auto &x = a.must_alias[g].members, &y = b.must_alias[g].members;
    if (x.size() != y.size()) return "must-alias group " + std::to_string(g);
    for (std::size_t m = 0; m < x.size(); ++m)
      if (x[m].buffer != y[m].buffer || x[m].offset != y[m].offset)
        return "must-alias group " + std::to_string(g);
  }
  if (a.separations.size() != b.separations.size()) return "separation count";
  for (std::size_t s = 0; s < a.separations.size(); ++s) {
    const auto &x = a.separations[s], &y = b.separations[s];
    if (x.a != y.a || x.b != y.b || x.reasons != y.reasons) return "separation " + std::to_string(s);
  }
  if (a.penalties.size() != b.penalties.size()) return "penalty count";
  for (std::size_t s = 0; s < a.penalties.size(); ++s) {
    const auto &x = a.penalties[s], &y = b.penalties[s];
    if (x.a != y.a || x.b != y.b || x.weight != y.weight) return "penalty " + std::to_string(s);
  }
  if (a.declared.size() != b.declared.size()) return "declared count";
  for (std::size_t d = 0; d < a.declared.size(); ++d) {
    const auto &x = a.declared[d], &y = b.declared[d];
    if (x.buffer != y.buffer || x.slots != y.slots || x.slot_size != y.slot_size ||
        x.bindings.size() != y.bindings.size())
      return "declared " + std::to_string(d);
    for (std::size_t k = 0; k < x.bindings.size(); ++k)
      if (x.bindings[k].buffer != y.bindings[k].buffer || x.bindings[k].slot != y.bindings[k].slot)
        return "declared " + std::to_string(d) + " binding " + std::to_string(k);
  }
  return {};
}

}  // namespace pto_mem::test
