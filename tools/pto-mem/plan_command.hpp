// `pto-mem plan FILE`: place every buffer, print a per-arena summary, and
// write the placement, the JSON report and the SVG memory map on request.
// With --explain, a problem that does not fit is explained (a minimal
// conflicting subset, the bytes short, the least capacity that fits:
// algorithms/explain.hpp) in the summary and in the report.
#pragma once

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "pto_mem/algorithms/explain.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/arena_label.hpp"
#include "pto_mem/io/explain_json.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/io/report.hpp"
#include "pto_mem/io/svg.hpp"
#include "pto_mem/planner.hpp"
#include "search_session.hpp"
#include "tool_support.hpp"

namespace pto_mem::tool {

struct PlanArgs {
  std::string file;
  std::string format;  ///< --format: csv or json (empty: by the extension)
  Addr capacity = 0;
  CLI::Option* capacity_option = nullptr;
  bool minimize = false;
  std::string compat;
  std::string output, report, svg, solution;
  std::string strategy{to_string(PlanOptions{}.strategy.value())};
  CLI::Option *output_option = nullptr, *report_option = nullptr, *svg_option = nullptr,
              *threads_option = nullptr, *node_limit_option = nullptr, *solution_option = nullptr;
  std::uint64_t node_limit = 0;
  unsigned threads = 1;
  bool quiet = false, progress = false;
  bool explain = false;  ///< --explain: say why a problem does not fit
  PlanOptions options;
};

/// The per-arena summary: buffers, the max-load bound, the proved bound,
/// peak, peak/bound (against the proved bound), fits; the `all` row adds up
/// the arenas and carries the planning time.
inline void print_plan_summary(const Problem& p, const PlanResult& r, std::ostream& out) {
  const auto labels = arena_labels(p);
  // plan() swept the loads already (a second sweep costs a second at a
  // million buffers); it did not when it refused the problem.
  std::vector<Addr> max_load = r.max_load_bound;
  std::vector<std::size_t> buffers(p.arenas.size(), 0);
  if (max_load.size() == p.arenas.size()) {
    const ProblemIndex index(p);
    for (const auto& b : p.buffers)
      if (auto k = index.arena(b.arena)) ++buffers[*k];
  } else {
    max_load.clear();
    for (std::size_t k = 0; const auto& load : arena_loads(p)) {
      max_load.push_back(load.lower_bound);
      buffers[k++] = load.buffers;
    }
  }
  Table t({"arena", "buffers", "max-load bound", "proved bound", "peak", "peak/bound", "fits", "time"});
  Addr lb_sum = 0, ml_sum = 0;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    const Addr ml = max_load[k];
    const Addr lb = k < r.lower_bound.size() ? r.lower_bound[k] : ml;
    lb_sum = saturating_add(lb_sum, lb);
    ml_sum = saturating_add(ml_sum, ml);
    if (r.placement) {
      const Addr peak = r.objective.peak_by_arena[k];
      t.add({labels[k], std::to_string(buffers[k]), std::to_string(ml), std::to_string(lb),
             std::to_string(peak), ratio(peak, lb), peak <= p.arenas[k].capacity ? "yes" : "no", ""});
    } else {
      t.add({labels[k], std::to_string(buffers[k]), std::to_string(ml), std::to_string(lb), "-", "-", "no",
             ""});
    }
  }
  char time[32];
  if (r.time_s < 1)
    std::snprintf(time, sizeof time, "%.1f ms", r.time_s * 1000);
  else
    std::snprintf(time, sizeof time, "%.2f s", r.time_s);
  if (r.placement)
    t.add({"all", std::to_string(p.buffers.size()), std::to_string(ml_sum), std::to_string(lb_sum),
           std::to_string(r.objective.total_peak), ratio(r.objective.total_peak, lb_sum),
           r.fits() ? "yes" : "no", time});
  else
    t.add({"all", std::to_string(p.buffers.size()), std::to_string(ml_sum), std::to_string(lb_sum), "-", "-",
           "no", time});
  t.print(out);
  out << "status: " << to_string(r.status) << " (strategy " << r.strategy;
  if (r.placement && r.objective.penalty > 0)
    out << ", penalty " << r.objective.penalty << (r.proved.penalty ? " proved least" : " not proved least");
  if (r.stopped_by != StopReason::completed) out << "; stopped by " << to_string(r.stopped_by);
  out << ")\n";
}

inline void run_plan(PlanArgs& a) {
  // "-o -" writes standard output in the input's format.
  const std::string out_ext = a.output == "-" ? problem_format(a.file, a.format) : extension_of(a.output);
  if (a.output_option->count() > 0 && !a.output.empty() && out_ext != "csv" && out_ext != "json")
    fail_input(a.output, "--output must name a .csv or .json file");
  // Every output path is checked before the problem is even read.
  OutputSet outputs;
  add_output(outputs, a.output_option, a.output);
  add_output(outputs, a.report_option, a.report);
  add_output(outputs, a.svg_option, a.svg);
  add_output(outputs, a.solution_option, a.solution);
  check_outputs(outputs, {a.file});
  // With an output on standard output, the summary goes to standard error.
  std::ostream& info = outputs.writes_standard_output() ? std::cerr : std::cout;

  const std::optional<Addr> capacity =
      a.capacity_option->count() > 0 ? std::optional<Addr>(a.capacity) : std::nullopt;
  std::optional<DsaDocument> dsa;  // set for a DSA schema-v1 problem
  ProblemFile in = load_problem(a.file, capacity, a.format, &dsa);
  if (a.solution_option->count() > 0 && !dsa)
    fail_input(input_name(a.file),
               "--solution writes a DSA schema-v1 solution: FILE must be a schema-v1 problem");
  a.options.compat_pypto = a.compat == "pypto";
  a.options.strategy = *parse_strategy(a.strategy);  // CLI11 checked it against strategies()
  // The goal follows the question the file asks, by the library's own rule
  // (PlanOptions::goal unset): without a capacity (a CSV without --capacity,
  // a JSON problem whose arenas give none -- the readers then set each to
  // always_fitting_capacity) it is the least peak; a capacity asks for a fit.
  if (a.minimize)
    a.options.goal = Goal::minimise;
  else if (dsa)
    a.options.goal = dsa->goal;  // the goal its objective terms ask for
  // Budgets and threads left unset take the library's defaults (the same as
  // C++ and Python): a time limit alone is the whole budget.
  if (a.node_limit_option->count() > 0) a.options.node_limit = a.node_limit;
  if (a.threads_option->count() > 0) a.options.threads = a.threads;
  // The readers return only problems validate() accepts (io/problem_file.hpp):
  // the problem checks ran once, while reading.
  a.options.problem_validated = true;
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  SearchSession session(!a.quiet && (a.progress || terminal), terminal);
  a.options.stop = session.token();
  a.options.progress = session.callback();
  const PlanResult r = plan(in.problem, a.options);
  // --explain: why nothing fits, under the same options (its own budget:
  // the time limit bounds the whole explanation, the node limit each
  // check), the same stop token (an interruption ends it and still writes
  // what it found) and the same progress line.
  std::optional<Explanation> why;
  bool explain_skipped = false;
  if (a.explain && (r.status == Status::infeasible || r.status == Status::no_fit)) {
    if (SearchSession::stop_signal() != 0) {
      explain_skipped = true;  // the user stopped the search: do not start another
    } else {
      session.explaining();
      why = explain(in.problem, r, a.options);
      if (SearchSession::stop_signal() != 0)
        why->diagnostics.push_back(
            note("the explanation was interrupted: what it found so far is reported, and what "
                 "it did not prove is not claimed"));
    }
  }
  session.finish();
  print_diagnostics(r.diagnostics, a.file);
  print_plan_summary(in.problem, r, info);
  if (why) {
    if (!a.quiet)
      for (const auto& line : explanation_lines(in.problem, *why))
        info << "explanation: " << terminal_text(line) << '\n';
    print_diagnostics(why->diagnostics, a.file);
  }
  if (explain_skipped) std::cerr << "pto-mem: note: the search was interrupted, so --explain did not run\n";
  // A problem the planner refuses is bad input: nothing is written.
  if (is_error(r.status)) exit_with(exit_bad_input);

  // Every text first; a format that cannot hold the result fails before
  // any file is touched.
  std::vector<std::string> written;
  if (a.report_option->count() > 0) {
    if (why) {
      auto doc = report_json(in.problem, r);
      doc["explanation"] = explanation_json(in.problem, *why);
      outputs.set_text(a.report_option->get_name(), json_text(doc));
    } else {
      outputs.set_text(a.report_option->get_name(), report_text(in.problem, r));
    }
    written.push_back(a.report);
  }
  if (dsa && a.solution_option->count() > 0) {  // every status, placements only for a fit
    outputs.set_text(a.solution_option->get_name(), dsa_solution_text(*dsa, in.problem, r));
    written.push_back(a.solution);
  }
  if (r.placement) {
    if (a.output_option->count() > 0) {
      if (out_ext == "csv") {
        auto csv = to_csv(in.problem, &*r.placement);
        if (!csv) {
          print_diagnostics(std::move(csv.diagnostics), a.output);
          std::cerr << "pto-mem: note: no output was written\n";
          exit_with(exit_bad_input);
        }
        outputs.set_text(a.output_option->get_name(), std::move(*csv.text));
      } else {
        outputs.set_text(a.output_option->get_name(), json_problem_text(in.problem, &*r.placement));
      }
      written.push_back(a.output);
    }
    if (a.svg_option->count() > 0) {
      SvgOptions svg;
      svg.proved_bound = r.lower_bound;  // drawn beside the max-load bound when a search proved more
      outputs.set_text(a.svg_option->get_name(), svg_memory_map(in.problem, *r.placement, svg));
      written.push_back(a.svg);
    }
  } else if (a.output_option->count() > 0 || a.svg_option->count() > 0) {
    const std::string what = a.output_option->count() == 0 ? a.svg
                             : a.svg_option->count() == 0  ? a.output
                                                           : a.output + " and " + a.svg;
    std::cerr << a.file << ": note: no placement, so " << what << " were not written\n";
  }
  if (!commit_outputs(outputs, info, written)) exit_with(exit_bad_input);
  SearchSession::end_like_the_signal();  // a signal stopped the search: end by it, the outputs written
  if (!r.fits()) exit_with(exit_no_fit);
}

inline void add_plan_command(CLI::App& app) {
  auto a = std::make_shared<PlanArgs>();
  std::string names;
  for (const auto& s : strategies()) names += (names.empty() ? "" : ", ") + s;
  CLI::App* cmd =
      app.add_subcommand("plan", "Place every buffer; print per-arena peaks against the lower bound");
  cmd->add_option("FILE", a->file, "problem: .csv (id,lower,upper,size) or .json (the whole model)")
      ->required();
  add_format_option(cmd, a->format);
  a->capacity_option =
      cmd->add_option("--capacity", a->capacity,
                      "capacity in bytes of a CSV problem's arena (default: minimise the peak)")
          ->check(unsigned_in(1));
  cmd->add_flag("--minimize,--minimise", a->minimize,
                "minimise the peak even when a capacity is given (default: stop at the first fit; "
                "a CSV without --capacity is always minimised)");
  cmd->add_option("--strategy", a->strategy, "planner: one of " + names)
      ->check(CLI::IsMember(strategies()))
      ->capture_default_str();
  cmd->add_option(
         "--time-limit", a->options.time_limit_s,
         "wall-clock budget in seconds; alone it is the whole budget (no node limit then). Default: none, "
         "a node budget instead. A clock cut can change the answer from run to run")
      ->check(positive_seconds());
  a->node_limit_option =
      cmd->add_option(
             "--node-limit", a->node_limit,
             "search-node budget for exact and portfolio (0 = none); deterministic. Default: none with "
             "--time-limit, else 250,000 up to 2,000 buffers, less above")
          ->check(unsigned_in(0));
  cmd->add_option("--seed", a->options.seed, "seed of the randomised restarts")
      ->check(unsigned_in(0))
      ->capture_default_str();
  cmd->add_option("--restarts", a->options.restarts,
                  "number of randomised restarts (the time limit still applies)")
      ->check(unsigned_in(0, std::numeric_limits<std::size_t>::max()))
      ->capture_default_str();
  a->threads_option =
      cmd->add_option(
             "--threads", a->threads,
             "worker threads (1 = this thread; 0 = two when the machine has more than one core; default: "
             "two for --strategy greedy on a machine with two cores or more, else 1)")
          ->check(unsigned_in(0, 1024));
  cmd->add_flag("--quiet,-q", a->quiet,
                "no progress line on standard error (nor, with --explain, explanation lines)");
  cmd->add_flag(
      "--explain", a->explain,
      "when nothing fits (infeasible or no_fit): find a minimal set of buffers and constraints that do not "
      "fit together, the bytes short and the least capacity that fits; printed in the summary and, with "
      "--json, in the report's \"explanation\"");
  cmd->add_flag("--progress", a->progress,
                "show the progress line even when standard error is not a terminal (a line a second)");
  cmd->add_option("--compat", a->compat, "reproduce another tool's placements bit for bit: pypto")
      ->check(CLI::IsMember({"pypto"}));
  a->output_option =
      cmd->add_option("--output,-o", a->output,
                      "write the problem with the placement: OUT.csv or OUT.json (- for standard output)");
  a->report_option =
      cmd->add_option("--json", a->report, "write the JSON report (status, placement, peaks, statistics)");
  a->svg_option = cmd->add_option("--svg", a->svg, "write an SVG memory map (x = time, y = address)");
  a->solution_option =
      cmd->add_option("--solution", a->solution,
                      "write a DSA schema-v1 solution (FILE a schema-v1 problem): status, objective "
                      "values and, for a fit, every buffer's pool and offset");
  cmd->callback([a] { run_plan(*a); });
}

}  // namespace pto_mem::tool
