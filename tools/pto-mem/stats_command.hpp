// `pto-mem stats FILE`: what a problem holds before any planning: buffers,
// arenas, the lower bound on the peak and the largest number of live buffers.
#pragma once

#include <iostream>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/arena_label.hpp"
#include "tool_support.hpp"

namespace pto_mem::tool {

struct StatsArgs {
  std::string file;
  std::string format;  ///< --format: csv or json (empty: by the extension)
};

inline void run_stats(const StatsArgs& a) {
  const ProblemFile in = load_problem(a.file, std::nullopt, a.format);
  const Problem& p = in.problem;
  const auto loads = arena_loads(p);
  const auto labels = arena_labels(p);
  std::cout << "buffers: " << p.buffers.size() << '\n'
            << "arenas: " << p.arenas.size() << '\n'
            << "must-alias groups: " << p.must_alias.size() << ", separations: " << p.separations.size();
  // A separation between two arenas asks nothing (different memories never
  // overlap); the file may hold them (other planners write them), so say how many.
  if (const std::size_t vacuous = vacuous_separations(p); vacuous > 0)
    std::cout << " (" << vacuous << " vacuous: between two arenas)";
  std::cout << ", penalties: " << p.penalties.size() << ", declared allocations: " << p.declared.size()
            << '\n';
  Table t({"arena", "buffers", "max load", "reserved", "max-load bound", "max live"});
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    t.add({labels[k], std::to_string(loads[k].buffers), std::to_string(loads[k].max_load),
           std::to_string(loads[k].reserved_bytes), std::to_string(loads[k].lower_bound),
           std::to_string(loads[k].max_live)});
  t.print(std::cout);
}

inline void add_stats_command(CLI::App& app) {
  auto a = std::make_shared<StatsArgs>();
  CLI::App* cmd =
      app.add_subcommand("stats", "Print buffers, arenas, the max-load bound and the largest live count");
  cmd->add_option("FILE", a->file, "problem: .csv or .json; - reads standard input")->required();
  add_format_option(cmd, a->format);
  cmd->callback([a] { run_stats(*a); });
}

}  // namespace pto_mem::tool
