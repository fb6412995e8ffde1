#!/usr/bin/env python3
"""Two builds of the `pto-mem` tool, run alternately on the same inputs, compared.

    bench/tool_side_by_side.py OLD_BIN NEW_BIN FILE... [--rounds 5] [--threads 1,2] -- ARGS...

Each round runs, per input file and per thread count, OLD then NEW once
(`BIN plan FILE ARGS... --threads T`), so both see the same machine load.
Wall and CPU (user + system of the child) are measured around the whole
process: start, input read and checks included. The table gives medians over
the rounds per file, and the sums of the medians; the load average is
printed before and after. Every run must succeed (exit 0) and its status
line is kept, so a change of answer shows. Example (minimalloc A-K fit):

    bench/tool_side_by_side.py /work/main/build/bin/pto-mem build/bin/pto-mem \\
        $DATA/minimalloc/[A-K].1048576.csv --rounds 5 --threads 1,2 -- \\
        --capacity 1048576 --node-limit 0 --time-limit 60
"""
import argparse
import os
import statistics
import subprocess
import sys
import time


def run(binary, path, threads, extra):
    argv = [binary, "plan", path, *extra, "--threads", str(threads)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}):\n{out}{err}")
    line = next((l for l in out.splitlines() if l.startswith("status:")), "?")
    return wall, usage.ru_utime + usage.ru_stime, line


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]
    print(f"load average before: {os.getloadavg()}", file=sys.stderr)
    res = {}  # (file, threads, which) -> [(wall, cpu)]
    status = {}
    for r in range(args.rounds):
        for f in args.files:
            for t in threads:
                for which, binary in (("old", args.old), ("new", args.new)):
                    w, c, line = run(binary, f, t, extra)
                    res.setdefault((f, t, which), []).append((w, c))
                    status.setdefault((f, t, which), set()).add(line)
        print(f"round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    print(f"load average after: {os.getloadavg()}", file=sys.stderr)
    head = "| file |" + "".join(f" old, {t} thr (wall / CPU s) | new, {t} thr |" for t in threads)
    print(head)
    print("|---|" + "---:|---:|" * len(threads))
    sums = {}
    for f in args.files:
        row = f"| {os.path.basename(f)} |"
        for t in threads:
            for which in ("old", "new"):
                w = statistics.median(x[0] for x in res[(f, t, which)])
                c = statistics.median(x[1] for x in res[(f, t, which)])
                s = sums.setdefault((t, which), [0.0, 0.0])
                s[0] += w
                s[1] += c
                row += f" {w:.3f} / {c:.3f} |"
        print(row)
    row = "| sum of medians |"
    for t in threads:
        for which in ("old", "new"):
            w, c = sums[(t, which)]
            row += f" **{w:.3f} / {c:.3f}** |"
    print(row)
    for key, lines in sorted(status.items()):
        if len(lines) != 1:
            print(f"note: {os.path.basename(key[0])} threads {key[1]} {key[2]}: answers differ: {sorted(lines)}")
    for f in args.files:
        for t in threads:
            if status[(f, t, "old")] != status[(f, t, "new")]:
                print(f"note: {os.path.basename(f)} threads {t}: old {sorted(status[(f, t, 'old')])} "
                      f"new {sorted(status[(f, t, 'new')])}")


if __name__ == "__main__":
    main()
