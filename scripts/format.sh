#!/bin/sh
# Lays out every C++ source of the repository with clang-format and the
# repository's .clang-format; with --check, changes nothing and fails,
# listing the files, when any file is not laid out so (CI runs that).
# Needs clang-format (Debian: clang-format).
# Usage: scripts/format.sh [--check]
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
fmt=$(command -v clang-format || command -v clang-format-14 || true)
[ -n "$fmt" ] || { echo "format: clang-format not found (Debian: apt-get install clang-format)" >&2; exit 1; }
files=$(git ls-files '*.hpp' '*.cpp' '*.h' '*.cc')
if [ "${1:-}" = "--check" ]; then
  bad=""
  for f in $files; do
    "$fmt" --style=file "$f" | cmp -s - "$f" || bad="$bad $f"
  done
  if [ -n "$bad" ]; then
    echo "format: not laid out by clang-format (run scripts/format.sh):" >&2
    for f in $bad; do echo "  $f" >&2; done
    exit 1
  fi
  echo "format: every file is laid out by clang-format"
else
  # shellcheck disable=SC2086
  "$fmt" --style=file -i $files
fi
