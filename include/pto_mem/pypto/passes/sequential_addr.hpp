// AllocateMemoryAddr, PYPTO policy: every allocation
// gets bytes of its own, per memory space in MemRef name order (string
// order: `mem_vec_10` before `mem_vec_2`, a declared `aaa` before every
// `mem_*`), from the reserved floor up, each at the aligned cursor; the
// cursor then moves to Align(address + slot), slot being the largest window
// on the base and, for a declared base, at least the whole declaration (so
// unbound slots stay reserved).
//
// Translation only: one generic buffer per base (built by make_problem,
// space_problem.hpp), placed by algorithms/sequential.hpp (place_sequential
// with PyPTO's name order and cursor alignment), then written back (address_writeback.hpp). With a
// configured backend, an aligned high-water mark above a space's capacity is
// a "capacity" error naming the function, the space, the bytes, the limit
// and the reserved bytes.
#pragma once

#include <string>
#include <vector>

#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/pypto/passes/address_writeback.hpp"
#include "pto_mem/pypto/passes/reserve_buffer.hpp"
#include "pto_mem/pypto/passes/space_problem.hpp"

namespace pto_mem::pypto::passes {

/// The capacity checked for `space`: the backend's, when configured and known.
[[nodiscard]] inline std::optional<Addr> checked_capacity(const PassContext& ctx, MemorySpace space) {
  if (!ctx.soc || !ctx.soc->configured) return std::nullopt;
  auto c = ctx.soc->capacity(space);
  if (!c || *c == 0) return std::nullopt;
  return c;
}

/// "Function 'f': Vec buffer usage (N bytes) exceeds platform limit (M bytes)" with the reserve note.
[[nodiscard]] inline std::string capacity_message(const Function& f, MemorySpace space,
                                                  const std::string& usage, Addr limit,
                                                  const ReserveResolution& reserve) {
  return "Function '" + f.name + "': " + std::string(to_string(space)) + " buffer usage (" + usage +
         ") exceeds platform limit (" + std::to_string(limit) + " bytes)" + reserve_note(f, reserve, space) +
         ". Shrink the tiles or keep fewer of them live at once";
}

/// Places `bases`; fills `replace` and returns true, or reports and returns false.
inline bool place_bases_sequentially(const Function& f, const Program& p, PassContext& ctx,
                                     const ReserveResolution& reserve, const std::vector<PlannedBase>& bases,
                                     MemRefReplacements& replace) {
  std::vector<SpaceBuffer> buffers;
  buffers.reserve(bases.size());
  for (std::size_t i = 0; i < bases.size(); ++i) {
    const PlannedBase& b = bases[i];
    if (b.bytes() == 0) {
      ctx.diagnostics.push_back(pass_error(p, b.base->loc,
                                           "AllocateMemoryAddr encountered zero-sized MemRef on '" +
                                               b.base->name + "' in function '" + f.name + "'",
                                           code::internal));
      return false;
    }
    buffers.push_back({i, b.bytes(), space_alignment(ctx, b.space), b.space, {0, 1}});
  }
  auto capacity_of = [&ctx](MemorySpace space) { return checked_capacity(ctx, space).value_or(max_addr); };
  const auto built = make_problem(buffers, SpaceArenas{ctx.soc, &reserve, capacity_of});
  SequentialOptions options;
  options.before = [&bases, &ctx](std::size_t a,
                                  std::size_t b) {  // the SoC's placement order (default: name)
    auto key = [&bases](std::size_t i) { return PlacementKey{bases[i].base->name, bases[i].bytes(), i}; };
    return ctx.soc ? ctx.soc->places_before(key(a), key(b)) : bases[a].base->name < bases[b].base->name;
  };
  options.cursor_alignment = ctx.soc ? std::max<Addr>(ctx.soc->address_alignment, 1) : 32;
  const SequentialResult placed = place_sequential(built.problem, options);

  bool fits = true;
  for (std::size_t k = 0; k < built.arena_keys.size(); ++k) {
    const MemorySpace space = built.arena_keys[k];
    const auto& use = placed.usage[k];
    const auto limit = checked_capacity(ctx, space);
    const bool over = limit ? (!use.fits || use.high_water > *limit) : !use.fits;
    if (!over) continue;
    fits = false;
    const std::string usage =
        use.high_water == max_addr ? "more than 2^64 bytes" : std::to_string(use.high_water) + " bytes";
    ctx.diagnostics.push_back(pass_error(
        p, f.loc, capacity_message(f, space, usage, limit.value_or(max_addr), reserve), code::capacity));
  }
  if (!fits || !placed.placement) return false;
  for (std::size_t i = 0; i < bases.size(); ++i)
    if (auto why = address_windows(bases[i], *placed.placement->offsets[i], replace)) {
      ctx.diagnostics.push_back(
          pass_error(p, f.loc, "AllocateMemoryAddr in function '" + f.name + "': " + *why, code::internal));
      return false;
    }
  return true;
}

}  // namespace pto_mem::pypto::passes
