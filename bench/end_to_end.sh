#!/bin/sh
# The end-to-end rows of docs/benchmarks.md : the tool's
# whole read -> plan -> validate -> write path on random CSV instances of
# 100k and 1M buffers (bench/random_csv.py), wall time and peak memory from
# /usr/bin/time, median of RUNS runs. Generated data stays in OUT (default
# build-rel/e2e), out of git.
#
#   bench/end_to_end.sh [TOOL [OLD_TOOL]]     RUNS=3 SIZES="100000 1000000" THREADS=
#
# THREADS unset or empty: each tool's own default (--threads not given);
# THREADS=N passes --threads N to both.
#
# With OLD_TOOL the two binaries alternate run by run (side by side, one
# session) and their output files are compared byte for byte.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tool=${1:-$here/../build-rel/bin/pto-mem}
old=${2:-}
runs=${RUNS:-3}
sizes=${SIZES:-"100000 1000000"}
threads=${THREADS:-}
threads_flag=${threads:+--threads $threads}
out=${OUT:-$here/../build-rel/e2e}
mkdir -p "$out"

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# One run: prints "wall_s max_rss_kb cpu_s".
measure() {
  /usr/bin/time -f "%e %M %U %S" -o "$out/time.txt" "$@" > /dev/null
  awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' "$out/time.txt"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), threads ${threads:-default}"
for n in $sizes; do
  csv=$out/random_$n.csv
  [ -s "$csv" ] || python3 "$here/random_csv.py" "$n" > "$csv"
  : > "$out/new.$n"; : > "$out/old.$n"
  for r in $(seq "$runs"); do
    measure "$tool" plan "$csv" --strategy greedy $threads_flag -o "$out/new_$n.csv" >> "$out/new.$n"
    if [ -n "$old" ]; then
      measure "$old" plan "$csv" --strategy greedy $threads_flag -o "$out/old_$n.csv" >> "$out/old.$n"
    fi
  done
  for who in new old; do
    [ -s "$out/$who.$n" ] || continue
    wall=$(cut -d' ' -f1 "$out/$who.$n" | median)
    rss=$(cut -d' ' -f2 "$out/$who.$n" | median)
    cpu=$(cut -d' ' -f3 "$out/$who.$n" | median)
    echo "$who n=$n: wall $wall s, cpu $cpu s, max RSS $((rss / 1024)) MB (runs: $(cut -d' ' -f1 "$out/$who.$n" | tr '\n' ' '))"
  done
  if [ -n "$old" ]; then
    cmp "$out/new_$n.csv" "$out/old_$n.csv" && echo "n=$n: outputs identical"
  fi
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
