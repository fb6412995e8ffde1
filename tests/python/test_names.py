"""Buffers are named, and constraints name the buffers they join: the names
resolve to buffers when the library's problem is built, wherever the buffers
then are in the list. A name that resolves to no buffer, or to several, is an
error naming the list entry and the name. `Buffer.id` is the older spelling
of `Buffer.name`."""

from __future__ import annotations

import json
import random

import pytest

import pto_mem
from conftest import SANITIZED
from pto_mem import (
    AliasMember,
    Arena,
    Buffer,
    DeclaredAllocation,
    MustAliasGroup,
    Penalty,
    Problem,
    Separation,
    SlotBinding,
)


# ---- name and its older spelling id ---------------------------------------------


def test_name_and_id_are_one_attribute():
    b = Buffer("a", 8, (0, 1))
    assert b.name == "a" and b.id == "a"
    b.id = "x"
    assert b.name == "x"
    b.name = 7
    assert b.id == "7" and repr(b).startswith("Buffer('7', size=8")
    assert Buffer(name="n", size=8, lifetime=(0, 1)).name == "n"
    assert Buffer(id="i", size=8, lifetime=(0, 1)).name == "i"
    assert Buffer(id=3, size=8, lifetime=(0, 1), alignment=4, arena=1).id == "3"
    with pytest.raises(TypeError, match="both name and id"):
        Buffer("a", 8, (0, 1), id="b")
    with pytest.raises(TypeError, match="missing required argument: 'name'"):
        Buffer(size=8, lifetime=(0, 1))
    with pytest.raises(TypeError, match="missing required argument: 'size'"):
        Buffer("a")
    with pytest.raises(TypeError, match="missing required argument: 'lifetime'"):
        Buffer("a", 8)
    with pytest.raises(TypeError, match="name must be a str or an int, not float"):
        b.name = 1.5
    with pytest.raises(TypeError, match="id must be a str or an int, not float"):
        Buffer(id=1.5, size=8, lifetime=(0, 1))
    with pytest.raises(TypeError, match="id must be a str or an int, not NoneType"):
        b.id = None


def test_buffer_names_and_buffer_ids_agree():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1)), Buffer(2, 4, (0, 1))])
    assert p.buffer_names == p.buffer_ids == ["a", "2"]


# ---- names resolve wherever the buffers are ---------------------------------------


def overlaps(r, a: Buffer, b: Buffer) -> bool:
    oa, ob = r.offsets[a.name], r.offsets[b.name]
    return oa < ob + b.size and ob < oa + a.size


def constrained() -> Problem:
    """A separation and a must-alias group among lifetime-disjoint buffers."""
    p = Problem([Arena(0, 1024)])
    p.buffers.extend([Buffer("a", 64, (0, 2)), Buffer("b", 64, (2, 4)), Buffer("v", 16, (2, 3)), Buffer("c", 64, (4, 6))])
    p.separations.append(Separation("a", "b"))
    p.must_alias.append(MustAliasGroup([("b", 0), ("v", 32)]))
    p.penalties.append(Penalty("a", "c", weight=5))
    return p


def test_constraints_follow_their_buffers_through_list_edits():
    p = constrained()
    p.buffers.insert(0, Buffer("z", 128, (0, 6)))
    p.buffers.reverse()
    del p.buffers[p.buffer_names.index("c")]
    p.buffers.append(Buffer("c", 64, (4, 6)))
    for strategy in ("greedy", "exact"):
        r = pto_mem.plan(p, strategy=strategy, goal="minimise")
        assert r.fits and pto_mem.validate(p, r) == []
        by_name = {b.name: b for b in p.buffers}
        assert not overlaps(r, by_name["a"], by_name["b"])
        assert r.offsets["v"] == r.offsets["b"] + 32
        assert r.objective.penalty == (5 if overlaps(r, by_name["a"], by_name["c"]) else 0)


def test_renaming_a_buffer_renames_nothing_else():
    p = constrained()
    p.buffers[0].name = "a2"  # the separation and the penalty still name "a"
    with pytest.raises(pto_mem.InputError, match=r"separations\[0\] \('a', 'b'\) names unknown buffer 'a'"):
        p.to_json()
    p.separations[0].a = "a2"
    p.penalties[0].a = "a2"
    assert pto_mem.validate(p) == []


def test_json_round_trip_keeps_the_constraints_names():
    p = constrained()
    p.declared.append(DeclaredAllocation("c", 2, 32, [SlotBinding("a", 0)]))
    p.buffers[3].size = 64
    p.buffers[0].size = 32
    q = pto_mem.parse_json(p.to_json())
    assert [(s.a, s.b) for s in q.separations] == [("a", "b")]
    assert [[(m.buffer, m.offset) for m in g.members] for g in q.must_alias] == [[("b", 0), ("v", 32)]]
    assert [(x.a, x.b, x.weight) for x in q.penalties] == [("a", "c", 5)]
    assert [(d.buffer, [(s.buffer, s.slot) for s in d.bindings]) for d in q.declared] == [("c", [("a", 0)])]
    assert q.to_json() == p.to_json()


def test_unnamed_buffers_of_the_library_are_named_by_their_index():
    p = Problem.from_arrays([8, 8, 8], [0, 1, 2], [1, 2, 3])
    assert p.buffer_names == ["0", "1", "2"]
    p.separations.append(Separation(0, 2))
    p.buffers.insert(0, Buffer("x", 8, (0, 3)))  # "0" is still the buffer named "0", now at index 1
    r = pto_mem.plan(p, strategy="exact")
    assert r.fits and pto_mem.validate(p, r) == []
    assert not overlaps(r, p.buffers[1], p.buffers[3])


# ---- names that do not resolve ----------------------------------------------------


def messages(diagnostics) -> list[str]:
    return [d.message for d in diagnostics]


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p: p.separations.append(Separation("a", "nope")),
         "separations[1] ('a', 'nope') names unknown buffer 'nope'"),
        (lambda p: p.penalties.append(Penalty("nope", "c")),
         "penalties[1] ('nope', 'c') names unknown buffer 'nope'"),
        (lambda p: p.must_alias.append(MustAliasGroup(["c", AliasMember("nope", 8)])),
         "must_alias[1] names unknown buffer 'nope'"),
        (lambda p: p.declared.append(DeclaredAllocation("nope", 1, 8)),
         "declared[0] names unknown buffer 'nope'"),
        (lambda p: p.declared.append(DeclaredAllocation("c", 2, 32, [SlotBinding("nope", 1)])),
         "declared[0] ('c'): a binding names unknown buffer 'nope'"),
    ],
)
def test_an_unknown_name_is_an_error_naming_the_constraint(edit, message):
    p = constrained()
    edit(p)
    # validate returns it, as everything else it finds
    assert message in "\n".join(messages(pto_mem.validate(p)))
    assert message in "\n".join(messages(pto_mem.validate(p, [0] * len(p.buffers))))
    # plan answers it as a malformed problem
    with pytest.raises(pto_mem.PlanError) as e:
        pto_mem.plan(p, strategy="greedy")
    assert e.value.status == "invalid_input" and message in str(e.value)
    assert e.value.result.status == "invalid_input" and not e.value.result.fits
    assert len(e.value.result) == len(p.buffers)
    # the writers and the checks raise InputError
    for call in (p.to_json, p.to_csv, lambda: pto_mem.lower_bound(p), lambda: pto_mem.to_svg(p, [0] * len(p.buffers))):
        with pytest.raises(pto_mem.InputError) as e:
            call()
        assert message in str(e.value)


def test_a_repeated_name_is_an_error_naming_every_buffer_that_has_it():
    p = constrained()
    p.buffers.append(Buffer("b", 8, (0, 1)))
    found = messages(pto_mem.validate(p))
    assert "buffers[4] is named 'b', as buffers[1] is; give every buffer a name of its own" in found
    assert any(m.startswith("separations[0] ('a', 'b') names 'b', which 2 buffers are named (buffers[1] and buffers[4])")
               for m in found)
    assert any(m.startswith("must_alias[0] names 'b'") for m in found)
    with pytest.raises(pto_mem.PlanError, match="separations\\[0\\]"):
        pto_mem.plan(p)
    # A repeated name no constraint names is an error too: offsets are by name.
    q = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1)), Buffer("a", 4, (1, 2))])
    assert messages(pto_mem.validate(q)) == ["buffers[1] is named 'a', as buffers[0] is; give every buffer a name of its own"]
    with pytest.raises(pto_mem.InputError, match="buffers\\[1\\] is named 'a'"):
        q.to_json()


def test_an_empty_name_is_an_error():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1)), Buffer("", 4, (1, 2))])
    assert messages(pto_mem.validate(p)) == ["buffers[1] has an empty name; give every buffer a name of its own"]


def test_other_errors_are_reported_with_the_names():
    p = Problem([Arena(0, 100)], [Buffer("a", 0, (0, 1))], separations=[Separation("a", "b")])
    found = messages(pto_mem.validate(p))
    assert any("'a'" in m and "size is 0" in m for m in found)
    assert "separations[0] ('a', 'b') names unknown buffer 'b'; no buffer in problem.buffers has that name" in found


# ---- property: random list edits never change what the constraints mean -------------


def plain_check(p: Problem, offsets: dict[str, int]) -> None:
    """Separated buffers of one arena share no byte; aliases keep their offsets."""
    by_name = {b.name: b for b in p.buffers}
    for s in p.separations:
        a, b = by_name[s.a], by_name[s.b]
        if a.arena == b.arena:
            assert offsets[s.a] + a.size <= offsets[s.b] or offsets[s.b] + b.size <= offsets[s.a], (s, offsets)
    for g in p.must_alias:
        base = offsets[g.members[0].buffer] - g.members[0].offset
        assert all(offsets[m.buffer] - m.offset == base for m in g.members), (g, offsets)


@pytest.mark.parametrize("seed", range(4 if SANITIZED else 30))
def test_random_reorderings_plan_the_same_problem(seed):
    rng = random.Random(seed)
    n = rng.randint(3, 10)
    p = Problem([Arena(0, 1 << 16)])
    for i in range(n):
        begin = rng.randint(0, 8)
        p.buffers.append(Buffer(f"b{i}", rng.randint(1, 64), (begin, begin + rng.randint(1, 4)), alignment=rng.choice([1, 8])))
    for _ in range(rng.randint(1, 3)):
        a, b = rng.sample(range(n), 2)
        p.separations.append(Separation(f"b{a}", f"b{b}"))
    separated = {frozenset((s.a, s.b)) for s in p.separations}
    a, b = rng.choice([(x, y) for x in range(n) for y in range(n) if x != y and frozenset((f"b{x}", f"b{y}")) not in separated])
    p.must_alias.append(MustAliasGroup([(f"b{a}", 0), (f"b{b}", 8 * rng.randint(0, 4))]))
    assert pto_mem.validate(p) == []
    before = pto_mem.plan(p, strategy="exact", goal="minimise")
    assert before.fits
    plain_check(p, before.offsets)
    # Shuffle, insert and remove buffers: every constraint keeps its meaning.
    for k in range(5):
        order = list(p.buffers)
        rng.shuffle(order)
        p.buffers = order
        p.buffers.insert(rng.randint(0, len(p.buffers)), Buffer(f"extra{k}", 1, (20, 21)))
        r = pto_mem.plan(p, strategy="exact", goal="minimise")
        assert r.fits and pto_mem.validate(p, r) == []
        plain_check(p, r.offsets)
        if r.status == before.status == "optimal":  # the same problem: the same optimum
            assert r.objective.total_peak == before.objective.total_peak
        del p.buffers[p.buffer_names.index(f"extra{k}")]
    # The file written after the shuffles reads back as the same problem.
    q = pto_mem.parse_json(p.to_json())
    assert json.loads(q.to_json()) == json.loads(p.to_json())
