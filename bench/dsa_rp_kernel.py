#!/usr/bin/env python3
"""Writes a tile kernel of about N statements whose DSA_RP problem has many
reuse penalties: every block is one `range(4)` loop carrying a Vec
accumulator through seven elementwise ops over a fresh `tile.load`, then a
`tile.exp` and a store at the top level -- 13 statements and 9 allocation
bases per block (DSA_RP, a2a3). Each block's exp result dies before the next
block's is born, is written on the vector pipe and last read by the store's,
so every pair of top-level blocks is a reuse penalty: the relation grows
with the square of the number of blocks.

Usage: bench/dsa_rp_kernel.py N > kernel.pto
Then:  pto-mem compile kernel.pto --planner dsa_rp [--svg map.svg]
Deterministic: the same N gives the same bytes.
"""
import sys

OPS = ["tile.add", "tile.mul", "tile.sub", "tile.maximum", "tile.add", "tile.minimum", "tile.mul"]
TILE = "Tile[[64, 64], FP32]"


def block(k: int) -> list[str]:
    """The 13 statements of block k (the `for` header and the yield count)."""
    lines = [
        f"    a{k}: {TILE} = tile.create([64, 64], dtype=FP32, target_memory=Vec)",
        f"    for i{k}, (acc{k},) in range(4, init_values=(a{k},)):",
        f"        l{k}: {TILE} = tile.load(x, [0, 0], [64, 64], target_memory=Vec)",
    ]
    prev = f"acc{k}"
    for j, op in enumerate(OPS):
        lines.append(f"        e{k}_{j}: {TILE} = {op}({prev}, l{k})")
        prev = f"e{k}_{j}"
    lines += [
        f"        r{k} = yield_({prev})",
        f"    x{k}: {TILE} = tile.exp(r{k})",
        f"    o{k}: Tensor[[64, 64], FP32] = tile.store(x{k}, [0, 0], out)",
    ]
    return lines


def kernel(n: int) -> str:
    head = [
        "@function(type=InCore)",
        "def big(x: Tensor[[64, 64], FP32],",
        "        out: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:",
    ]
    body: list[str] = []
    k = 0
    while len(body) + 13 <= max(n - 1, 13):
        body += block(k)
        k += 1
    return "\n".join(head + body + ["    return out", ""])


def main() -> None:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: bench/dsa_rp_kernel.py N > kernel.pto  (N: statements, at least 15)")
    sys.stdout.write(kernel(int(sys.argv[1])))


if __name__ == "__main__":
    main()
