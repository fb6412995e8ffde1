// What the three translation units of the extension share: the Python-side
// problem model (model.hpp), the conversion of Python numbers, diagnostics
// and placements, the error helpers that raise pto_mem.errors.*, and the
// status mapping.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/core/result.hpp"

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

// ---- Python numbers ----------------------------------------------------------

/// The name of `h`'s type, for messages ("float", "str", "numpy.uint64").
[[nodiscard]] inline std::string type_name(py::handle h) {
  return py::str(py::type::handle_of(h).attr("__name__")).cast<std::string>();
}

/// str(h).
[[nodiscard]] inline std::string text_of(py::handle h) {
  PyObject* s = PyObject_Str(h.ptr());
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s).cast<std::string>();
}

/// `v` written as a Python user reads a 64-bit bound.
[[nodiscard]] inline std::string bound_text(const py::int_& v) {
  static const py::int_ u64_max(std::numeric_limits<std::uint64_t>::max());
  static const py::int_ i64_max(std::numeric_limits<std::int64_t>::max());
  static const py::int_ i64_min(std::numeric_limits<std::int64_t>::min());
  if (v.equal(u64_max)) return "2**64 - 1";
  if (v.equal(i64_max)) return "2**63 - 1";
  if (v.equal(i64_min)) return "-2**63";
  return text_of(v);
}

/// The integer `h` holds (an int or any object with __index__, such as a
/// NumPy integer; a bool, a float or a str is refused) in [lo, hi], as T.
/// TypeError for a wrong type, ValueError for a value out of range; both
/// name `what`. Never "Unable to cast".
template <class T>
[[nodiscard]] T integer_from(py::handle h, const std::string& what, T lo = std::numeric_limits<T>::min(),
                             T hi = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && sizeof(T) <= 8);
  if (PyBool_Check(h.ptr()) || !PyIndex_Check(h.ptr()))
    throw py::type_error(what + " must be an int, not " + type_name(h));
  PyObject* raw = PyNumber_Index(h.ptr());
  if (!raw) throw py::error_already_set();
  const auto v = py::reinterpret_steal<py::int_>(raw);
  const py::int_ low(lo), high(hi);
  const bool below = PyObject_RichCompareBool(v.ptr(), low.ptr(), Py_LT) == 1;
  const bool above = PyObject_RichCompareBool(v.ptr(), high.ptr(), Py_GT) == 1;
  if (below || above) {
    const std::string got = text_of(v);
    if (below && lo == 0) throw py::value_error(what + " must be >= 0, not " + got);
    throw py::value_error(what + " must be between " + bound_text(low) + " and " + bound_text(high) +
                          ", not " + got);
  }
  if constexpr (std::is_signed_v<T>)
    return static_cast<T>(PyLong_AsLongLong(v.ptr()));
  else
    return static_cast<T>(PyLong_AsUnsignedLongLong(v.ptr()));
}

/// A byte count: 0 <= v <= 2**64 - 1 (the range every size, offset and
/// capacity of the library has).
[[nodiscard]] inline Addr addr_from(py::handle h, const std::string& what, Addr lo = 0) {
  return integer_from<Addr>(h, what, lo);
}

/// A real number (int or float, not bool or str) as a double.
[[nodiscard]] inline double real_from(py::handle h, const std::string& what) {
  if (PyBool_Check(h.ptr()) || PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr()) ||
      !(PyFloat_Check(h.ptr()) || PyIndex_Check(h.ptr()) || PyObject_HasAttrString(h.ptr(), "__float__")))
    throw py::type_error(what + " must be a number, not " + type_name(h));
  const double v = PyFloat_AsDouble(h.ptr());
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

/// A Python int for an address the library returned (the full 64-bit range).
[[nodiscard]] inline py::int_ to_int(Addr v) { return py::int_(v); }

/// `v` as an int64 for a NumPy int64 array; raises ValueError beyond
/// 2**63 - 1 (no real placement gets there).
[[nodiscard]] std::int64_t to_int64(Addr v);

}  // namespace pto_mem::python

#include "model.hpp"

namespace pto_mem::python {

/// Offsets given by a Python caller, in buffer order of `p`: a PlanResult, a
/// dict {buffer name: offset}, a NumPy array (negative = unplaced) or any
/// sequence of int/None. Raises InputError naming what is wrong.
[[nodiscard]] Placement placement_from(const Problem& p, py::handle offsets);

/// `pl` with the arena of each buffer from `arenas`: None (leave `pl` as it
/// is: a PlanResult's choice, or every buffer in its own arena), a dict
/// {buffer name: arena id} (a buffer it does not name stays in its own
/// arena) or a sequence of arena ids (None: the buffer's own arena) in
/// buffer order. Raises InputError naming what is wrong.
[[nodiscard]] Placement with_arenas(const Problem& p, Placement pl, py::handle arenas);

/// One arena (id 0, or one per distinct value of `arenas`) and buffer i
/// (unnamed: its label is "i") with sizes[i], [begins[i], ends[i]),
/// alignments[i] (default 1), from integer arrays, without a Python object
/// per buffer. `capacity`: None (no capacity: the arenas get
/// always_fitting_capacity), an int (every arena) or a dict {arena id:
/// capacity}.
[[nodiscard]] ProblemFile problem_from_arrays(const py::object& sizes, const py::object& begins,
                                              const py::object& ends, const py::object& alignments,
                                              const py::object& arenas, const py::object& capacity);

void bind_plan(py::module_& m);
void bind_compile(py::module_& m);

}  // namespace pto_mem::python
