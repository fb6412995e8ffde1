"""Every error path: what is raised, and that it says where (file:line:column)."""

from __future__ import annotations

import pytest

import pto_mem
from pto_mem import Arena, Buffer, Problem


def test_error_hierarchy():
    assert issubclass(pto_mem.InputError, pto_mem.Error)
    assert issubclass(pto_mem.InputError, ValueError)
    assert issubclass(pto_mem.PlanError, pto_mem.Error)
    assert issubclass(pto_mem.CapacityError, pto_mem.CompileError)


def test_csv_error_names_file_line_and_column():
    text = "id,lower,upper,size\na,0,2,16\nb,0,x,16\n"
    with pytest.raises(pto_mem.InputError) as e:
        pto_mem.parse_csv(text, file="mine.csv")
    assert "mine.csv:3:" in str(e.value)
    d = e.value.diagnostics[0]
    assert (d.file, d.line) == ("mine.csv", 3) and d.column is not None and d.severity == "error"
    assert str(d) in str(e.value)


def test_missing_file(tmp_path):
    missing = tmp_path / "missing.csv"
    with pytest.raises(pto_mem.InputError, match="missing.csv"):
        pto_mem.read_csv(missing)
    with pytest.raises(pto_mem.InputError, match="missing.csv"):
        pto_mem.read_json(str(missing))


def test_json_error_names_line_and_column():
    text = '{\n  "arenas": [{"id": 0, "capacity": 100}],\n  "buffers": [{"id": "a", "size": -4, "arena": 0, "lifetime": [0, 1]}]\n}\n'
    with pytest.raises(pto_mem.InputError) as e:
        pto_mem.parse_json(text, file="p.json")
    assert "p.json:3:" in str(e.value)
    assert e.value.diagnostics[0].line == 3
    with pytest.raises(pto_mem.InputError, match="p.json:1:"):
        pto_mem.parse_json("{", file="p.json")


def test_plan_rejections_raise_plan_error():
    p = Problem(arenas=[Arena(0, 100)], buffers=[Buffer("a", 8, (3, 1))])
    with pytest.raises(pto_mem.PlanError) as e:
        pto_mem.plan(p, strategy="greedy")
    assert e.value.status not in ("optimal", "feasible", "no_fit", "infeasible")
    assert any("'a'" in d.message for d in e.value.diagnostics)
    assert e.value.result.status == e.value.status and not e.value.result.fits
    ok = Problem(arenas=[Arena(0, 100)], buffers=[Buffer("a", 8, (0, 1))])
    with pytest.raises(pto_mem.PlanError, match="unknown strategy 'fastest'"):
        pto_mem.plan(ok, strategy="fastest")
    with pytest.raises(ValueError, match="goal must be"):
        pto_mem.plan(ok, goal="best")


def test_lower_bound_and_svg_of_a_malformed_problem():
    p = Problem(arenas=[Arena(0, 100)], buffers=[Buffer("a", 0, (0, 1))])
    with pytest.raises(pto_mem.InputError, match="'a'"):
        pto_mem.lower_bound(p)
    with pytest.raises(pto_mem.InputError, match="'a'"):
        pto_mem.to_svg(p, [0])


def test_bad_offsets():
    p = Problem(arenas=[Arena(0, 100)], buffers=[Buffer("a", 8, (0, 1)), Buffer("b", 8, (0, 1))])
    with pytest.raises(pto_mem.InputError, match="1 entries"):
        pto_mem.validate(p, [0])
    with pytest.raises(pto_mem.InputError, match="no buffer 'c'"):
        pto_mem.validate(p, {"c": 0})
    with pytest.raises(pto_mem.InputError, match="negative offset"):
        pto_mem.validate(p, [0, -8])
    with pytest.raises(TypeError, match="offsets must be"):
        pto_mem.validate(p, 3)
    r = pto_mem.plan(Problem(arenas=[Arena(0, 100)], buffers=[Buffer("a", 8, (0, 1))]), strategy="greedy")
    with pytest.raises(pto_mem.InputError, match="for 1 buffers"):
        pto_mem.validate(p, r)
    tight = Problem(arenas=[Arena(0, 4)], buffers=[Buffer("a", 8, (0, 1)), Buffer("b", 8, (0, 1))])
    none = pto_mem.plan(tight, strategy="greedy")
    with pytest.raises(pto_mem.InputError, match="no placement"):
        pto_mem.validate(tight, none)
