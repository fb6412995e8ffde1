// The definitions behind core/make_problem.hpp: the Problem built from the
// records the make_problem template reads. Included by make_problem.hpp in
// header-only mode; compiled once into pto_mem::compiled (src/) otherwise.
#pragma once

#include <cstddef>
#include <numeric>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pto_mem/core/make_problem.hpp"

namespace pto_mem {

PTO_MEM_PLAN_INLINE Addr combined_alignment(Addr buffer, Addr arena) noexcept {
  if (buffer == 0) return 0;
  if (arena <= 1) return buffer;
  return checked_mul(buffer / std::gcd(buffer, arena), arena).value_or(max_addr);
}

namespace detail {

PTO_MEM_PLAN_INLINE BuiltProblem build_problem(ProblemRecords records) {
  BuiltProblem out;
  Problem& p = out.problem;
  std::vector<bool> unlimited;
  for (std::size_t k = 0; k < records.arenas.size(); ++k) {
    ArenaRecord& r = records.arenas[k];
    Arena a;
    a.id = static_cast<std::int64_t>(k);
    a.name = std::move(r.name);
    a.reserved = std::move(r.reserved);
    if (r.negative_capacity)  // the arena is then planned as if it had none: one message, not two
      out.diagnostics.push_back(
          error("arena '" + a.name + "': the policy gives capacity " + std::to_string(*r.negative_capacity) +
                ", a negative byte count; return a positive capacity, or std::nullopt for none"));
    unlimited.push_back(!r.capacity.has_value());
    a.capacity = r.capacity.value_or(0);  // 0 = set to always_fitting_capacity below
    p.arenas.push_back(std::move(a));
  }
  std::vector<std::size_t> position;  // of each problem buffer in the range
  for (std::size_t i = 0; i < records.buffers.size(); ++i) {
    BufferRecord& b = records.buffers[i];
    if (b.arena == BufferRecord::not_planned) {
      out.buffer_index.emplace_back(std::nullopt);
      continue;
    }
    BufferSpec s;
    s.name = std::move(b.name);
    s.size = b.size_bytes;
    const auto arena_name = "'" + p.arenas[b.arena].name + "'";
    if (b.size < 0)
      out.diagnostics.push_back(error("buffer '" + s.name + "' (in arena " + arena_name + "): size is " +
                                      std::to_string(b.size) + ", a negative byte count; sizes must be > 0"));
    if (b.alignment < 0)
      out.diagnostics.push_back(error("buffer '" + s.name + "' (in arena " + arena_name + "): alignment is " +
                                      std::to_string(b.alignment) +
                                      ", a negative byte count; alignments must be > 0"));
    s.alignment = combined_alignment(b.alignment_bytes, records.arenas[b.arena].alignment);
    s.arena = static_cast<std::int64_t>(b.arena);
    s.lifetime = b.lifetime;
    s.live = std::move(b.live);
    s.pin = b.pin;
    for (const std::size_t k : b.candidate_arenas) s.candidate_arenas.push_back(static_cast<std::int64_t>(k));
    out.buffer_index.emplace_back(p.buffers.size());
    p.buffers.push_back(std::move(s));
    position.push_back(i);
  }
  // Repeated names become "<name>#<position>" so that files and messages
  // tell distinct objects apart, whatever the user named them; unique names
  // are kept as they are.
  std::unordered_map<std::string, std::size_t> count;
  for (const auto& b : p.buffers) ++count[b.name];
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (count[p.buffers[i].name] > 1) p.buffers[i].name += "#" + std::to_string(position[i]);
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    if (unlimited[k]) p.arenas[k].capacity = always_fitting_capacity(p, p.arenas[k].id);
  return out;
}

}  // namespace detail
}  // namespace pto_mem
