// `pto-mem compile FILE.pto [--soc a2a3|a5|none] [--planner pypto|dsa_rp|ptoas]
//                           [--until parse|infer|init|alias|reuse|alloc]
//                           [--emit ir|json] [--output F] [--svg F]`
//
// Exit codes: 0 success; 2 input rejected (parse or semantic error, or a
// stage that is not implemented yet); 1 memory does not fit. With
// `--emit json` the report is printed even on failure.
//
// Part 1 implements `--until parse`; the passes (infer ... alloc) come with
// the tile-memory pipeline.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/soc/policies.hpp"
#include "pto_mem/pypto/text/parser.hpp"
#include "pto_mem/pypto/text/printer.hpp"

namespace pto_mem::tool {

struct CompileOptions {
  std::string file;
  std::string soc = "a2a3";
  std::string planner = "pypto";
  std::string until = "alloc";
  std::string emit = "ir";
  std::string output;  ///< empty: standard output
  std::string svg;     ///< memory map; needs addresses (--until alloc)
};

/// Writes `text` to `path` through a temporary file and a rename, so a
/// failed run never leaves a half-written output behind.
inline bool write_file_atomically(const std::string& path, const std::string& text, std::ostream& err) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      err << "pto-mem: error: cannot write '" << path << "'\n";
      return false;
    }
    out << text;
    if (!out.flush()) {
      err << "pto-mem: error: cannot write '" << path << "'\n";
      std::remove(tmp.c_str());
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    err << "pto-mem: error: cannot write '" << path << "': " << ec.message() << "\n";
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

inline int run_compile(const CompileOptions& o, std::ostream& out, std::ostream& err) {
  if (!o.svg.empty() && o.until != "alloc") {
    err << "pto-mem: error: --svg draws assigned addresses, so it needs --until alloc\n";
    return 2;
  }
  if (o.until != "parse") {
    err << "pto-mem: error: --until " << o.until
        << " is not implemented yet (the memory passes come with the tile-memory pipeline); use --until parse\n";
    return 2;
  }
  pypto::ParseResult parsed = pypto::parse_file(o.file);
  for (const auto& d : parsed.diagnostics) err << format(d) << "\n";
  std::string text;
  if (o.emit == "json") {
    text = pypto::report_json(parsed.program, parsed.diagnostics).dump(2) + "\n";
  } else if (parsed.ok()) {
    text = pypto::print(parsed.program);
  }
  if (!text.empty()) {
    if (o.output.empty()) out << text;
    else if (!write_file_atomically(o.output, text, err)) return 2;
  }
  return parsed.ok() ? 0 : 2;
}

}  // namespace pto_mem::tool

/// Registers `compile` on the tool's command line.
inline void add_compile_command(CLI::App& app) {
  auto opts = std::make_shared<pto_mem::tool::CompileOptions>();
  CLI::App* sub = app.add_subcommand("compile", "Run the tile-memory pipeline on a .pto program");
  sub->add_option("file", opts->file, "Program in the tile-IR text format (.pto)")->required();
  sub->add_option("--soc", opts->soc, "Target SoC: capacities, Acc row alignment, transfer routes")
      ->check(CLI::IsMember({"a2a3", "a5", "none"}))
      ->capture_default_str();
  sub->add_option("--planner", opts->planner, "Address planner")
      ->check(CLI::IsMember({"pypto", "dsa_rp", "ptoas"}))
      ->capture_default_str();
  sub->add_option("--until", opts->until, "Stop after this stage")
      ->check(CLI::IsMember({"parse", "infer", "init", "alias", "reuse", "alloc"}))
      ->capture_default_str();
  sub->add_option("--emit", opts->emit, "Output: the program text or a JSON report")
      ->check(CLI::IsMember({"ir", "json"}))
      ->capture_default_str();
  sub->add_option("--output,-o", opts->output, "Write the output here instead of standard output");
  sub->add_option("--svg", opts->svg, "Write a memory map (needs --until alloc)");
  sub->callback([opts] {
    const int rc = pto_mem::tool::run_compile(*opts, std::cout, std::cerr);
    std::cout.flush();
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}
