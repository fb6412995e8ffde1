// pto-mem-quality: solver quality on instance folders, as a Markdown table.
//
//   pto-mem-quality [--strategies a,b,...] [--seed S] [--restarts R]
//                   [--time-limit SEC] [--no-baselines] FOLDER...
//
// For every `*.csv` instance (MiniMalloc form `id,lower,upper,size`, sorted
// by name) it prints the buffer count, the max-load lower bound and, per
// strategy, the peak, peak / lower bound, whether the placement fits the
// capacity in the file name (`X.<capacity>.csv`; "-" when there is none) and
// the time.
//
// The peak comes from a run with a capacity that always fits (the sum of the
// sizes), so every strategy reports how tight it packs even where it cannot
// meet the real capacity; "fits" comes from a second run at the file's
// capacity (goal fit, as `pto-mem plan --capacity` asks). Strategies
// default to every name in pto_mem::strategies();
// `NAME+compat` runs NAME with PlanOptions::compat_pypto (for greedy: PyPTO's
// DSA-RP bit for bit), and is added for greedy by default. The baselines
// `ff:size` and `ff:birth` are single canonical passes in size order (classic
// size-descending first fit) and birth order (start-time first fit).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "pto_mem/algorithms/dsa_rp/canonical_placer.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/planner.hpp"

namespace {

using namespace pto_mem;
namespace fs = std::filesystem;

struct Column {
  std::string name;      // as printed
  std::string strategy;  // for plan(); empty for a baseline pass
  bool compat = false;
};

struct Cell {
  std::optional<Addr> peak;
  std::optional<bool> fits;
  double seconds = 0;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/// A single canonical pass in a classic order, minimising the peak.
Cell baseline(const Problem& unbounded, const std::string& which, std::optional<Addr> capacity) {
  Cell c;
  const auto start = std::chrono::steady_clock::now();
  const auto space = dsa::build_search_space(unbounded);
  dsa::CanonicalPlacer placer(space, false);
  if (placer.place(which == "ff:size" ? dsa::size_order(space) : dsa::birth_order(space),
                   dsa::PassKind::canonical)) {
    Addr peak = 0;
    for (std::size_t i = 0; i < space.n; ++i) peak = std::max(peak, placer.offsets()[i] + space.size[i]);
    c.peak = peak;
    // A canonical pass places identically at any capacity it fits, so the
    // pass fits a capacity exactly when its peak does.
    if (capacity) c.fits = peak <= *capacity;
  }
  c.seconds = since(start);
  return c;
}

Cell run(const Problem& unbounded, const Column& col, std::optional<Addr> capacity, PlanOptions options) {
  if (col.strategy.empty()) return baseline(unbounded, col.name, capacity);
  Cell c;
  options.strategy = *parse_strategy(col.strategy);  // checked against strategies() when parsed
  options.compat_pypto = col.compat;
  const auto start = std::chrono::steady_clock::now();
  const PlanResult r = plan(unbounded, options);
  c.seconds = since(start);
  if (r.fits()) c.peak = r.objective.max_peak;
  if (capacity) {
    Problem bounded = unbounded;
    bounded.arenas[0].capacity = *capacity;
    options.goal = Goal::fit;  // as `pto-mem plan --capacity`: stop at the first fit
    c.fits = plan(bounded, options).fits();
  }
  return c;
}

std::string ratio(Addr peak, Addr lb) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", lb == 0 ? 0.0 : static_cast<double>(peak) / static_cast<double>(lb));
  return buf;
}

std::string seconds(double s) {
  char buf[32];
  if (s < 1)
    std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", s);
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  PlanOptions options;
  std::vector<std::string> names;
  bool baselines = true;
  std::vector<fs::path> folders;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "pto-mem-quality: " << arg << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (arg == "--strategies")
        names = split(value());
      else if (arg == "--seed")
        options.seed = std::stoull(value());
      else if (arg == "--restarts")
        options.restarts = std::stoull(value());
      else if (arg == "--time-limit")
        options.time_limit_s = std::stod(value());
      else if (arg == "--no-baselines")
        baselines = false;
      else if (arg == "--help" || arg == "-h") {
        std::cout
            << "usage: pto-mem-quality [--strategies a,b,...] [--seed S] [--restarts R] [--time-limit SEC]\n"
               "                       [--no-baselines] FOLDER...\n";
        return 0;
      } else if (!arg.empty() && arg[0] == '-') {
        std::cerr << "pto-mem-quality: unknown option " << arg << " (see --help)\n";
        return 2;
      } else {
        folders.emplace_back(arg);
      }
    } catch (const std::exception&) {
      std::cerr << "pto-mem-quality: " << arg << " needs a number\n";
      return 2;
    }
  }
  if (folders.empty()) {
    std::cerr << "pto-mem-quality: give at least one folder of *.csv instances (see --help)\n";
    return 2;
  }
  if (names.empty()) {
    names = strategies();
    if (std::find(names.begin(), names.end(), "greedy") != names.end()) names.push_back("greedy+compat");
  }
  std::vector<Column> columns;
  const auto known = strategies();
  for (const auto& n : names) {
    Column c{n, n, false};
    if (n.size() > 7 && n.ends_with("+compat")) {
      c.strategy = n.substr(0, n.size() - 7);
      c.compat = true;
    }
    if (std::find(known.begin(), known.end(), c.strategy) == known.end()) {
      std::cerr << "pto-mem-quality: unknown strategy '" << c.strategy << "'\n";
      return 2;
    }
    columns.push_back(c);
  }
  if (baselines) {
    columns.push_back({"ff:size", "", false});
    columns.push_back({"ff:birth", "", false});
  }

  for (const auto& folder : folders) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(folder, ec))
      if (e.path().extension() == ".csv") files.push_back(e.path());
    if (ec) {
      std::cerr << "pto-mem-quality: cannot read folder " << folder << ": " << ec.message() << "\n";
      return 1;
    }
    std::sort(files.begin(), files.end());
    std::cout << "### " << folder.filename().string() << "\n\n| instance | n | lower bound |";
    for (const auto& c : columns) std::cout << " " << c.name << " peak | / LB | fits | time |";
    std::cout << "\n|---|---:|---:|";
    for (std::size_t k = 0; k < columns.size(); ++k) std::cout << "---:|---:|:---:|---:|";
    std::cout << "\n";
    for (const auto& file : files) {
      const auto capacity = bench::capacity_from_name(file);
      const auto problem = bench::read_csv_instance(file);
      if (!problem) {
        std::cerr << "pto-mem-quality: " << file.string()
                  << ": not a CSV instance (id,lower,upper,size), skipped\n";
        continue;
      }
      const Addr lb = arena_loads(*problem)[0].lower_bound;
      std::cout << "| " << file.stem().string() << " | " << problem->buffers.size() << " | " << lb << " |";
      for (const auto& col : columns) {
        const Cell c = run(*problem, col, capacity, options);
        if (c.peak)
          std::cout << " " << *c.peak << " | " << ratio(*c.peak, lb) << " |";
        else
          std::cout << " no fit | - |";
        std::cout << " " << (c.fits ? (*c.fits ? "yes" : "no") : "-") << " | " << seconds(c.seconds) << " |";
      }
      std::cout << "\n" << std::flush;
    }
    std::cout << "\n";
  }
  return 0;
}
