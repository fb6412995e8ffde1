// The planned allocations of a tile-IR program as a generic Problem and
// Placement, for the SVG memory map (`pto-mem compile --svg`) and for
// checking a planned program with the generic validator.
//
// One arena per (kernel function, planned space) that holds allocations,
// named "function: Space"; one buffer per alloc statement (its whole size,
// 32-byte alignment); system.reserve_buffer windows (after AllocateMemoryAddr
// resolved their base) as reserved windows of the function's cross-core space
// (AIC: Mat; AIV and InCore: Vec).
//
//     a = tile.load(x, ...)     # 1    mem_vec_0 (a): lives [1, 4)
//     for i in range(2):
//         b = tile.exp(a)       # 2    mem_vec_1 (b): lives [2, 3)
//         yield_()              # 3    a is read in the loop: extended to 3
//
// Lifetimes come from a FunctionIndex (passes/function_index.hpp) of the
// planned function, in its memory-map numbering: statements counted from 1
// (assignments, expression statements, yields and returns each take one
// point; no back-edge points), a loop header's reads at the statement before
// it. An allocation lives from the first point any window on it is defined
// or read to one past the last, extended to the end of a loop it is read in
// when it was defined before that loop.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/io/svg.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/soc/soc_policy.hpp"

namespace pto_mem::pypto {

struct MemoryMap {
  Problem problem;
  Placement placement;
};

namespace detail::memory_map {

/// First and last statement number of every allocation base of one
/// function (FunctionIndex::map_number: statements counted from 1, no
/// back-edge points).
class LiveRanges {
 public:
  struct Range {
    Tick first = 0, last = 0;
  };
  std::unordered_map<const Var*, Range> ranges;
  Tick points = 0;

  explicit LiveRanges(const passes::FunctionIndex& index) {
    for (const auto& d : index.defs()) note(*d.var, index.map_number(d));
    for (const auto& u : index.uses()) note(*u.var, index.map_number(u));
    for (const auto& l : index.loops()) loops_.push_back(index.map_range(l));
    points = index.map_count() + 1;
    extend_over_loops();
  }

 private:
  /// A value defined before a loop and read inside it lives through the
  /// loop: its last point becomes the largest end of the loops that start
  /// after its first point and at or before its last. (Loops nest, so a
  /// loop this extension reaches into lies inside one that already counts:
  /// one range-maximum query per allocation, not a pass over every loop.)
  void extend_over_loops() {
    if (loops_.empty()) return;
    std::sort(loops_.begin(), loops_.end());  // by start
    // Sparse table of loop ends: levels[j][i] = max end of loops i .. i + 2^j - 1.
    std::vector<std::vector<Tick>> levels(1);
    for (const auto& [start, end] : loops_) levels[0].push_back(end);
    for (std::size_t w = 1; 2 * w <= loops_.size(); w *= 2) {
      const auto& below = levels.back();
      std::vector<Tick> next(below.size() - w);
      for (std::size_t i = 0; i < next.size(); ++i) next[i] = std::max(below[i], below[i + w]);
      levels.push_back(std::move(next));
    }
    auto first_starting_after = [&](Tick t) {
      return static_cast<std::size_t>(std::upper_bound(loops_.begin(), loops_.end(), t,
                                                       [](Tick x, const auto& l) { return x < l.first; }) -
                                      loops_.begin());
    };
    for (auto& [b, r] : ranges) {
      const std::size_t lo = first_starting_after(r.first),
                        hi = first_starting_after(r.last);  // loops [lo, hi)
      if (lo >= hi) continue;
      std::size_t j = 0;
      while ((std::size_t{2} << j) <= hi - lo) ++j;
      r.last = std::max({r.last, levels[j][lo], levels[j][hi - (std::size_t{1} << j)]});
    }
  }

  void note(const Var& v, Tick at) {
    const MemRefPtr m = memref_of(v.type);
    if (!m || !m->base || !is_tile(v.type)) return;
    auto [it, fresh] = ranges.try_emplace(m->base.get(), Range{at, at});
    if (!fresh) {
      it->second.first = std::min(it->second.first, at);
      it->second.last = std::max(it->second.last, at);
    }
  }
  std::vector<std::pair<Tick, Tick>> loops_;
};

/// The reserve_buffer windows of a function: [base, align(base + size)).
inline std::vector<AddrRange> reserve_windows(const Function& f, Addr alignment) {
  std::vector<AddrRange> out;
  for_each_stmt(f.body, [&](const Stmt& s) {
    const auto* a = s.as<AssignStmt>();
    const Call* c = a && a->value ? a->value->as<Call>() : nullptr;
    if (!c || c->op != "system.reserve_buffer") return;
    const ExprPtr* size = c->kwarg("size");
    const ExprPtr* base = c->kwarg("base");
    // Read as plain values (a missing or non-constant size reads 0, a missing
    // base -1: both skipped): g++ 12 at -O1 warns falsely on optionals here.
    const auto sz = size ? as_const_int(*size).value_or(0) : 0;
    const auto b = base ? as_const_int(*base).value_or(-1) : -1;
    if (sz <= 0 || b < 0) return;
    auto end = align_up(static_cast<Addr>(b) + static_cast<Addr>(sz), alignment);
    if (end) out.push_back(AddrRange{static_cast<Addr>(b), *end});
  });
  return out;
}

/// One alloc statement as core/buffer.hpp reads it: labelled "function/name";
/// its arena is the index of its (function, space) pair.
struct Allocation {
  std::string id;
  Addr size = 0;
  Addr alignment = 1;
  std::int64_t arena = 0;
  Interval lifetime;
};

/// The (function, space) pairs as arenas (an ArenaPolicy over their index).
/// A capacity of 0 (no backend) becomes the high-water mark once the
/// addresses are known.
struct FunctionSpaces {
  struct Space {
    std::string name;
    Addr capacity = 0;
    std::vector<AddrRange> reserved;
  };
  std::vector<Space> spaces;

  [[nodiscard]] std::string name(std::int64_t k) const { return at(k).name; }
  [[nodiscard]] std::optional<Addr> capacity(std::int64_t k) const { return at(k).capacity; }
  [[nodiscard]] const std::vector<AddrRange>& reserved(std::int64_t k) const { return at(k).reserved; }

 private:
  [[nodiscard]] const Space& at(std::int64_t k) const { return spaces[static_cast<std::size_t>(k)]; }
};

}  // namespace detail::memory_map

/// The allocations of every kernel function of `program` whose address is
/// known: `addresses` (function -> base name -> address, as
/// CompileResult::allocation_addresses holds them), else the lowest constant
/// window offset on the allocation.
[[nodiscard]] PTO_MEM_PYPTO_INLINE MemoryMap
memory_map(const Program& program, const SocPolicy& soc,
           const std::map<std::string, std::map<std::string, std::int64_t>>& addresses = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE MemoryMap
memory_map(const Program& program, const SocPolicy& soc,
           const std::map<std::string, std::map<std::string, std::int64_t>>& addresses) {
  MemoryMap out;
  std::vector<detail::memory_map::Allocation> allocations;
  detail::memory_map::FunctionSpaces arenas;  // key k: the k-th (function, space) met
  for (const auto& f : program.functions) {
    if (!is_kernel(f.kind) || !f.body) continue;
    const passes::FunctionIndex index(f);
    const detail::memory_map::LiveRanges live(index);
    std::unordered_map<const Var*, std::int64_t> lowest;  // the lowest constant window offset on each base
    for (const auto& d : index.defs()) {
      const MemRefPtr m = memref_of(d.var->type);
      if (!m || !m->base) continue;
      if (auto o = m->const_offset()) {
        auto [it, fresh] = lowest.try_emplace(m->base.get(), *o);
        if (!fresh) it->second = std::min(it->second, *o);
      }
    }
    const auto known = addresses.find(f.name);

    std::map<MemorySpace, std::int64_t> arena_of;
    for_each_stmt(f.body, [&](const Stmt& s) {
      const auto* a = s.as<AllocStmt>();
      if (!a || !soc.planned(a->space)) return;
      auto [it, fresh] = arena_of.try_emplace(a->space, static_cast<std::int64_t>(arenas.spaces.size()));
      if (fresh) {
        auto& arena = arenas.spaces.emplace_back();
        arena.name = f.name + ": " + std::string(to_string(a->space));
        arena.capacity = soc.capacity(a->space).value_or(0);
        const MemorySpace cross = f.kind == FunctionKind::AIC ? MemorySpace::Mat : MemorySpace::Vec;
        if (a->space == cross)
          arena.reserved = detail::memory_map::reserve_windows(f, soc.alignment(a->space));
      }
      detail::memory_map::Allocation b;
      b.id = f.name + "/" + a->var->name;
      b.size = a->size;
      b.alignment = soc.alignment(a->space);
      b.arena = it->second;
      if (auto r = live.ranges.find(a->var.get()); r != live.ranges.end())
        b.lifetime = Interval{r->second.first, r->second.last + 1};
      else
        b.lifetime = Interval{0, live.points};  // declared but unbound: reserved throughout
      std::optional<Addr> addr;
      if (known != addresses.end())
        if (auto k = known->second.find(a->var->name); k != known->second.end() && k->second >= 0)
          addr = static_cast<Addr>(k->second);
      if (!addr)
        if (auto l = lowest.find(a->var.get()); l != lowest.end() && l->second >= 0)
          addr = static_cast<Addr>(l->second);
      allocations.push_back(std::move(b));
      out.placement.offsets.push_back(addr);
    });
  }
  out.problem = make_problem(allocations, arenas).problem;
  // A space without a capacity (no backend) is drawn up to its high-water
  // mark (arena ids are their positions: one pass over the buffers).
  std::vector<Addr> high(out.problem.arenas.size(), 0);
  for (std::size_t i = 0; i < out.problem.buffers.size(); ++i)
    if (out.placement.offsets[i]) {
      Addr& h = high[static_cast<std::size_t>(out.problem.buffers[i].arena)];
      h = std::max(h, *out.placement.offsets[i] + out.problem.buffers[i].size);
    }
  for (std::size_t k = 0; k < out.problem.arenas.size(); ++k) {
    auto& arena = out.problem.arenas[k];
    if (arena.capacity != 0) continue;
    arena.capacity = high[k];
    for (const auto& r : arena.reserved) arena.capacity = std::max(arena.capacity, r.end);
  }
  return out;
}
#endif

/// The SVG memory map of the planned program (io/svg.hpp).
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string memory_map_svg(
    const Program& program, const SocPolicy& soc,
    const std::map<std::string, std::map<std::string, std::int64_t>>& addresses = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE std::string memory_map_svg(
    const Program& program, const SocPolicy& soc,
    const std::map<std::string, std::map<std::string, std::int64_t>>& addresses) {
  const MemoryMap m = memory_map(program, soc, addresses);
  return svg_memory_map(m.problem, m.placement);
}
#endif

}  // namespace pto_mem::pypto
