"""The problem model from Python objects and the file formats (round trips)."""

from __future__ import annotations

import copy
import json

import pytest

import pto_mem
from pto_mem import AliasMember, Arena, Buffer, DeclaredAllocation, MustAliasGroup, Penalty, Problem, Separation, SlotBinding


def small_problem() -> Problem:
    p = Problem(arenas=[Arena(0, 1024, "Vec", reserved=[(0, 64)]), Arena(1, 4096, "Mat")])
    p.buffers.append(Buffer("a", 128, (0, 4), alignment=32))
    p.buffers.append(Buffer("b", 256, (2, 6), alignment=32))
    p.buffers.append(Buffer(7, 512, (6, 9)))
    p.buffers.append(Buffer("m", 512, (0, 3), arena=1))
    p.buffers.append(Buffer("v", 64, (1, 3), alignment=32))
    p.must_alias.append(MustAliasGroup([("a", 0), "v"]))
    p.separations.append(Separation("a", "b"))
    p.penalties.append(Penalty("b", 7, weight=3))
    return p


def test_lists_are_live_and_ids_are_text():
    p = small_problem()
    assert len(p.buffers) == 5
    assert p.buffer_ids == ["a", "b", "7", "m", "v"]
    p.buffers[0].size = 160
    assert p.buffers[0].size == 160
    p.buffers[1].lifetime = (3, 9)
    assert (p.buffers[1].begin, p.buffers[1].end) == (3, 9)
    assert p.arenas[0].reserved == [(0, 64)]
    assert [m.buffer for m in p.must_alias[0].members] == ["a", "v"]
    assert p.penalties[0].b == "7" and p.penalties[0].weight == 3
    del p.buffers[3]
    assert p.buffer_ids == ["a", "b", "7", "v"]
    assert "Problem" in repr(p) and repr(p.buffers[0]).startswith("Buffer('a', size=160")
    # Every element's repr is the call that makes it again.
    for x in [*p.arenas, *p.buffers, *p.must_alias, *p.separations, *p.penalties]:
        y = eval(repr(x), vars(pto_mem))
        assert type(y) is type(x) and repr(y) == repr(x)


def test_copy_is_independent():
    p = small_problem()
    for q in (p.copy(), copy.copy(p), copy.deepcopy(p)):
        q.buffers[0].size = 1
        q.buffers.append(Buffer("x", 8, (0, 1)))
        assert p.buffers[0].size == 128 and len(p.buffers) == 5


def test_declared_allocation_model():
    d = DeclaredAllocation("buf", 2, 128, [SlotBinding("s0", 0), SlotBinding("s1", 1), SlotBinding("sr")])
    assert d.slots == 2 and d.slot_size == 128
    assert [b.slot for b in d.bindings] == [0, 1, None]
    assert AliasMember("x", 16).offset == 16


@pytest.mark.parametrize(
    "make",
    [
        lambda: Buffer("a", -1, (0, 1)),
        lambda: Buffer("a", 1, (0, 1), alignment=-4),
        lambda: Arena(0, -5),
        lambda: Penalty("a", "b", weight=-1),
    ],
)
def test_negative_byte_counts_are_refused(make):
    with pytest.raises(ValueError, match="must be >= 0"):
        make()


def test_ids_must_be_str_or_int():
    with pytest.raises(TypeError, match="str or an int"):
        Buffer(1.5, 8, (0, 1))
    with pytest.raises(TypeError):
        Buffer(True, 8, (0, 1))


def test_json_round_trip_with_offsets():
    p = small_problem()
    r = pto_mem.plan(p, strategy="greedy")
    text = p.to_json(r)
    q = pto_mem.parse_json(text)
    assert q.buffer_ids == p.buffer_ids
    assert [(b.size, b.alignment, b.arena, b.lifetime) for b in q.buffers] == [
        (b.size, b.alignment, b.arena, b.lifetime) for b in p.buffers
    ]
    assert [(a.id, a.name, a.capacity, a.reserved) for a in q.arenas] == [
        (a.id, a.name, a.capacity, a.reserved) for a in p.arenas
    ]
    assert q.to_json() == p.to_json()
    assert len(q.must_alias) == 1 and len(q.separations) == 1 and len(q.penalties) == 1


def test_csv_round_trip(tmp_path, data_dir):
    p = pto_mem.read_csv(data_dir / "small.csv", capacity=32768)
    assert p.arenas[0].capacity == 32768
    r = pto_mem.plan(p, strategy="greedy")
    text = p.to_csv(r)
    path = tmp_path / "placed.csv"
    path.write_text(text)
    q, offsets = pto_mem.read_placement(path, capacity=32768)
    assert q.buffer_ids == p.buffer_ids
    assert offsets == r.placement
    assert pto_mem.validate(q, offsets) == []
    assert pto_mem.parse_csv(p.to_csv(), capacity=32768).to_csv() == p.to_csv()


def test_csv_cannot_hold_constraints():
    with pytest.raises(pto_mem.InputError):
        small_problem().to_csv()


def test_read_the_bundled_files(data_dir):
    attention = pto_mem.read_json(str(data_dir / "attention.json"))
    assert [a.name for a in attention.arenas] == ["Vec", "Mat"]
    assert pto_mem.validate(attention) == []
    placed, offsets = pto_mem.read_placement(data_dir / "small_placed.csv")
    assert all(o is not None for o in offsets)
    assert pto_mem.validate(placed, offsets) == []


def test_read_placement_needs_offsets(data_dir):
    with pytest.raises(pto_mem.InputError, match="has no offsets"):
        pto_mem.read_placement(data_dir / "small.csv")


def test_no_capacity_is_none_and_is_never_written(data_dir):
    p = pto_mem.read_csv(data_dir / "small.csv")
    assert p.arenas[0].capacity is None and "capacity=None" in repr(p.arenas[0])
    doc = json.loads(p.to_json())
    assert "capacity" not in doc["arenas"][0]
    q = pto_mem.parse_json(p.to_json())
    assert q.arenas[0].capacity is None and q.to_json() == p.to_json()
    # A capacity given is kept, and written.
    given = pto_mem.read_csv(data_dir / "small.csv", capacity=32768)
    assert given.arenas[0].capacity == 32768 and json.loads(given.to_json())["arenas"][0]["capacity"] == 32768
    # Arenas built in Python: None (the default) or an int.
    assert Arena(0).capacity is None and Arena(0, 64).capacity == 64
    a = Arena(0, 64)
    a.capacity = None
    assert a.capacity is None
    assert Problem.from_arrays([8, 8], [0, 1], [2, 3]).arenas[0].capacity is None
    assert Problem.from_arrays([8, 8], [0, 1], [2, 3], capacity=100).arenas[0].capacity == 100
    # Planning an arena without a capacity minimises its peak.
    r = pto_mem.plan(p)
    assert r.status == "optimal" and r.objective.total_peak == r.lower_bound[0]
    # A JSON file without a capacity reads as None.
    text = '{"arenas": [{"id": 0}], "buffers": [{"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1]}]}'
    assert pto_mem.parse_json(text).arenas[0].capacity is None
