// Must-alias unification: every alias class (must-alias groups joined by
// union-find, plus each declared allocation with its bindings) becomes one
// allocation of a reduced problem that any planner can place; the placement
// of the reduced problem is then expanded back to every original buffer.
//
//   original ──unify_aliases──► reduced ──planner──► placement ──expand_placement──► original placement
//
// An allocation spans every member window (and every group start), moves as a
// unit, keeps each member's byte offset, is aligned so that every member ends
// up aligned, and lives over the hull of its members' lifetimes. A declared
// allocation is closed: in the reduced problem it lives over its arena's
// whole horizon, so no other allocation may share its bytes (or, on request,
// it is separated from every other allocation of its arena).
//
// This header declares unify_aliases() and expand_placement()
// (PTO_MEM_PLAN_INLINE, core/compiled_mode.hpp); their definitions are in
// alias_impl.hpp, included here unless PTO_MEM_COMPILED is defined (then
// they are compiled once in pto_mem::compiled, src/planner.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// The reduced problem and the way back to the original buffers.
struct AliasUnification {
  /// One buffer per allocation, in the order of each allocation's first member
  /// in the original problem. An allocation takes the name (label) of its representative:
  /// the declaration for a declared allocation, else its first member. It has
  /// no must-alias groups or declarations left; separations and penalties are
  /// mapped onto allocations (see unify_aliases).
  Problem problem;
  /// allocation_of[i]: the allocation (index into problem.buffers) holding
  /// original buffer i.
  std::vector<std::size_t> allocation_of;
  /// member_offset[i]: original buffer i sits this many bytes above its
  /// allocation's offset.
  std::vector<Addr> member_offset;
  /// members[a]: the original buffers of allocation a, ascending.
  std::vector<std::vector<std::size_t>> members;
  /// closed[a]: allocation a holds a declared allocation; nothing else may
  /// share its bytes (see UnifyOptions::closed_by_separations).
  std::vector<bool> closed;
  /// Errors that make unification impossible, each naming the buffers.
  Diagnostics diagnostics;

  [[nodiscard]] bool ok() const noexcept { return !has_errors(diagnostics); }
};

struct UnifyOptions {
  /// How the reduced problem keeps other allocations out of a closed
  /// (declared) allocation. false: its lifetime spans its arena's whole
  /// horizon (from the earliest begin to the latest end there), so plain
  /// interference keeps everything else apart, at no cost per pair. true:
  /// its lifetime stays the hull of its members and it is separated from
  /// every other allocation of its arena (reason declared_allocation), the
  /// form PyPTO's DSA-RP problem uses; O(closed x allocations) pairs.
  bool closed_by_separations = false;
};

/// Builds the reduced problem. Validate the problem first (validate(p)):
/// names that do not resolve are skipped here.
///
/// - Positions: a must-alias group puts member m at `m.offset` above the
///   group's start; a declared allocation puts binding b at `slot * slot_size`
///   above the declaration (a run-time slot at slot 0, the lowest it can be).
///   A buffer in several groups ties them together; two different positions
///   for one buffer are an error naming it.
/// - The allocation starts at its lowest member or group start, and its size
///   reaches the highest member end. Its alignment is the smallest modulus
///   that aligns every member; when that needs the allocation itself to start
///   off a multiple of it, the allocation grows by a few leading bytes instead
///   (members whose offsets contradict their alignments are an error).
/// - Separations map onto allocation pairs: one inside an allocation is an
///   error naming both buffers; duplicates merge (reasons or-ed) into
///   ascending (first, second) allocation order. A separation between two
///   arenas is vacuous (different memories never overlap) and is dropped, so
///   no planner sees one.
/// - A closed allocation spans its arena's horizon, or is separated from every
///   other allocation of its arena (UnifyOptions::closed_by_separations).
/// - Penalties map onto allocation pairs: inside one allocation, or between
///   allocations live at the same time (they can never overlap), they are
///   dropped; duplicates add up (saturating) in ascending pair order; zero
///   totals are dropped. A planner prices the penalty of an allocation pair,
///   a slight over-estimate when a member covers only part of its allocation;
///   plan() reports the exact objective of the expanded placement.
///
/// A problem without must-alias groups and declarations is returned as is,
/// each buffer its own allocation.
[[nodiscard]] PTO_MEM_PLAN_INLINE AliasUnification unify_aliases(const Problem& p,
                                                                 const UnifyOptions& options = {});

/// The placement of the original buffers from one of the reduced problem:
/// each member at its allocation's offset plus its member offset (nullopt
/// where the allocation has none, or the sum would overflow).
[[nodiscard]] PTO_MEM_PLAN_INLINE Placement expand_placement(const AliasUnification& u,
                                                             const Placement& reduced);

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/algorithms/alias_impl.hpp"
#endif
