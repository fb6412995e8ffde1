// pto_mem._pto_mem: the problem model, the file formats, the validator, the
// lower bound and the SVG memory map. The planner (plan.cpp) and the
// tile-memory passes (compile.cpp) are bound in their own translation units.
#include <pybind11/stl_bind.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "common.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/dsa_schema.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/json_problem_reader.hpp"
#include "pto_mem/io/svg.hpp"

namespace pto_mem::python {
namespace {

/// A buffer id from Python: a str, or an int written in decimal.
std::string id_from(py::handle h, const char* what) {
  if (py::isinstance<py::str>(h)) return h.cast<std::string>();
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return py::str(h).cast<std::string>();
  throw py::type_error(std::string(what) + " must be a str or an int, not " +
                       py::str(py::type::of(h).attr("__name__")).cast<std::string>());
}

Addr non_negative(std::int64_t v, const char* what) {
  if (v < 0) throw py::value_error(std::string(what) + " must be >= 0, not " + std::to_string(v));
  return static_cast<Addr>(v);
}

std::vector<AddrRange> ranges_from(const py::iterable& items) {
  std::vector<AddrRange> out;
  for (py::handle h : items) {
    auto t = h.cast<std::pair<std::int64_t, std::int64_t>>();
    out.push_back(AddrRange{non_negative(t.first, "a reserved window's begin"),
                            non_negative(t.second, "a reserved window's end")});
  }
  return out;
}

std::vector<AliasMember> members_from(const py::iterable& items) {
  std::vector<AliasMember> out;
  for (py::handle h : items) {
    if (py::isinstance<AliasMember>(h)) out.push_back(h.cast<AliasMember>());
    else if (py::isinstance<py::tuple>(h)) {
      auto t = h.cast<py::tuple>();
      if (t.size() != 2) throw py::value_error("a must-alias member tuple is (buffer id, offset)");
      out.push_back(AliasMember{id_from(t[0], "a member's buffer"), non_negative(t[1].cast<std::int64_t>(), "offset")});
    } else {
      out.push_back(AliasMember{id_from(h, "a member's buffer"), 0});
    }
  }
  return out;
}

std::string quoted(const std::string& s) { return py::repr(py::str(s)).cast<std::string>(); }

ProblemFile read_or_raise(ReadResult r) {
  raise_if_errors(r.diagnostics);
  if (!r.file) raise_error("InputError", "the file holds no problem", r.diagnostics);
  return std::move(*r.file);
}

CsvOptions csv_options(std::optional<std::int64_t> capacity) {
  CsvOptions o;
  if (capacity) o.capacity = non_negative(*capacity, "capacity");
  return o;
}

bool is_json_path(const std::filesystem::path& path) {
  auto ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".json";
}

py::list offsets_list(const Placement& pl) {
  py::list out;
  for (const auto& o : pl.offsets) {
    if (o) out.append(to_int64(*o));
    else out.append(py::none());
  }
  return out;
}

/// The elements of any iterable as a vector (each element cast to T).
template <class T>
std::vector<T> list_of(const py::iterable& items) {
  if (py::isinstance<std::vector<T>>(items)) return items.cast<std::vector<T>>();
  std::vector<T> out;
  for (py::handle h : items) out.push_back(h.cast<T>());
  return out;
}

/// A getter that returns the problem's own list (edits go to the problem).
template <class T>
py::cpp_function live(std::vector<T> Problem::*member) {
  return py::cpp_function([member](Problem& p) -> std::vector<T>& { return p.*member; },
                          py::return_value_policy::reference_internal);
}

/// A setter taking any iterable of T.
template <class T>
py::cpp_function assign(std::vector<T> Problem::*member) {
  return py::cpp_function([member](Problem& p, const py::iterable& items) { p.*member = list_of<T>(items); });
}

void bind_model(py::module_& m) {
  py::class_<Diagnostic>(m, "Diagnostic", "One message: what went wrong, where, and how to fix it.")
      .def_property_readonly("severity", [](const Diagnostic& d) { return std::string(to_string(d.severity)); })
      .def_readonly("code", &Diagnostic::code)
      .def_readonly("message", &Diagnostic::message)
      .def_property_readonly("file", [](const Diagnostic& d) -> std::optional<std::string> {
        if (!d.location || d.location->file.empty()) return std::nullopt;
        return d.location->file;
      })
      .def_property_readonly("line", [](const Diagnostic& d) -> std::optional<std::uint32_t> {
        if (!d.location || d.location->line == 0) return std::nullopt;
        return d.location->line;
      })
      .def_property_readonly("column", [](const Diagnostic& d) -> std::optional<std::uint32_t> {
        if (!d.location || d.location->column == 0) return std::nullopt;
        return d.location->column;
      })
      .def("__str__", [](const Diagnostic& d) { return format(d); })
      .def("__repr__", [](const Diagnostic& d) { return "<Diagnostic " + quoted(format(d)) + ">"; });

  py::class_<Arena>(m, "Arena", "An address space of fixed capacity, with reserved windows no buffer may touch.")
      .def(py::init([](std::int64_t id, std::int64_t capacity, std::string name, const py::iterable& reserved) {
             return Arena{id, std::move(name), non_negative(capacity, "capacity"), ranges_from(reserved)};
           }),
           py::arg("id"), py::arg("capacity"), py::arg("name") = "", py::arg("reserved") = py::list())
      .def_readwrite("id", &Arena::id)
      .def_property("capacity", [](const Arena& a) { return a.capacity; },
                    [](Arena& a, std::int64_t v) { a.capacity = non_negative(v, "capacity"); })
      .def_readwrite("name", &Arena::name)
      .def_property("reserved",
                    [](const Arena& a) {
                      std::vector<std::pair<Addr, Addr>> out;
                      for (const auto& r : a.reserved) out.emplace_back(r.begin, r.end);
                      return out;
                    },
                    [](Arena& a, const py::iterable& r) { a.reserved = ranges_from(r); })
      .def("__repr__", [](const Arena& a) {
        return "Arena(id=" + std::to_string(a.id) + ", capacity=" + std::to_string(a.capacity) +
               ", name=" + quoted(a.name) + ", reserved=" + std::to_string(a.reserved.size()) + " windows)";
      });

  py::class_<BufferSpec>(m, "Buffer", "One allocation request: size, alignment, arena and lifetime [begin, end).")
      .def(py::init([](py::handle id, std::int64_t size, std::pair<Tick, Tick> lifetime, std::int64_t alignment,
                       std::int64_t arena) {
             return BufferSpec{id_from(id, "id"), non_negative(size, "size"), non_negative(alignment, "alignment"),
                               arena, Interval{lifetime.first, lifetime.second}};
           }),
           py::arg("id"), py::arg("size"), py::arg("lifetime"), py::arg("alignment") = 1, py::arg("arena") = 0)
      .def_property("id", [](const BufferSpec& b) { return b.id; },
                    [](BufferSpec& b, py::handle v) { b.id = id_from(v, "id"); })
      .def_property("size", [](const BufferSpec& b) { return b.size; },
                    [](BufferSpec& b, std::int64_t v) { b.size = non_negative(v, "size"); })
      .def_property("alignment", [](const BufferSpec& b) { return b.alignment; },
                    [](BufferSpec& b, std::int64_t v) { b.alignment = non_negative(v, "alignment"); })
      .def_readwrite("arena", &BufferSpec::arena)
      .def_property("begin", [](const BufferSpec& b) { return b.lifetime.begin; },
                    [](BufferSpec& b, Tick v) { b.lifetime.begin = v; })
      .def_property("end", [](const BufferSpec& b) { return b.lifetime.end; },
                    [](BufferSpec& b, Tick v) { b.lifetime.end = v; })
      .def_property("lifetime", [](const BufferSpec& b) { return std::pair{b.lifetime.begin, b.lifetime.end}; },
                    [](BufferSpec& b, std::pair<Tick, Tick> v) { b.lifetime = Interval{v.first, v.second}; })
      .def("__repr__", [](const BufferSpec& b) {
        return "Buffer(id=" + quoted(b.id) + ", size=" + std::to_string(b.size) + ", lifetime=(" +
               std::to_string(b.lifetime.begin) + ", " + std::to_string(b.lifetime.end) +
               "), alignment=" + std::to_string(b.alignment) + ", arena=" + std::to_string(b.arena) + ")";
      });

  py::class_<AliasMember>(m, "AliasMember", "A must-alias member, `offset` bytes above the group's start.")
      .def(py::init([](py::handle buffer, std::int64_t offset) {
             return AliasMember{id_from(buffer, "buffer"), non_negative(offset, "offset")};
           }),
           py::arg("buffer"), py::arg("offset") = 0)
      .def_readwrite("buffer", &AliasMember::buffer)
      .def_readwrite("offset", &AliasMember::offset)
      .def("__repr__", [](const AliasMember& a) {
        return "AliasMember(" + quoted(a.buffer) + ", offset=" + std::to_string(a.offset) + ")";
      });

  py::class_<MustAliasGroup>(m, "MustAliasGroup", "Buffers that are one allocation (views, in-place results).")
      .def(py::init([](const py::iterable& members) { return MustAliasGroup{members_from(members)}; }),
           py::arg("members"))
      .def_property("members", [](const MustAliasGroup& g) { return g.members; },
                    [](MustAliasGroup& g, const py::iterable& v) { g.members = members_from(v); })
      .def("__repr__", [](const MustAliasGroup& g) {
        std::string s = "MustAliasGroup([";
        for (std::size_t i = 0; i < g.members.size(); ++i)
          s += (i ? ", " : "") + quoted(g.members[i].buffer) + "@" + std::to_string(g.members[i].offset);
        return s + "])";
      });

  py::class_<Separation>(m, "Separation", "Two buffers that may never overlap in bytes.")
      .def(py::init([](py::handle a, py::handle b) { return Separation{id_from(a, "a"), id_from(b, "b")}; }),
           py::arg("a"), py::arg("b"))
      .def_readwrite("a", &Separation::a)
      .def_readwrite("b", &Separation::b)
      .def("__repr__", [](const Separation& s) { return "Separation(" + quoted(s.a) + ", " + quoted(s.b) + ")"; });

  py::class_<Penalty>(m, "Penalty", "A weight paid when two lifetime-disjoint buffers overlap in bytes.")
      .def(py::init([](py::handle a, py::handle b, std::int64_t w) {
             return Penalty{id_from(a, "a"), id_from(b, "b"), non_negative(w, "weight")};
           }),
           py::arg("a"), py::arg("b"), py::arg("weight") = 1)
      .def_readwrite("a", &Penalty::a)
      .def_readwrite("b", &Penalty::b)
      .def_readwrite("weight", &Penalty::weight)
      .def("__repr__", [](const Penalty& p) {
        return "Penalty(" + quoted(p.a) + ", " + quoted(p.b) + ", weight=" + std::to_string(p.weight) + ")";
      });

  py::class_<SlotBinding>(m, "SlotBinding", "A buffer bound to one slot of a declared allocation (None: run time).")
      .def(py::init([](py::handle buffer, std::optional<std::uint32_t> slot) {
             return SlotBinding{id_from(buffer, "buffer"), slot};
           }),
           py::arg("buffer"), py::arg("slot") = py::none())
      .def_readwrite("buffer", &SlotBinding::buffer)
      .def_readwrite("slot", &SlotBinding::slot)
      .def("__repr__", [](const SlotBinding& s) {
        return "SlotBinding(" + quoted(s.buffer) + ", slot=" + (s.slot ? std::to_string(*s.slot) : "None") + ")";
      });

  py::class_<DeclaredAllocation>(m, "DeclaredAllocation",
                                 "An author-declared allocation of `slots` equal slots; `buffer` covers them all.")
      .def(py::init([](py::handle buffer, std::uint32_t slots, std::int64_t slot_size, const py::iterable& b) {
             return DeclaredAllocation{id_from(buffer, "buffer"), slots, non_negative(slot_size, "slot_size"),
                                       list_of<SlotBinding>(b)};
           }),
           py::arg("buffer"), py::arg("slots"), py::arg("slot_size"), py::arg("bindings") = py::list())
      .def_readwrite("buffer", &DeclaredAllocation::buffer)
      .def_readwrite("slots", &DeclaredAllocation::slots)
      .def_readwrite("slot_size", &DeclaredAllocation::slot_size)
      .def_readwrite("bindings", &DeclaredAllocation::bindings)
      .def("__repr__", [](const DeclaredAllocation& d) {
        return "DeclaredAllocation(" + quoted(d.buffer) + ", slots=" + std::to_string(d.slots) +
               ", slot_size=" + std::to_string(d.slot_size) + ", " + std::to_string(d.bindings.size()) + " bindings)";
      });

  py::bind_vector<std::vector<Arena>>(m, "ArenaList");
  py::bind_vector<std::vector<BufferSpec>>(m, "BufferList");
  py::bind_vector<std::vector<MustAliasGroup>>(m, "MustAliasList");
  py::bind_vector<std::vector<Separation>>(m, "SeparationList");
  py::bind_vector<std::vector<Penalty>>(m, "PenaltyList");
  py::bind_vector<std::vector<DeclaredAllocation>>(m, "DeclaredList");

  py::class_<Problem>(m, "Problem", "Arenas, buffers and the constraints between them.")
      .def(py::init([](const py::iterable& arenas, const py::iterable& buffers, const py::iterable& must_alias,
                       const py::iterable& separations, const py::iterable& penalties, const py::iterable& declared) {
             return Problem{list_of<Arena>(arenas),           list_of<BufferSpec>(buffers),
                            list_of<MustAliasGroup>(must_alias), list_of<Separation>(separations),
                            list_of<Penalty>(penalties),       list_of<DeclaredAllocation>(declared)};
           }),
           py::arg("arenas") = py::list(), py::arg("buffers") = py::list(), py::arg("must_alias") = py::list(),
           py::arg("separations") = py::list(), py::arg("penalties") = py::list(), py::arg("declared") = py::list())
      .def_property("arenas", live(&Problem::arenas), assign<Arena>(&Problem::arenas))
      .def_property("buffers", live(&Problem::buffers), assign<BufferSpec>(&Problem::buffers))
      .def_property("must_alias", live(&Problem::must_alias), assign<MustAliasGroup>(&Problem::must_alias))
      .def_property("separations", live(&Problem::separations), assign<Separation>(&Problem::separations))
      .def_property("penalties", live(&Problem::penalties), assign<Penalty>(&Problem::penalties))
      .def_property("declared", live(&Problem::declared), assign<DeclaredAllocation>(&Problem::declared))
      .def_property_readonly("buffer_ids",
                             [](const Problem& p) {
                               std::vector<std::string> ids;
                               ids.reserve(p.buffers.size());
                               for (const auto& b : p.buffers) ids.push_back(b.id);
                               return ids;
                             })
      .def_static("from_arrays", &problem_from_arrays, py::arg("sizes"), py::arg("begins"), py::arg("ends"),
                  py::arg("alignments") = py::none(), py::kw_only(), py::arg("arenas") = py::none(),
                  py::arg("capacity") = py::none())
      .def("copy", [](const Problem& p) { return p; })
      .def("__copy__", [](const Problem& p) { return p; })
      .def("__deepcopy__", [](const Problem& p, py::dict) { return p; }, py::arg("memo"))
      .def("to_json", [](const Problem& p, py::object offsets) {
             if (offsets.is_none()) return json_problem_text(p);
             const Placement pl = placement_from(p, offsets);
             return json_problem_text(p, &pl);
           }, py::arg("offsets") = py::none())
      .def("to_csv", [](const Problem& p, py::object offsets) {
             std::optional<Placement> pl;
             if (!offsets.is_none()) pl = placement_from(p, offsets);
             TextResult t = to_csv(p, pl ? &*pl : nullptr);
             raise_if_errors(t.diagnostics);
             return *t.text;
           }, py::arg("offsets") = py::none())
      .def("__repr__", [](const Problem& p) {
        return "<Problem: " + std::to_string(p.arenas.size()) + " arenas, " + std::to_string(p.buffers.size()) +
               " buffers, " + std::to_string(p.must_alias.size()) + " must-alias groups, " +
               std::to_string(p.separations.size()) + " separations, " + std::to_string(p.penalties.size()) +
               " penalties, " + std::to_string(p.declared.size()) + " declared>";
      });
}

void bind_io(py::module_& m) {
  m.def("parse_csv", [](const std::string& text, std::optional<std::int64_t> capacity, const std::string& file) {
    return read_or_raise(read_csv(text, csv_options(capacity), file)).problem;
  }, py::arg("text"), py::kw_only(), py::arg("capacity") = py::none(), py::arg("file") = "<string>");
  m.def("read_csv", [](const std::filesystem::path& path, std::optional<std::int64_t> capacity) {
    return read_or_raise(read_csv_file(path, csv_options(capacity))).problem;
  }, py::arg("path"), py::kw_only(), py::arg("capacity") = py::none());
  m.def("parse_json", [](const std::string& text, const std::string& file) {
    return read_or_raise(read_json_problem(text, file)).problem;
  }, py::arg("text"), py::kw_only(), py::arg("file") = "<string>");
  m.def("read_json", [](const std::filesystem::path& path) { return read_or_raise(read_json_problem_file(path)).problem; },
        py::arg("path"));
  // PyPTO's DSA schema v1 (io/dsa_schema.hpp): the problem, and what a
  // schema-v1 solution repeats (instance, profile, fingerprint, the document's
  // buffer id of each buffer) with the goal its objective asks for.
  m.def("read_dsa", [](const std::filesystem::path& path) {
    DsaReadResult r = read_dsa_problem_file(path);
    ProblemFile f = read_or_raise(std::move(r.read));
    const DsaDocument& d = *r.document;
    using namespace pybind11::literals;
    py::dict info("instance"_a = d.instance, "profile"_a = d.profile, "fingerprint"_a = d.fingerprint,
                  "buffer_ids"_a = d.buffer_ids, "objective_terms"_a = d.objective_terms,
                  "goal"_a = d.goal == Goal::fit ? "fit" : "minimise");
    return py::make_tuple(std::move(f.problem), std::move(info));
  }, py::arg("path"));
  m.def("read_placement", [](const std::filesystem::path& path, std::optional<std::int64_t> capacity) {
    ProblemFile f = read_or_raise(is_json_path(path) ? read_json_problem_file(path)
                                                     : read_csv_file(path, csv_options(capacity)));
    if (!f.placement) {
      Diagnostics ds{error_at(SourceLocation{path.string(), 0, 0}, "the file has no offsets; add an offset column (CSV) "
                                                          "or \"offset\" fields (JSON), or read it with read_csv/read_json")};
      raise_error("InputError", joined(ds), ds);
    }
    return py::make_tuple(std::move(f.problem), offsets_list(*f.placement));
  }, py::arg("path"), py::kw_only(), py::arg("capacity") = py::none());
}

void bind_checks(py::module_& m) {
  m.def("validate", [](const Problem& p, py::object offsets) {
    if (offsets.is_none()) return validate(p);
    const Placement pl = placement_from(p, offsets);
    py::gil_scoped_release release;
    return validate(p, pl);
  }, py::arg("problem"), py::arg("offsets") = py::none());
  m.def("lower_bound", [](const Problem& p) {
    raise_if_errors(validate(p));
    std::vector<Addr> out;
    for (const auto& l : arena_loads(p)) out.push_back(l.lower_bound);
    return out;
  }, py::arg("problem"));
  m.def("to_svg", [](const Problem& p, py::object offsets, std::optional<std::filesystem::path> path, double width,
                     double panel_height) {
    raise_if_errors(validate(p));
    const Placement pl = placement_from(p, offsets);
    SvgOptions o;
    o.width = width;
    o.panel_height = panel_height;
    std::string text;
    {
      py::gil_scoped_release release;
      text = svg_memory_map(p, pl, o);
    }
    if (path) {
      if (auto d = write_file_atomically(*path, text)) raise_error("InputError", format(*d), Diagnostics{*d});
    }
    return text;
  }, py::arg("problem"), py::arg("offsets"), py::arg("path") = py::none(), py::kw_only(), py::arg("width") = 1200.0,
     py::arg("panel_height") = 440.0);
}

}  // namespace

std::int64_t to_int64(Addr v) {
  if (v > static_cast<Addr>(INT64_MAX)) throw py::value_error("offset " + std::to_string(v) + " exceeds int64");
  return static_cast<std::int64_t>(v);
}

}  // namespace pto_mem::python

PYBIND11_MODULE(_pto_mem, m) {
  using namespace pto_mem::python;
  m.doc() = "pto_mem: static on-chip memory planning (see docs/python.md)";
  bind_model(m);
  bind_io(m);
  bind_checks(m);
  bind_plan(m);
  bind_compile(m);
}
