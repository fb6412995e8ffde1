#!/usr/bin/env bash
# Runs `pto-mem compile` over every .pto file of the repository's corpora
# (tests/pypto/{cases,storage_cases,data}, examples/kernels and the shared
# spec cases) under every planner, storage mode and SoC, and with logical
# tile selection (--logical-tile-selection: buffer-ir, pypto and dsa_rp),
# with both outputs
# (--emit ir and json), and writes stdout, stderr and the exit status of
# each run under OUT. Two such folders from two builds compare with
# `diff -r` (or use --compare): a speed change must leave them byte-identical.
#
#   scripts/compile_corpus.sh BIN OUT            # write OUT/
#   scripts/compile_corpus.sh --compare OLD NEW  # run both binaries, diff
#
# Runs two jobs at a time under nice; set JOBS to change that.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
shared=${PTO_MEM_SHARED_DIR:-/work/shared}

if [[ ${1:-} == --compare ]]; then
  [[ $# -eq 3 ]] || { echo "usage: $0 --compare OLD_BIN NEW_BIN" >&2; exit 2; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$0" "$2" "$tmp/old" && "$0" "$3" "$tmp/new"
  if diff -rq "$tmp/old" "$tmp/new"; then
    echo "identical: $(find "$tmp/new" -type f | wc -l) files"
  else
    echo "outputs differ" >&2
    exit 1
  fi
  exit 0
fi

[[ $# -eq 2 ]] || { echo "usage: $0 BIN OUT | --compare OLD_BIN NEW_BIN" >&2; exit 2; }
bin=$(realpath "$1")
out=$2
mkdir -p "$out"
out=$(realpath "$out")

files=()
for d in "$here/tests/pypto/cases" "$here/tests/pypto/storage_cases" "$here/tests/pypto/data" \
         "$here/examples/kernels" "$shared/specs/pypto/cases"; do
  [[ -d $d ]] && while IFS= read -r f; do files+=("$f"); done < <(find "$d" -name '*.pto' | sort)
done

run_one() {  # bin out file
  local bin=$1 out=$2 f=$3 key planner storage soc emit rc base
  key=$(printf '%s' "$f" | sed 's|^/||; s|/|__|g')
  for planner in pypto dsa_rp ptoas; do
    for storage in buffer-ir legacy buffer-ir+select; do
      # Logical tile selection exists for the Buffer IR rules under pypto and dsa_rp only.
      [[ $storage == *+select && $planner == ptoas ]] && continue
      local flags=(--storage "${storage%+select}")
      [[ $storage == *+select ]] && flags+=(--logical-tile-selection)
      for soc in a2a3 a5; do
        for emit in ir json; do
          base="$out/$key.$planner.$storage.$soc.$emit"
          rc=0
          "$bin" compile "$f" --planner "$planner" "${flags[@]}" --soc "$soc" --emit "$emit" \
            >"$base.out" 2>"$base.err" || rc=$?
          # Messages name the file: make them independent of where the repository is.
          sed -i "s|$f|FILE|g" "$base.out" "$base.err"
          echo "$rc" >"$base.rc"
        done
      done
    done
  done
}
export -f run_one
printf '%s\n' "${files[@]}" | nice xargs -P "${JOBS:-2}" -I{} bash -c 'run_one "$@"' _ "$bin" "$out" {}
echo "${#files[@]} files x 32 runs written to $out"
