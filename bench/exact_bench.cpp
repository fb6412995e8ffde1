// Exact search benchmarks.
//
//   exact_bench [Google Benchmark flags]   timing suite: fit at capacity on
//                                          each minimalloc instance, one
//                                          canonical dive on idealloc traces
//   exact_bench --table [--repeat N] [--budget SEC]
//                                          the markdown tables of
//                                          docs/benchmarks.md (medians of N runs)
//   exact_bench --lanes [--repeat N]       one thread against two on B, C, E, J
//                                          (fit): time, CPU, nodes, node clocks
//   exact_bench --windows [--window-nodes N]
//                                          time windows of D and J fitted at
//                                          the max load (can a window raise
//                                          the proved bound?)
//   exact_bench --cuts [--window-nodes N]  D and J kept only at their most loaded
//                                          instants, spread over the trace,
//                                          fitted at the max load
//   exact_bench --probes [--window-nodes N]
//                                          D and J fitted at capacities between
//                                          the max load and the best placement
//                                          (a complete run without a fit is a proof)
//   exact_bench --lazy-cuts [--window-nodes N] [--above G]
//                                          the cut relaxation grown by the
//                                          intervals its fits violate, at the
//                                          max load plus G granules of 1 KiB
//   exact_bench --dive-variants N          other draws of the dives' orders on
//                                          idealloc S_1 (N dives each)
//
// Instances are read from PTO_MEM_SHARED_DIR/data (never copied into the
// repository) through io/csv.hpp (bench_support.hpp).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "pto_mem/algorithms/exact.hpp"
#include "pto_mem/algorithms/exact/skyline_dive.hpp"
#include "pto_mem/algorithms/portfolio.hpp"

namespace {

using namespace pto_mem;
namespace fs = std::filesystem;

std::string data_dir(const std::string& suite) { return std::string(PTO_MEM_SHARED_DIR) + "/data/" + suite; }

struct Instance {
  std::string name;
  Problem problem;
};

/// Every CSV of a suite folder, sorted by name. Minimalloc files carry their
/// capacity in the name; the others get an unbounded one (minimise the peak).
std::vector<Instance> load_suite(const std::string& suite, bool named_capacity_only) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(data_dir(suite), ec))
    if (e.path().extension() == ".csv") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<Instance> out;
  for (const auto& f : files) {
    const auto cap = bench::capacity_from_name(f);
    if (named_capacity_only && (!cap || *cap < 1024)) continue;  // the 5-buffer example is not a benchmark
    auto p = bench::read_csv_instance(f, cap);
    if (!p) continue;  // the reader said why on stderr
    out.push_back({fs::path(f).stem().string(), std::move(*p)});
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::int64_t stat(const ExactResult& r, const std::string& key) {
  for (const auto& [k, v] : r.statistics.extra)
    if (k == key) return v;
  return -1;
}

Addr peak_of(const Problem& p, const ExactResult& r) {
  return r.placement ? evaluate_objective(p, *r.placement).total_peak : 0;
}

ExactOptions options(ExactMode mode, double budget, unsigned threads) {
  ExactOptions o;
  o.mode = mode;
  o.time_limit_s = budget;
  o.threads = threads;
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

std::string pct(Addr peak, Addr lb) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f %%",
                lb == 0 ? 0.0 : 100.0 * (static_cast<double>(peak) / static_cast<double>(lb) - 1.0));
  return buf;
}

void table_minimalloc(int repeat, double budget) {
  std::printf("### minimalloc challenging suite\n\n");
  std::printf(
      "Fit: a placement under the capacity 1048576 (medians of %d runs). Minimise: the same buffers without "
      "a "
      "capacity, %.0f s budget, 1 thread.\n\n",
      repeat, budget);
  std::printf(
      "| instance | n | max-load bound | greedy peak | fit: status | fit: time, 1 thread | fit: time, 2 "
      "threads | nodes | portfolio fit, 2 threads | "
      "minimise: first placement | minimise: status | peak / proved bound | gap | time |\n");
  std::printf("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
  for (auto& [name, p] : load_suite("minimalloc", true)) {
    const Addr lb = arena_loads(p)[0].lower_bound;
    // The portfolio's greedy stage (the DSA-RP canonical greedy), without a capacity.
    Problem open = p;
    open.arenas[0].capacity = Addr{1} << 62;
    Addr ff = 0;
    if (auto g = exact::greedy_placement(open); g) ff = evaluate_objective(open, *g).total_peak;
    std::vector<double> t1, t2, t3;
    ExactResult fit, port;
    for (int k = 0; k < repeat; ++k) {
      auto t = std::chrono::steady_clock::now();
      fit = solve_exact(p, options(ExactMode::fit, 60, 1));
      t1.push_back(seconds_since(t));
      t = std::chrono::steady_clock::now();
      (void)solve_exact(p, options(ExactMode::fit, 60, 2));
      t2.push_back(seconds_since(t));
      // What `pto-mem plan FILE --capacity 1048576` runs: the portfolio, goal fit.
      PortfolioOptions po;
      po.goal = Goal::fit;
      po.time_limit_s = 60;
      po.threads = 2;
      t = std::chrono::steady_clock::now();
      port = solve_portfolio(p, po);
      t3.push_back(seconds_since(t));
    }
    const auto t_mini = std::chrono::steady_clock::now();
    const auto mini = solve_exact(open, options(ExactMode::minimise, budget, 1));
    const double mini_time = seconds_since(t_mini);
    const Addr mp = peak_of(open, mini);
    std::printf(
        "| %s | %zu | %llu | %s | %s | %.3f s | %.3f s | %lld | %s, %.3f s | %lld ms | %s | %llu / %llu | %s "
        "| %.2f s |\n",
        name.c_str(), p.buffers.size(), static_cast<unsigned long long>(lb),
        ff == 0 ? "no fit" : (std::to_string(ff) + " (" + pct(ff, lb) + ")").c_str(), to_string(fit.status),
        median(t1), median(t2), static_cast<long long>(stat(fit, "exact_nodes")), to_string(port.status),
        median(t3), static_cast<long long>(stat(mini, "first_found_ms")), to_string(mini.status),
        static_cast<unsigned long long>(mp), static_cast<unsigned long long>(mini.lower_bound[0]),
        pct(mp, mini.lower_bound[0]).c_str(), mini_time);
    std::fflush(stdout);
  }
  std::printf("\n");
}

void table_idealloc(int repeat, double budget) {
  std::printf("### idealloc traces: minimise the peak, %.0f s budget, 1 thread\n\n", budget);
  std::printf(
      "| instance | n | max-load bound | status | peak | above the bound | best found after | total time "
      "|\n");
  std::printf("|---|---:|---:|---|---:|---:|---:|---:|\n");
  for (auto& [name, p] : load_suite("idealloc", false)) {
    std::vector<double> total, found;
    ExactResult r;
    for (int k = 0; k < repeat; ++k) {
      const auto t = std::chrono::steady_clock::now();
      r = solve_exact(p, options(ExactMode::minimise, budget, 1));
      total.push_back(seconds_since(t));
      found.push_back(static_cast<double>(stat(r, "best_found_ms")) / 1000.0);
    }
    const Addr peak = peak_of(p, r);
    std::printf("| %s | %zu | %llu | %s | %llu | %s | %.3f s | %.3f s |\n", name.c_str(), p.buffers.size(),
                static_cast<unsigned long long>(r.lower_bound[0]), to_string(r.status),
                static_cast<unsigned long long>(peak), pct(peak, r.lower_bound[0]).c_str(), median(found),
                median(total));
    std::fflush(stdout);
  }
  std::printf("\n");
}

/// A capacity x horizon rectangle cut at random into `pieces` buffers (a
/// perfect packing: the optimum peak is the capacity). splitmix64, seeded.
Problem guillotine(std::uint64_t seed, Addr capacity, Tick horizon, std::size_t pieces) {
  std::uint64_t state = seed;
  auto next = [&state]() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  struct Rect {
    Addr a0, a1;
    Tick t0, t1;
  };
  std::vector<Rect> rs{{0, capacity, 0, horizon}};
  for (std::size_t tries = 0; rs.size() < pieces && tries < 100 * pieces; ++tries) {
    const std::size_t k = next() % rs.size();
    const Rect r = rs[k];
    if (next() % 2 == 0 && r.a1 - r.a0 >= 2) {
      const Addr c = r.a0 + 1 + next() % (r.a1 - r.a0 - 1);
      rs[k] = {r.a0, c, r.t0, r.t1};
      rs.push_back({c, r.a1, r.t0, r.t1});
    } else if (r.t1 - r.t0 >= 2) {
      const Tick c = r.t0 + 1 + static_cast<Tick>(next() % static_cast<std::uint64_t>(r.t1 - r.t0 - 1));
      rs[k] = {r.a0, r.a1, r.t0, c};
      rs.push_back({r.a0, r.a1, c, r.t1});
    }
  }
  Problem p;
  p.arenas.push_back({0, "puzzle", capacity, {}});
  for (std::size_t i = 0; i < rs.size(); ++i)
    p.buffers.push_back({std::to_string(i), rs[i].a1 - rs[i].a0, 1, 0, {rs[i].t0, rs[i].t1}});
  return p;
}

void table_guillotine(int repeat, double budget) {
  std::printf(
      "### Perfect-packing puzzles (random guillotine cuts), fit at capacity, %.0f s budget, 1 thread, "
      "medians of %d\n\n",
      budget, repeat);
  std::printf(
      "| pieces | capacity x horizon | seed | status | time | nodes |\n|---:|---|---:|---|---:|---:|\n");
  for (std::size_t pieces : {50u, 100u, 200u, 400u, 1000u}) {
    const Addr cap = 1u << 20;
    const Tick horizon = static_cast<Tick>(pieces) * 10;
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Problem p = guillotine(seed, cap, horizon, pieces);
      std::vector<double> t;
      ExactResult r;
      for (int k = 0; k < repeat; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        r = solve_exact(p, options(ExactMode::fit, budget, 1));
        t.push_back(seconds_since(t0));
      }
      std::printf("| %zu | %llu x %lld | %llu | %s | %.3f s | %lld |\n", p.buffers.size(),
                  static_cast<unsigned long long>(cap), static_cast<long long>(horizon),
                  static_cast<unsigned long long>(seed), to_string(r.status), median(t),
                  static_cast<long long>(stat(r, "exact_nodes")));
      std::fflush(stdout);
    }
  }
  std::printf("\n");
}

/// `--puzzles 300,1000,3000 [--threads T] [--budget S] [--repeat N]`: the
/// perfect-packing puzzles (seeds 1-3), goal fit, one row per
/// puzzle with the median time of N runs.
void table_puzzles(const std::vector<std::size_t>& sizes, int repeat, double budget, unsigned threads) {
  std::printf(
      "| pieces | seed | threads | status | time (median of %d) | nodes |\n|---:|---:|---:|---|---:|---:|\n",
      repeat);
  for (std::size_t pieces : sizes)
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Problem p = guillotine(seed, 1u << 20, static_cast<Tick>(pieces) * 10, pieces);
      std::vector<double> t;
      ExactResult r;
      for (int k = 0; k < repeat; ++k) {
        const auto t0 = std::chrono::steady_clock::now();
        r = solve_exact(p, options(ExactMode::fit, budget, threads));
        t.push_back(seconds_since(t0));
        if (r.placement && !validate(p, *r.placement).empty()) std::printf("INVALID PLACEMENT\n");
      }
      std::printf("| %zu | %llu | %u | %s | %.3f s | %lld |\n", p.buffers.size(),
                  static_cast<unsigned long long>(seed), threads, to_string(r.status), median(t),
                  static_cast<long long>(stat(r, "exact_nodes")));
      std::fflush(stdout);
    }
}

/// `--lanes [--repeat N]`: what a second thread buys on minimalloc B, C, E
/// and J, goal fit at the file's capacity: per thread count the median wall
/// time and CPU time of N runs, the nodes of both lanes together and the
/// nodes on the longer lane (`exact_critical_nodes`: the search's length
/// with a core per lane). nodes(1 thread) / critical nodes(2 threads) is the
/// speed-up two lanes can give on an idle machine; CPU / wall says how many
/// cores the run actually had.
void table_lanes(int repeat) {
  std::printf(
      "| instance | 1 thread: time | nodes | 2 threads: time | CPU | nodes, both lanes | critical nodes | "
      "speed-up (time) | speed-up bound (nodes / critical) "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (auto& [name, p] : load_suite("minimalloc", true)) {
    if (name.rfind("B.", 0) != 0 && name.rfind("C.", 0) != 0 && name.rfind("E.", 0) != 0 &&
        name.rfind("J.", 0) != 0)
      continue;
    std::vector<double> t1, t2, c2;
    ExactResult r1, r2;
    for (int k = 0; k < repeat; ++k) {
      auto t = std::chrono::steady_clock::now();
      r1 = solve_exact(p, options(ExactMode::fit, 60, 1));
      t1.push_back(seconds_since(t));
      const std::clock_t c = std::clock();
      t = std::chrono::steady_clock::now();
      r2 = solve_exact(p, options(ExactMode::fit, 60, 2));
      t2.push_back(seconds_since(t));
      c2.push_back(static_cast<double>(std::clock() - c) / CLOCKS_PER_SEC);
    }
    const auto n1 = stat(r1, "exact_nodes"), n2 = stat(r2, "exact_nodes"),
               crit = stat(r2, "exact_critical_nodes");
    std::printf("| %s | %.3f s | %lld | %.3f s | %.3f s | %lld | %lld | %.2fx | %.2fx |\n", name.c_str(),
                median(t1), static_cast<long long>(n1), median(t2), median(c2), static_cast<long long>(n2),
                static_cast<long long>(crit), median(t1) / std::max(1e-9, median(t2)),
                static_cast<double>(n1) / static_cast<double>(std::max<std::int64_t>(1, crit)));
    std::fflush(stdout);
  }
}

/// `--windows [--repeat N]`: can a time-window relaxation raise the proved
/// bounds of minimalloc D and J? The buffers that meet a window of
/// consecutive lifetime boundaries, their lifetimes cut to the window, form
/// a smaller problem whose least peak is a lower bound for the whole (any
/// placement of the whole places them). Each window is asked to fit at the
/// whole instance's max load (goal fit, `node_limit` nodes, deterministic):
/// a window that fits there cannot raise the bound, whatever the reasoning
/// inside it (energetic or cumulative bounds over the window are
/// relaxations of the window problem itself).
void table_windows(std::uint64_t node_limit) {
  std::printf(
      "| instance | boundaries | window (boundaries) | windows | fit at the max load | no fit within %llu "
      "nodes | "
      "proved infeasible |\n|---|---:|---:|---:|---:|---:|---:|\n",
      static_cast<unsigned long long>(node_limit));
  for (auto& [name, p] : load_suite("minimalloc", true)) {
    if (name.rfind("D.", 0) != 0 && name.rfind("J.", 0) != 0) continue;
    std::vector<Tick> ticks;
    for (const auto& b : p.buffers) {
      ticks.push_back(b.lifetime.begin);
      ticks.push_back(b.lifetime.end);
    }
    std::sort(ticks.begin(), ticks.end());
    ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
    const Addr load = arena_loads(p)[0].max_load;
    for (std::size_t width : {11u, 31u, 61u}) {
      if (width >= ticks.size()) continue;
      std::size_t windows = 0, fit = 0, open = 0, infeasible = 0;
      for (std::size_t lo = 0;; lo = std::min(lo + width / 2, ticks.size() - 1 - width)) {
        const Tick a = ticks[lo], b = ticks[lo + width];
        Problem w;
        w.arenas = p.arenas;
        w.arenas[0].capacity = load;
        for (const auto& buf : p.buffers)
          if (buf.lifetime.begin < b && buf.lifetime.end > a) {
            auto c = buf;
            c.lifetime = {std::max(buf.lifetime.begin, a), std::min(buf.lifetime.end, b)};
            w.buffers.push_back(std::move(c));
          }
        ExactOptions o = options(ExactMode::fit, 0, 1);
        o.node_limit = node_limit;
        const auto r = solve_exact(w, o);
        ++windows;
        if (r.placement)
          ++fit;
        else if (r.status == Status::infeasible)
          ++infeasible;
        else
          ++open;
        if (lo + width + 1 >= ticks.size()) break;
      }
      std::printf("| %s | %zu | %zu | %zu | %zu | %zu | %zu |\n", name.c_str(), ticks.size(), width, windows,
                  fit, open, infeasible);
      std::fflush(stdout);
    }
  }
}

/// `--cuts [--window-nodes N]`: relaxations of D and J on a set of
/// instants spread over the whole trace (not a window of consecutive
/// boundaries). Keep only the buffers live at one of the chosen instants;
/// a buffer live at instants i and j is live at every chosen instant between
/// (lifetimes are intervals), so its lifetime becomes the run of chosen
/// instants it meets. Any placement of the whole places these, so the
/// relaxation's least peak is a lower bound. Instants: the midpoints of the
/// elementary intervals whose load is a local maximum, the k most loaded of
/// them (k = 2, 4, 8, 16, all), asked to fit at the max load.
void table_cuts(std::uint64_t node_limit) {
  std::printf(
      "| instance | local maxima of the load | instants kept | buffers | fit at the max load? | nodes |\n"
      "|---|---:|---:|---:|---|---:|\n");
  for (auto& [name, p] : load_suite("minimalloc", true)) {
    if (name.rfind("D.", 0) != 0 && name.rfind("J.", 0) != 0) continue;
    std::vector<Tick> ticks;
    for (const auto& b : p.buffers) {
      ticks.push_back(b.lifetime.begin);
      ticks.push_back(b.lifetime.end);
    }
    std::sort(ticks.begin(), ticks.end());
    ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
    std::vector<Addr> load(ticks.size() - 1, 0);
    for (const auto& b : p.buffers)
      for (std::size_t k = 0; k + 1 < ticks.size(); ++k)
        if (b.lifetime.begin <= ticks[k] && ticks[k] < b.lifetime.end) load[k] += b.size;
    std::vector<std::size_t> maxima;  // a plateau counts once (its first interval)
    for (std::size_t k = 0; k < load.size(); ++k) {
      std::size_t e = k;
      while (e + 1 < load.size() && load[e + 1] == load[k]) ++e;
      const bool left = k == 0 || load[k - 1] < load[k],
                 right = e + 1 == load.size() || load[e + 1] < load[k];
      if (left && right) maxima.push_back(k);
      k = e;
    }
    const Addr max_load = arena_loads(p)[0].max_load;
    std::vector<std::size_t> by_load = maxima;
    std::stable_sort(by_load.begin(), by_load.end(),
                     [&](std::size_t a, std::size_t b) { return load[a] > load[b]; });
    for (std::size_t k : {2u, 4u, 8u, 16u, 1000u}) {
      const std::size_t kept = std::min<std::size_t>(k, by_load.size());
      std::vector<std::size_t> chosen(by_load.begin(), by_load.begin() + static_cast<std::ptrdiff_t>(kept));
      std::sort(chosen.begin(), chosen.end());
      Problem w;
      w.arenas = p.arenas;
      w.arenas[0].capacity = max_load;
      for (const auto& buf : p.buffers) {
        std::size_t first = chosen.size(), last = 0;
        for (std::size_t c = 0; c < chosen.size(); ++c)
          if (buf.lifetime.begin <= ticks[chosen[c]] && ticks[chosen[c]] < buf.lifetime.end) {
            first = std::min(first, c);
            last = c;
          }
        if (first == chosen.size()) continue;
        auto c = buf;
        c.lifetime = {static_cast<Tick>(first), static_cast<Tick>(last + 1)};
        w.buffers.push_back(std::move(c));
      }
      ExactOptions o = options(ExactMode::fit, 0, 1);
      o.node_limit = node_limit;
      const auto r = solve_exact(w, o);
      const char* verdict = r.placement                      ? "fits"
                            : r.status == Status::infeasible ? "**infeasible** (proved)"
                                                             : "no fit within the nodes";
      std::printf("| %s | %zu | %zu | %zu | %s | %lld |\n", name.c_str(), maxima.size(), kept,
                  w.buffers.size(), verdict, static_cast<long long>(stat(r, "exact_nodes")));
      std::fflush(stdout);
      if (kept == by_load.size()) break;
    }
  }
}

/// `--probes [--window-nodes N]`: the proof by exhaustive search. Is D (or
/// J) infeasible at a capacity strictly between its proved bound (the max
/// load) and its best placement? Goal fit at that capacity runs the complete
/// search (canonical and, on tight parts, floor runs, with the failure memo);
/// a run that ends without a fit proves the bound above the capacity. Each
/// capacity gets `node_limit` nodes, one thread (deterministic).
void table_probes(std::uint64_t node_limit) {
  std::printf(
      "| instance | capacity (granules of 1 KiB) | above the max load | result within %llu nodes | nodes | "
      "time |\n"
      "|---|---:|---:|---|---:|---:|\n",
      static_cast<unsigned long long>(node_limit));
  for (auto& [name, p] : load_suite("minimalloc", true)) {
    if (name.rfind("D.", 0) != 0 && name.rfind("J.", 0) != 0) continue;
    const Addr load = arena_loads(p)[0].max_load;
    for (Addr extra : {0u, 1u, 2u, 4u, 8u, 19u}) {
      Problem w = p;
      w.arenas[0].capacity = load + extra * 1024;
      ExactOptions o = options(ExactMode::fit, 0, 1);
      o.node_limit = node_limit;
      const auto t = std::chrono::steady_clock::now();
      const auto r = solve_exact(w, o);
      const char* verdict = r.placement                      ? "**fits**"
                            : r.status == Status::infeasible ? "**infeasible** (proved)"
                                                             : "open";
      std::printf("| %s | %llu | %llu | %s | %lld | %.1f s |\n", name.c_str(),
                  static_cast<unsigned long long>(w.arenas[0].capacity / 1024),
                  static_cast<unsigned long long>(extra), verdict,
                  static_cast<long long>(stat(r, "exact_nodes")), seconds_since(t));
      std::fflush(stdout);
    }
  }
}

/// `--lazy-cuts [--window-nodes N]`: the cut relaxation of `--cuts` grown
/// by constraint generation. Start from the most loaded instants; fit the
/// relaxation at capacity C (goal fit, N nodes). A fit is checked against
/// every elementary interval of the whole instance: when none is violated it
/// is a placement of the whole at C (a better incumbent, or the optimum at
/// the max load); otherwise the most violated intervals (bytes overlapping,
/// or buffers the relaxation did not place) join the instants and the
/// relaxation is solved again. A relaxation proved infeasible at C proves
/// every placement of the whole above C (C rises one granule); one whose
/// search is cut by N nodes ends the run.
void table_lazy_cuts(std::uint64_t node_limit, Addr extra_granules) {
  std::printf(
      "| instance | round | capacity (KiB) | instants | buffers | result within %llu nodes | nodes | "
      "violated intervals |\n"
      "|---|---:|---:|---:|---:|---|---:|---:|\n",
      static_cast<unsigned long long>(node_limit));
  for (auto& [name, p] : load_suite("minimalloc", true)) {
    if (name.rfind("D.", 0) != 0 && name.rfind("J.", 0) != 0) continue;
    std::vector<Tick> ticks;
    for (const auto& b : p.buffers) {
      ticks.push_back(b.lifetime.begin);
      ticks.push_back(b.lifetime.end);
    }
    std::sort(ticks.begin(), ticks.end());
    ticks.erase(std::unique(ticks.begin(), ticks.end()), ticks.end());
    const std::size_t m = ticks.size() - 1;
    auto live = [&](const BufferSpec& b, std::size_t k) {
      return b.lifetime.begin <= ticks[k] && ticks[k] < b.lifetime.end;
    };
    std::vector<Addr> load(m, 0);
    for (const auto& b : p.buffers)
      for (std::size_t k = 0; k < m; ++k)
        if (live(b, k)) load[k] += b.size;
    std::vector<char> chosen(m, 0);
    for (std::size_t k = 0; k < m; ++k) {  // local maxima of the load, as in --cuts
      std::size_t e = k;
      while (e + 1 < m && load[e + 1] == load[k]) ++e;
      chosen[k] = (k == 0 || load[k - 1] < load[k]) && (e + 1 == m || load[e + 1] < load[k]);
      k = e;
    }
    Addr cap = arena_loads(p)[0].max_load + extra_granules * 1024;
    for (int round = 1; round <= 200; ++round) {
      std::vector<std::size_t> ids;
      for (std::size_t k = 0; k < m; ++k)
        if (chosen[k]) ids.push_back(k);
      Problem w;
      w.arenas = p.arenas;
      w.arenas[0].capacity = cap;
      std::vector<std::size_t> origin;
      for (std::size_t i = 0; i < p.buffers.size(); ++i) {
        std::size_t first = ids.size(), last = 0;
        for (std::size_t c = 0; c < ids.size(); ++c)
          if (live(p.buffers[i], ids[c])) {
            first = std::min(first, c);
            last = c;
          }
        if (first == ids.size()) continue;
        auto c = p.buffers[i];
        c.lifetime = {static_cast<Tick>(first), static_cast<Tick>(last + 1)};
        w.buffers.push_back(std::move(c));
        origin.push_back(i);
      }
      ExactOptions o = options(ExactMode::fit, 0, 1);
      o.node_limit = node_limit;
      const auto r = solve_exact(w, o);
      const long long nodes = stat(r, "exact_nodes");
      if (!r.placement) {
        const bool proved = r.status == Status::infeasible;
        std::printf("| %s | %d | %llu | %zu | %zu | %s | %lld | |\n", name.c_str(), round,
                    static_cast<unsigned long long>(cap / 1024), ids.size(), w.buffers.size(),
                    proved ? "**infeasible**: bound above this capacity" : "open", nodes);
        std::fflush(stdout);
        if (!proved) {
          // What the relaxation itself gives: its least peak tightened from
          // both sides under the same node budget (its proved bound holds
          // for the whole instance).
          Problem open = w;
          open.arenas[0].capacity = Addr{1} << 40;
          ExactOptions mo = options(ExactMode::minimise, 0, 1);
          mo.node_limit = node_limit;
          const auto mr = solve_exact(open, mo);
          std::printf(
              "| %s | %d | minimise | %zu | %zu | peak %llu KiB, proved bound %llu KiB (%s) | %lld | |\n",
              name.c_str(), round, ids.size(), w.buffers.size(),
              static_cast<unsigned long long>(peak_of(open, mr) / 1024),
              static_cast<unsigned long long>(mr.lower_bound.empty() ? 0 : mr.lower_bound[0] / 1024),
              mr.status == Status::optimal ? "optimal" : "open",
              static_cast<long long>(stat(mr, "exact_nodes")));
          std::fflush(stdout);
          break;
        }
        cap += 1024;
        continue;
      }
      // Check every elementary interval of the whole instance.
      std::vector<Addr> off(p.buffers.size(), max_addr);
      for (std::size_t j = 0; j < origin.size(); ++j)
        if (r.placement->offsets[j]) off[origin[j]] = *r.placement->offsets[j];
      std::vector<std::pair<Addr, std::size_t>> bad;  // (badness, interval)
      for (std::size_t k = 0; k < m; ++k) {
        std::vector<std::pair<Addr, Addr>> iv;
        Addr unplaced = 0;
        for (std::size_t i = 0; i < p.buffers.size(); ++i)
          if (live(p.buffers[i], k)) {
            if (off[i] == max_addr)
              unplaced += p.buffers[i].size;
            else
              iv.push_back({off[i], off[i] + p.buffers[i].size});
          }
        std::sort(iv.begin(), iv.end());
        Addr overlap = 0, reach = 0;
        for (const auto& [a, b] : iv) {
          if (a < reach) overlap += std::min(reach, b) - a;
          reach = std::max(reach, b);
        }
        if (overlap + unplaced > 0) bad.push_back({overlap + unplaced, k});
      }
      std::printf("| %s | %d | %llu | %zu | %zu | fits | %lld | %zu |\n", name.c_str(), round,
                  static_cast<unsigned long long>(cap / 1024), ids.size(), w.buffers.size(), nodes,
                  bad.size());
      std::fflush(stdout);
      if (bad.empty()) {
        std::printf("| %s | | %llu | | | **a placement of the whole** | | |\n", name.c_str(),
                    static_cast<unsigned long long>(cap / 1024));
        break;
      }
      std::sort(bad.rbegin(), bad.rend());
      for (std::size_t q = 0; q < std::min<std::size_t>(4, bad.size()); ++q) chosen[bad[q].second] = 1;
    }
  }
}

/// `--dive-variants N`: other ways to draw the orders of the canonical
/// dives on idealloc S_1 (the one part of the trace), N dives each, peaks
/// in per cent above the max-load bound. (a) the library's randomised dives
/// (random_dive_rank); (b) squeaky wheel: the best order so far with every
/// buffer that ends above the bound promoted (key times 1.5), plus 5 %
/// noise; (c) mutation: the best order's keys times a factor in
/// [0.9, 1.1]; (d) long-lived first: the buffers living at least half
/// as long as the longest in lifetime order, then the area order (one dive:
/// it is slow).
void table_dive_variants(int dives) {
  auto suite = load_suite("idealloc", false);
  for (auto& [name, p] : suite) {
    if (name != "S_1") continue;
    const Addr lb = arena_loads(p)[0].lower_bound;
    const auto parts = exact::decompose(p);
    const auto& sp = parts[0];
    std::vector<Interval> ls;
    for (const auto& it : sp.items) ls.push_back(it.lifetime);
    const auto sec = exact::sweep_sections(ls, false);
    const auto f = exact::item_features(sp, sec, {});
    const auto n = static_cast<std::uint32_t>(sp.items.size());
    exact::Limits limits;
    auto ranks_of = [&](const std::vector<double>& key) {  // larger key first, ties by index
      std::vector<std::uint32_t> by(n), rank(n);
      for (std::uint32_t i = 0; i < n; ++i) by[i] = i;
      std::stable_sort(by.begin(), by.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return key[a] > key[b]; });
      for (std::uint32_t r = 0; r < n; ++r) rank[by[r]] = r;
      return rank;
    };
    std::uint64_t z = 12345;
    auto uniform = [&] {
      z = exact::mix64(z);
      return static_cast<double>(z >> 11) * 0x1.0p-53;
    };
    auto above = [&](Addr peak) {
      return 100.0 * (static_cast<double>(peak) / static_cast<double>(lb) - 1.0);
    };
    std::printf(
        "| variant | dives | peaks above the bound (%%), in order | best | CPU s a dive "
        "|\n|---|---:|---|---:|---:|\n");
    for (int variant = 0; variant < 4; ++variant) {
      const int count = variant == 3 ? 1 : dives;
      std::vector<double> key(n), best_key(n);
      for (std::uint32_t i = 0; i < n; ++i) best_key[i] = static_cast<double>(f[i].area);
      Addr best = max_addr;
      std::string peaks;
      const auto c0 = std::clock();
      for (int k = 0; k < count; ++k) {
        std::vector<std::uint32_t> rank;
        if (variant == 0)
          rank = exact::random_dive_rank(f, static_cast<std::uint64_t>(k));
        else if (variant == 3) {
          Tick longest = 0;
          for (const auto& it : sp.items) longest = std::max(longest, it.lifetime.end - it.lifetime.begin);
          for (std::uint32_t i = 0; i < n; ++i) {
            const Tick len = sp.items[i].lifetime.end - sp.items[i].lifetime.begin;
            key[i] = 2 * len >= longest ? 1e30 * static_cast<double>(len) : static_cast<double>(f[i].area);
          }
          rank = ranks_of(key);
        } else {
          const double e = variant == 1 ? 0.05 : 0.1;
          for (std::uint32_t i = 0; i < n; ++i)
            key[i] = best_key[i] * (k == 0 ? 1.0 : 1.0 + e * (2.0 * uniform() - 1.0));
          rank = ranks_of(key);
        }
        const auto pl = exact::skyline_dive(sp, sec, rank, limits);
        if (!pl) continue;
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.4f", peaks.empty() ? "" : ", ", above(pl->peak));
        peaks += buf;
        if (pl->peak <= best) {
          best = pl->peak;
          best_key = key;
          if (variant == 1)
            for (std::uint32_t i = 0; i < n; ++i)
              if (pl->offsets[i] + sp.items[i].size > lb) best_key[i] *= 1.5;
        }
      }
      static const char* names[] = {"randomised (library)", "squeaky wheel", "mutation of the best",
                                    "long-lived first"};
      std::printf("| %s | %d | %s | %.4f %% | %.2f |\n", names[variant], count, peaks.c_str(), above(best),
                  static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC / count);
      std::fflush(stdout);
    }
  }
}

// ---- Google Benchmark cases ------------------------------------------------

void register_benchmarks() {
  static std::vector<Instance> mm = load_suite("minimalloc", true);
  for (auto& inst : mm) {
    benchmark::RegisterBenchmark(("ExactFit/" + inst.name).c_str(),
                                 [&inst](benchmark::State& state) {
                                   for (auto _ : state) {
                                     auto r = solve_exact(inst.problem, options(ExactMode::fit, 60, 1));
                                     if (r.status != Status::optimal && r.status != Status::feasible)
                                       state.SkipWithError("no fit");
                                     benchmark::DoNotOptimize(r);
                                   }
                                 })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(3);
  }
  for (std::size_t pieces : {100u, 400u, 1000u}) {
    benchmark::RegisterBenchmark(("GuillotineFit/" + std::to_string(pieces)).c_str(),
                                 [pieces](benchmark::State& state) {
                                   const Problem p =
                                       guillotine(1, 1u << 20, static_cast<Tick>(pieces) * 10, pieces);
                                   for (auto _ : state) {
                                     auto r = solve_exact(p, options(ExactMode::fit, 60, 1));
                                     if (r.status != Status::optimal) state.SkipWithError("not solved");
                                     benchmark::DoNotOptimize(r);
                                   }
                                 })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(3);
  }
  static std::vector<Instance> ia = load_suite("idealloc", false);
  for (auto& inst : ia) {
    benchmark::RegisterBenchmark(("CanonicalDiveArea/" + inst.name).c_str(),
                                 [&inst](benchmark::State& state) {
                                   const auto parts = exact::decompose(inst.problem);
                                   for (auto _ : state) {
                                     for (const auto& sp : parts) {
                                       std::vector<Interval> ls;
                                       for (const auto& it : sp.items) ls.push_back(it.lifetime);
                                       const auto sec = exact::sweep_sections(ls, false);
                                       const auto rank =
                                           exact::preorder_ranks(exact::item_features(sp, sec, {}), "A");
                                       exact::Limits limits;
                                       auto r = exact::skyline_dive(sp, sec, rank, limits);
                                       benchmark::DoNotOptimize(r);
                                     }
                                   }
                                 })
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool table = false, lanes = false, windows = false, cuts = false, probes = false, lazy = false;
  int dive_variants = 0;
  std::uint64_t window_nodes = 200000;
  Addr lazy_extra = 0;
  std::vector<std::size_t> puzzles;
  unsigned threads = 1;
  int repeat = 5;
  double budget = 10.0;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--table") == 0)
      table = true;
    else if (std::strcmp(argv[i], "--lanes") == 0)
      lanes = true;
    else if (std::strcmp(argv[i], "--windows") == 0)
      windows = true;
    else if (std::strcmp(argv[i], "--cuts") == 0)
      cuts = true;
    else if (std::strcmp(argv[i], "--probes") == 0)
      probes = true;
    else if (std::strcmp(argv[i], "--lazy-cuts") == 0)
      lazy = true;
    else if (std::strcmp(argv[i], "--dive-variants") == 0 && i + 1 < argc)
      dive_variants = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--above") == 0 && i + 1 < argc)
      lazy_extra = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--window-nodes") == 0 && i + 1 < argc)
      window_nodes = std::strtoull(argv[++i], nullptr, 10);
    else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
      budget = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
      threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (std::strcmp(argv[i], "--puzzles") == 0 && i + 1 < argc) {
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        puzzles.push_back(std::strtoull(t, nullptr, 10));
    } else
      rest.push_back(argv[i]);
  }
  if (dive_variants > 0) {
    table_dive_variants(dive_variants);
    return 0;
  }
  if (lazy) {
    table_lazy_cuts(window_nodes, lazy_extra);
    return 0;
  }
  if (probes) {
    table_probes(window_nodes);
    return 0;
  }
  if (cuts) {
    table_cuts(window_nodes);
    return 0;
  }
  if (windows) {
    table_windows(window_nodes);
    return 0;
  }
  if (lanes) {
    table_lanes(repeat);
    return 0;
  }
  if (!puzzles.empty()) {
    table_puzzles(puzzles, repeat, budget, threads);
    return 0;
  }
  if (table) {
    table_guillotine(std::min(repeat, 3), 5.0);
    table_minimalloc(repeat, budget);
    table_idealloc(std::max(1, repeat / 2), budget);
    return 0;
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
