// What the three translation units of the extension share: the opaque
// vector types (declared alike in every unit, as pybind11 requires), the
// conversions of diagnostics and placements, the error helpers that raise
// pto_mem.errors.*, and the status mapping.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/core/result.hpp"

// The problem's lists are live Python lists: problem.buffers.append(b) edits
// the problem itself, not a copy.
PYBIND11_MAKE_OPAQUE(std::vector<pto_mem::Arena>)
PYBIND11_MAKE_OPAQUE(std::vector<pto_mem::BufferSpec>)
PYBIND11_MAKE_OPAQUE(std::vector<pto_mem::MustAliasGroup>)
PYBIND11_MAKE_OPAQUE(std::vector<pto_mem::Separation>)
PYBIND11_MAKE_OPAQUE(std::vector<pto_mem::Penalty>)
PYBIND11_MAKE_OPAQUE(std::vector<pto_mem::DeclaredAllocation>)

namespace pto_mem::python {

namespace py = pybind11;

/// The name Python sees for a status, and whether it is an answer (a
/// placement, or a verdict that none was found / none exists) rather than a
/// rejected call. The only place statuses are interpreted: a renamed or added
/// rejection status needs no change here.
[[nodiscard]] inline std::string status_name(Status s) { return to_string(s); }
[[nodiscard]] inline bool is_answer(Status s) noexcept {
  return s == Status::optimal || s == Status::feasible || s == Status::no_fit || s == Status::infeasible;
}

/// Every diagnostic on its own line, in the `file:line:column: error: ...` form.
[[nodiscard]] inline std::string joined(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) {
    if (!out.empty()) out += "\n";
    out += format(d);
  }
  return out;
}

/// Raises pto_mem.errors.<cls>(message, diagnostics, **extra).
[[noreturn]] inline void raise_error(const char* cls, const std::string& message, const Diagnostics& ds,
                                     const py::dict& extra = py::dict()) {
  py::object type = py::module_::import("pto_mem.errors").attr(cls);
  py::object exc = type(message, py::cast(ds), **extra);
  PyErr_SetObject(type.ptr(), exc.ptr());
  throw py::error_already_set();
}

/// Raises InputError unless `ds` is free of errors.
inline void raise_if_errors(const Diagnostics& ds) {
  if (has_errors(ds)) raise_error("InputError", joined(ds), ds);
}

/// Offsets given by a Python caller, in buffer order of `p`: a PlanResult, a
/// dict {buffer id: offset}, a NumPy array (negative = unplaced) or any
/// sequence of int/None. Raises InputError naming what is wrong.
[[nodiscard]] Placement placement_from(const Problem& p, py::handle offsets);

/// One arena (id 0, or one per distinct value of `arenas`) and buffer i = id
/// "i" with sizes[i], [begins[i], ends[i]), alignments[i] (default 1), from
/// integer arrays, without a Python object per buffer. `capacity`: None (a
/// capacity every placement fits into), an int (every arena) or a dict
/// {arena id: capacity}.
[[nodiscard]] Problem problem_from_arrays(const py::object& sizes, const py::object& begins, const py::object& ends,
                                          const py::object& alignments, const py::object& arenas,
                                          const py::object& capacity);

/// `v` as an int64 for Python; raises OverflowError beyond INT64_MAX.
[[nodiscard]] std::int64_t to_int64(Addr v);

void bind_plan(py::module_& m);
void bind_compile(py::module_& m);

}  // namespace pto_mem::python
