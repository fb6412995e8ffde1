"""Python numbers over the library's whole range, budgets validated as the
command line validates them, and defaults that are the library's own."""

from __future__ import annotations

import json
import math
import os
import pathlib
import subprocess

import pytest

import pto_mem
from pto_mem import Arena, Buffer, Problem

U64_MAX = 2**64 - 1


def small() -> Problem:
    return Problem([Arena(0, 1024)], [Buffer("a", 64, (0, 2)), Buffer("b", 128, (1, 3)), Buffer("c", 32, (2, 4))])


# ---- integers -----------------------------------------------------------------


@pytest.mark.parametrize("capacity", [2**63, U64_MAX, 2**63 - 1, 1024])
def test_capacity_over_the_whole_unsigned_range(capacity):
    r = pto_mem.plan(small(), capacity=capacity, strategy="greedy")
    assert r.fits and pto_mem.validate(small(), r) == []
    r = pto_mem.plan(small(), capacity={0: capacity})
    assert r.fits


@pytest.mark.parametrize(
    "capacity, error, message",
    [
        (1.5, TypeError, "capacity must be an int.*not float"),
        ("12", TypeError, "capacity must be an int.*not str"),
        (True, TypeError, "not bool"),
        (2**64, ValueError, r"capacity must be between 1 and 2\*\*64 - 1, not 18446744073709551616"),
        (-1, ValueError, r"between 1 and 2\*\*64 - 1, not -1"),
        ({0: 1.5}, TypeError, "capacity of arena 0 must be an int, not float"),
        ({"x": 5}, TypeError, "arena id must be an int, not str"),
    ],
)
def test_bad_capacities_say_what_is_wrong(capacity, error, message):
    with pytest.raises(error, match=message):
        pto_mem.plan(small(), capacity=capacity)
    if not isinstance(capacity, dict):
        with pytest.raises(error):
            pto_mem.plan_arrays([8], [0], [1], capacity=capacity)


def test_sizes_up_to_two_to_the_64():
    b = Buffer("big", U64_MAX, (0, 1), alignment=2**63)
    assert (b.size, b.alignment) == (U64_MAX, 2**63)
    a = Arena(0, U64_MAX, reserved=[(0, 2**63)])
    assert a.capacity == U64_MAX and a.reserved == [(0, 2**63)]
    # The reader returns them too.
    q = pto_mem.parse_json(Problem([Arena(0)], [b]).to_json())
    assert q.buffers[0].size == U64_MAX and q.buffers[0].alignment == 2**63
    q = pto_mem.parse_json(Problem([a], [Buffer("small", 8, (0, 1))]).to_json())
    assert q.arenas[0].capacity == U64_MAX and q.arenas[0].reserved == [(0, 2**63)]
    for make, message in [
        (lambda: Buffer("a", 2**64, (0, 1)), r"size must be between 0 and 2\*\*64 - 1"),
        (lambda: Buffer("a", 1.0, (0, 1)), "size must be an int, not float"),
        (lambda: Buffer("a", "8", (0, 1)), "size must be an int, not str"),
        (lambda: Buffer("a", 8, (0, 2**63)), r"lifetime end must be between -2\*\*63 and 2\*\*63 - 1"),
        (lambda: Buffer("a", 8, (0,)), "lifetime must be a pair"),
        (lambda: Arena(2**63, 8), "arena id must be between"),
        (lambda: Arena(0, -1), "capacity must be >= 0"),
        (lambda: Arena(0, 8.0), "capacity must be an int, not float"),
    ]:
        with pytest.raises((TypeError, ValueError), match=message):
            make()
    with pytest.raises(ValueError, match=r"size must be between 0 and 2\*\*64 - 1"):
        b.size = 2**64
    assert b.size == U64_MAX  # unchanged


def test_numpy_integers_are_integers():
    np = pytest.importorskip("numpy")
    b = Buffer("a", np.uint64(2**64 - 1), (np.int64(0), np.int32(1)))
    assert b.size == U64_MAX
    r = pto_mem.plan(small(), capacity=np.uint64(2**63))
    assert r.fits


def test_numpy_uint64_offsets_beyond_int64_are_out_of_range():
    np = pytest.importorskip("numpy")
    p = small()
    ok = np.array([0, 64, 192], dtype=np.uint64)
    assert pto_mem.validate(p, ok) == []
    with pytest.raises(ValueError, match=r"offsets\[1\] = 9223372036854775808 is out of range"):
        pto_mem.validate(p, np.array([0, 2**63, 0], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"sizes\[0\] = 18446744073709551615 is out of range"):
        pto_mem.plan_arrays(np.array([U64_MAX], dtype=np.uint64), [0], [1])
    # Python ints may be as large as the library's addresses: the validator judges them.
    problems = pto_mem.validate(p, [0, 2**63, U64_MAX])
    assert problems and all(d.severity == "error" for d in problems)
    with pytest.raises(pto_mem.InputError, match="negative offset"):
        pto_mem.validate(p, {"a": -1})


# ---- budgets ------------------------------------------------------------------


@pytest.mark.parametrize("bad", [math.nan, 0, 0.0, -1, -math.inf])
def test_time_limit_must_be_positive(bad):
    with pytest.raises(ValueError, match="time_limit must be a positive number of seconds"):
        pto_mem.plan(small(), time_limit=bad)
    with pytest.raises(ValueError, match="time_limit must be a positive number of seconds"):
        pto_mem.plan_arrays([8], [0], [1], time_limit=bad)


@pytest.mark.parametrize("bad, error", [("1", TypeError), (True, TypeError), ([1], TypeError)])
def test_time_limit_must_be_a_number(bad, error):
    with pytest.raises(error, match="time_limit must be a number"):
        pto_mem.plan(small(), time_limit=bad)


@pytest.mark.parametrize("huge", [math.inf, 1e10, 1e300, 10**12])
def test_huge_time_limits_mean_no_limit(huge):
    p = Problem([Arena(0, 200)], [Buffer(i, 40 + i, (i % 3, i % 3 + 2)) for i in range(6)])
    r = pto_mem.plan(p, time_limit=huge, strategy="exact")
    assert r.fits and r.status == "optimal" and pto_mem.validate(p, r) == []


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"node_limit": -1}, ValueError, "node_limit must be >= 0, not -1"),
        ({"node_limit": 2**64}, ValueError, r"node_limit must be between 0 and 2\*\*64 - 1"),
        ({"node_limit": 1.5}, TypeError, "node_limit must be an int, not float"),
        ({"node_limit": "10"}, TypeError, "node_limit must be an int, not str"),
        ({"threads": -1}, ValueError, "threads must be >= 0"),
        ({"threads": 1025}, ValueError, "threads must be between 0 and 1024"),
        ({"seed": -1}, ValueError, "seed must be >= 0"),
        ({"restarts": 2.0}, TypeError, "restarts must be an int"),
        ({"goal": "best"}, ValueError, "goal must be 'fit' or 'minimise'"),
        ({"goal": 1}, TypeError, "goal must be a str"),
        ({"strategy": 3}, TypeError, "strategy must be a str"),
        ({"compat_pypto": 1}, TypeError, "compat_pypto must be True, False or None"),
    ],
)
def test_options_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message):
        pto_mem.plan(small(), **kwargs)


def test_node_limit_zero_means_none_and_large_values_pass():
    for n in (0, 1, U64_MAX):
        assert pto_mem.plan(small(), node_limit=n).fits


# ---- defaults -----------------------------------------------------------------


def test_defaults_are_deterministic(data_dir):
    p = pto_mem.read_csv(data_dir / "small.csv", capacity=16384)
    first = pto_mem.plan(p)
    assert first.fits
    for _ in range(3):
        again = pto_mem.plan(p)
        assert (again.status, again.placement, again.statistics) == (first.status, first.placement, first.statistics)


def test_default_goal_follows_the_capacity(data_dir):
    # Without a capacity the question is the least peak; with one it is a fit.
    free = pto_mem.plan(pto_mem.read_csv(data_dir / "small.csv"))
    assert free.status == "optimal" and free.objective.total_peak == free.lower_bound[0]
    roomy = pto_mem.plan(pto_mem.read_csv(data_dir / "small.csv"), capacity=1 << 30)
    assert roomy.fits
    assert pto_mem.plan(pto_mem.read_csv(data_dir / "small.csv"), goal=None).placement == free.placement


def tool() -> pathlib.Path | None:
    path = os.environ.get("PTO_MEM_TOOL")
    return pathlib.Path(path) if path and pathlib.Path(path).exists() else None


@pytest.mark.skipif(tool() is None, reason="the pto-mem tool is not built (PTO_MEM_TOOL)")
@pytest.mark.parametrize("capacity", [None, 16384, 14080])
def test_python_and_the_tool_give_the_same_answer(tmp_path, data_dir, capacity):
    csv = data_dir / "small.csv"
    report = tmp_path / "report.json"
    args = [str(tool()), "plan", str(csv), "--json", str(report)]
    if capacity is not None:
        args += ["--capacity", str(capacity)]
    subprocess.run(args, check=False, capture_output=True, timeout=120)
    cli = json.loads(report.read_text())
    r = pto_mem.plan(pto_mem.read_csv(csv, capacity=capacity))
    assert r.status == cli["status"]
    placed = {str(b["id"]): b["offset"] for b in cli["placement"]} if isinstance(cli.get("placement"), list) else None
    if placed is not None:
        assert r.offsets == placed


def test_csv_capacity_as_on_the_command_line(data_dir):
    assert pto_mem.read_csv(data_dir / "small.csv", capacity=U64_MAX).arenas[0].capacity == U64_MAX
    for bad, error in [(0, ValueError), (-5, ValueError), (2**64, ValueError), (1.5, TypeError), ("12", TypeError)]:
        with pytest.raises(error, match="capacity must be"):
            pto_mem.read_csv(data_dir / "small.csv", capacity=bad)
        with pytest.raises(error, match="capacity must be"):
            pto_mem.parse_csv("id,lower,upper,size\na,0,1,8\n", capacity=bad)


@pytest.mark.parametrize("seed", range(12))
def test_arenas_without_capacity_are_minimised_by_default(seed):
    """The capacity Python gives an arena without one is the one the library
    reads as "no capacity": the default goal is then minimise, for every
    arena, whatever the reserved windows and alignments."""
    import random

    rng = random.Random(seed)
    arenas = [Arena(k, None, f"a{k}", reserved=[(rng.choice([0, 16]), rng.choice([64, 100]))] if rng.random() < 0.5 else [])
              for k in range(rng.randint(1, 3))]
    buffers = []
    for i in range(rng.randint(4, 14)):
        begin = rng.randint(0, 8)
        buffers.append(Buffer(i, rng.randint(1, 200), (begin, begin + rng.randint(1, 5)),
                              alignment=rng.choice([1, 8, 32]), arena=rng.randrange(len(arenas))))
    p = Problem(arenas, buffers)
    default = pto_mem.plan(p, strategy="exact")
    minimised = pto_mem.plan(p, strategy="exact", goal="minimise")
    assert default.placement == minimised.placement and default.status == minimised.status
    assert all(a.capacity is None for a in p.arenas) and '"capacity"' not in p.to_json()


def minimalloc(name: str) -> pathlib.Path | None:
    from conftest import SHARED_DIR

    path = SHARED_DIR / "data" / "minimalloc" / f"{name}.1048576.csv"
    return path if path.exists() else None


@pytest.mark.skipif(tool() is None or minimalloc("A") is None, reason="needs the tool and the shared MiniMalloc suite")
@pytest.mark.parametrize("name", list("ABCDEFGHIJK"))
def test_the_minimalloc_suite_fits_with_defaults_as_in_the_tool(tmp_path, name):
    """`plan(read_csv(X, capacity=1048576))` with no option is the bare
    `pto-mem plan X --capacity 1048576`: the same status and placement."""
    from conftest import SANITIZED

    if SANITIZED and name not in "AB":
        pytest.skip("two instances are enough under the sanitizers")
    csv = minimalloc(name)
    report = tmp_path / "report.json"
    subprocess.run([str(tool()), "plan", str(csv), "--capacity", "1048576", "--json", str(report)],
                   check=False, capture_output=True, timeout=600)
    cli = json.loads(report.read_text())
    p = pto_mem.read_csv(csv, capacity=1048576)
    r = pto_mem.plan(p)
    assert r.fits and r.status == cli["status"] and r.stopped_by == cli["stopped_by"]
    assert r.proved == cli["proved"]
    assert r.offsets == {str(b["id"]): b["offset"] for b in cli["placement"]}
    assert pto_mem.validate(p, r) == []
