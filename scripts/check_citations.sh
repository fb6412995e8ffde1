#!/bin/sh
# Comments and docs must stand on their own: they may not cite a file the
# repository does not ship (the PyPTO and DSA-RP specification documents, a
# design card kept outside the repository) or an item of an issue tracker.
# This check lists every such citation as file:line and fails when there is
# one. It reads the shipped sources and docs; the tests and the CMake files
# are left out on purpose, because they may read a shared folder of instance
# suites and conformance cases given with -DPTO_MEM_SHARED_DIR (that is code,
# not a citation).
#
# Usage: scripts/check_citations.sh [repository root]   (default: this script's repository)
set -eu
root=${1:-"$(dirname "$0")/.."}
cd "$root"

paths=""
for p in include src docs README.md tools examples python; do
  [ -e "$p" ] && paths="$paths $p"
done

# What counts as a citation:
#   SPEC / SPEC.md, specs/...          the specification documents
#   CASES, GENERIC, TEXT_IR (as words) and DESIGN.md OPS.md TEXT_IR.md GENERIC.md CASES.md
#   a section sign followed by a number (section numbers of those documents)
#   "issue 15", "issue #15", "item 3", "part 1", "round 2" (tracker items)
pattern='\b(SPEC|CASES|GENERIC|TEXT_IR)\b|specs/|\b(DESIGN|OPS|TEXT_IR|GENERIC|CASES)\.md\b|§ ?[0-9]|\b[Ii]ssues? #?[0-9]+|\bitems? [0-9]+\b|\b[Pp]art [0-9]+\b|\b[Rr]ound [0-9]+\b'

# shellcheck disable=SC2086
hits=$(grep -rnE "$pattern" $paths \
         --exclude=CMakeLists.txt --exclude='*.cmake' --exclude='*.svg' \
         --exclude='*.csv' --exclude='*.json' --exclude-dir=__pycache__ || true)
if [ -n "$hits" ]; then
  printf '%s\n' "$hits"
  n=$(printf '%s\n' "$hits" | wc -l)
  echo "check_citations: $n line(s) cite a file the repository does not ship or a tracker item;" >&2
  echo "say the rule in our own words instead (or drop the citation)." >&2
  exit 1
fi
echo "check_citations: no citations of unshipped files or tracker items"
