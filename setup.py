"""Builds the pto_mem extension with CMake for `pip install .` and
`python3 -m build` (the metadata is in pyproject.toml; docs/python.md).

CMake configures the repository with only the library and the Python module
(no tests, examples or benchmarks), for the interpreter that runs this
build, and builds the target pto_mem_python; the extension is then copied
where setuptools packs it. Environment variables:

  PTO_MEM_CMAKE_BUILD_DIR  an existing, configured CMake build tree of this
                           source to build the module in (nothing is
                           configured; the build's own interpreter is used);
                           default: a fresh tree under build-python/
  PTO_MEM_CMAKE_ARGS       more arguments for the configure step
  CMAKE_BUILD_PARALLEL_LEVEL  compile jobs (default: the machine's cores)
"""

from __future__ import annotations

import os
import pathlib
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


def run(args: list[str]) -> None:
    print("pto_mem:", " ".join(shlex.quote(a) for a in args), flush=True)
    subprocess.run(args, check=True)


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if shutil.which("cmake") is None:
            raise RuntimeError("pto_mem: building the extension needs CMake (Debian: apt-get install cmake)")
        given = os.environ.get("PTO_MEM_CMAKE_BUILD_DIR")
        if given:
            build_dir = pathlib.Path(given).resolve()
            if not (build_dir / "CMakeCache.txt").exists():
                raise RuntimeError(f"pto_mem: PTO_MEM_CMAKE_BUILD_DIR={given} is not a configured CMake build tree")
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            build_dir.mkdir(parents=True, exist_ok=True)
            args = [
                "cmake", "-S", str(ROOT), "-B", str(build_dir),
                "-DCMAKE_BUILD_TYPE=Release",
                "-DPTO_MEM_BUILD_PYTHON=ON",
                "-DPTO_MEM_BUILD_TESTS=OFF",
                "-DPTO_MEM_BUILD_EXAMPLES=OFF",
                "-DPTO_MEM_BUILD_BENCH=OFF",
                "-DPTO_MEM_INSTALL=OFF",
                f"-DPython3_EXECUTABLE={sys.executable}",
            ]
            try:  # pybind11's own CMake files when the pybind11 package is installed
                import pybind11

                args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
            except (ImportError, AttributeError):
                pass
            args += shlex.split(os.environ.get("PTO_MEM_CMAKE_ARGS", ""))
            run(args)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        run(["cmake", "--build", str(build_dir), "--target", "pto_mem_python", "--parallel", jobs])
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        built = build_dir / "python" / "pto_mem" / target.name
        if not built.exists():
            found = sorted(p.name for p in (build_dir / "python" / "pto_mem").glob("_pto_mem*"))
            raise RuntimeError(
                f"pto_mem: CMake built no {target.name} in {built.parent} (found: {found or 'nothing'}): "
                "the configure output says what is missing (python3-dev, pybind11-dev, nlohmann-json3-dev), "
                "or the build tree is for another Python"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    ext_modules=[CMakeExtension("pto_mem._pto_mem")],
    cmdclass={"build_ext": CMakeBuild},
    # build-*/ is the repository's place for build trees (build/ is CMake's).
    options={"build": {"build_base": "build-python"}},
)
