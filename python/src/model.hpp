// The problem model as Python sees it.
//
// A Python `Problem` holds its elements (Arena, Buffer, MustAliasGroup,
// Separation, Penalty, DeclaredAllocation) as shared objects, the way a
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
#pragma once

#include <memory>
#include <unordered_map>
#include <optional>
#include <string>
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
  std::shared_ptr<Items<MustAliasGroup>> must_alias = std::make_shared<Items<MustAliasGroup>>();
  std::shared_ptr<Items<Separation>> separations = std::make_shared<Items<Separation>>();
  std::shared_ptr<Items<Penalty>> penalties = std::make_shared<Items<Penalty>>();
  std::shared_ptr<Items<DeclaredAllocation>> declared = std::make_shared<Items<DeclaredAllocation>>();
};

/// The library's problem (a copy of every element) and, per arena, whether
/// it has no capacity (then its capacity is always_fitting_capacity).
[[nodiscard]] ProblemFile to_problem(const PyProblem& p);

/// The Python model of a problem the library built (a reader, the arrays
/// path). An arena has no capacity when `no_capacity` says so or when its
/// capacity is always_fitting_capacity: the library reads that value as
/// "no capacity was given" (it picks the goal by it), and so does Python.
[[nodiscard]] PyProblem from_problem(Problem p, const std::vector<bool>& no_capacity);
[[nodiscard]] inline PyProblem from_problem(ProblemFile f) { return from_problem(std::move(f.problem), f.no_capacity); }

}  // namespace pto_mem::python
