#!/bin/sh
# Quick start, step 2: the whole test suite (dependencies, Release build
# into build/, every doctest case and the install test through CTest).
set -eu
cd "$(dirname "$0")"
scripts/deps.sh
cmake --preset release
cmake --build --preset release
ctest --preset release
