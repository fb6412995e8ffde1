#!/bin/sh
# Runs clang-tidy with the repository's .clang-tidy (the checks the code
# honours) on the compiled sources and the tool, whose translation units
# include nearly every public header; any finding fails the script.
# Needs clang-tidy (Debian: clang-tidy); takes a few minutes on two cores.
# Usage: scripts/tidy.sh [build directory]   (default: build-tidy)
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
build=${1:-"$root/build-tidy"}
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
[ -n "$tidy" ] || { echo "tidy: clang-tidy not found (Debian: apt-get install clang-tidy)" >&2; exit 1; }
cmake -S "$root" -B "$build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_BUILD_TYPE=Release \
  -DPTO_MEM_BUILD_TESTS=OFF -DPTO_MEM_BUILD_BENCH=OFF -DPTO_MEM_BUILD_PYTHON=OFF >/dev/null
status=0
for f in "$root"/src/*.cpp "$root"/tools/pto-mem/main.cpp; do
  echo "tidy: $f"
  "$tidy" -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option "$f" 2>/dev/null || status=1
done
[ "$status" -eq 0 ] && echo "tidy: clean"
exit "$status"
