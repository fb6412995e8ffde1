// The independent validator. It shares no code with any planner: it
// recomputes every invariant from the problem and the geometry, so a planner
// bug becomes a diagnostic instead of a wrong address. User data errors are
// returned as diagnostics, never thrown.
//
// This header declares the checks (PTO_MEM_PLAN_INLINE,
// core/compiled_mode.hpp); their definitions are in validator_impl.hpp,
// included here unless PTO_MEM_COMPILED is defined (then they are compiled
// once in pto_mem::compiled, src/planner.cpp).
#pragma once

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// Checks that the problem is well formed; an empty result means it is.
/// Every check runs and every error is named: arenas (unique ids, positive
/// capacities, reserved windows inside them), buffers (unique non-empty ids,
/// positive sizes and alignments, non-empty lifetimes from 0 on, known
/// arenas), separations and penalties between two known, distinct buffers
/// (a penalty within one arena and between buffers never live at once; a
/// separation may join two arenas, where it is vacuous), and the must-alias
/// and declared-allocation rules. Declared slots: two bindings
/// on one constant slot may not be live at once, and a binding whose slot is
/// chosen at run time (it may land on any slot) may not be live at the same
/// time as any other binding of its declaration.
[[nodiscard]] PTO_MEM_PLAN_INLINE Diagnostics validate(const Problem& p);

/// Checks a placement against every invariant: offsets present, alignment,
/// capacity (without overflow), reserved windows, no two co-live buffers of
/// one arena overlapping in bytes (unless they alias), separations,
/// must-alias members at one consistent base, declared slots at their slot
/// offsets and declarations closed to every other buffer. An empty result
/// means the placement is valid. If the problem itself is malformed, only
/// those errors are returned.
[[nodiscard]] PTO_MEM_PLAN_INLINE Diagnostics validate(const Problem& p, const Placement& pl);

/// How many separations join buffers of two different arenas. Such a pair
/// is vacuous (different memories never overlap): accepted, never violated,
/// and ignored by every planner.
[[nodiscard]] PTO_MEM_PLAN_INLINE std::size_t vacuous_separations(const Problem& p);

/// The placement checks of validate(p, pl) alone, for a caller that has
/// already found `p` well formed (validate(p) empty) and not changed it since.
[[nodiscard]] PTO_MEM_PLAN_INLINE Diagnostics validate_placement(const Problem& p, const Placement& pl);

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/algorithms/validator_impl.hpp"
#endif
