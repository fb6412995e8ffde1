#!/usr/bin/env python3
"""Writes a random CSV instance (id,lower,upper,size) for the end-to-end
benchmark (bench/end_to_end.sh): the distribution of bench_support.hpp's
generated_instance -- births over n/2 points; 70% of lifetimes 1-8 points,
25% 8-200, 5% 200-5000; sizes log-uniform 32 B .. 2 MiB in 32-byte steps --
so about 300 buffers are live at once at any n. Reproducible: the same n
and seed give the same bytes (Python's Mersenne Twister).

Usage: bench/random_csv.py N [SEED] > FILE.csv
"""
import random
import sys


def main() -> None:
    n = int(sys.argv[1])
    g = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 42)
    horizon = max(1, n // 2)
    out = ["id,lower,upper,size\n"]
    for i in range(n):
        begin = g.randrange(horizon)
        kind = g.randrange(100)
        length = 1 + g.randrange(8) if kind < 70 else 8 + g.randrange(193) if kind < 95 else 200 + g.randrange(4801)
        log2 = 5 + g.randrange(16)
        size = max(32, ((1 << log2) + g.randrange(1 << log2)) // 32 * 32)
        out.append(f"{i},{begin},{begin + length},{size}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
