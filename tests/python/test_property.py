"""Property test: random problems planned from Python, every answer checked
by the independent validator, and by a plain-Python overlap check that
shares nothing with the library."""

from __future__ import annotations

import random

from conftest import SANITIZED

import pto_mem
from pto_mem import Arena, Buffer, MustAliasGroup, Problem, Separation

CASES = 15 if SANITIZED else 120


def random_problem(rng: random.Random) -> Problem:
    arenas = rng.randint(1, 2)
    p = Problem(arenas=[Arena(a, rng.choice([512, 1024, 4096]), reserved=[(0, 32)] if rng.random() < 0.3 else []) for a in range(arenas)])
    n = rng.randint(1, 14)
    for i in range(n):
        begin = rng.randint(0, 10)
        p.buffers.append(Buffer(f"b{i}", rng.randint(1, 300), (begin, begin + rng.randint(1, 6)),
                                alignment=rng.choice([1, 8, 32]), arena=rng.randrange(arenas)))
    if n >= 2 and rng.random() < 0.3:
        a, b = rng.sample(range(n), 2)
        if p.buffers[a].arena == p.buffers[b].arena:
            p.separations.append(Separation(f"b{a}", f"b{b}"))
    if n >= 2 and rng.random() < 0.2:
        a, b = rng.sample(range(n), 2)
        if p.buffers[a].arena == p.buffers[b].arena:
            p.must_alias.append(MustAliasGroup([f"b{a}", f"b{b}"]))
    return p


def overlap_free(p: Problem, offsets: list[int | None]) -> bool:
    """Co-live buffers of one arena do not share a byte (aliases excepted)."""
    aliased = {frozenset(m.buffer for m in g.members) for g in p.must_alias}
    cap = {a.id: a.capacity for a in p.arenas}
    for i, x in enumerate(p.buffers):
        if offsets[i] % x.alignment or offsets[i] + x.size > cap[x.arena]:
            return False
        for j in range(i):
            y = p.buffers[j]
            if x.arena != y.arena or x.begin >= y.end or y.begin >= x.end:
                continue
            if any({x.id, y.id} <= g for g in aliased):
                continue
            if offsets[i] < offsets[j] + y.size and offsets[j] < offsets[i] + x.size:
                return False
    return True


def test_random_problems_plan_validly():
    rng = random.Random(20261201)
    answers = {}
    for _ in range(CASES):
        p = random_problem(rng)
        assert pto_mem.validate(p) == []
        for strategy in ("sequential", "reuse", "greedy", "portfolio"):
            r = pto_mem.plan(p, strategy=strategy, goal="fit", time_limit=1.0, threads=1)
            answers[r.status] = answers.get(r.status, 0) + 1
            if not r.fits:
                assert r.status in ("no_fit", "infeasible")
                continue
            assert pto_mem.validate(p, r) == [], (strategy, p.to_json())
            assert overlap_free(p, r.placement), (strategy, p.to_json())
            assert all(peak >= lb for peak, lb in zip(r.objective.peak_by_arena, r.lower_bound))
    assert answers.get("feasible", 0) + answers.get("optimal", 0) > 0
