// `pto-mem validate FILE`: check the offsets a file carries against every
// rule of the model; exit 1 and name the buffers when one is broken.
#pragma once

#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/arena_label.hpp"
#include "tool_support.hpp"

namespace pto_mem::tool {

struct ValidateArgs {
  std::string file;
  std::string format;    ///< --format: csv or json (empty: by the extension)
  std::string solution;  ///< --solution: a schema-v1 solution of FILE (a schema-v1 problem)
  Addr capacity = 0;
  CLI::Option* capacity_option = nullptr;
};

inline void run_validate(ValidateArgs& a) {
  const std::optional<Addr> capacity =
      a.capacity_option->count() > 0 ? std::optional<Addr>(a.capacity) : std::nullopt;
  std::optional<DsaDocument> dsa;
  ProblemFile in = load_problem(a.file, capacity, a.format, &dsa);
  const std::string name = input_name(a.file);
  if (!a.solution.empty()) {  // the offsets come from a schema-v1 solution of the problem
    if (!dsa) fail_input(name, "--solution reads a DSA schema-v1 solution: FILE must be a schema-v1 problem");
    auto src = read_source_text(a.solution);
    ReadResult sol = src.text ? read_dsa_solution(*src.text, a.solution, *dsa, in.problem)
                              : ReadResult{std::nullopt, std::move(src.diagnostics)};
    if (!sol) {
      print_diagnostics(std::move(sol.diagnostics), a.solution);
      exit_with(exit_bad_input);
    }
    in.placement = std::move(sol.file->placement);
  }
  if (!in.placement)
    fail_input(name,
               "the file carries no offsets to validate; add an 'offset' column (CSV) or a "
               "\"placement\" array (JSON)");
  // An arena the file gives no capacity has none to check: the reader's
  // always-fitting capacity is a planning device, not a limit.
  std::vector<std::string> unchecked;
  const auto labels = arena_labels(in.problem);
  for (std::size_t k = 0; k < in.problem.arenas.size() && k < in.no_capacity.size(); ++k)
    if (in.no_capacity[k]) {
      in.problem.arenas[k].capacity = max_addr;
      unchecked.push_back(labels[k]);
    }
  if (!unchecked.empty()) {
    std::string list;
    for (const auto& l : unchecked) list += (list.empty() ? "" : ", ") + l;
    std::cout << "capacity: not checked for " << list
              << (problem_format(a.file, a.format) == "csv" ? " (no --capacity given)"
                                                            : " (the file gives no capacity)")
              << '\n';
  }
  // The reader accepted the problem (io/problem_file.hpp): only the placement is left to check.
  const Diagnostics violations = validate_placement(in.problem, *in.placement);
  if (has_errors(violations)) {
    print_diagnostics(violations, name);
    std::size_t n = 0;
    for (const auto& d : violations) n += d.severity == Severity::error ? 1 : 0;
    std::cerr << terminal_text(name) << ": " << n << (n == 1 ? " violation" : " violations") << '\n';
    exit_with(exit_no_fit);
  }
  print_diagnostics(violations, name);  // warnings, if any
  const Objective o = evaluate_objective(in.problem, *in.placement);
  const auto loads = arena_loads(in.problem);
  Table t({"arena", "buffers", "capacity", "max-load bound", "peak", "peak/bound"});
  for (std::size_t k = 0; k < in.problem.arenas.size(); ++k)
    t.add({labels[k], std::to_string(loads[k].buffers),
           k < in.no_capacity.size() && in.no_capacity[k] ? "none"
                                                          : std::to_string(in.problem.arenas[k].capacity),
           std::to_string(loads[k].lower_bound), std::to_string(o.peak_by_arena[k]),
           ratio(o.peak_by_arena[k], loads[k].lower_bound)});
  t.print(std::cout);
  std::cout << "valid: " << in.problem.buffers.size() << " buffers placed";
  if (o.penalty > 0) std::cout << ", penalty " << o.penalty;
  std::cout << '\n';
}

inline void add_validate_command(CLI::App& app) {
  auto a = std::make_shared<ValidateArgs>();
  CLI::App* cmd =
      app.add_subcommand("validate", "Check the placement a file carries; exit 1 on any violation");
  cmd->add_option(
         "FILE", a->file,
         "problem with offsets: .csv with an offset column, or .json with \"placement\"; - reads standard "
         "input")
      ->required();
  add_format_option(cmd, a->format);
  cmd->add_option(
      "--solution", a->solution,
      "check a DSA schema-v1 solution file (dsa-solution-v1: buffer, pool, offset) against FILE, a "
      "schema-v1 problem");
  a->capacity_option =
      cmd->add_option("--capacity", a->capacity, "capacity in bytes of a CSV problem's arena")
          ->check(unsigned_in(1));
  cmd->callback([a] { run_validate(*a); });
}

}  // namespace pto_mem::tool
