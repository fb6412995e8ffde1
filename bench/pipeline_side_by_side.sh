#!/bin/bash
# The pass pipeline before and after a change, side by side in one run:
# BM_pipeline at 10k and 100k statements for the three planners, the two
# bench_pypto_pipeline binaries interleaved over 3 rounds, median CPU times.
#
#   bench/pipeline_side_by_side.sh OLD/bin/bench_pypto_pipeline NEW/bin/bench_pypto_pipeline
set -u
F='BM_pipeline/(pypto|dsa_rp|ptoas)/(10000|100000)$'
out=$(mktemp -d)
for r in 1 2 3; do
  for which in before after; do
    bin=$1; [ $which = after ] && bin=$2
    "$bin" --benchmark_filter="$F" --benchmark_min_time=0.01 --benchmark_format=csv 2>/dev/null | grep '^"BM' > "$out/$which.$r.csv"
  done
done
python3 - "$out" <<'PY'
import csv, glob, os, statistics, sys
rows = {}
for f in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    which = os.path.basename(f).split(".")[0]
    for r in csv.reader(open(f)):
        rows.setdefault(r[0], {}).setdefault(which, []).append((float(r[3]), r[4]))
print("| benchmark | before (CPU, median of 3) | after | ratio |")
print("|---|---:|---:|---:|")
for name, d in rows.items():
    b = statistics.median(x for x, _ in d["before"])
    a = statistics.median(x for x, _ in d["after"])
    unit = d["before"][0][1]
    print(f"| {name} | {b:.1f} {unit} | {a:.1f} {unit} | {b / a:.2f}x |")
PY
rm -rf "$out"
