#!/usr/bin/env python3
"""Plan a MiniMalloc CSV and draw its memory map (docs/python.md).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/plan_csv.py \
        ../shared/data/minimalloc/A.1048576.csv --capacity 1048576 --svg A.svg

Written as a notebook would be: one step per paragraph, each printing what a
reader wants to see.
"""

from __future__ import annotations

import argparse
import sys

import pto_mem

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("csv", help="MiniMalloc CSV: id,lower,upper,size[,offset]")
parser.add_argument("--capacity", type=int, help="arena capacity in bytes (default: the peak is minimised)")
parser.add_argument("--strategy", choices=pto_mem.strategies(), help="default: the library's (portfolio)")
parser.add_argument("--time-limit", type=float, help="seconds for the searching strategies (default: a node budget)")
parser.add_argument("--svg", default="memory-map.svg", help="where to write the memory map")
args = parser.parse_args()

# 1. Read the instance. A malformed file raises pto_mem.InputError whose
#    message names file:line:column.
try:
    problem = pto_mem.read_csv(args.csv, capacity=args.capacity)
except pto_mem.InputError as e:
    sys.exit(str(e))
capacity = problem.arenas[0].capacity  # None: the file and the command line gave none
print(f"{args.csv}: {len(problem.buffers)} buffers, capacity {capacity if capacity is not None else 'none'}")

# 2. What no placement can beat: the most bytes live at one instant.
print("lower bound:", pto_mem.lower_bound(problem)[0])

# 3. Plan. `status` says what was proved: optimal, feasible, no_fit (a bounded
#    search found nothing) or infeasible (proved); `stopped_by` what ended the
#    search. Options left out (None) are the library's defaults, as in the tool.
#    Ctrl+C stops the search and raises pto_mem.Interrupted with the best result.
try:
    result = pto_mem.plan(problem, strategy=args.strategy, time_limit=args.time_limit)
except pto_mem.Interrupted as e:
    print("interrupted: keeping the best placement found so far")
    result = e.result
print(f"{result.strategy}: {result.status} (stopped by {result.stopped_by}), peak {result.objective.total_peak}, "
      f"{result.time_s:.3f} s")
for d in result.diagnostics:
    print(" ", d)
if not result.fits:
    sys.exit(1)

# 4. Trust, but verify: the independent validator recomputes every invariant.
problems = pto_mem.validate(problem, result)
assert not problems, problems

# 5. A few offsets, then the memory map (written atomically).
for buffer_id, offset in list(result.offsets.items())[:5]:
    print(f"  {buffer_id:>12} @ {offset}")
pto_mem.to_svg(problem, result, args.svg)
print("memory map:", args.svg)
