// pto_mem.compile: the tile-memory pipeline (pto_mem/pypto/passes/pipeline.hpp)
// on program text, as `pto-mem compile` runs it; the report is the tool's
// `--emit json` document as Python dicts. Rejected input and memory that
// does not fit raise pto_mem.CompileError / pto_mem.CapacityError.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"
#include "pto_mem/pypto/memory_map.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/soc/policies.hpp"

namespace pto_mem::python {
namespace {

/// The spellings the printer writes. (PyPTO's own spelling joins this list
/// when the printer learns it.)
const std::vector<std::string>& syntaxes() {
  static const std::vector<std::string> names{"pto"};
  return names;
}

struct PyCompileResult {
  pypto::CompileResult r;
  pypto::SocPolicy soc;
  std::string soc_name, planner_name;
};

py::object to_python(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return py::none();
    case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::ordered_json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::ordered_json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(to_python(v));
      return out;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = to_python(v);
      return out;
    }
    default: return py::none();  // binary and discarded values never occur in a report
  }
}

/// The report of `pto-mem compile --emit json` (docs/formats.md).
nlohmann::ordered_json report(const PyCompileResult& c) {
  nlohmann::ordered_json base = pypto::report_json(c.r.program, c.r.diagnostics, c.r.report_options());
  nlohmann::ordered_json j;
  j["ok"] = base["ok"];
  j["soc"] = c.soc_name;
  j["planner"] = c.planner_name;
  auto stages = nlohmann::ordered_json::array();
  for (auto s : c.r.ran) stages.push_back(std::string(pypto::to_string(s)));
  j["stages"] = std::move(stages);
  j["functions"] = std::move(base["functions"]);
  j["diagnostics"] = std::move(base["diagnostics"]);
  return j;
}

template <class T>
std::string choices(const T& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + std::string(n);
  return s;
}

PyCompileResult run(const std::string& text, const std::string& soc, const std::string& planner,
                    const std::string& until, const std::string& syntax, const std::string& file,
                    bool logical_tile_selection) {
  auto policy = pypto::soc_by_name(soc);
  if (!policy) throw py::value_error("soc must be one of " + choices(pypto::soc_names()) + ", not '" + soc + "'");
  auto p = pypto::parse_planner(planner);
  if (!p) throw py::value_error("planner must be one of pypto, dsa_rp, ptoas, not '" + planner + "'");
  auto stage = pypto::parse_stage(until);
  if (!stage) {
    std::vector<std::string> names;
    for (auto s : pypto::all_stages) names.emplace_back(pypto::to_string(s));
    throw py::value_error("until must be one of " + choices(names) + ", not '" + until + "'");
  }
  if (std::find(syntaxes().begin(), syntaxes().end(), syntax) == syntaxes().end())
    throw py::value_error("syntax must be one of " + choices(syntaxes()) + ", not '" + syntax + "'");
  if (logical_tile_selection && *p == pypto::Planner::ptoas)
    throw py::value_error("logical_tile_selection needs the pypto or dsa_rp planner (ptoas places allocations and "
                          "reconciles branch phis itself)");

  PyCompileResult c;
  c.soc = *policy;
  c.soc_name = soc;
  c.planner_name = planner;
  pypto::CompileOptions o;
  o.soc = *policy;
  o.planner = *p;
  o.until = *stage;
  o.logical_tile_selection = logical_tile_selection;
  {
    py::gil_scoped_release release;
    c.r = pypto::compile_source(text, file, o);
  }
  if (!c.r.ok()) {
    const int code = c.r.exit_code();
    py::dict extra;
    extra["exit_code"] = code;
    extra["report"] = to_python(report(c));
    raise_error(code == 1 ? "CapacityError" : "CompileError", joined(c.r.diagnostics), c.r.diagnostics, extra);
  }
  return c;
}

}  // namespace

void bind_compile(py::module_& m) {
  py::class_<PyCompileResult>(m, "CompileResult", "The planned program (text), its report and any warnings.")
      .def_property_readonly("text", [](const PyCompileResult& c) { return pypto::print(c.r.program); })
      .def_property_readonly("report", [](const PyCompileResult& c) { return to_python(report(c)); })
      .def_property_readonly("diagnostics", [](const PyCompileResult& c) { return c.r.diagnostics; })
      .def_property_readonly("stages", [](const PyCompileResult& c) {
        std::vector<std::string> out;
        for (auto s : c.r.ran) out.emplace_back(pypto::to_string(s));
        return out;
      })
      .def_property_readonly("addresses", [](const PyCompileResult& c) { return c.r.allocation_addresses; })
      .def("memory_map", [](const PyCompileResult& c, std::optional<std::filesystem::path> path) {
        if (!c.r.addresses_assigned) {
          Diagnostics ds{error("the memory map draws assigned addresses: compile with until='alloc' and the "
                               "pypto or dsa_rp planner (ptoas assigns none)")};
          raise_error("InputError", joined(ds), ds);
        }
        std::string svg = pypto::memory_map_svg(c.r.program, c.soc, c.r.allocation_addresses);
        if (path)
          if (auto d = write_file_atomically(*path, svg)) raise_error("InputError", format(*d), Diagnostics{*d});
        return svg;
      }, py::arg("path") = py::none())
      .def("__repr__", [](const PyCompileResult& c) {
        return "<CompileResult " + c.planner_name + " on " + c.soc_name + ": " +
               std::to_string(c.r.program.functions.size()) + " functions, " + std::to_string(c.r.ran.size()) +
               " stages>";
      });

  m.def("compile", &run, py::arg("text"), py::kw_only(), py::arg("soc") = "a2a3", py::arg("planner") = "pypto",
        py::arg("until") = "alloc", py::arg("syntax") = "pto", py::arg("file") = "<string>",
        py::arg("logical_tile_selection") = false);
  m.def("soc_names", [] { return pypto::soc_names(); });
}

}  // namespace pto_mem::python
