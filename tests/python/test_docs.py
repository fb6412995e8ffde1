"""Every Python example of docs/python.md runs.

The ```python blocks of the page run in order, in one namespace (as a
reader pastes them into one session), from a scratch folder in which
`examples/` is the repository's: relative paths in the examples work and
what they write lands in the scratch folder. An example that raises fails
the test with the block's first line in the page."""

from __future__ import annotations

import os
import pathlib
import re

import pytest

from conftest import SOURCE_DIR

DOCS = [SOURCE_DIR / "docs" / "python.md"]


def python_blocks(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line of the opening fence, code) of every ```python block."""
    blocks, lines = [], path.read_text().splitlines()
    i = 0
    while i < len(lines):
        if re.fullmatch(r"```python\s*", lines[i]):
            start, body = i + 1, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            blocks.append((start, "\n".join(body) + "\n"))
        i += 1
    return blocks


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_python_example_runs(doc, tmp_path, monkeypatch):
    np = pytest.importorskip("numpy")  # the NumPy examples
    assert np
    blocks = python_blocks(doc)
    assert len(blocks) >= 8, "the page lost its examples"
    (tmp_path / "examples").symlink_to(SOURCE_DIR / "examples")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for line, code in blocks:
        compiled = compile(code, f"{doc.name}:{line}", "exec")
        try:
            exec(compiled, namespace)  # noqa: S102 - the page's own examples
        except Exception as e:  # pragma: no cover - the failure report
            pytest.fail(f"{doc.name}, the example at line {line} raised {type(e).__name__}: {e}")
    assert os.path.exists(tmp_path / "problem.svg") and os.path.exists(tmp_path / "matmul.svg")
