// `pto-mem compile FILE.pto [--soc a2a3|a5|none | --soc-file CHIP.json] [--planner pypto|dsa_rp|ptoas]
//                           [--until parse|infer|init|alias|reuse|alloc]
//                           [--emit ir|json] [--output F] [--svg MAP.svg]
//                           [--dump-after STAGE,...] [--syntax ours|pypto]
//                           [--passes infer,init,alias,reuse,alloc]
//                           [--storage buffer-ir|legacy] [--logical-tile-selection]
//                           [--unknown-ops warn|error]`
//
// Runs the tile-memory pipeline (pto_mem/pypto/passes/pipeline.hpp) and
// prints the program after the last stage (`--emit ir`) or the JSON report
// (`--emit json`, docs/formats.md). Exit codes: 0 success; 1 memory does not
// fit (AllocateMemoryAddr's capacity error); 2 the input was rejected (parse
// or semantic error). Diagnostics go to standard error as
// `file:line:column: error: message [code]`; with `--emit json` the report
// is printed even on failure. `--output` and `--svg` follow the output-safety
// rules of docs/tool.md (paths checked before any work, written all or none,
// never over the input; io/output_set.hpp). `--syntax pypto`
// prints PyPTO's spelling; `--passes` runs exactly the named passes on a
// program already in the state they need. Re-binding a name is read as SSA
// renaming, as PyPTO does.
#pragma once

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pto_mem/io/output_set.hpp"
#include "pto_mem/pypto/memory_map.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/soc/policies.hpp"
#include "pto_mem/pypto/soc/soc_file.hpp"

namespace pto_mem::tool {

struct CompileOptions {
  std::string file;
  std::string format;  ///< --format: pto, the only one (for symmetry with plan; "-" reads standard input)
  std::string soc = "a2a3";
  std::string soc_file;  ///< a chip described in JSON (docs/soc-file.md); replaces --soc
  std::string planner = "pypto";
  std::string until = "alloc";
  std::string emit = "ir";
  std::string output;                   ///< empty: standard output
  std::string svg;                      ///< memory map; needs addresses (--until alloc)
  std::vector<std::string> dump_after;  ///< stages whose output goes to standard error
  std::string syntax = "ours";          ///< printed spelling: ours | pypto
  std::string storage = "buffer-ir";    ///< storage legalisation: buffer-ir | legacy (docs/passes.md)
  bool logical_tile_selection = false;  ///< two-slot selection instead of branch-exit copies (docs/passes.md)
  std::string unknown_ops = "warn";     ///< a call of an unregistered op: warn | error
  std::vector<std::string> passes;      ///< run exactly these passes (empty: the pipeline up to --until)
  bool output_given = false;            ///< --output was on the command line (even empty: refused)
  bool svg_given = false;               ///< --svg was on the command line
};

/// The outputs of a compile, checked before any work (docs/tool.md).
inline bool check_compile_outputs(const CompileOptions& o, OutputSet& outputs, std::ostream& err) {
  if (o.output_given || !o.output.empty()) outputs.add("--output", o.output);
  if (o.svg_given || !o.svg.empty()) outputs.add("--svg", o.svg);
  const Diagnostics ds = o.soc_file.empty() ? outputs.check({o.file}) : outputs.check({o.file, o.soc_file});
  for (const auto& d : ds) err << format(d) << "\n";
  return !has_errors(ds);
}

/// The report of a compile: the program's report plus what ran.
[[nodiscard]] inline nlohmann::ordered_json compile_report(const pypto::CompileResult& r,
                                                           const std::string& soc,
                                                           const std::string& planner) {
  nlohmann::ordered_json base = pypto::report_json(r.program, r.diagnostics, r.report_options());
  nlohmann::ordered_json j;
  j["ok"] = base["ok"];
  j["soc"] = soc;
  j["planner"] = planner;
  auto stages = nlohmann::ordered_json::array();
  for (auto s : r.ran) stages.push_back(std::string(pypto::to_string(s)));
  j["stages"] = std::move(stages);
  j["functions"] = std::move(base["functions"]);
  j["diagnostics"] = std::move(base["diagnostics"]);
  return j;
}

inline int run_compile(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  using namespace pypto;
  pypto::CompileOptions options;
  auto soc = soc_by_name(o.soc);
  if (!o.soc_file.empty()) {  // --soc-file: the chip from a JSON description, or its errors
    SocFileResult loaded = load_soc_file(o.soc_file);
    for (const auto& d : loaded.diagnostics) err << format(d) << "\n";
    if (!loaded.soc) return 2;
    soc = std::move(loaded.soc);
  }
  const std::string soc_label = o.soc_file.empty() || !soc ? o.soc : soc->soc_name;
  auto planner = parse_planner(o.planner);
  auto until = parse_stage(o.until);
  if (!soc || !planner || !until) {  // CLI11 checks these; a caller of run_compile may not
    err << "pto-mem: error: unknown --soc, --planner or --until value\n";
    return 2;
  }
  if (!o.svg.empty() && (*until != Stage::alloc || *planner == Planner::ptoas)) {
    err << "pto-mem: error: --svg draws assigned addresses, so it needs --until alloc and the pypto or "
           "dsa_rp "
           "planner (ptoas assigns no addresses)\n";
    return 2;
  }
  options.soc = *soc;
  options.planner = *planner;
  options.until = *until;
  options.print_options.syntax = o.syntax == "pypto" ? Syntax::pypto : Syntax::ours;
  options.buffer_ir = o.storage != "legacy";
  if (o.logical_tile_selection && (!options.buffer_ir || *planner == Planner::ptoas)) {
    err << "pto-mem: error: --logical-tile-selection needs --storage buffer-ir and the pypto or dsa_rp "
           "planner "
           "(the legacy path leaves branch phis to YieldFixup, and ptoas places allocations and reconciles "
           "branch phis itself)\n";
    return 2;
  }
  options.logical_tile_selection = o.logical_tile_selection;
  if (auto u = parse_unknown_ops(o.unknown_ops)) {
    options.unknown_ops = *u;
  } else {
    err << "pto-mem: error: --unknown-ops takes warn or error, not '" << o.unknown_ops << "'\n";
    return 2;
  }
  for (const auto& p : o.passes) {
    auto s = parse_stage(p);
    if (!s || *s == Stage::parse) {
      err << "pto-mem: error: --passes: unknown pass '" << p
          << "'; expected infer, init, alias, reuse or alloc\n";
      return 2;
    }
    options.passes.push_back(*s);
  }
  if (!o.svg.empty() && !options.passes.empty() &&
      std::find(options.passes.begin(), options.passes.end(), Stage::alloc) == options.passes.end()) {
    err << "pto-mem: error: --svg draws assigned addresses, so --passes must include alloc\n";
    return 2;
  }
  for (const auto& d : o.dump_after) {
    auto s = parse_stage(d);
    if (!s) {
      err << "pto-mem: error: --dump-after: unknown stage '" << d << "'\n";
      return 2;
    }
    options.dump_after.push_back(*s);
  }

  OutputSet outputs;
  if (!check_compile_outputs(o, outputs, err)) return 2;

  std::ifstream in(o.file == "-" ? std::string("/dev/stdin") : o.file, std::ios::binary);
  if (!in) {
    err << o.file << ": error: cannot open the file\n";
    if (o.emit == "json") {
      CompileResult r;
      r.diagnostics.push_back(error_at(o.file, {}, "cannot open the file"));
      out << compile_report(r, soc_label, o.planner).dump(2) << "\n";
    }
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  ParseOptions parse_options;
  parse_options.allow_rebinding = true;  // PyPTO's programs re-bind names (SSA renaming)
  CompileResult r = compile_source(text.str(), o.file, options, parse_options);

  for (const auto& d : r.dumps) err << "# ---- after " << to_string(d.stage) << " ----\n" << d.text;
  for (const auto& d : r.diagnostics) err << format(d) << "\n";

  int rc = r.exit_code();
  // The program (even an empty one: an empty .pto still replaces a stale
  // output) or the report; the memory map when addresses were assigned.
  if (o.emit == "json" || r.ok()) {
    std::string printed = o.emit == "json" ? compile_report(r, soc_label, o.planner).dump(2) + "\n"
                                           : print(r.program, options.print_options);
    if (o.output_given || !o.output.empty())
      outputs.set_text("--output", std::move(printed));
    else
      out << printed;
  }
  if (!o.svg.empty() && r.ok() && r.addresses_assigned)
    outputs.set_text("--svg", memory_map_svg(r.program, options.soc, r.allocation_addresses));
  if (!outputs.empty()) {
    out.flush();
    const Diagnostics ds = outputs.commit();
    for (const auto& d : ds) err << format(d) << "\n";
    if (has_errors(ds)) rc = 2;
  }
  return rc;
}

}  // namespace pto_mem::tool

/// Registers `compile` on the tool's command line.
inline void add_compile_command(CLI::App& app) {
  auto opts = std::make_shared<pto_mem::tool::CompileOptions>();
  CLI::App* sub = app.add_subcommand("compile", "Run the tile-memory pipeline on a .pto program");
  sub->add_option("file", opts->file, "Program in the tile-IR text format (.pto); - reads standard input")
      ->required();
  sub->add_option("--format", opts->format, "Input format: pto (the only one; any extension is read as it)")
      ->check(CLI::IsMember({"pto"}));
  sub->add_option("--soc", opts->soc, "Target SoC: capacities, Acc row alignment, transfer routes")
      ->check(CLI::IsMember({"a2a3", "a5", "none"}))
      ->capture_default_str();
  sub->add_option("--soc-file", opts->soc_file, "Target chip described in a JSON file (docs/soc-file.md)")
      ->excludes(sub->get_option("--soc"));
  sub->add_option("--planner", opts->planner, "Address planner")
      ->check(CLI::IsMember({"pypto", "dsa_rp", "ptoas"}))
      ->capture_default_str();
  sub->add_option("--until", opts->until, "Stop after this stage")
      ->check(CLI::IsMember({"parse", "infer", "init", "alias", "reuse", "alloc"}))
      ->capture_default_str();
  sub->add_option("--emit", opts->emit, "Output: the program text or a JSON report")
      ->check(CLI::IsMember({"ir", "json"}))
      ->capture_default_str();
  CLI::Option* output =
      sub->add_option("--output,-o", opts->output, "Write the output here instead of standard output");
  CLI::Option* svg = sub->add_option("--svg", opts->svg,
                                     "Write a memory map of the planned allocations (needs --until alloc)");
  sub->add_option("--dump-after", opts->dump_after, "Print the program to standard error after these stages")
      ->delimiter(',')
      ->check(CLI::IsMember({"parse", "infer", "init", "alias", "reuse", "alloc"}));
  sub->add_option("--syntax", opts->syntax,
                  "Spelling of the printed program: ours or PyPTO's (@pl.program ...)")
      ->check(CLI::IsMember({"ours", "pypto"}))
      ->capture_default_str();
  sub->add_option(
         "--storage", opts->storage,
         "Storage legalisation in MaterializeSemanticAliases: the Buffer IR rules, or PyPTO's legacy path "
         "(its PassContext default; the tile-storage verifier still checks the result)")
      ->check(CLI::IsMember({"buffer-ir", "legacy"}))
      ->capture_default_str();
  sub->add_flag(
      "--logical-tile-selection", opts->logical_tile_selection,
      "Where a branch exit would copy one of two compatible compiler-owned Vec/Mat tiles into the "
      "if's result, put both in the two slots of one allocation and select the slot at run time (no "
      "copy; a sync pass must add a barrier at the if's exit; docs/passes.md)");
  sub->add_option(
         "--unknown-ops", opts->unknown_ops,
         "A call of an op the registry does not describe (a typo such as tile.expp): a warning naming "
         "the closest registered op and what was assumed, or an error")
      ->check(CLI::IsMember({"warn", "error"}))
      ->capture_default_str();
  sub->add_option("--passes", opts->passes,
                  "Run exactly these passes, in order, on a program already in the state they need")
      ->delimiter(',')
      ->check(CLI::IsMember({"infer", "init", "alias", "reuse", "alloc"}));
  sub->callback([opts, output, svg] {
    opts->output_given = output->count() > 0;
    opts->svg_given = svg->count() > 0;
    const int rc = pto_mem::tool::run_compile(*opts, std::cout, std::cerr);
    std::cout.flush();
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}
