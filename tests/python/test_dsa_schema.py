"""read_dsa(): PyPTO's DSA schema-v1 problems read natively."""

from __future__ import annotations

import json

import pytest

import pto_mem


def test_read_dsa_maps_the_example(data_dir):
    problem, info = pto_mem.read_dsa(data_dir / "dsa_kernel.json")
    doc = json.loads((data_dir / "dsa_kernel.json").read_text())
    assert [b.id for b in problem.buffers] == [b["name"] for b in doc["problem"]["buffers"]]
    assert info["buffer_ids"] == [b["id"] for b in doc["problem"]["buffers"]]
    assert info["instance"] == doc["instance"] and info["profile"] == doc["profile"]
    assert info["objective_terms"] == doc["problem"]["objective"]["terms"]
    assert info["goal"] == "fit" and len(info["fingerprint"]) == 16
    r = pto_mem.plan(problem, goal=info["goal"])
    assert r.fits
    assert pto_mem.validate(problem, r) == []


def test_read_dsa_reads_several_pools_as_candidate_arenas(data_dir, tmp_path):
    doc = json.loads((data_dir / "dsa_kernel.json").read_text())
    pool = dict(doc["problem"]["pools"][0])
    pool.update(id=2, name="spill", capacity=1 << 20, reserved_ranges=[])
    doc["problem"]["pools"].append(pool)
    doc["problem"]["buffers"][1]["allowed_pools"] = [1, 2]
    path = tmp_path / "k.json"
    path.write_text(json.dumps(doc, indent=2))
    problem, _ = pto_mem.read_dsa(path)
    assert len(problem.buffers[1].candidate_arenas) == 2
    assert problem.buffers[1].arena == problem.buffers[1].candidate_arenas[0]
    r = pto_mem.plan(problem)
    assert r.fits
    assert pto_mem.validate(problem, r) == []


def test_read_dsa_refuses_what_the_model_cannot_express(data_dir, tmp_path):
    doc = json.loads((data_dir / "dsa_kernel.json").read_text())
    doc["problem"]["constraints"]["pinned_allocations"] = [
        {"buffer": 0, "pool": 7, "offset": 0, "exclusive_for_all_time": False}]
    path = tmp_path / "k.json"
    path.write_text(json.dumps(doc, indent=2))
    with pytest.raises(pto_mem.InputError, match="pinned_allocations/0"):
        pto_mem.read_dsa(path)
