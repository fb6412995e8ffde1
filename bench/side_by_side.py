#!/usr/bin/env python3
"""Two builds of a Google Benchmark executable, run alternately, compared.

    bench/side_by_side.py OLD_BIN NEW_BIN --filter 'BM_pipeline/(pypto|dsa_rp)/10000$' [--rounds 3]

Each round runs OLD then NEW once with the same filter (one repetition of
every benchmark each), so both see the same machine load; the table gives,
per benchmark, the median CPU time over the rounds and new/old. On a shared
machine CPU time is steadier than wall time (docs/benchmarks.md). Extra
arguments after `--` go to both executables (e.g. --benchmark_min_time=0.01).
"""
import argparse
import json
import statistics
import subprocess
import sys


def run(binary, flt, extra):
    out = subprocess.run([binary, f"--benchmark_filter={flt}", "--benchmark_format=json", *extra],
                         check=True, capture_output=True, text=True).stdout
    rows = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[b.get("time_unit", "ns")]
        rows[b["name"]] = b["cpu_time"] * scale  # milliseconds
    return rows


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--filter", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    old, new = {}, {}
    for r in range(args.rounds):
        for binary, into in ((args.old, old), (args.new, new)):
            for name, ms in run(binary, args.filter, extra).items():
                into.setdefault(name, []).append(ms)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print("| benchmark | old (ms CPU) | new (ms CPU) | new/old |")
    print("|---|---:|---:|---:|")
    for name in old:
        if name not in new:
            continue
        o, n = statistics.median(old[name]), statistics.median(new[name])
        print(f"| {name} | {o:.1f} | {n:.1f} | {n / o:.2f} |")


if __name__ == "__main__":
    main()
