#!/usr/bin/env bash
# --mode auto (the default): on CPU workers only, one cell's batch gets the mono layouts, and
# beside a GPU, below 50,000 neurons a GPU, the level solver (measured faster there: BENCHMARKS.md);
# a mix, or an option of one mode, picks that mode; --mode forces one. Each choice is printed and
# recorded in the JSON summary. ctest runs it on CPU workers only; scripts/gpu_suite.sh beside a
# GPU.
set -u
hinestask=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0
expect() { # label expected-mode expected-reason-fragment hinestask-args...
  local label=$1 mode=$2 reason=$3
  shift 3
  if ! "$hinestask" --quiet --steps 3 --neurons 40 --json "$dir/$label.json" "$@" >"$dir/out" 2>&1; then
    echo "FAIL $label: hinestask failed: $(cat "$dir/out")"
    failures=$((failures + 1))
    return
  fi
  local got
  got=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["mode"] + "|" + j["mode_reason"])' "$dir/$label.json")
  if [[ "$got" != "$mode|"*"$reason"* ]]; then
    echo "FAIL $label: expected mode $mode ($reason), got '$got'"
    failures=$((failures + 1))
  else
    echo "ok $label: $got"
  fi
}
# Whether this StarPU has CUDA workers (STARPU_NCUDA, the machine): the one-cell choice differs.
"$hinestask" --quiet --steps 1 --neurons 8 --morph synthetic:small-low --json "$dir/workers.json" >/dev/null 2>&1
cuda=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cuda_workers"])' "$dir/workers.json" 2>/dev/null)
if [ "${cuda:-0}" -gt 0 ]; then
  one_cell=(multi "fewer than 50,000 neurons per GPU") printed=multi
else
  one_cell=(mono "CPU workers only") printed=mono
fi
expect one-cell "${one_cell[@]}" --morph synthetic:medium-high
expect mix multi "a mix" --morph synthetic:medium-high --morph synthetic:small-low
expect multi-option multi "an option of that mode" --morph synthetic:medium-high --padding cp
expect mono-option mono "an option of that mode" --morph synthetic:medium-high --layout flat
expect forced-multi multi "given with --mode" --mode multi --morph synthetic:medium-high
expect forced-auto "${one_cell[0]}" "automatic" --mode auto --morph synthetic:medium-high
# Printed for a person, too.
"$hinestask" --steps 2 --neurons 8 --morph synthetic:medium-high >"$dir/out" 2>&1
grep -q "^mode $printed: .*automatic.*--mode forces one" "$dir/out" ||
  { echo "FAIL: the choice is not printed: $(head -3 "$dir/out")"; failures=$((failures + 1)); }
echo "$failures failures"
[ "$failures" -eq 0 ]
