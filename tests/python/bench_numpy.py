#!/usr/bin/env python3
"""Benchmark (run by hand, not by CTest): the NumPy entry point's overhead.

    PYTHONPATH=build/python /usr/bin/python3 tests/python/bench_numpy.py [n] [repeats]

plan_arrays(sizes, begins, ends, alignments, strategy="greedy") on a random
instance of n buffers (default 100 000). The solve is the time the library's
plan() reports (result.time_s: validation, alias unification, the greedy and
the placement check); the overhead is everything else the call costs a
Python caller -- converting the arrays, building the problem, copying the
offsets out, the worker thread -- plus reading result.offsets_array.
Prints the median over the repeats. docs/python.md quotes the figures.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np

import pto_mem


def instance(n: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    begins = rng.integers(0, n, n)
    ends = begins + rng.integers(1, 200, n)
    sizes = rng.integers(1, 65536, n)
    alignments = rng.choice([1, 32, 64, 512], n)
    return sizes, begins, ends, alignments


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    sizes, begins, ends, alignments = instance(n)
    totals, solves, builds = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        r = pto_mem.plan_arrays(sizes, begins, ends, alignments, strategy="greedy", threads=1)
        offsets = r.offsets_array
        total = time.perf_counter() - start
        assert r.fits and offsets.shape == (n,) and (offsets >= 0).all()
        totals.append(total)
        solves.append(r.time_s)
        start = time.perf_counter()
        pto_mem.Problem.from_arrays(sizes, begins, ends, alignments)
        builds.append(time.perf_counter() - start)
    total, solve = statistics.median(totals), statistics.median(solves)
    overhead = statistics.median(t - s for t, s in zip(totals, solves))
    print(f"n={n} repeats={repeats} greedy, 1 thread")
    print(f"  plan_arrays + offsets_array: {total * 1e3:8.1f} ms (median)")
    print(f"  of which the solve (time_s): {solve * 1e3:8.1f} ms")
    print(f"  overhead:                    {overhead * 1e3:8.1f} ms = {100 * overhead / solve:.1f} % of the solve")
    print(f"  Problem.from_arrays alone:   {statistics.median(builds) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
