"""The vectorised entry point: NumPy arrays in, an offsets array out."""

from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

import pto_mem  # noqa: E402


def random_arrays(n: int, seed: int):
    rng = np.random.default_rng(seed)
    begins = rng.integers(0, 4 * n, n)
    ends = begins + rng.integers(1, 50, n)
    sizes = rng.integers(1, 4096, n)
    alignments = rng.choice([1, 16, 32, 64], n)
    return sizes, begins, ends, alignments


def test_plan_arrays_equals_plan_of_the_same_problem():
    sizes, begins, ends, alignments = random_arrays(2000, 1)
    r = pto_mem.plan_arrays(sizes, begins, ends, alignments, strategy="greedy")
    p = pto_mem.Problem.from_arrays(sizes, begins, ends, alignments)
    assert p.buffer_ids[:3] == ["0", "1", "2"] and len(p.buffers) == 2000
    assert p.buffers[5].size == sizes[5] and p.buffers[5].lifetime == (begins[5], ends[5])
    q = pto_mem.plan(p, strategy="greedy")
    a = r.offsets_array
    assert a.dtype == np.int64 and a.shape == (2000,)
    assert np.array_equal(a, q.offsets_array)
    assert (a >= 0).all()
    assert pto_mem.validate(p, a) == []
    assert r.objective.total_peak == q.objective.total_peak


def test_any_integer_dtype_and_lists():
    r = pto_mem.plan_arrays(np.array([8, 8], dtype=np.uint16), [0, 0], np.array([1, 1], dtype=np.int32), strategy="greedy")
    assert sorted(r.offsets_array.tolist()) == [0, 8]


def test_several_arenas_and_capacities():
    sizes = np.array([100, 100, 50, 50])
    begins = np.zeros(4, dtype=np.int64)
    ends = np.ones(4, dtype=np.int64)
    arenas = np.array([0, 0, 3, 3])
    r = pto_mem.plan_arrays(sizes, begins, ends, arenas=arenas, capacity={3: 100}, strategy="greedy")
    assert r.fits and r.objective.peak_by_arena == [200, 100]
    r = pto_mem.plan_arrays(sizes, begins, ends, arenas=arenas, capacity=150, strategy="greedy")
    # arena 0 holds 200 co-live bytes: the max-load bound proves no fit in 150
    assert r.status == "infeasible" and (r.offsets_array == -1).all()


def test_bad_arrays():
    with pytest.raises(TypeError, match="integer array"):
        pto_mem.plan_arrays(np.array([1.5]), [0], [1])
    with pytest.raises(ValueError, match="ends has 2 entries"):
        pto_mem.plan_arrays([1], [0], [1, 2])
    with pytest.raises(ValueError, match="one-dimensional"):
        pto_mem.plan_arrays(np.ones((2, 2), dtype=np.int64), [0, 0], [1, 1])
    with pytest.raises(pto_mem.InputError, match="buffer 1: size -3 is negative"):
        pto_mem.plan_arrays([4, -3], [0, 0], [1, 1])
    with pytest.raises(pto_mem.PlanError, match="'0'"):
        pto_mem.plan_arrays([4], [2], [1], strategy="greedy")  # empty lifetime


def test_empty_problem():
    r = pto_mem.plan_arrays(np.zeros(0, dtype=np.int64), [], [], strategy="greedy")
    assert r.fits and r.offsets_array.shape == (0,)
