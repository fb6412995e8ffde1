#!/bin/sh
# What `#include <pto_mem/planner.hpp>` costs a user: compiles a one-function
# consumer (plans a vector of the user's own structs) at -O2 and reports wall
# time, CPU time, peak RSS (GNU time -v) and preprocessed lines, in both
# modes:
#   header-only  every solver compiled into the consumer (the default);
#   compiled     -DPTO_MEM_COMPILED: the light header only; the solvers are
#                linked from pto_mem::compiled (built once, src/planner.cpp).
# Targets: the compiled-mode consumer under 3 s and 300 MB.
# Usage: bench/compile_cost.sh [CXX]   (default: c++)
#        bench/compile_cost.sh --tests [TARGET...]
#            the CPU time (user + sys), wall time and peak RSS of the worst
#            compiler process of a fresh build (-j1, ccache disabled) as the
#            release preset configures it (Release, benchmarks off, the
#            Python module on): by default everything
#            `cmake --build --preset release` builds -- every test suite, the
#            tool, the examples, pypto_conformance and the Python module, the
#            project's whole test build (docs/benchmarks.md). With targets,
#            only those, e.g. `--tests test_core test_tool`. Then the ten
#            costliest compile and link steps, each with its CPU time and
#            peak RSS (every step runs under /usr/bin/time as the launcher).
# Run on a quiet machine: a loaded machine inflates wall time (CPU time and
# peak RSS much less).
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--tests" ]; then
  # PTO_MEM_COMPILE_BUILD_DIR=DIR (a new directory) builds there and keeps
  # the build, e.g. to run ctest in it afterwards.
  if [ -n "${PTO_MEM_COMPILE_BUILD_DIR:-}" ]; then
    dir=$PTO_MEM_COMPILE_BUILD_DIR
    mkdir "$dir"
  else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
  fi
  shift
  targets=""
  for t in "$@"; do targets="$targets --target $t"; done
  CCACHE_DISABLE=1
  export CCACHE_DISABLE
  # Each compile and link step runs under /usr/bin/time, which appends its
  # CPU time, peak RSS and command line to steps.txt.
  printf '#!/bin/sh\nexec /usr/bin/time -a -o "%s/steps.txt" -f "%%U %%S %%M %%C" "$@"\n' "$dir" > "$dir/timed"
  chmod +x "$dir/timed"
  # PTO_MEM_SHARED_DIR, when set, is passed on (the tests' data; it changes
  # no compile cost).
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DPTO_MEM_BUILD_BENCH=OFF \
    ${PTO_MEM_SHARED_DIR:+"-DPTO_MEM_SHARED_DIR=$PTO_MEM_SHARED_DIR"} \
    -DCMAKE_CXX_COMPILER_LAUNCHER="$dir/timed" -DCMAKE_CXX_LINKER_LAUNCHER="$dir/timed" > /dev/null
  # shellcheck disable=SC2086
  /usr/bin/time -v cmake --build "$dir" -j1 $targets > /dev/null 2> "$dir/time.txt"
  user=$(sed -n 's/.*User time (seconds): //p' "$dir/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$dir/time.txt")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")
  echo "build of ${*:-everything the release preset builds} (Release, -j1, no ccache):" \
       "cpu $(awk "BEGIN { print $user + $sys }") s, wall $wall, worst process peak RSS $((rss / 1024)) MB"
  echo "costliest steps (cpu s, peak RSS MB, output):"
  awk '{ out = ""; for (i = 4; i < NF; ++i) if ($i == "-o") out = $(i + 1)
         sub(".*/CMakeFiles/", "", out); sub("\\.dir/", ": ", out)
         printf "%8.1f %6d  %s\n", $1 + $2, $3 / 1024, out }' "$dir/steps.txt" | sort -rn > "$dir/steps_sorted.txt"
  head -n 10 "$dir/steps_sorted.txt"
  # PTO_MEM_COMPILE_STEPS=FILE keeps the whole sorted list.
  if [ -n "${PTO_MEM_COMPILE_STEPS:-}" ]; then cp "$dir/steps_sorted.txt" "$PTO_MEM_COMPILE_STEPS"; fi
  exit 0
fi
CXX=${1:-c++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/consumer.cpp" <<'CPP'
#include <pto_mem/planner.hpp>
#include <cstdint>
#include <optional>
#include <vector>
struct Tile {
  std::int32_t size;
  std::int32_t first, last;  // inclusive
  std::optional<std::uint32_t> offset;
};
template <> struct pto_mem::buffer_lifetime_traits<Tile> {
  static std::pair<int, int> get(const Tile& t) { return {t.first, t.last + 1}; }
};
bool place(std::vector<Tile>& tiles) {
  return pto_mem::plan(tiles, pto_mem::UnboundedArenaPolicy{32}, {}, {}, &Tile::offset).fits();
}
CPP
measure() {  # $1 = mode name, rest = extra flags
  mode=$1
  shift
  /usr/bin/time -v "$CXX" -std=c++20 -O2 -Iinclude "$@" -c "$work/consumer.cpp" -o "$work/consumer.o" \
    2> "$work/time.txt"
  lines=$("$CXX" -std=c++20 -Iinclude "$@" -E "$work/consumer.cpp" | wc -l)
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
  user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  printf '%-12s wall %8s  cpu %6.2f s  peak RSS %5d MB  preprocessed %7d lines\n' \
    "$mode" "$wall" "$(awk "BEGIN { print $user + $sys }")" "$((rss / 1024))" "$lines"
}
echo "consumer TU at -O2 with $($CXX --version | head -n 1)"
measure header-only
measure compiled -DPTO_MEM_COMPILED
