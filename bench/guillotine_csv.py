#!/usr/bin/env python3
"""Writes the perfect-packing puzzle of bench/exact_bench.cpp (guillotine():
a capacity x horizon rectangle cut at random, splitmix64 seeded) as a CSV
`id,lower,upper,size`, so that the tool can be timed on it:

    bench/guillotine_csv.py PIECES SEED > puzzle.csv   # capacity 1048576, horizon 10 * PIECES
"""
import sys

M = (1 << 64) - 1


def guillotine(seed, capacity, horizon, pieces):
    state = seed

    def nxt():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & M
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)

    rs = [(0, capacity, 0, horizon)]
    tries = 0
    while len(rs) < pieces and tries < 100 * pieces:
        k = nxt() % len(rs)
        a0, a1, t0, t1 = rs[k]
        if nxt() % 2 == 0 and a1 - a0 >= 2:
            c = a0 + 1 + nxt() % (a1 - a0 - 1)
            rs[k] = (a0, c, t0, t1)
            rs.append((c, a1, t0, t1))
        elif t1 - t0 >= 2:
            c = t0 + 1 + nxt() % (t1 - t0 - 1)
            rs[k] = (a0, a1, t0, c)
            rs.append((a0, a1, c, t1))
        tries += 1
    return rs


def main():
    pieces, seed = int(sys.argv[1]), int(sys.argv[2])
    print("id,lower,upper,size")
    for i, (a0, a1, t0, t1) in enumerate(guillotine(seed, 1 << 20, 10 * pieces, pieces)):
        print(f"{i},{t0},{t1},{a1 - a0}")


if __name__ == "__main__":
    main()
