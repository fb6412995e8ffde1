// An explanation of a problem that does not fit (algorithms/explain.hpp) as
// JSON: the "explanation" object of the tool's report (docs/tool.md,
// `plan --explain`). Buffers are written by their labels as the problem file
// names them (numbers stay numbers), arenas by the report's arena labels,
// constraints by their position in the problem's lists with the buffers they
// name, so that a reader can cut the subset out of the problem file. Keys
// always in this order; deterministic.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "pto_mem/algorithms/explain.hpp"
#include "pto_mem/io/arena_label.hpp"

namespace pto_mem {

/// The explanation document: {"explained", "minimal", "checks", "time_s",
/// "members", "exclusions", "shortfall", "least_capacity", "notes"}.
[[nodiscard]] inline nlohmann::ordered_json explanation_json(const Problem& p, const Explanation& e) {
  using oj = nlohmann::ordered_json;
  const auto labels = arena_labels(p);
  auto arena_label = [&](std::int64_t id) -> oj {
    for (std::size_t k = 0; k < p.arenas.size(); ++k)
      if (p.arenas[k].id == id) return labels[k];
    return id;  // not an arena of p (never from explain())
  };
  // As the JSON problem writer names a buffer: an integer-looking label as
  // a JSON integer, the rest as strings.
  auto buffer = [&](BufferId b) -> oj {
    const std::string label = buffer_label(p, b);
    if (auto v = parse_integer_id(label)) return *v;
    return label;
  };
  auto buffers = [&](const std::vector<BufferId>& ids) {
    oj a = oj::array();
    for (BufferId b : ids) a.push_back(buffer(b));
    return a;
  };
  oj doc = oj::object();
  doc["explained"] = e.explained;
  doc["minimal"] = e.minimal;
  doc["checks"] = e.checks;
  doc["time_s"] = e.time_s;

  oj members = oj::array();
  for (const auto& m : e.members) {
    oj j = oj::object();
    j["kind"] = to_string(m.kind);
    switch (m.kind) {
      case MemberKind::buffer: j["buffer"] = buffer(m.index); break;
      case MemberKind::declared: {
        j["buffer"] = buffer(m.index);
        oj bound = oj::array();
        for (const auto& d : p.declared)
          if (d.buffer == m.index)
            for (const auto& b : d.bindings) bound.push_back(buffer(b.buffer));
        j["bindings"] = std::move(bound);
        break;
      }
      case MemberKind::separation:
        j["index"] = m.index;
        j["a"] = buffer(p.separations[m.index].a);
        j["b"] = buffer(p.separations[m.index].b);
        break;
      case MemberKind::pin: {
        j["buffer"] = buffer(m.index);
        const auto& pin = p.buffers[m.index].pin;
        j["offset"] = pin ? pin->offset : 0;
        j["exclusive"] = pin && pin->exclusive;
        break;
      }
      case MemberKind::reserved: {
        const auto& w = p.arenas[m.index].reserved[m.window];
        j["arena"] = labels[m.index];
        j["window"] = m.window;
        j["begin"] = w.begin;
        j["end"] = w.end;
        break;
      }
      case MemberKind::conflict:
        j["index"] = m.index;
        j["a"] = buffer((*p.conflict_graph)[m.index].a);
        j["b"] = buffer((*p.conflict_graph)[m.index].b);
        break;
    }
    j["without"] = m.without == Without::fits ? "fits" : "unknown";
    members.push_back(std::move(j));
  }
  doc["members"] = std::move(members);

  oj exclusions = oj::array();
  for (std::size_t x : e.exclusions) {
    oj pair = oj::object();
    pair["a"] = buffer(p.exclusions[x].a);
    pair["b"] = buffer(p.exclusions[x].b);
    exclusions.push_back(std::move(pair));
  }
  doc["exclusions"] = std::move(exclusions);

  oj shortfall = oj::array();
  for (const auto& s : e.shortfall)
    shortfall.push_back(oj{{"arena", arena_label(s.arena)},
                           {"capacity", s.capacity},
                           {"at", s.at},
                           {"live_bytes", s.live_bytes},
                           {"reserved_bytes", s.reserved_bytes},
                           {"over", s.over},
                           {"live", buffers(s.live)},
                           {"apart", buffers(s.apart)},
                           {"apart_bytes", s.apart_bytes},
                           {"apart_over", s.apart_over}});
  doc["shortfall"] = std::move(shortfall);

  oj least = oj::array();
  for (const auto& c : e.capacity)
    least.push_back(oj{{"arena", arena_label(c.arena)},
                       {"capacity", c.capacity},
                       {"fits_at", c.fits_at ? oj(*c.fits_at) : oj(nullptr)},
                       {"proved", c.proved},
                       {"lower_bound", c.lower_bound}});
  doc["least_capacity"] = std::move(least);

  oj notes = oj::array();
  for (const auto& d : e.diagnostics) notes.push_back(d.message);
  doc["notes"] = std::move(notes);
  return doc;
}

}  // namespace pto_mem
