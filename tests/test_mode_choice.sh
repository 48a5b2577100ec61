#!/usr/bin/env bash
# --mode auto (the default): on CPU workers only, one cell's batch gets the mono layouts; a mix, or
# an option of one mode, picks that mode; --mode forces one. Each choice is printed and recorded
# in the JSON summary. (The GPU side of the rule, the level solver below 50,000 neurons per GPU,
# is measured in BENCHMARKS.md.)
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
expect one-cell mono "CPU workers only" --morph synthetic:medium-high
expect mix multi "a mix" --morph synthetic:medium-high --morph synthetic:small-low
expect multi-option multi "an option of that mode" --morph synthetic:medium-high --padding cp
expect mono-option mono "an option of that mode" --morph synthetic:medium-high --layout flat
expect forced-multi multi "given with --mode" --mode multi --morph synthetic:medium-high
expect forced-auto mono "automatic" --mode auto --morph synthetic:medium-high
# Printed for a person, too.
"$hinestask" --steps 2 --neurons 8 --morph synthetic:medium-high >"$dir/out" 2>&1
grep -q "^mode mono: .*automatic.*--mode forces one" "$dir/out" ||
  { echo "FAIL: the choice is not printed: $(head -3 "$dir/out")"; failures=$((failures + 1)); }
echo "$failures failures"
[ "$failures" -eq 0 ]
