"""Shared fixtures: where the repository's data and a scratch folder are.

CTest sets PTO_MEM_SOURCE_DIR, PTO_MEM_SHARED_DIR and PYTHONPATH (the build
tree's package); run by hand:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python
"""

from __future__ import annotations

import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("PTO_MEM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED_DIR = pathlib.Path(os.environ.get("PTO_MEM_SHARED_DIR", SOURCE_DIR.parent / "shared"))
# Under ASan -O0 the solvers are ~20x slower: property tests plan fewer problems.
SANITIZED = os.environ.get("PTO_MEM_TEST_SANITIZED") == "1"


@pytest.fixture
def data_dir() -> pathlib.Path:
    return SOURCE_DIR / "examples" / "data"


@pytest.fixture
def kernels_dir() -> pathlib.Path:
    return SOURCE_DIR / "examples" / "kernels"
