// The JSON problem format: the whole model (arenas with reserved windows,
// aligned buffers, must-alias groups, separations, penalties, declared
// allocations) and optionally a placement. The reader is in
// json_problem_reader.hpp; this header adds the writer. See docs/formats.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/json_problem_reader.hpp"
#include "pto_mem/io/json_text.hpp"

namespace pto_mem {

/// The JSON document of a problem (and its placement, when given). An arena
/// whose capacity is always_fitting_capacity (what the readers and
/// make_problem give an arena without one, and what plan() reads as "no
/// capacity") is written without "capacity": that number is a planning
/// device, not the user's limit, and reading the document back gives the
/// same problem.
[[nodiscard]] PTO_MEM_IO_INLINE nlohmann::ordered_json problem_to_json(const Problem& p,
                                                                       const Placement* placement = nullptr);

/// problem_to_json as text, one buffer per line.
[[nodiscard]] PTO_MEM_IO_INLINE std::string json_problem_text(const Problem& p,
                                                              const Placement* placement = nullptr);

/// The JSON document of a file as a reader returned it: its placement, and
/// no capacity for an arena the file gave none (no_capacity). The capacity
/// the reader set there (always_fitting_capacity) is a planning device, not a
/// limit; written out, it would become one, and `validate` of the written
/// file would refuse offsets the original passed.
[[nodiscard]] PTO_MEM_IO_INLINE nlohmann::ordered_json problem_to_json(const ProblemFile& f);

[[nodiscard]] PTO_MEM_IO_INLINE std::string json_problem_text(const ProblemFile& f);

/// The names the JSON format cannot carry losslessly (io/id_text.hpp) and
/// labels that repeat (repeated_label): only a problem built in code can
/// hold them, the readers refuse them.
[[nodiscard]] PTO_MEM_IO_INLINE Diagnostics json_name_defects(const Problem& p);

/// Writes the JSON problem to `path` atomically; returns the errors (empty on
/// success): a name outside the rule of io/id_text.hpp is refused, not mangled.
[[nodiscard]] PTO_MEM_IO_INLINE Diagnostics write_json_problem_file(const std::filesystem::path& path,
                                                                    const Problem& p,
                                                                    const Placement* placement = nullptr);

/// Writes a file as a reader returned it (see problem_to_json(ProblemFile)).
[[nodiscard]] PTO_MEM_IO_INLINE Diagnostics write_json_problem_file(const std::filesystem::path& path,
                                                                    const ProblemFile& f);

#if PTO_MEM_IO_DEFINE
namespace detail {

/// Integer-looking ids are written as JSON integers, the rest as strings;
/// both read back to the same id.
inline nlohmann::ordered_json json_id(const std::string& id) {
  if (auto v = parse_integer_id(id)) return *v;
  return id;
}

/// Buffer `b` as the file names it: its label (buffer_label), as json_id.
inline nlohmann::ordered_json json_buffer(const Problem& p, BufferId b) {
  return json_id(buffer_label(p, b));
}

/// Placements name the chosen arena of each buffer when the placement
/// records them (Placement::arenas) and some buffer has several candidate
/// arenas, or the placement moved one off its arena; otherwise every buffer
/// is in its own arena and the entries stay {id, offset}.
inline bool writes_chosen_arenas(const Problem& p, const Placement& placement) {
  if (placement.arenas.size() != p.buffers.size()) return false;
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].candidate_arenas.size() > 1 || placement.arenas[i] != p.buffers[i].arena) return true;
  return false;
}

/// The document; `given[k]`: arena k's capacity is written.
inline nlohmann::ordered_json problem_document(const Problem& p, const Placement* placement,
                                               const std::vector<bool>& given) {
  using oj = nlohmann::ordered_json;
  oj doc = oj::object();
  oj arenas = oj::array();
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    const auto& a = p.arenas[k];
    oj j;
    j["id"] = a.id;
    if (!a.name.empty()) j["name"] = a.name;
    if (k >= given.size() || given[k]) j["capacity"] = a.capacity;
    if (!a.reserved.empty()) {
      oj rs = oj::array();
      for (const auto& r : a.reserved) rs.push_back({r.begin, r.end});
      j["reserved"] = std::move(rs);
    }
    arenas.push_back(std::move(j));
  }
  doc["arenas"] = std::move(arenas);
  oj buffers = oj::array();
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const auto& b = p.buffers[i];
    oj j;
    j["id"] = json_buffer(p, static_cast<BufferId>(i));
    j["size"] = b.size;
    if (b.alignment != 1) j["alignment"] = b.alignment;
    // Candidate arenas replace "arena" (the first is the arena); live
    // intervals replace "lifetime" (their hull is the lifetime).
    if (b.candidate_arenas.empty())
      j["arena"] = b.arena;
    else
      j["arenas"] = b.candidate_arenas;
    if (b.live.empty()) {
      j["lifetime"] = {b.lifetime.begin, b.lifetime.end};
    } else {
      oj live = oj::array();
      for (const auto& l : b.live) live.push_back({l.begin, l.end});
      j["live"] = std::move(live);
    }
    if (b.pin) {
      if (b.pin->exclusive)
        j["pin"] = oj{{"offset", b.pin->offset}, {"exclusive", true}};
      else
        j["pin"] = b.pin->offset;
    }
    buffers.push_back(std::move(j));
  }
  doc["buffers"] = std::move(buffers);
  if (!p.must_alias.empty()) {
    oj groups = oj::array();
    for (const auto& g : p.must_alias) {
      oj members = oj::array();
      for (const auto& m : g.members) {
        if (m.offset == 0)
          members.push_back(json_buffer(p, m.buffer));
        else
          members.push_back(oj{{"id", json_buffer(p, m.buffer)}, {"offset", m.offset}});
      }
      groups.push_back(std::move(members));
    }
    doc["must_alias"] = std::move(groups);
  }
  if (!p.separations.empty()) {
    oj seps = oj::array();
    for (const auto& s : p.separations) {
      if (s.reasons == reason_explicit) {
        seps.push_back({json_buffer(p, s.a), json_buffer(p, s.b)});
        continue;
      }
      oj reasons = oj::array();
      for (auto [name, bit] : detail::separation_reason_names)
        if (bit != reason_explicit && (s.reasons & bit) != 0) reasons.push_back(std::string(name));
      seps.push_back(
          oj{{"a", json_buffer(p, s.a)}, {"b", json_buffer(p, s.b)}, {"reasons", std::move(reasons)}});
    }
    doc["separations"] = std::move(seps);
  }
  if (!p.penalties.empty()) {
    oj pens = oj::array();
    for (const auto& pen : p.penalties)
      pens.push_back(oj{{"a", json_buffer(p, pen.a)}, {"b", json_buffer(p, pen.b)}, {"weight", pen.weight}});
    doc["penalties"] = std::move(pens);
  }
  if (!p.declared.empty()) {
    oj decls = oj::array();
    for (const auto& d : p.declared) {
      oj bindings = oj::array();
      for (const auto& b : d.bindings)
        bindings.push_back(
            oj{{"buffer", json_buffer(p, b.buffer)}, {"slot", b.slot ? oj(*b.slot) : oj(nullptr)}});
      decls.push_back(oj{{"buffer", json_buffer(p, d.buffer)},
                         {"slots", d.slots},
                         {"slot_size", d.slot_size},
                         {"bindings", std::move(bindings)}});
    }
    doc["declared"] = std::move(decls);
  }
  if (!p.exclusions.empty()) {
    oj xs = oj::array();
    for (const auto& x : p.exclusions) xs.push_back({json_buffer(p, x.a), json_buffer(p, x.b)});
    doc["exclusions"] = std::move(xs);
  }
  if (p.conflict_graph) {
    oj cg = oj::array();
    for (const auto& c : *p.conflict_graph) cg.push_back({json_buffer(p, c.a), json_buffer(p, c.b)});
    doc["conflict_graph"] = std::move(cg);
  }
  if (placement) {
    // The chosen arena of every placed buffer when the placement says it
    // and some buffer had a choice.
    const bool arenas = writes_chosen_arenas(p, *placement);
    oj pl = oj::array();
    for (std::size_t i = 0; i < p.buffers.size() && i < placement->offsets.size(); ++i) {
      if (!placement->offsets[i]) continue;
      oj e{{"id", json_buffer(p, static_cast<BufferId>(i))}, {"offset", *placement->offsets[i]}};
      if (arenas) e["arena"] = placement->arenas[i];
      pl.push_back(std::move(e));
    }
    doc["placement"] = std::move(pl);
  }
  return doc;
}

}  // namespace detail

PTO_MEM_IO_INLINE nlohmann::ordered_json problem_to_json(const Problem& p, const Placement* placement) {
  const std::vector<Addr> none = always_fitting_capacities(p);
  std::vector<bool> given(p.arenas.size());
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    given[k] = p.arenas[k].capacity != none[k] && p.arenas[k].capacity != reader_capacity(p, p.arenas[k].id);
  return detail::problem_document(p, placement, given);
}

PTO_MEM_IO_INLINE std::string json_problem_text(const Problem& p, const Placement* placement) {
  return json_text(problem_to_json(p, placement));
}

PTO_MEM_IO_INLINE nlohmann::ordered_json problem_to_json(const ProblemFile& f) {
  // The file's own word: a capacity it gave is written even when it happens
  // to equal always_fitting_capacity, so the copy reads back the same flags.
  std::vector<bool> given(f.problem.arenas.size(), true);
  for (std::size_t k = 0; k < given.size() && k < f.no_capacity.size(); ++k) given[k] = !f.no_capacity[k];
  return detail::problem_document(f.problem, f.placement ? &*f.placement : nullptr, given);
}

PTO_MEM_IO_INLINE std::string json_problem_text(const ProblemFile& f) {
  return json_text(problem_to_json(f));
}

PTO_MEM_IO_INLINE Diagnostics json_name_defects(const Problem& p) {
  Diagnostics out;
  for (const auto& b : p.buffers)  // an unnamed buffer is written as its index
    if (auto bad = b.name.empty() ? std::nullopt : id_defect(b.name))
      out.push_back(error("buffer id cannot be written to JSON: " + bad->reason));
  if (out.empty())
    if (auto twice = repeated_label(p)) out.push_back(error(repeated_label_message(p, *twice)));
  for (const auto& a : p.arenas)
    if (auto bad = a.name.empty() ? std::nullopt : id_defect(a.name))
      out.push_back(
          error("the name of arena " + std::to_string(a.id) + " cannot be written to JSON: " + bad->reason));
  return out;
}

PTO_MEM_IO_INLINE Diagnostics write_json_problem_file(const std::filesystem::path& path, const Problem& p,
                                                      const Placement* placement) {
  if (auto bad = json_name_defects(p); !bad.empty()) {
    attribute_to_file(bad, path.string());
    return bad;
  }
  if (auto bad = write_file_atomically(path, json_problem_text(p, placement))) return {*bad};
  return {};
}

PTO_MEM_IO_INLINE Diagnostics write_json_problem_file(const std::filesystem::path& path,
                                                      const ProblemFile& f) {
  if (auto bad = json_name_defects(f.problem); !bad.empty()) {
    attribute_to_file(bad, path.string());
    return bad;
  }
  if (auto bad = write_file_atomically(path, json_problem_text(f))) return {*bad};
  return {};
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
