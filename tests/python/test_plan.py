"""plan(), validate(), lower_bound() and to_svg() on problems with constraints."""

from __future__ import annotations

import pytest

import pto_mem
from pto_mem import Arena, Buffer, DeclaredAllocation, MustAliasGroup, Problem, Separation, SlotBinding

STRATEGIES = ["sequential", "reuse", "greedy", "exact", "portfolio"]


def chain(capacity: int = 1 << 20) -> Problem:
    """Five buffers, some co-live, in one arena."""
    p = Problem(arenas=[Arena(0, capacity, "arena0")])
    for i, (size, life) in enumerate([(64, (0, 2)), (128, (1, 3)), (64, (2, 4)), (256, (0, 1)), (32, (3, 5))]):
        p.buffers.append(Buffer(i, size, life, alignment=32))
    return p


def test_strategies_match_the_library():
    assert pto_mem.strategies() == STRATEGIES


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_strategy_gives_a_valid_placement(strategy):
    p = chain()
    r = pto_mem.plan(p, strategy=strategy, time_limit=2.0)
    assert r.fits and r.status in ("optimal", "feasible")
    assert r.strategy == strategy
    assert pto_mem.validate(p, r) == []
    assert pto_mem.validate(p, r.offsets) == []
    assert pto_mem.validate(p, r.placement) == []
    assert pto_mem.validate(p, r.offsets_array) == []
    assert len(r) == len(p.buffers)
    assert r.lower_bound == pto_mem.lower_bound(p)
    assert r.objective.total_peak >= r.lower_bound[0]
    assert r.objective.peak_by_arena == [r.objective.total_peak]
    assert isinstance(r.statistics, dict) and r.time_s >= 0


def test_the_three_offset_views_agree():
    p = chain()
    r = pto_mem.plan(p, strategy="greedy")
    assert list(r.offsets_array) == r.placement
    assert {bid: off for bid, off in zip(p.buffer_ids, r.placement)} == r.offsets


def test_exact_proves_optimal_on_a_small_problem():
    p = chain()
    r = pto_mem.plan(p, strategy="exact", time_limit=5.0)
    assert r.status == "optimal"
    assert r.objective.total_peak == r.lower_bound[0]
    assert r.proved == {"penalty": True, "peak": True, "penalty_bound": 0} and r.stopped_by == "completed"


def test_capacity_override_does_not_change_the_problem():
    p = chain()
    lb = pto_mem.lower_bound(p)[0]
    r = pto_mem.plan(p, strategy="exact", capacity=lb, time_limit=5.0)
    assert r.fits and r.objective.total_peak <= lb
    assert p.arenas[0].capacity == 1 << 20
    r = pto_mem.plan(p, strategy="greedy", capacity={0: lb + 32})
    assert r.fits and r.objective.total_peak <= lb + 32
    with pytest.raises(ValueError, match="no arena 5"):
        pto_mem.plan(p, capacity={5: 100})
    with pytest.raises(ValueError, match="capacity must be between 1 and 2\\*\\*64 - 1, not 0"):
        pto_mem.plan(p, capacity=0)


def test_too_small_is_an_answer_not_an_error():
    p = chain(capacity=64)  # below the 256-byte buffer
    r = pto_mem.plan(p, strategy="exact", time_limit=2.0)
    assert r.status == "infeasible" and not r.fits
    assert r.placement == [None] * 5
    assert any("256" in d.message or "capacity" in d.message for d in r.diagnostics)
    r = pto_mem.plan(p, strategy="greedy")
    # the max-load bound (256 > 64) proves it before any strategy runs
    assert r.status == "infeasible"


def test_constraints_are_honoured():
    p = Problem(arenas=[Arena(0, 4096, reserved=[(0, 128)])])
    p.buffers.extend(
        [
            Buffer("x", 256, (0, 4), alignment=64),
            Buffer("view", 64, (1, 3), alignment=64),
            Buffer("y", 256, (4, 8), alignment=64),
            Buffer("decl", 512, (0, 8), alignment=64),
            Buffer("s0", 256, (0, 2), alignment=64),
            Buffer("s1", 256, (2, 4), alignment=64),
        ]
    )
    p.must_alias.append(MustAliasGroup([("x", 0), ("view", 128)]))
    p.separations.append(Separation("x", "y"))
    p.declared.append(DeclaredAllocation("decl", 2, 256, [SlotBinding("s0", 0), SlotBinding("s1", 1)]))
    for strategy in STRATEGIES:
        r = pto_mem.plan(p, strategy=strategy, time_limit=2.0)
        assert r.fits, (strategy, [str(d) for d in r.diagnostics])
        o = r.offsets
        assert pto_mem.validate(p, r) == []
        assert o["view"] == o["x"] + 128
        assert o["x"] + 256 <= o["y"] or o["y"] + 256 <= o["x"]
        assert o["s0"] == o["decl"] and o["s1"] == o["decl"] + 256
        assert all(off >= 128 for off in o.values())


def test_validate_finds_what_is_wrong():
    p = chain()
    r = pto_mem.plan(p, strategy="greedy")
    offsets = r.placement
    # 0 and 1 are co-live: put them on the same bytes.
    offsets[1] = offsets[0]
    problems = pto_mem.validate(p, offsets)
    assert problems and all(d.severity == "error" for d in problems)
    assert any("'0'" in d.message and "'1'" in d.message for d in problems)
    offsets = r.placement
    offsets[2] = None
    assert any("'2'" in str(d) for d in pto_mem.validate(p, offsets))
    offsets = r.placement
    offsets[0] += 1  # misaligned
    assert any("align" in d.message for d in pto_mem.validate(p, offsets))


def test_validate_a_malformed_problem():
    p = chain()
    p.buffers.append(Buffer("bad", 8, (5, 5)))
    p.buffers.append(Buffer("0", 8, (0, 1)))
    messages = [d.message for d in pto_mem.validate(p)]
    assert any("'bad'" in m for m in messages)
    assert any("'0'" in m for m in messages)


def test_lower_bound_per_arena():
    p = Problem(arenas=[Arena(0, 100), Arena(1, 100, reserved=[(0, 10)])])
    p.buffers.extend([Buffer("a", 30, (0, 2)), Buffer("b", 40, (1, 3)), Buffer("c", 20, (0, 1), arena=1)])
    assert pto_mem.lower_bound(p) == [70, 30]


def test_svg(tmp_path):
    p = chain()
    r = pto_mem.plan(p, strategy="greedy")
    path = tmp_path / "map.svg"
    svg = pto_mem.to_svg(p, r, path)
    assert svg.startswith("<svg") or svg.startswith("<?xml")
    assert path.read_text() == svg
    assert pto_mem.to_svg(p, r.offsets) == svg  # deterministic, whatever the offsets' form
    with pytest.raises(pto_mem.InputError):
        pto_mem.to_svg(p, r, tmp_path / "no" / "such" / "dir" / "map.svg")
    assert not (tmp_path / "no").exists()


def test_separation_across_arenas_is_vacuous_and_co_live_penalty_refused():
    p = Problem([Arena(0, 1000), Arena(1, 1000)],
                [Buffer("a", 8, (0, 2)), Buffer("b", 8, (1, 3)), Buffer("c", 8, (0, 3), arena=1)])
    p.separations.append(Separation("a", "c"))  # two memories: nothing to separate
    r = pto_mem.plan(p)
    assert r.fits and pto_mem.validate(p, r) == []
    p.penalties.append(pto_mem.Penalty("a", "b"))  # live at the same time: they never share bytes
    with pytest.raises(pto_mem.PlanError, match="penalty \\('a', 'b'\\) joins buffers live at the same time"):
        pto_mem.plan(p)
