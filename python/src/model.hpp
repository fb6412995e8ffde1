// The problem model as Python sees it.
//
// A Python `Problem` holds its elements (Arena, Buffer, MustAliasGroup,
// Separation, Penalty, DeclaredAllocation, Exclusion, Conflict) as shared objects, the way a
// Python list holds objects: `b = problem.buffers[0]` is the element itself,
// and it stays that element (and valid) whatever happens to the list later.
// Appending, inserting, deleting or clearing moves no object: after
// `problem.buffers.insert(0, x)`, `b` is still the buffer it was; after
// `del problem.buffers[0]` it is a buffer no longer in the problem. Nothing
// refers to a position in a vector, so nothing can dangle.
//
// The library's pto_mem::Problem is built from these objects (a copy) for
// each call that needs one (plan, validate, to_json, ...): planning works
// on a private copy, so Python code may go on editing the problem.
//
// Buffers are named, and constraints name the buffers they join. The library
// refers to a buffer by its position in Problem::buffers (a BufferId), but a
// Python list's positions shift on every insert and delete, so a Python
// constraint holds the buffer's name, and the names are resolved to
// BufferIds once, when the library's problem is built (build_problem).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pto_mem/io/problem_file.hpp"

namespace pto_mem::python {

/// An arena as Python sees it: `capacity` is None when none was given (the
/// library then uses always_fitting_capacity, a capacity every placement
/// fits into, which is not a limit the user asked for).
struct ArenaItem {
  std::int64_t id = 0;
  std::string name;
  std::optional<Addr> capacity;
  std::vector<AddrRange> reserved;
};

/// Python's side of the constraints: the library's structs with buffer names
/// in place of BufferIds.
struct AliasMemberItem {
  std::string buffer;
  Addr offset = 0;
};

struct MustAliasItem {
  std::vector<AliasMemberItem> members;
};

struct SeparationItem {
  std::string a, b;
  std::uint8_t reasons = reason_explicit;  ///< kept from a file read; Python does not show it
};

struct PenaltyItem {
  std::string a, b;
  Weight weight = 1;
};

struct SlotBindingItem {
  std::string buffer;
  std::optional<std::uint32_t> slot;
};

struct DeclaredItem {
  std::string buffer;
  std::uint32_t slots = 1;
  Addr slot_size = 0;
  std::vector<SlotBindingItem> bindings;
};

/// A pair of buffers that are never live at once (Problem::exclusions).
struct ExclusionItem {
  std::string a, b;
};

/// An edge of an explicit conflict graph: the two buffers are live together.
struct ConflictItem {
  std::string a, b;
};

template <class T>
using Items = std::vector<std::shared_ptr<T>>;

/// A problem list as Python sees it: a view of the problem's list (the
/// vector is shared, so the view stays valid even when the problem goes).
template <class T>
struct ItemList {
  std::shared_ptr<Items<T>> items;
};

struct PyProblem {
  std::shared_ptr<Items<ArenaItem>> arenas = std::make_shared<Items<ArenaItem>>();
  std::shared_ptr<Items<BufferSpec>> buffers = std::make_shared<Items<BufferSpec>>();
  std::shared_ptr<Items<MustAliasItem>> must_alias = std::make_shared<Items<MustAliasItem>>();
  std::shared_ptr<Items<SeparationItem>> separations = std::make_shared<Items<SeparationItem>>();
  std::shared_ptr<Items<PenaltyItem>> penalties = std::make_shared<Items<PenaltyItem>>();
  std::shared_ptr<Items<DeclaredItem>> declared = std::make_shared<Items<DeclaredItem>>();
  std::shared_ptr<Items<ExclusionItem>> exclusions = std::make_shared<Items<ExclusionItem>>();
  /// Null: no conflict graph (lifetimes decide who is live together).
  std::shared_ptr<Items<ConflictItem>> conflict_graph;
};

/// The library's problem built from a Python one, or why it cannot be.
struct BuiltProblem {
  /// The problem (a copy of every element, names resolved to BufferIds)
  /// and, per arena, whether it has no capacity (then its capacity is
  /// always_fitting_capacity). When `names` holds errors, only its arenas
  /// and buffers are complete: the constraints are left out.
  ProblemFile file;
  /// Errors in the names: a buffer without a name or with another buffer's
  /// name, a constraint naming a buffer no buffer or several buffers are
  /// named. Each names the list entry (`separations[2]`) and the name.
  Diagnostics names;
};

/// Resolves every constraint's buffer names to BufferIds (one hash table of
/// the names, built once) and copies the problem into the library's model.
[[nodiscard]] BuiltProblem build_problem(const PyProblem& p);

/// build_problem, raising InputError (naming each bad constraint and name)
/// when the names do not resolve.
[[nodiscard]] ProblemFile to_problem(const PyProblem& p);

/// The Python model of a problem the library built (a reader, the arrays
/// path). Every buffer is named by its label (buffer_label: its name, or its
/// index in decimal when it has none), and so are the constraints' ends. An
/// arena has no capacity when `no_capacity` says so or when its capacity is
/// always_fitting_capacity: the library reads that value as "no capacity
/// was given" (it picks the goal by it), and so does Python.
[[nodiscard]] PyProblem from_problem(Problem p, const std::vector<bool>& no_capacity);
[[nodiscard]] inline PyProblem from_problem(ProblemFile f) {
  return from_problem(std::move(f.problem), f.no_capacity);
}

}  // namespace pto_mem::python
