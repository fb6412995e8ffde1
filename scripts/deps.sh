#!/bin/sh
# The Debian packages pto_mem builds and tests with. Installs the missing
# ones when run as root; otherwise prints the exact command and fails, so
# nothing is half set up. Shared by setup.sh and test.sh; extra packages
# (e.g. clang for the fuzzer in .ci/run) can be named as arguments.
set -eu

# python3-dev and pybind11-dev build the Python module (docs/python.md),
# python3-pytest and python3-numpy test it, all for Debian's /usr/bin/python3;
# python3-pip, python3-setuptools, python3-wheel, python3-pybind11,
# python3-build and python3-venv are `pip install --no-build-isolation .`
# and `python3 -m build --no-isolation --wheel` offline (pyproject.toml).
PACKAGES="cmake make g++ libboost-dev doctest-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev pkg-config
  python3-dev pybind11-dev python3-pytest python3-numpy
  python3-pip python3-setuptools python3-wheel python3-pybind11 python3-build python3-venv $*"

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps: dpkg-query not found (not Debian or Ubuntu?); make sure these are installed: $PACKAGES" >&2
  exit 0
fi

missing=""
for package in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $package"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  echo "deps: installing$missing"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
else
  echo "deps: missing Debian packages:$missing" >&2
  echo "deps: install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
