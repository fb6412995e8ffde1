"""compile(): the tile-memory passes on program text, as `pto-mem compile` runs them."""

from __future__ import annotations

import pytest

import pto_mem

SIMPLE = """\
@function(type=InCore)
def add(x: Tensor[[16, 64], FP32], y: Out[Tensor[[16, 64], FP32]]) -> Tensor[[16, 64], FP32]:
    a: Tile[[16, 64], FP32] = tile.load(x, [0, 0], [16, 64], target_memory=Vec)
    b: Tile[[16, 64], FP32] = tile.add(a, a)
    r: Tensor[[16, 64], FP32] = tile.store(b, [0, 0], y)
    return r
"""

TOO_BIG = """\
@function(type=InCore)
def main(x: Tensor[[256, 1040], FP16]):
    m: Tile[[256, 1040], FP16] = tile.load(x, [0, 0], [256, 1040], target_memory=Mat)
    return
"""


@pytest.mark.parametrize("planner", ["pypto", "dsa_rp", "ptoas"])
def test_compile_kernels(kernels_dir, planner):
    for kernel in sorted(kernels_dir.glob("*.pto")):
        r = pto_mem.compile(kernel.read_text(), planner=planner, file=str(kernel))
        report = r.report
        assert report["ok"] is True and report["planner"] == planner and report["soc"] == "a2a3"
        assert report["stages"] == r.stages and r.stages[0] == "parse"
        assert ("alloc" in r.stages) == (planner != "ptoas")
        assert all(f["allocations"] is not None for f in report["functions"])
        # The printed program parses again and prints the same (a fixed point).
        again = pto_mem.compile(r.text, until="parse")
        assert again.text == r.text


def test_addresses_report_and_memory_map(tmp_path):
    r = pto_mem.compile(SIMPLE, planner="dsa_rp")
    allocations = r.report["functions"][0]["allocations"]
    assert allocations and all(isinstance(a["addr"], int) for a in allocations)
    assert set(r.addresses["add"].values()) == {a["addr"] for a in allocations}
    path = tmp_path / "map.svg"
    svg = r.memory_map(path)
    assert "<svg" in svg and path.read_text() == svg
    with pytest.raises(pto_mem.InputError, match="assigned addresses"):
        pto_mem.compile(SIMPLE, until="init").memory_map()


def test_until_stops_after_the_stage():
    r = pto_mem.compile(SIMPLE, until="infer")
    assert r.stages == ["parse", "infer"]
    assert "MemRef" not in r.text and "Vec" in r.text
    assert all(a["addr"] is None for f in r.report["functions"] for a in f["allocations"])


def test_deterministic():
    assert pto_mem.compile(SIMPLE).text == pto_mem.compile(SIMPLE).text
    assert pto_mem.compile(SIMPLE).report == pto_mem.compile(SIMPLE).report


def test_parse_error_carries_line_and_column():
    bad = SIMPLE.replace("tile.add(a, a)", "tile.add(a, a))")
    with pytest.raises(pto_mem.CompileError) as e:
        pto_mem.compile(bad, file="k.pto")
    err = e.value
    assert not isinstance(err, pto_mem.CapacityError)
    assert err.exit_code == 2
    assert str(err).startswith("k.pto:4:")
    d = err.diagnostics[0]
    assert (d.file, d.line, d.severity) == ("k.pto", 4, "error") and d.column
    assert err.report["ok"] is False
    assert err.report["diagnostics"][0]["line"] == 4


def test_semantic_error():
    bad = SIMPLE.replace("tile.add(a, a)", "tile.add(a, q)")
    with pytest.raises(pto_mem.CompileError, match="q") as e:
        pto_mem.compile(bad)
    assert e.value.exit_code == 2


def test_capacity_error():
    with pytest.raises(pto_mem.CapacityError, match="exceeds platform limit") as e:
        pto_mem.compile(TOO_BIG)
    assert e.value.exit_code == 1
    assert e.value.diagnostics[0].code == "capacity"
    # No SoC, no capacity: the same program plans.
    assert pto_mem.compile(TOO_BIG, soc="none").report["ok"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"soc": "a9"}, "soc must be one of a2a3, a5, none"),
        ({"planner": "best"}, "planner must be one of"),
        ({"until": "end"}, "until must be one of parse, infer"),
        ({"syntax": "mlir"}, "syntax must be one of"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        pto_mem.compile(SIMPLE, **kwargs)


SELECT = """\
@function(type=InCore)
def main(x: Tensor[[4, 8], FP32], out: Out[Tensor[[4, 8], FP32]], flag: Scalar[BOOL]) -> Tensor[[4, 8], FP32]:
    a: Tile[[4, 8], FP32, Vec] = tile.load(x, [0, 0], [4, 8], target_memory=Vec)
    b: Tile[[4, 8], FP32, Vec] = tile.exp(a)
    if flag:
        p = yield_(a)
    else:
        p = yield_(b)
    s: Tile[[4, 8], FP32, Vec] = tile.add(a, p)
    t: Tile[[4, 8], FP32, Vec] = tile.add(b, s)
    r: Tensor[[4, 8], FP32] = tile.store(t, [0, 0], out)
    return r
"""


def test_logical_tile_selection_is_opt_in():
    off = pto_mem.compile(SELECT)
    assert "tile.move" in off.text and "p_slot" not in off.text
    assert not off.diagnostics
    for planner in ("pypto", "dsa_rp"):
        on = pto_mem.compile(SELECT, planner=planner, logical_tile_selection=True)
        assert "tile.move" not in on.text and "yield_(a, 0)" in on.text and "yield_(b, 1)" in on.text
        codes = [d["code"] for d in on.report["diagnostics"]]
        assert codes == ["logical-tile-selection"]
    with pytest.raises(ValueError, match="logical_tile_selection needs storage='buffer-ir' and the pypto or dsa_rp"):
        pto_mem.compile(SELECT, planner="ptoas", logical_tile_selection=True)
    with pytest.raises(ValueError, match="logical_tile_selection needs storage='buffer-ir'"):
        pto_mem.compile(SELECT, storage="legacy", logical_tile_selection=True)


def test_soc_names():
    assert pto_mem.soc_names() == ["a2a3", "a5", "none"]
