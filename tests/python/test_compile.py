"""compile(): the tile-memory passes on program text, as `pto-mem compile` runs them."""

from __future__ import annotations

import os
import subprocess

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


# ---- every option of `pto-mem compile` ------------------------------------------


def test_soc_file(data_dir, tmp_path):
    chip = data_dir / "tiny_npu.soc.json"
    r = pto_mem.compile(SIMPLE, soc_file=chip)
    assert r.report["ok"] and r.report["soc"] != "a2a3"
    assert pto_mem.compile(SIMPLE, soc_file=str(chip)).text == r.text
    with pytest.raises(ValueError, match="give soc or soc_file, not both"):
        pto_mem.compile(SIMPLE, soc="a5", soc_file=chip)
    bad = tmp_path / "bad.soc.json"
    bad.write_text("{")
    with pytest.raises(pto_mem.InputError, match="bad.soc.json"):
        pto_mem.compile(SIMPLE, soc_file=bad)
    with pytest.raises(pto_mem.InputError):
        pto_mem.compile(SIMPLE, soc_file=tmp_path / "missing.json")


def test_syntax_pypto_and_ours():
    ours = pto_mem.compile(SIMPLE)
    assert pto_mem.compile(SIMPLE, syntax="pto").text == ours.text  # the older name of "ours"
    pypto = pto_mem.compile(SIMPLE, syntax="pypto")
    assert pypto.text.startswith("@pl.program") and pypto.text != ours.text
    assert pypto.report == ours.report


def test_storage_passes_and_dumps():
    legacy = pto_mem.compile(SIMPLE, storage="legacy")
    assert legacy.report["ok"]
    with pytest.raises(ValueError, match="storage must be one of buffer-ir, legacy"):
        pto_mem.compile(SIMPLE, storage="new")
    r = pto_mem.compile(SIMPLE, dump_after="infer,alloc")
    assert list(r.dumps) == ["infer", "alloc"] and r.dumps["alloc"] == r.text
    assert pto_mem.compile(SIMPLE, dump_after=["infer", "alloc"]).dumps == r.dumps
    with pytest.raises(ValueError, match="dump_after: unknown stage 'later'"):
        pto_mem.compile(SIMPLE, dump_after=["later"])
    # --passes: exactly the named passes on a program already in their state.
    init = pto_mem.compile(SIMPLE, until="init")
    rest = pto_mem.compile(init.text, passes=["alias", "alloc"])
    assert rest.stages == ["parse", "alias", "alloc"]
    assert rest.report["ok"] and rest.addresses["add"]
    assert pto_mem.compile(init.text, passes="alias,alloc").text == rest.text
    with pytest.raises(ValueError, match="passes: unknown pass 'parse'"):
        pto_mem.compile(SIMPLE, passes=["parse"])
    with pytest.raises(TypeError, match="passes must be a str or a list of str"):
        pto_mem.compile(SIMPLE, passes=[3])


def test_rebinding_is_ssa_renaming_as_in_the_tool():
    rebound = SIMPLE.replace("    b: Tile[[16, 64], FP32] = tile.add(a, a)\n",
                             "    b: Tile[[16, 64], FP32] = tile.add(a, a)\n    b: Tile[[16, 64], FP32] = tile.add(b, a)\n")
    assert pto_mem.compile(rebound).report["ok"]


@pytest.mark.skipif(not os.environ.get("PTO_MEM_TOOL") or not os.path.exists(os.environ["PTO_MEM_TOOL"]),
                    reason="the pto-mem tool is not built (PTO_MEM_TOOL)")
@pytest.mark.parametrize(
    "kwargs, flags",
    [
        ({}, []),
        ({"planner": "dsa_rp", "syntax": "pypto"}, ["--planner", "dsa_rp", "--syntax", "pypto"]),
        ({"storage": "legacy", "until": "alias"}, ["--storage", "legacy", "--until", "alias"]),
        ({"soc": "a5", "planner": "ptoas"}, ["--soc", "a5", "--planner", "ptoas"]),
        ({"unknown_ops": "error", "logical_tile_selection": True}, ["--unknown-ops", "error", "--logical-tile-selection"]),
    ],
)
def test_the_same_program_as_the_tool(kernels_dir, tmp_path, kwargs, flags):
    for kernel in sorted(kernels_dir.glob("*.pto"))[:4]:
        out = tmp_path / "out.pto"
        tool = subprocess.run([os.environ["PTO_MEM_TOOL"], "compile", str(kernel), "-o", str(out), *flags],
                              capture_output=True, text=True, timeout=120)
        try:
            r = pto_mem.compile(kernel.read_text(), file=str(kernel), **kwargs)
        except pto_mem.CompileError as e:
            assert tool.returncode == e.exit_code
            continue
        assert tool.returncode == 0, tool.stderr
        assert out.read_text() == r.text


def test_unregistered_ops_warn_by_default_or_fail_on_request():
    typo = SIMPLE.replace("tile.add(a, a)", "tile.addd(a, a)")
    r = pto_mem.compile(typo, file="k.pto")
    [d] = [d for d in r.diagnostics if d.code == "unknown-op"]
    assert d.severity == "warning" and (d.file, d.line) == ("k.pto", 4)
    assert "'tile.addd'" in d.message and "'tile.add'" in d.message
    assert pto_mem.compile(typo, unknown_ops="warn").text == r.text
    with pytest.raises(pto_mem.CompileError, match="op 'tile.addd' is not registered") as e:
        pto_mem.compile(typo, unknown_ops="error", file="k.pto")
    assert e.value.exit_code == 2 and e.value.diagnostics[0].code == "unknown-op"
    with pytest.raises(ValueError, match="unknown_ops must be one of warn, error"):
        pto_mem.compile(SIMPLE, unknown_ops="ignore")
    assert not pto_mem.compile(SIMPLE, unknown_ops="error").diagnostics
