#!/usr/bin/env python3
"""DSA_RP at scale: `pto-mem compile` on the kernels of bench/dsa_rp_kernel.py
(every pair of top-level blocks is a reuse-penalty candidate), two builds
side by side.

    bench/dsa_rp_scale.py OLD_BIN NEW_BIN [--sizes 10000,30000,100000,300000]
        [--rounds 3] [--old-max 30000] [--svg-sizes 30000,200000] [--timeout 600]

For each size (statements) and each configuration -- `--planner dsa_rp`,
`--planner pypto` (the reference pipeline), `--planner dsa_rp --svg` (only
at the --svg-sizes) -- each round runs OLD then NEW once, so both see the
same machine load. OLD runs only up to --old-max statements (before the
change it grows with the square of the kernel: minutes and gigabytes at
100k). Wall time and peak RSS (the child's own, from wait4) cover the whole
process (parse, passes, printing). The table gives medians over the rounds; every
run must succeed, and OLD and NEW must print the same program and draw the
same map (a changed placement is a failure, not a figure). The load average
is printed before and after.
"""
import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(binary, kernel, extra, scratch, timeout):
    """(wall s, peak RSS MB, sha of the output and map) or None on timeout."""
    out = os.path.join(scratch, "out.txt")
    svg = os.path.join(scratch, "map.svg")
    err = os.path.join(scratch, "err.txt")
    for f in (out, svg):
        if os.path.exists(f):
            os.remove(f)
    argv = [binary, "compile", kernel, "-o", out] + [a.replace("MAP", svg) for a in extra]
    t0 = time.perf_counter()
    with open(err, "wb") as e:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=e)
    while True:  # wait4 gives this child's own peak RSS
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid != 0:
            break
        if time.perf_counter() - t0 > timeout:
            proc.kill()
            os.wait4(proc.pid, 0)
            return None
        time.sleep(0.01)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"{' '.join(argv)} failed ({code}):\n{open(err).read()[-2000:]}")
    h = hashlib.sha256(open(out, "rb").read())
    if os.path.exists(svg):
        h.update(open(svg, "rb").read())
    return wall, usage.ru_maxrss / 1024, h.hexdigest()


def figure(rs, timeout):
    """Median wall / peak RSS of the runs that finished."""
    done = [r for r in rs if r]
    if not rs:
        return "not run"
    if not done:
        return f"over {timeout:.0f} s"
    return f"{statistics.median(r[0] for r in done):.2f} s / {statistics.median(r[1] for r in done):.0f} MB"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--sizes", default="10000,30000,100000,300000")
    ap.add_argument("--svg-sizes", default="30000,200000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--old-max", type=int, default=30000)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",") if x]
    svg_sizes = [int(x) for x in args.svg_sizes.split(",") if x]
    configs = [("dsa_rp", ["--planner", "dsa_rp"]), ("pypto", ["--planner", "pypto"]),
               ("dsa_rp --svg", ["--planner", "dsa_rp", "--svg", "MAP"])]
    print(f"load average before: {os.getloadavg()}")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for n in sorted(set(sizes) | set(svg_sizes)):
            kernel = os.path.join(scratch, f"k{n}.pto")
            with open(kernel, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "dsa_rp_kernel.py"), str(n)], stdout=f, check=True)
            for name, extra in configs:
                if n not in (svg_sizes if name == "dsa_rp --svg" else sizes):
                    continue
                results = {"old": [], "new": []}
                for _ in range(args.rounds):
                    for which, binary in (("old", args.old), ("new", args.new)):
                        if which == "old" and n > args.old_max:
                            continue
                        r = run(binary, kernel, extra, scratch, args.timeout)
                        if r is None:
                            results[which].append(None)
                            continue
                        results[which].append(r)
                    o = [r for r in results["old"] if r]
                    w = [r for r in results["new"] if r]
                    if o and w and o[-1][2] != w[-1][2]:
                        sys.exit(f"{name} at {n} statements: OLD and NEW output differ")
                rows.append((n, name, results))
                print(f"{n:>7} {name:<13} old {figure(results['old'], args.timeout):<22} new {figure(results['new'], args.timeout)}", flush=True)
    print(f"load average after: {os.getloadavg()}")
    print()
    print("| statements | command | before (median wall / peak RSS) | after |")
    print("|---:|---|---|---|")
    for n, name, results in rows:
        print(f"| {n:,} | `--planner {name}` | {figure(results['old'], args.timeout)} | {figure(results['new'], args.timeout)} |")


if __name__ == "__main__":
    main()
