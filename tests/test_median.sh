#!/usr/bin/env bash
# scripts/bench/median.py keeps, per configuration, the run with the median seconds_per_step and
# its spread over the runs: three runs of two configurations with known times, in a shuffled
# order, one configuration missing from the last run.
set -euo pipefail
median=${1:?path to scripts/bench/median.py}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
header=date,commit,gpu,case,neurons,seconds_per_step,compartment_solves_per_s
printf '%s\n%s\n%s\n' "$header" "d1,c,G,a,10,0.3,30" "d1,c,G,b,20,2.0,10" >"$dir/r1.csv"
printf '%s\n%s\n%s\n' "$header" "d2,c,G,b,20,1.0,20" "d2,c,G,a,10,0.1,100" >"$dir/r2.csv"
printf '%s\n%s\n' "$header" "d3,c,G,a,10,0.2,50" >"$dir/r3.csv"
python3 "$median" "$dir/out.csv" "$dir/r1.csv" "$dir/r2.csv" "$dir/r3.csv" 2>"$dir/err"
expected="$header,repeats,seconds_min,seconds_max
d3,c,G,a,10,0.2,50,3,0.1,0.3
d2,c,G,b,20,1.0,20,2,1,2"
if [ "$(cat "$dir/out.csv")" != "$expected" ]; then
  echo "not ok: median.py wrote:" >&2
  cat "$dir/out.csv" >&2
  exit 1
fi
grep -q "missing from some runs" "$dir/err" || {
  echo "not ok: no warning about the configuration missing from a run" >&2
  exit 1
}
# different headers are refused
printf 'x,seconds_per_step\n1,2\n' >"$dir/bad.csv"
if python3 "$median" "$dir/out2.csv" "$dir/r1.csv" "$dir/bad.csv" 2>/dev/null; then
  echo "not ok: runs with different headers were merged" >&2
  exit 1
fi
echo "ok - median run and spread per configuration"
