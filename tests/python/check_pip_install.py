"""The pip routes of docs/python.md, offline with the system's packages:

  pip install --no-build-isolation --target DIR .
  python3 -m build --no-isolation --wheel  (then pip install of the wheel)

Each installed copy is imported from where it was installed (not from the
build tree) and plans a problem. Run by CTest (label `pip`) with
PTO_MEM_CMAKE_BUILD_DIR set to the test's own build tree, so setup.py
builds the module there (already built: seconds) instead of configuring a
fresh tree; `setup.py` is the same code either way.

    python3 tests/python/check_pip_install.py SOURCE_DIR SCRATCH_DIR
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

PROBE = """
import pathlib, sys
import pto_mem
where = pathlib.Path(pto_mem.__file__).resolve()
assert str(where).startswith(sys.argv[1]), f"imported {where}, not the installed copy under {sys.argv[1]}"
p = pto_mem.Problem([pto_mem.Arena(0, 256)], [pto_mem.Buffer("a", 128, (0, 2)), pto_mem.Buffer("b", 128, (1, 3))])
r = pto_mem.plan(p)
assert r.fits and pto_mem.validate(p, r) == [], r
print("pto_mem", pto_mem.__version__, "from", where.parent, ":", r.status)
"""


def run(args: list[str], **kwargs) -> None:
    print("$", " ".join(args), flush=True)
    subprocess.run(args, check=True, **kwargs)


def probe(site: pathlib.Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    run([sys.executable, "-c", PROBE, str(site.resolve())], env=env, cwd=site.parent)


def main() -> int:
    source, scratch = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-cache-dir"]
    quiet = {"stdout": subprocess.DEVNULL} if os.environ.get("PTO_MEM_PIP_QUIET") else {}

    # 1. pip install from the clone, into a folder (PEP 668 forbids a system install).
    target = scratch / "site"
    run([*pip, "install", "--no-build-isolation", "--no-deps", "--no-index", "--target", str(target), str(source)],
        cwd=source, **quiet)
    probe(target)

    # 2. A wheel with `build`, then installed.
    try:
        import build  # noqa: F401
    except ImportError:
        print("python3 -m build is not installed (Debian: python3-build): the wheel route is not checked")
        return 1
    wheels = scratch / "dist"
    run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(wheels), str(source)],
        cwd=source, **quiet)
    built = sorted(wheels.glob("pto_mem-*.whl"))
    assert len(built) == 1, built
    from_wheel = scratch / "wheel-site"
    run([*pip, "install", "--no-deps", "--no-index", "--target", str(from_wheel), str(built[0])], **quiet)
    probe(from_wheel)
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
