#!/bin/bash
# Records what `pto-mem compile` writes for every .pto under tests/ and
# examples/ x 3 planners x both storage modes x both SoCs: the program with
# every stage dumped (stderr), the JSON report, the SVG memory map and the
# exit codes. Record with the old tool, then with the new, and compare:
#
#   bench/pto_outputs.sh OLD/bin/pto-mem /tmp/before
#   bench/pto_outputs.sh NEW/bin/pto-mem /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
set -u
TOOL=$(realpath "$1"); OUT=$(realpath -m "$2")
mkdir -p "$OUT"
cd "$(dirname "$0")/.."
find tests examples -name '*.pto' | sort > "$OUT/files.txt"
run_one() {
  TOOL=$1; OUT=$2; f=$3
  key=$(echo "$f" | tr '/' '_')
  for pl in pypto dsa_rp ptoas; do for st in buffer-ir legacy; do for soc in a2a3 a5; do
    d="$OUT/$key.$pl.$st.$soc"
    "$TOOL" compile --planner $pl --storage $st --soc $soc --dump-after infer init alias reuse alloc "$f" > "$d.ir" 2> "$d.err"; echo "rc=$?" >> "$d.err"
    "$TOOL" compile --planner $pl --storage $st --soc $soc --emit json --svg "$d.svg" "$f" > "$d.json" 2> "$d.jerr"; echo "rc=$?" >> "$d.jerr"
  done; done; done
}
export -f run_one
xargs -P 2 -I{} bash -c 'run_one "$0" "$1" "$2"' "$TOOL" "$OUT" {} < "$OUT/files.txt"
