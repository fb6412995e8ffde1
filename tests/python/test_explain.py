"""explain(): why a problem does not fit, as the tool's report says it."""

from __future__ import annotations

import random

import pytest

import pto_mem
from pto_mem import Arena, Buffer, Problem, Separation

KEYS = ["status", "explained", "minimal", "checks", "time_s", "members", "exclusions", "shortfall",
        "least_capacity", "notes"]


def separated() -> Problem:
    """x and y never meet in time but are separated; z meets both: 5 + 5 + 3 > 8."""
    p = Problem(arenas=[Arena(0, 8, "vec")])
    p.buffers.extend([Buffer("x", 5, (0, 2)), Buffer("y", 5, (4, 6)), Buffer("z", 3, (0, 6))])
    p.separations.append(Separation("y", "x"))
    return p


def test_a_minimal_subset_with_bytes_and_the_least_capacity():
    e = pto_mem.explain(separated())
    assert list(e) == KEYS
    assert e["status"] == "infeasible" and e["explained"] and e["minimal"]
    kinds = sorted((m["kind"], m.get("buffer", m.get("index"))) for m in e["members"])
    # z is live beside both, but x and y alone, kept apart, need 10 bytes
    assert kinds == [("buffer", "x"), ("buffer", "y"), ("separation", 0)]
    assert all(m["without"] == "fits" for m in e["members"])
    sep = next(m for m in e["members"] if m["kind"] == "separation")
    assert (sep["a"], sep["b"]) == ("y", "x")
    (short,) = e["shortfall"]
    assert short["arena"] == "vec" and short["capacity"] == 8
    assert short["over"] == 0  # never more than 8 bytes live at once: the separation is the reason
    assert short["apart_bytes"] == 10 and short["apart_over"] == 2
    (need,) = e["least_capacity"]
    assert need["fits_at"] == 13 and need["proved"]  # z meets both x and y
    assert e["checks"] >= 3 and e["time_s"] >= 0


def test_a_given_result_is_explained_without_planning_again():
    p = separated()
    r = pto_mem.plan(p)
    assert r.status == "infeasible"
    e = pto_mem.explain(p, r, least_capacity=False)
    assert e["status"] == "infeasible" and e["explained"] and e["least_capacity"] == []
    other = Problem(arenas=[Arena(0, 8)])
    other.buffers.append(Buffer("w", 4, (0, 1)))
    with pytest.raises(ValueError, match="not a plan of this problem"):
        pto_mem.explain(other, r)
    with pytest.raises(TypeError, match="PlanResult"):
        pto_mem.explain(p, "result")


def test_a_problem_that_fits_has_nothing_to_explain():
    p = separated()
    e = pto_mem.explain(p, capacity=13)
    assert e["status"] in ("optimal", "feasible")
    assert not e["explained"] and e["members"] == [] and e["shortfall"] == []


def test_random_infeasible_problems_cut_out_do_not_fit_and_each_one_smaller_does():
    rng = random.Random(20261208)
    explained = 0
    for trial in range(40):
        cap = rng.randint(6, 12)
        p = Problem(arenas=[Arena(0, cap)])
        n = rng.randint(3, 6)
        for i in range(n):
            b = rng.randint(0, 4)
            p.buffers.append(Buffer(f"b{i}", rng.randint(1, 6), (b, b + rng.randint(1, 3))))
        for _ in range(rng.randint(0, 2)):
            a, b = rng.sample(range(n), 2)
            p.separations.append(Separation(f"b{a}", f"b{b}"))
        r = pto_mem.plan(p, strategy="exact")
        if r.status != "infeasible":
            continue
        e = pto_mem.explain(p, r)
        assert e["explained"], trial
        if not e["minimal"]:
            continue
        explained += 1
        buffers = {m["buffer"] for m in e["members"] if m["kind"] == "buffer"}
        seps = {m["index"] for m in e["members"] if m["kind"] == "separation"}

        def subset(drop=None):
            q = Problem(arenas=[Arena(0, cap)])
            for b in p.buffers:
                if b.id in buffers and ("buffer", b.id) != drop:
                    q.buffers.append(Buffer(b.id, b.size, (b.lifetime[0], b.lifetime[1])))
            kept = {b.id for b in q.buffers}
            for k, s in enumerate(p.separations):
                if k in seps and ("separation", k) != drop and s.a in kept and s.b in kept:
                    q.separations.append(Separation(s.a, s.b))
            return q

        assert pto_mem.plan(subset(), strategy="exact").status == "infeasible", trial
        for m in e["members"]:
            key = ("buffer", m["buffer"]) if m["kind"] == "buffer" else ("separation", m["index"])
            assert pto_mem.plan(subset(key), strategy="exact").fits, (trial, key)
    assert explained >= 5
