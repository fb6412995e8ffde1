"""A problem's lists behave as Python lists of shared objects: an element
taken from a list stays valid and stays itself whatever happens to the list
(append, insert, delete, clear, slices, reassignment, the problem going
away). A fuzz test mirrors random mutations on a plain Python list and
checks both agree after every step."""

from __future__ import annotations

import gc
import json
import random

import pytest

import pto_mem
from pto_mem import Arena, Buffer, DeclaredAllocation, MustAliasGroup, Penalty, Problem, Separation
from conftest import SANITIZED


def test_the_reported_crash():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1))])
    b = p.buffers[0]
    for i in range(100):
        p.buffers.append(Buffer(f"n{i}", 4, (0, 1)))
    b.id = "x" * 1000
    assert p.buffers[0] is b and p.buffers[0].id == "x" * 1000


def test_insert_and_delete_keep_the_element_itself():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1)), Buffer("b", 8, (0, 1))])
    a, b = p.buffers[0], p.buffers[1]
    p.buffers.insert(0, Buffer("z", 16, (0, 1)))
    a.size = 5  # edits "a", wherever it now is
    assert [x.id for x in p.buffers] == ["z", "a", "b"] and p.buffers[1].size == 5 and p.buffers[0].size == 16
    del p.buffers[1]
    a.size = 6  # "a" left the problem: editing it changes nothing there
    assert a.size == 6 and [(x.id, x.size) for x in p.buffers] == [("z", 16), ("b", 8)]
    p.buffers.clear()
    b.id = "still valid"
    assert b.id == "still valid" and len(p.buffers) == 0


def test_appended_objects_are_shared():
    p = Problem([Arena(0, 100)])
    b = Buffer("a", 4, (0, 1))
    p.buffers.append(b)
    b.size = 12
    assert p.buffers[0] is b and p.buffers[0].size == 12
    assert p.to_json() != Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1))]).to_json()


def test_elements_outlive_the_problem_and_its_lists():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1))], must_alias=[MustAliasGroup(["a"])])
    lst, b, g, arena = p.buffers, p.buffers[0], p.must_alias[0], p.arenas[0]
    del p
    gc.collect()
    b.size = 9
    assert lst[0] is b and b.size == 9 and g.members[0].buffer == "a" and arena.capacity == 100
    lst.append(Buffer("c", 1, (0, 1)))
    assert len(lst) == 2


def test_reassigning_a_list_detaches_the_old_view():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1))])
    old = p.buffers
    p.buffers = [Buffer("n", 8, (0, 2))]
    assert [x.id for x in old] == ["a"] and p.buffer_ids == ["n"]
    p.buffers = old  # any iterable of Buffers, this view too
    assert p.buffer_ids == ["a"]


def test_lists_refuse_other_types_and_leave_the_list_unchanged():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1))])
    for bad in (None, "a", 3, Arena(1, 10)):
        with pytest.raises(TypeError, match="holds pto_mem.Buffer objects"):
            p.buffers.append(bad)
    with pytest.raises(TypeError, match="holds pto_mem.Buffer objects"):
        p.buffers.extend([Buffer("b", 4, (0, 1)), None])
    with pytest.raises(TypeError, match="holds pto_mem.Arena objects"):
        p.arenas[0] = Buffer("x", 1, (0, 1))
    with pytest.raises(TypeError, match="holds pto_mem.Buffer objects"):
        p.buffers = [None]
    with pytest.raises(TypeError, match="holds pto_mem.Separation objects"):
        Problem(separations=[Penalty("a", "b")])
    assert p.buffer_ids == ["a"] and len(p.arenas) == 1
    with pytest.raises(IndexError):
        p.buffers[5]
    with pytest.raises(IndexError):
        del p.buffers[-2]
    with pytest.raises(IndexError):
        Problem().buffers.pop()
    with pytest.raises(ValueError):
        p.buffers.remove(Buffer("a", 4, (0, 1)))  # equal values, another object


def test_copy_gives_new_elements():
    p = Problem([Arena(0, 100)], [Buffer("a", 4, (0, 1))])
    q = p.copy()
    assert q.buffers[0] is not p.buffers[0] and q.to_json() == p.to_json()
    q.buffers[0].size = 1
    assert p.buffers[0].size == 4


def make(kind: str, rng: random.Random, k: int):
    if kind == "buffers":
        return Buffer(f"b{k}", rng.randint(1, 64), (rng.randint(0, 4), rng.randint(5, 9)), alignment=rng.choice([1, 8]))
    if kind == "arenas":
        return Arena(k, rng.choice([None, rng.randint(64, 4096)]), f"a{k}")
    if kind == "must_alias":
        return MustAliasGroup([(f"b{k}", 0), (f"b{k + 1}", rng.randint(0, 8))])
    if kind == "separations":
        return Separation(f"b{k}", f"b{k + 1}")
    if kind == "penalties":
        return Penalty(f"b{k}", f"b{k + 1}", weight=rng.randint(1, 5))
    return DeclaredAllocation(f"b{k}", 2, 16)


def value(x) -> str:
    return repr(x)


KINDS = ["buffers", "arenas", "must_alias", "separations", "penalties", "declared"]


@pytest.mark.parametrize("seed", range(5 if SANITIZED else 25))
def test_random_mutations_match_a_python_list(seed):
    rng = random.Random(seed)
    p = Problem()
    mirror = {kind: [] for kind in KINDS}
    held = []  # (object, kind): elements Python code keeps references to
    k = 0
    for step in range(150):
        kind = rng.choice(KINDS)
        lst, ref = getattr(p, kind), mirror[kind]
        op = rng.randrange(14)
        k += 1
        if op <= 2:
            x = make(kind, rng, k)
            lst.append(x)
            ref.append(x)
        elif op == 3:
            x = make(kind, rng, k)
            i = rng.randint(-len(ref) - 2, len(ref) + 2)
            lst.insert(i, x)
            ref.insert(i, x)
        elif op == 4 and ref:
            i = rng.randrange(-len(ref), len(ref))
            del lst[i]
            del ref[i]
        elif op == 5 and ref:
            i = rng.randrange(len(ref))
            assert lst.pop(i) is ref.pop(i)
        elif op == 6:
            a, b = sorted(rng.randint(-len(ref) - 1, len(ref) + 1) for _ in range(2))
            step_ = rng.choice([None, 1, 2, -1])
            del lst[a:b:step_]
            del ref[a:b:step_]
        elif op == 7:
            a, b = sorted(rng.randint(0, len(ref)) for _ in range(2))
            new = [make(kind, rng, k + j) for j in range(rng.randint(0, 3))]
            lst[a:b] = new
            ref[a:b] = new
        elif op == 8 and ref:
            i = rng.randrange(len(ref))
            x = make(kind, rng, k)
            lst[i] = x
            ref[i] = x
        elif op == 9 and rng.random() < 0.2:
            lst.clear()
            ref.clear()
        elif op == 10:
            new = [make(kind, rng, k + j) for j in range(rng.randint(0, 3))]
            lst.extend(new)
            ref.extend(new)
        elif op == 11 and ref:
            lst.reverse()
            ref.reverse()
        elif op == 12 and ref:
            x = rng.choice(ref)
            assert x in lst and lst.index(x) == ref.index(x) and lst.count(x) == ref.count(x)
            lst.remove(x)
            ref.remove(x)
        elif op == 13 and rng.random() < 0.1:
            new = list(ref)
            rng.shuffle(new)
            setattr(p, kind, new)
            mirror[kind] = ref = new
            lst = getattr(p, kind)
        if ref and rng.random() < 0.3:
            held.append((lst[rng.randrange(len(ref))], kind))
        # Edit a held element: the problem sees it exactly when it still holds it.
        if held and rng.random() < 0.5:
            x, hk = rng.choice(held)
            if hk == "buffers":
                x.size = rng.randint(1, 99)
                x.id = x.id + "'" if len(x.id) < 40 else x.id[:3]
            elif hk == "arenas":
                x.capacity = rng.choice([None, 128, 2**64 - 1])
            elif hk == "penalties":
                x.weight = rng.randint(0, 9)
            elif hk == "declared":
                x.slot_size = rng.randint(0, 99)
            elif hk == "separations":
                x.a = "edited"
            else:
                x.members = [("m", rng.randint(0, 8))]
        if step % 10 == 0:
            gc.collect()
        for kd in KINDS:
            got = getattr(p, kd)
            assert len(got) == len(mirror[kd])
            assert all(g is r for g, r in zip(got, mirror[kd])), (seed, step, kd)
            assert [value(g) for g in got] == [value(r) for r in mirror[kd]]
    # Every element held along the way is still a valid object.
    for x, _ in held:
        assert repr(x)
    # Constraints name buffers; a name no buffer has (or several have) cannot
    # be built into the library's problem, and to_json says which.
    names = [b.name for b in p.buffers]
    named = [m.buffer for g in p.must_alias for m in g.members] + [n for s in [*p.separations, *p.penalties] for n in (s.a, s.b)]
    named += [n for d in p.declared for n in [d.buffer, *(s.buffer for s in d.bindings)]]
    bad = {n for n in named if names.count(n) != 1} | {n for n in names if names.count(n) > 1}
    if bad:
        with pytest.raises(pto_mem.InputError) as e:
            p.to_json()
        assert all(f"'{n}'" in str(e.value) for n in bad), (seed, bad, str(e.value))
        # Drop the constraints that name them: the rest is written.
        def fine(ns):
            return not set(ns) & bad
        p.must_alias = [g for g in p.must_alias if fine(m.buffer for m in g.members)]
        p.separations = [s for s in p.separations if fine((s.a, s.b))]
        p.penalties = [x for x in p.penalties if fine((x.a, x.b))]
        p.declared = [d for d in p.declared if fine([d.buffer, *(b.buffer for b in d.bindings)])]
        if len(set(names)) < len(names):
            return
    # The library's copy of the problem (written as JSON) holds exactly the Python values.
    doc = json.loads(p.to_json())
    assert [(b["id"], b["size"], b["lifetime"]) for b in doc.get("buffers", [])] == [
        (b.id, b.size, list(b.lifetime)) for b in p.buffers
    ]
    assert [a.get("capacity") for a in doc.get("arenas", [])] == [a.capacity for a in p.arenas]
    # and every constraint joins the buffers it names.
    def member(m):  # an id (offset 0) or {"id": ..., "offset": ...}
        return (m, 0) if isinstance(m, str) else (m["id"], m["offset"])

    assert [[member(m) for m in g] for g in doc.get("must_alias", [])] == [
        [(m.buffer, m.offset) for m in g.members] for g in p.must_alias
    ]
    assert [tuple(s) for s in doc.get("separations", [])] == [(s.a, s.b) for s in p.separations]
    assert [(x["a"], x["b"], x["weight"]) for x in doc.get("penalties", [])] == [(x.a, x.b, x.weight) for x in p.penalties]
    assert [(d["buffer"], [b["buffer"] for b in d.get("bindings", [])]) for d in doc.get("declared", [])] == [
        (d.buffer, [b.buffer for b in d.bindings]) for d in p.declared
    ]
