// Where the time and the memory of `pto-mem plan --strategy greedy` go on a
// large plain CSV instance: each stage of the tool's path run on its own,
// with its CPU time, and the process's peak RSS after it. The stages are the
// ones plan() runs for a plain problem (validation, the max-load bound,
// alias unification, the greedy, the placement check, the objective) between
// reading the CSV and writing it back.
//
//   build-rel/bin/pto-mem-scale-phases FILE.csv [THREADS]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/source_text.hpp"

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

long peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

struct Stage {
  const char* name;
  double cpu0 = cpu_seconds();
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  ~Stage() {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    std::printf("%-22s cpu %7.3f s  wall %7.3f s  peak RSS %5ld MB\n", name, cpu_seconds() - cpu0, wall,
                peak_rss_mb());
  }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace pto_mem;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE.csv [THREADS]\n", argv[0]);
    return 2;
  }
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 2u;
  SourceText src;
  {
    Stage s{"read file"};
    src = read_source_text(argv[1]);
  }
  if (!src.text) return 1;
  ReadResult read;
  {
    Stage s{"parse CSV"};
    read = read_csv(*src.text, {}, argv[1]);
  }
  if (!read) return 1;
  src.text.reset();
  const Problem& p = read.file->problem;
  {
    Stage s{"validate problem"};
    if (has_errors(validate(p))) return 1;
  }
  std::vector<ArenaLoad> loads;
  {
    Stage s{"max-load bound"};
    loads = arena_loads(p);
  }
  std::optional<AliasUnification> unified;
  {
    Stage s{"unify aliases"};
    unified.emplace(unify_aliases(p));
  }
  GreedyResult g;
  {
    Stage s{"canonical greedy"};
    GreedyOptions o;
    o.trusted = true;
    o.threads = threads;
    g = canonical_greedy(unified->problem, o);
  }
  if (!g.placement) return 1;
  Placement expanded;
  {
    Stage s{"expand placement"};
    expanded = expand_placement(*unified, *g.placement);
  }
  {
    Stage s{"validate placement"};
    if (!validate_placement(p, expanded).empty()) return 1;
  }
  Objective obj;
  {
    Stage s{"objective"};
    obj = evaluate_objective(p, expanded);
  }
  {
    Stage s{"write CSV (text)"};
    auto csv = to_csv(p, &expanded);
    if (!csv) return 1;
  }
  std::printf("buffers %zu  peak %lld  max load %lld  peak/max-load %.4f  orders %llu selected %llu\n",
              p.buffers.size(), static_cast<long long>(obj.total_peak),
              static_cast<long long>(loads[0].lower_bound),
              static_cast<double>(obj.total_peak) / static_cast<double>(loads[0].lower_bound),
              static_cast<unsigned long long>(g.statistics.orders_evaluated),
              static_cast<unsigned long long>(g.statistics.selected_order));
  return 0;
}
