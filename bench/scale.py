#!/usr/bin/env python3
"""Quality, time and memory of `pto-mem plan` on large plain instances:
random CSV instances (bench/random_csv.py) of 100k, 1M and 10M buffers and
the largest idealloc traces. For each it prints the peak over the max-load
bound (peak/max-load: 1.000 is optimal), the wall and CPU time and the peak
RSS of the whole process (read, plan, validate, write), medians of RUNS runs.

With OLD the two binaries alternate run by run (side by side, one session)
and their written placements are compared byte for byte.

  bench/scale.py TOOL [OLD]   env: RUNS=3 SIZES="100000 1000000" TRACES="Y_1 S_1 pangu_2.6B"
                              STRATEGY=greedy ARGS="" DATA=/path/to/shared OUT=build-rel/scale

SIZES may hold 10000000 (about 250 MB of CSV, minutes and several GB). An
empty TRACES skips the traces; they are read from $DATA/data/idealloc.
"""
import json
import os
import statistics
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))


def run(tool, csv, out_dir, tag):
    report = os.path.join(out_dir, f"{tag}.json")
    placed = os.path.join(out_dir, f"{tag}.csv")
    timing = os.path.join(out_dir, "time.txt")
    cmd = ["/usr/bin/time", "-f", "%e %U %S %M", "-o", timing, tool, "plan", csv, "-q",
           "--strategy", os.environ.get("STRATEGY", "greedy"), "--json", report, "-o", placed]
    cmd += os.environ.get("ARGS", "").split()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall, user, system, rss = open(timing).read().split()[-4:]
    r = json.load(open(report))
    bound = sum(r["max_load_bound"].values())
    return {"wall": float(wall), "cpu": float(user) + float(system), "rss_mb": int(rss) / 1024,
            "ratio": r["objective"]["total_peak"] / bound if bound else float("nan"),
            "status": r["status"], "placed": placed}


def main() -> None:
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "build-rel", "bin", "pto-mem")
    old = sys.argv[2] if len(sys.argv) > 2 else None
    runs = int(os.environ.get("RUNS", "3"))
    out_dir = os.environ.get("OUT", os.path.join(here, "..", "build-rel", "scale"))
    os.makedirs(out_dir, exist_ok=True)
    data = os.environ.get("DATA", "/work/shared")
    inputs = []
    for n in os.environ.get("SIZES", "100000 1000000").split():
        csv = os.path.join(out_dir, f"random_{n}.csv")
        if not os.path.exists(csv) or os.path.getsize(csv) == 0:
            with open(csv, "w") as f:
                subprocess.run([sys.executable, os.path.join(here, "random_csv.py"), n], stdout=f, check=True)
        inputs.append((f"random {int(n):,}", csv))
    for t in os.environ.get("TRACES", "Y_1 S_1 pangu_2.6B").split():
        inputs.append((t, os.path.join(data, "data", "idealloc", f"{t}.csv")))
    print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])}, strategy "
          f"{os.environ.get('STRATEGY', 'greedy')} {os.environ.get('ARGS', '')}".rstrip())
    for name, csv in inputs:
        who = [("new", tool)] + ([("old", old)] if old else [])
        results = {w: [] for w, _ in who}
        for _ in range(runs):
            for w, t in who:
                results[w].append(run(t, csv, out_dir, w))
        for w, _ in who:
            rs = results[w]
            med = {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu", "rss_mb", "ratio")}
            print(f"{w} {name}: peak/max-load {med['ratio']:.4f}, wall {med['wall']:.2f} s, cpu {med['cpu']:.2f} s, "
                  f"peak RSS {med['rss_mb']:.0f} MB, {rs[-1]['status']} (walls: {' '.join(str(r['wall']) for r in rs)})")
        if old:
            same = open(results["new"][-1]["placed"], "rb").read() == open(results["old"][-1]["placed"], "rb").read()
            print(f"{name}: placements {'identical' if same else 'DIFFER'}")
    print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
