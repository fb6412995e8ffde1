#!/bin/sh
# Quick start, step 1: install missing Debian packages, build the pto-mem
# tool (Release, into build/) and plan the bundled example.
set -eu
cd "$(dirname "$0")"
scripts/deps.sh
cmake --preset release
cmake --build --preset release --target pto-mem
build/bin/pto-mem plan examples/data/attention.json --svg build/memory-map.svg
