#!/bin/sh
# Quick start, step 1: install missing Debian packages, build the pto-mem
# tool (Release, into build/), plan the bundled example with the goal
# "minimise the peak" (the planner proves its answer optimal), and compile
# the bundled tile-IR matmul kernel with the DSA-RP planner.
set -eu
cd "$(dirname "$0")"
scripts/deps.sh
cmake --preset release
cmake --build --preset release --target pto-mem
build/bin/pto-mem plan examples/data/attention.json --minimize --svg build/memory-map.svg
build/bin/pto-mem compile examples/kernels/matmul_acc.pto --planner dsa_rp \
  -o build/matmul_acc.planned.pto --svg build/matmul-memory-map.svg
echo "compiled examples/kernels/matmul_acc.pto: wrote build/matmul_acc.planned.pto and build/matmul-memory-map.svg"
