"""Structured problems from Python: several live intervals, pins, candidate
arenas (with spill), temporal exclusions and an explicit conflict graph --
each feature, its errors, the round trip through the library's model, and a
property test against a brute-force oracle in plain Python."""

from __future__ import annotations

import collections.abc
import itertools
import os
import random

import pytest
from conftest import SANITIZED

import pto_mem
from pto_mem import Arena, Buffer, Conflict, Exclusion, Pin, Problem

# The strategies that let buffers share bytes (sequential gives each its own).
SHARING = [s for s in pto_mem.strategies() if s != "sequential"]

# ---- live intervals ----------------------------------------------------------


def test_live_intervals_set_the_lifetime_to_their_hull():
    b = Buffer("carry", 64, live=[(0, 2), (6, 8)])
    assert b.live == [(0, 2), (6, 8)] and b.lifetime == (0, 8)
    b.live = [(1, 3), (4, 5)]
    assert b.lifetime == (1, 5)
    b.live = []
    assert b.live == [] and b.lifetime == (1, 5)  # live over the whole lifetime again
    assert Buffer("x", 8, (0, 4)).live == []


def test_a_buffer_inside_the_gap_shares_the_carried_buffers_bytes():
    # `carry` is live before the loop and after it, dead inside; `body` lives in the loop.
    p = Problem(arenas=[Arena(0, 96)],
                buffers=[Buffer("carry", 64, live=[(0, 2), (6, 8)]), Buffer("body", 64, (2, 6))])
    r = pto_mem.plan(p, strategy="exact")
    assert r.fits and r.objective.total_peak == 64
    assert pto_mem.validate(p, r) == []
    # Over its hull the two would overlap: then they need 128 bytes.
    p.buffers[0].live = []
    assert not pto_mem.plan(p, strategy="exact").fits


def test_live_errors_name_the_entry_and_the_value():
    with pytest.raises(TypeError, match=r"live\[1\] end must be an int, not str"):
        Buffer("x", 8, live=[(0, 1), (2, "3")])
    with pytest.raises(ValueError, match=r"live\[0\] must be a pair \(begin, end\), not 3 values"):
        Buffer("x", 8, live=[(0, 1, 2)])
    with pytest.raises(TypeError, match=r"live\[0\] must be a pair \(begin, end\), not int"):
        Buffer("x", 8, live=[5])
    with pytest.raises(TypeError, match="live must be a list of"):
        Buffer("x", 8, live="01")
    with pytest.raises(TypeError, match="missing required argument: 'lifetime' \\(or 'live'\\)"):
        Buffer("x", 8)
    # Out of order: the validator names the buffer.
    p = Problem(arenas=[Arena(0, 64)], buffers=[Buffer("x", 8, (0, 6), live=[(3, 6), (0, 2)])])
    messages = [d.message for d in pto_mem.validate(p)]
    assert any("'x'" in m and "out of order" in m for m in messages), messages


# ---- pins ----------------------------------------------------------------------


def test_pin_from_an_int_or_a_pin():
    assert Buffer("x", 8, (0, 1), pin=16).pin == Pin(16)
    b = Buffer("y", 8, (0, 1), pin=Pin(32, exclusive=True))
    assert b.pin.offset == 32 and b.pin.exclusive and repr(b.pin) == "Pin(32, exclusive=True)"
    b.pin = None
    assert b.pin is None
    b.pin = 8
    assert b.pin == Pin(8, exclusive=False) and "pin=Pin(8)" in repr(b)


def test_a_pinned_buffer_stays_at_its_offset():
    p = Problem(arenas=[Arena(0, 256)],
                buffers=[Buffer("io", 32, (0, 10), pin=64), Buffer("t", 64, (0, 10)), Buffer("u", 64, (0, 10))])
    for strategy in pto_mem.strategies():
        r = pto_mem.plan(p, strategy=strategy)
        assert r.fits and r.offsets["io"] == 64, strategy
        assert pto_mem.validate(p, r) == [], strategy


def test_an_exclusive_pin_keeps_every_other_buffer_off_its_bytes():
    # `t` is never live with `io`: a shared pin lets it sit on io's bytes, an exclusive one does not.
    p = Problem(arenas=[Arena(0, 64)], buffers=[Buffer("io", 64, (0, 2), pin=0), Buffer("t", 64, (4, 6))])
    assert pto_mem.validate(p, [0, 0]) == []
    p.buffers[0].pin = Pin(0, exclusive=True)
    messages = [d.message for d in pto_mem.validate(p, [0, 0])]
    assert messages and any("'t'" in m for m in messages), messages
    r = pto_mem.plan(p, strategy="exact")
    assert r.status == "infeasible" and not r.fits


def test_pin_errors_name_the_value():
    with pytest.raises(TypeError, match="pin must be an int offset, a pto_mem.Pin or None, not str"):
        Buffer("x", 8, (0, 1), pin="16")
    with pytest.raises(ValueError, match="pin offset must be >= 0, not -1"):
        Pin(-1)
    with pytest.raises(TypeError, match="exclusive must be True or False, not int"):
        Pin(0, exclusive=1)
    with pytest.raises(TypeError, match="pin must be an int offset"):
        Buffer("x", 8, (0, 1), pin=True)
    # A misaligned pin: the validator names the buffer and the offset.
    p = Problem(arenas=[Arena(0, 64)], buffers=[Buffer("x", 8, (0, 1), alignment=8, pin=4)])
    messages = [d.message for d in pto_mem.validate(p)]
    assert any("'x'" in m and "offset 4" in m for m in messages), messages


# ---- candidate arenas and spill ----------------------------------------------


def two_arenas(fast: int = 64) -> list[Arena]:
    return [Arena(0, fast, name="fast"), Arena(1, 1024, name="slow")]


def test_arena_is_the_first_candidate():
    b = Buffer("x", 8, (0, 1), candidate_arenas=[1, 0])
    assert b.arena == 1 and b.candidate_arenas == [1, 0]
    b.candidate_arenas = [0, 1]
    assert b.arena == 0
    assert Buffer("y", 8, (0, 1)).arena == 0 and Buffer("y", 8, (0, 1)).candidate_arenas == []


def test_what_does_not_fit_the_fast_arena_spills_to_the_next():
    p = Problem(arenas=two_arenas(),
                buffers=[Buffer(f"b{i}", 48, (0, 4), candidate_arenas=[0, 1]) for i in range(3)])
    for strategy in pto_mem.strategies():
        r = pto_mem.plan(p, strategy=strategy)
        assert r.fits, strategy
        assert sorted(r.arenas.values()) == [0, 1, 1], strategy  # one fits the fast arena, two spill
        assert r.objective.spill == 2, strategy
        assert r.arena_list == [r.arenas[f"b{i}"] for i in range(3)]
        assert pto_mem.validate(p, r) == [], strategy
    # Without candidates every buffer is in its own arena and nothing spills.
    q = Problem(arenas=two_arenas(), buffers=[Buffer("x", 8, (0, 1), arena=1)])
    r = pto_mem.plan(q)
    assert r.arenas == {"x": 1} and r.arena_list == [1] and r.objective.spill == 0
    assert "spill=0" in repr(r.objective)


def test_validate_takes_the_chosen_arenas():
    p = Problem(arenas=two_arenas(fast=48),
                buffers=[Buffer("a", 48, (0, 4), candidate_arenas=[0, 1]),
                         Buffer("b", 48, (0, 4), candidate_arenas=[0, 1])])
    # Both in the fast arena (the default when no arena is given): they overlap.
    assert pto_mem.validate(p, {"a": 0, "b": 0}) != []
    assert pto_mem.validate(p, {"a": 0, "b": 0}, arenas={"b": 1}) == []
    assert pto_mem.validate(p, [0, 0], arenas=[None, 1]) == []
    assert pto_mem.validate(p, [0, 0], arenas=[1, 1]) != []
    with pytest.raises(pto_mem.InputError, match="arenas: the problem has no buffer 'c'"):
        pto_mem.validate(p, [0, 0], arenas={"c": 1})
    with pytest.raises(pto_mem.InputError, match="arenas has 1 entries, the problem 2 buffers"):
        pto_mem.validate(p, [0, 0], arenas=[1])
    with pytest.raises(TypeError, match="the arena of buffer 'a' must be an int, not str"):
        pto_mem.validate(p, [0, 0], arenas={"a": "slow"})
    with pytest.raises(TypeError, match="arenas were given without offsets"):
        pto_mem.validate(p, arenas=[0, 1])


def test_candidate_arena_errors_name_the_entry_and_the_value():
    with pytest.raises(TypeError, match=r"candidate_arenas\[1\] must be an int, not str"):
        Buffer("x", 8, (0, 1), candidate_arenas=[0, "1"])
    with pytest.raises(TypeError, match="candidate_arenas must be a list of arena ids, not int"):
        Buffer("x", 8, (0, 1), candidate_arenas=1)
    p = Problem(arenas=two_arenas(), buffers=[Buffer("x", 8, (0, 1), candidate_arenas=[0, 7])])
    messages = [d.message for d in pto_mem.validate(p)]
    assert any("'x'" in m and "unknown candidate arena 7" in m for m in messages), messages
    with pytest.raises(pto_mem.PlanError, match="unknown candidate arena 7"):
        pto_mem.plan(p)
    # An arena given that is not the first candidate: the validator names both.
    q = Problem(arenas=two_arenas(), buffers=[Buffer("x", 8, (0, 1), arena=1, candidate_arenas=[0, 1])])
    messages = [d.message for d in pto_mem.validate(q)]
    assert any("'x'" in m and "arena 1 is not its first candidate arena 0" in m for m in messages), messages


# ---- exclusions ----------------------------------------------------------------


def branches() -> Problem:
    # `then` and `else` are the two arms of a conditional: their intervals overlap, they never live at once.
    return Problem(arenas=[Arena(0, 64)], buffers=[Buffer("then", 64, (0, 4)), Buffer("else", 64, (1, 5))])


def test_exclusive_branches_share_bytes():
    p = branches()
    assert not pto_mem.plan(p, strategy="exact").fits
    p.exclusions.append(Exclusion("then", "else"))
    assert list(p.exclusions) == [p.exclusions[0]] and repr(p.exclusions[0]) == "Exclusion('then', 'else')"
    for strategy in SHARING:
        r = pto_mem.plan(p, strategy=strategy)
        assert r.fits and r.objective.total_peak == 64, strategy
        assert pto_mem.validate(p, r) == [], strategy


def test_exclusion_errors_name_the_entry_and_the_name():
    p = branches()
    p.exclusions = [Exclusion("then", "elze")]
    with pytest.raises(pto_mem.PlanError, match=r"exclusions\[0\] \('then', 'elze'\) names unknown buffer 'elze'"):
        pto_mem.plan(p)
    with pytest.raises(TypeError, match="this list holds pto_mem.Exclusion objects, not tuple"):
        p.exclusions.append(("then", "else"))
    with pytest.raises(TypeError, match="b must be a str or an int, not float"):
        Exclusion("then", 1.5)


# ---- the conflict graph --------------------------------------------------------


def test_the_conflict_graph_alone_decides_who_is_live_together():
    p = branches()
    assert p.conflict_graph is None
    p.conflict_graph = []  # no edge: nobody is live together, whatever the intervals say
    assert p.conflict_graph is not None and len(p.conflict_graph) == 0
    r = pto_mem.plan(p, strategy="exact")
    assert r.fits and r.objective.total_peak == 64
    # An edge between buffers whose intervals are disjoint makes them conflict.
    q = Problem(arenas=[Arena(0, 64)], buffers=[Buffer("a", 64, (0, 1)), Buffer("b", 64, (5, 6))],
                conflict_graph=[Conflict("a", "b")])
    assert not pto_mem.plan(q, strategy="exact").fits
    q.conflict_graph = None
    assert pto_mem.plan(q, strategy="exact").fits
    assert "conflict graph" not in repr(q)
    # The graph is a live list view, as the problem's other lists.
    q.conflict_graph = []
    edges = q.conflict_graph
    edges.append(Conflict("a", "b"))
    assert isinstance(edges, collections.abc.MutableSequence) and len(q.conflict_graph) == 1
    assert not pto_mem.plan(q, strategy="exact").fits
    assert isinstance(q.exclusions, collections.abc.MutableSequence)


def test_conflict_graph_errors_name_the_entry_and_the_name():
    p = branches()
    p.conflict_graph = [Conflict("then", "else"), Conflict("then", "nope")]
    with pytest.raises(pto_mem.PlanError, match=r"conflict_graph\[1\] \('then', 'nope'\) names unknown buffer 'nope'"):
        pto_mem.plan(p)
    messages = [d.message for d in pto_mem.validate(p)]
    assert any("conflict_graph[1]" in m for m in messages), messages
    with pytest.raises(TypeError, match="this list holds pto_mem.Conflict objects, not Exclusion"):
        p.conflict_graph = [Exclusion("then", "else")]


# ---- the model round trip, copies and files -------------------------------------


def structured() -> Problem:
    return Problem(
        arenas=[Arena(0, 128, name="fast"), Arena(1, 1024, name="slow")],
        buffers=[
            Buffer("carry", 32, live=[(0, 2), (6, 8)]),
            Buffer("then", 64, (2, 4)),
            Buffer("else", 64, (2, 5)),
            Buffer("io", 16, (0, 8), pin=Pin(96, exclusive=True)),
            Buffer("big", 96, (3, 7), candidate_arenas=[0, 1]),
        ],
        exclusions=[Exclusion("then", "else")],
        conflict_graph=[Conflict("carry", "io"), Conflict("then", "big")],
    )


def snapshot(p: Problem) -> tuple:
    return (
        [(a.id, a.name, a.capacity) for a in p.arenas],
        [(b.name, b.size, b.lifetime, b.live, b.pin, b.candidate_arenas, b.arena) for b in p.buffers],
        [(x.a, x.b) for x in p.exclusions],
        None if p.conflict_graph is None else [(c.a, c.b) for c in p.conflict_graph],
    )


def test_the_round_trip_through_the_library_keeps_everything():
    p = structured()
    assert snapshot(p._round_trip()) == snapshot(p)
    p.conflict_graph = None
    assert snapshot(p._round_trip()) == snapshot(p)
    assert p._round_trip().conflict_graph is None


def test_each_reprs_is_the_call_that_makes_it_again():
    namespace = {"Buffer": Buffer, "Pin": Pin, "Exclusion": Exclusion, "Conflict": Conflict}
    for b in structured().buffers:
        again = eval(repr(b), namespace)  # noqa: S307 - our own repr
        assert (again.name, again.size, again.lifetime, again.live, again.pin, again.candidate_arenas, again.arena) == (
            b.name, b.size, b.lifetime, b.live, b.pin, b.candidate_arenas, b.arena)
    x = eval(repr(Exclusion("a", 3)), namespace)  # noqa: S307
    assert (x.a, x.b) == ("a", "3") and repr(eval(repr(Conflict(1, "b")), namespace)) == "Conflict('1', 'b')"  # noqa: S307


def test_a_copy_keeps_everything_and_is_independent():
    p = structured()
    q = p.copy()
    assert snapshot(q) == snapshot(p)
    q.exclusions[0].b = "big"
    q.conflict_graph[0].a = "then"
    q.buffers[0].live = [(0, 1)]
    assert p.exclusions[0].b == "else" and p.conflict_graph[0].a == "carry" and p.buffers[0].live == [(0, 2), (6, 8)]


def test_the_structure_plans_and_validates():
    p = structured()
    for strategy in ("greedy", "exact", "portfolio"):  # the searches; reuse is a one-pass heuristic
        r = pto_mem.plan(p, strategy=strategy)
        assert r.fits, strategy
        assert r.offsets["io"] == 96, strategy
        assert pto_mem.validate(p, r) == [], strategy
    assert "1 exclusions, a conflict graph of 2 edges" in repr(p)


def test_json_keeps_the_structure_and_csv_refuses_it():
    p = structured()
    back = pto_mem.parse_json(p.to_json())
    assert back.to_json() == p.to_json()
    assert [e.a for e in back.exclusions] == [e.a for e in p.exclusions]
    assert back.conflict_graph is not None and len(back.conflict_graph) == len(p.conflict_graph)
    assert [b.live for b in back.buffers] == [b.live for b in p.buffers]
    assert [b.pin for b in back.buffers] == [b.pin for b in p.buffers]
    assert [b.candidate_arenas for b in back.buffers] == [b.candidate_arenas for b in p.buffers]
    p.exclusions.clear()
    p.conflict_graph = None
    with pytest.raises(pto_mem.InputError, match=r"the CSV format has no field for buffers\[0\] \('carry'\).live"):
        p.to_csv()


# ---- the property test: plan() against a brute-force oracle ----------------------

CASES = 40 if SANITIZED else 80
# PTO_MEM_PROPERTY_SEEDS scales the case count as for the C++ property tests (1500 = once).
SEEDS_FACTOR = max(1, int(os.environ.get("PTO_MEM_PROPERTY_SEEDS", "1500")) // 1500)


def random_structured(rng: random.Random) -> Problem:
    arena_count = rng.randint(1, 2)
    p = Problem(arenas=[Arena(a, rng.randint(4, 8)) for a in range(arena_count)])
    n = rng.randint(2, 4)
    for i in range(n):
        size, align = rng.randint(1, 4), rng.choice([1, 1, 2])
        if rng.random() < 0.4:  # a gap in the lifetime
            a = rng.randint(0, 3)
            b = a + rng.randint(1, 2)
            c = b + rng.randint(1, 2)
            live = [(a, b), (c, c + rng.randint(1, 2))]
        else:
            a = rng.randint(0, 5)
            live = [(a, a + rng.randint(1, 3))]
        buf = Buffer(f"b{i}", size, alignment=align, live=live if len(live) > 1 else None,
                     lifetime=None if len(live) > 1 else live[0], arena=rng.randrange(arena_count))
        if arena_count == 2 and rng.random() < 0.4:
            buf.candidate_arenas = rng.choice([[0, 1], [1, 0]])
        elif rng.random() < 0.2:
            cap = p.arenas[buf.arena].capacity
            buf.pin = Pin(rng.randrange(0, max(1, cap - size + 1), align), exclusive=rng.random() < 0.3)
        p.buffers.append(buf)
    names = [b.name for b in p.buffers]
    for x, y in itertools.combinations(names, 2):
        if rng.random() < 0.25:
            p.exclusions.append(Exclusion(x, y))
    if rng.random() < 0.3:
        p.conflict_graph = [Conflict(x, y) for x, y in itertools.combinations(names, 2) if rng.random() < 0.5]
    return p


def intervals(b: Buffer) -> list[tuple[int, int]]:
    return b.live or [b.lifetime]


def live_together(p: Problem) -> set[frozenset[str]]:
    """The pairs that may not share bytes in one arena, by the rule stated in plain words:
    the graph's edge if there is a graph, else an overlap of live intervals; never an excluded pair."""
    excluded = {frozenset((x.a, x.b)) for x in p.exclusions}
    if p.conflict_graph is not None:
        pairs = {frozenset((c.a, c.b)) for c in p.conflict_graph}
    else:
        pairs = set()
        for x, y in itertools.combinations(p.buffers, 2):
            if any(a < d and c < b for a, b in intervals(x) for c, d in intervals(y)):
                pairs.add(frozenset((x.name, y.name)))
    return {q for q in pairs if q not in excluded and len(q) == 2}


def choices(p: Problem, b: Buffer) -> list[tuple[int, int]]:
    """Every (arena, offset) the buffer may take on its own."""
    cap = {a.id: a.capacity for a in p.arenas}
    if b.pin is not None:
        return [(b.arena, b.pin.offset)] if b.pin.offset + b.size <= cap[b.arena] else []
    return [(a, o) for a in (b.candidate_arenas or [b.arena]) for o in range(0, cap[a] - b.size + 1, b.alignment)]


def compatible(p, pairs, i, ci, j, cj) -> bool:
    x, y = p.buffers[i], p.buffers[j]
    (ai, oi), (aj, oj) = ci, cj
    if ai != aj or oi + x.size <= oj or oj + y.size <= oi:
        return True
    if frozenset((x.name, y.name)) in pairs:
        return False
    return not ((x.pin and x.pin.exclusive) or (y.pin and y.pin.exclusive))


def oracle(p: Problem) -> tuple[int, int] | None:
    """The best (spill, total peak) over every valid placement, or None when none exists."""
    pairs = live_together(p)
    options = [choices(p, b) for b in p.buffers]
    best = None

    def walk(i, chosen):
        nonlocal best
        if i == len(p.buffers):
            spill = sum((b.candidate_arenas or [b.arena]).index(a) for b, (a, _) in zip(p.buffers, chosen))
            peak = {}
            for b, (a, o) in zip(p.buffers, chosen):
                peak[a] = max(peak.get(a, 0), o + b.size)
            key = (spill, sum(peak.values()))
            best = key if best is None or key < best else best
            return
        for c in options[i]:
            if all(compatible(p, pairs, i, c, j, chosen[j]) for j in range(i)):
                walk(i + 1, chosen + [c])

    walk(0, [])
    return best


def valid_by_oracle(p: Problem, r) -> bool:
    pairs = live_together(p)
    chosen = [(r.arenas[b.name], r.offsets[b.name]) for b in p.buffers]
    for i, b in enumerate(p.buffers):
        if chosen[i] not in choices(p, b):
            return False
    return all(compatible(p, pairs, i, chosen[i], j, chosen[j]) for i, j in itertools.combinations(range(len(chosen)), 2))


def test_plan_agrees_with_a_brute_force_oracle():
    """Every placement is valid by the oracle's own reading of the rules and by the validator, and
    never better than the oracle's optimum; every proof (infeasible, optimal) matches the oracle; and
    the complete searches (exact, and the portfolio, which ends in it) are complete on every
    constraint: on problems this small they decide every arena choice (statistic
    structured_complete), fit whenever a placement exists, prove infeasible whenever none does, and
    prove the least (spill, total peak)."""
    rng = random.Random(34)
    checked = fitting = complete_searches = choices = shared_pins = 0
    for case in range(CASES * SEEDS_FACTOR):
        p = random_structured(rng)
        if pto_mem.validate(p):  # a pin past its arena's capacity, ...
            continue
        checked += 1
        best = oracle(p)
        choices += any(len(b.candidate_arenas) > 1 for b in p.buffers)
        shared_pins += any(b.pin is not None and not b.pin.exclusive for b in p.buffers)
        for strategy in SHARING:
            r = pto_mem.plan(p, strategy=strategy, goal="minimise")
            where = (f"case {case}, {strategy}: {r!r} {list(p.arenas)!r} {list(p.buffers)!r} "
                     f"{list(p.exclusions)!r} {p.conflict_graph!r} oracle {best}")
            if strategy in ("exact", "portfolio"):
                assert r.fits == (best is not None), where
                if best is None:
                    assert r.status == "infeasible", where
                else:
                    assert r.status == "optimal", where
                complete_searches += strategy == "exact" and r.statistics.get("structured_complete") == 1
            if r.status == "infeasible" or best is None:
                assert best is None and not r.fits, where
                continue
            if r.fits:
                assert len(r.offsets) == len(p.buffers) == len(r.arenas), where
                assert valid_by_oracle(p, r), where
                assert pto_mem.validate(p, r) == [], where
                assert (r.objective.spill, r.objective.total_peak) >= best, where
            if r.status == "optimal":
                assert (r.objective.spill, r.objective.total_peak) == best, where
        fitting += best is not None
    assert checked >= CASES * SEEDS_FACTOR // 2 and fitting >= checked // 3
    assert complete_searches >= checked // 2 and choices >= checked // 10 and shared_pins >= checked // 20
