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
#include "pto_mem/pypto/soc/soc_file.hpp"

namespace pto_mem::python {
namespace {

struct PyCompileResult {
  pypto::CompileResult r;
  pypto::SocPolicy soc;
  std::string soc_name, planner_name;
  pypto::PrintOptions print_options;
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

/// A list of names: a str ("infer,init" or "infer") or an iterable of str.
std::vector<std::string> names_from(const py::handle& h, const char* what) {
  std::vector<std::string> out;
  if (h.is_none()) return out;
  auto add = [&](std::string s) {
    std::size_t start = 0;
    while (start <= s.size()) {
      const std::size_t comma = std::min(s.find(',', start), s.size());
      std::string word = s.substr(start, comma - start);
      word.erase(0, word.find_first_not_of(' '));
      word.erase(word.find_last_not_of(' ') + 1);
      if (!word.empty()) out.push_back(word);
      start = comma + 1;
    }
  };
  if (py::isinstance<py::str>(h)) {
    add(h.cast<std::string>());
    return out;
  }
  for (py::handle x : py::iter(h)) {
    if (!py::isinstance<py::str>(x))
      throw py::type_error(std::string(what) + " must be a str or a list of str, not a list holding " +
                           type_name(x));
    add(x.cast<std::string>());
  }
  return out;
}

std::string str_from(const py::handle& h, const char* what) {
  if (!py::isinstance<py::str>(h))
    throw py::type_error(std::string(what) + " must be a str, not " + type_name(h));
  return h.cast<std::string>();
}

std::string stage_names() {
  std::vector<std::string> names;
  for (auto s : pypto::all_stages) names.emplace_back(pypto::to_string(s));
  return choices(names);
}

/// compile()'s keyword arguments are `pto-mem compile`'s options, with the
/// same names (dashes as underscores), values and checks (docs/python.md).
PyCompileResult run(const std::string& text, const py::object& soc_in, const py::object& soc_file,
                    const std::string& planner, const std::string& until, const std::string& syntax,
                    const std::string& storage, const py::object& passes, const py::object& dump_after,
                    const std::string& unknown_ops, const std::string& file, bool logical_tile_selection) {
  pypto::CompileOptions o;
  PyCompileResult c;
  if (!soc_file.is_none()) {
    if (!soc_in.is_none())
      throw py::value_error("give soc or soc_file, not both (soc_file describes the whole chip)");
    const auto path = soc_file.cast<std::filesystem::path>();
    pypto::SocFileResult loaded = pypto::load_soc_file(path);
    if (!loaded.soc) raise_error("InputError", joined(loaded.diagnostics), loaded.diagnostics);
    c.soc = std::move(*loaded.soc);
    c.soc_name = c.soc.soc_name;
  } else {
    const std::string soc = soc_in.is_none() ? std::string("a2a3") : str_from(soc_in, "soc");
    auto policy = pypto::soc_by_name(soc);
    if (!policy)
      throw py::value_error("soc must be one of " + choices(pypto::soc_names()) + ", not '" + soc + "'");
    c.soc = *policy;
    c.soc_name = soc;
  }
  auto p = pypto::parse_planner(planner);
  if (!p) throw py::value_error("planner must be one of pypto, dsa_rp, ptoas, not '" + planner + "'");
  auto stage = pypto::parse_stage(until);
  if (!stage) throw py::value_error("until must be one of " + stage_names() + ", not '" + until + "'");
  // "pto" is this module's earlier name of "ours".
  if (syntax != "ours" && syntax != "pypto" && syntax != "pto")
    throw py::value_error("syntax must be one of ours, pypto, not '" + syntax + "'");
  if (storage != "buffer-ir" && storage != "legacy")
    throw py::value_error("storage must be one of buffer-ir, legacy, not '" + storage + "'");
  o.buffer_ir = storage != "legacy";
  if (logical_tile_selection && (!o.buffer_ir || *p == pypto::Planner::ptoas))
    throw py::value_error(
        "logical_tile_selection needs storage='buffer-ir' and the pypto or dsa_rp planner (the "
        "legacy path leaves branch phis to YieldFixup, and ptoas places allocations and reconciles "
        "branch phis itself)");
  const auto unknown = pypto::parse_unknown_ops(unknown_ops);
  if (!unknown) throw py::value_error("unknown_ops must be one of warn, error, not '" + unknown_ops + "'");
  o.unknown_ops = *unknown;
  for (const auto& name : names_from(passes, "passes")) {
    auto s = pypto::parse_stage(name);
    if (!s || *s == pypto::Stage::parse)
      throw py::value_error("passes: unknown pass '" + name +
                            "'; expected infer, init, alias, reuse or alloc");
    o.passes.push_back(*s);
  }
  for (const auto& name : names_from(dump_after, "dump_after")) {
    auto s = pypto::parse_stage(name);
    if (!s)
      throw py::value_error("dump_after: unknown stage '" + name + "'; expected one of " + stage_names());
    o.dump_after.push_back(*s);
  }

  c.planner_name = planner;
  c.print_options.syntax = syntax == "pypto" ? pypto::Syntax::pypto : pypto::Syntax::ours;
  o.soc = c.soc;
  o.planner = *p;
  o.until = *stage;
  o.print_options = c.print_options;
  o.logical_tile_selection = logical_tile_selection;
  pypto::ParseOptions parse_options;
  parse_options.allow_rebinding = true;  // as the tool: PyPTO's programs re-bind names (SSA renaming)
  {
    py::gil_scoped_release release;
    c.r = pypto::compile_source(text, file, o, parse_options);
  }
  if (!c.r.ok()) {
    const int code = c.r.exit_code();
    py::dict extra;
    extra["exit_code"] = code;
    extra["report"] = to_python(report(c));
    raise_error(code == 1 ? "CapacityError" : "CompileError", joined(c.r.diagnostics), c.r.diagnostics,
                extra);
  }
  return c;
}

}  // namespace

void bind_compile(py::module_& m) {
  py::class_<PyCompileResult>(m, "CompileResult", "The planned program (text), its report and any warnings.")
      .def_property_readonly(
          "text", [](const PyCompileResult& c) { return pypto::print(c.r.program, c.print_options); })
      .def_property_readonly("report", [](const PyCompileResult& c) { return to_python(report(c)); })
      .def_property_readonly("diagnostics", [](const PyCompileResult& c) { return c.r.diagnostics; })
      .def_property_readonly("stages",
                             [](const PyCompileResult& c) {
                               std::vector<std::string> out;
                               for (auto s : c.r.ran) out.emplace_back(pypto::to_string(s));
                               return out;
                             })
      .def_property_readonly("addresses", [](const PyCompileResult& c) { return c.r.allocation_addresses; })
      .def_property_readonly("dumps",
                             [](const PyCompileResult& c) {
                               py::dict out;  // stage -> the program after it, in the order the stages ran
                               for (const auto& d : c.r.dumps)
                                 out[py::str(std::string(pypto::to_string(d.stage)))] = d.text;
                               return out;
                             })
      .def(
          "memory_map",
          [](const PyCompileResult& c, std::optional<std::filesystem::path> path) {
            if (!c.r.addresses_assigned) {
              Diagnostics ds{
                  error("the memory map draws assigned addresses: compile with until='alloc' and the "
                        "pypto or dsa_rp planner (ptoas assigns none)")};
              raise_error("InputError", joined(ds), ds);
            }
            std::string svg = pypto::memory_map_svg(c.r.program, c.soc, c.r.allocation_addresses);
            if (path)
              if (auto d = write_file_atomically(*path, svg))
                raise_error("InputError", format(*d), Diagnostics{*d});
            return svg;
          },
          py::arg("path") = py::none())
      .def("__repr__", [](const PyCompileResult& c) {
        return "<CompileResult " + c.planner_name + " on " + c.soc_name + ": " +
               std::to_string(c.r.program.functions.size()) + " functions, " +
               std::to_string(c.r.ran.size()) + " stages>";
      });

  m.def("compile", &run, py::arg("text"), py::kw_only(), py::arg("soc") = py::none(),
        py::arg("soc_file") = py::none(), py::arg("planner") = "pypto", py::arg("until") = "alloc",
        py::arg("syntax") = "ours", py::arg("storage") = "buffer-ir", py::arg("passes") = py::none(),
        py::arg("dump_after") = py::none(), py::arg("unknown_ops") = "warn", py::arg("file") = "<string>",
        py::arg("logical_tile_selection") = false);
  m.def("soc_names", [] { return pypto::soc_names(); });
}

}  // namespace pto_mem::python
