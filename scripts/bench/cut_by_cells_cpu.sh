#!/bin/bash
# The cores' chunks cut by cells (level_arranged_cut_copies, LEVEL_ARRANGED_MIN_COPIES) against
# the equal cut, CPU workers alone: two builds, alternating, REPS rounds, five mixes at about the
# copies a chunk the share gives the cores beside one H200 (B x 72, E x 296, random trees x 232,
# A x 125, the large cells x 86: 8 chunks over 2 CPU workers), level kernels, tasks of 8 steps.
# Usage: EQUAL=build/hinestask CELLS=/tmp/cells/hinestask scripts/bench/cut_by_cells_cpu.sh
#   (CELLS: a CPU-only build configured with -DCMAKE_C_FLAGS=-DLEVEL_ARRANGED_MIN_COPIES=8)
# Environment: SWC_DIR (the real cells, default ../shared/morphologies), NCPU (2), REPS (3).
# Prints "MIX-equal MS ms G G/s" and "MIX-cells ..." lines.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
S=${SWC_DIR:-../shared/morphologies}
: "${EQUAL:?EQUAL: the hinestask of the equal cut}" "${CELLS:?CELLS: the hinestask cutting by cells}"
mix() { local f; for f in "$@"; do printf -- '--morph\n%s/%s.swc\n' "$S" "$f"; done; }
mapfile -t mA < <(mix 041018-zA.CNG ri05.CNG morph_allen_485574832)
mapfile -t mB < <(mix C220498B-I4.CNG pyramidal test_swc v_e_purk2.CNG)
mapfile -t mE < <(mix ri05.CNG pyramidal morph_allen_485574832 v_e_purk2.CNG tc200.CNG)
mapfile -t mL < <(mix 041018-zA.CNG C220498B-I4.CNG pyramidal ri05.CNG test_swc)
mR=(); for r in 1 2 3 4; do mR+=(--morph synthetic:random:100:8000:$r); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export STARPU_NCPU=${NCPU:-2} STARPU_NCUDA=0 STARPU_SILENT=1 STARPU_HOME=$work/home
mkdir -p "$STARPU_HOME"
one() { # LABEL BINARY ARGS...
  local l=$1 b=$2; shift 2
  "$b" --quiet --force --mode multi --hh none --level-kernel levels --task-steps 8 "$@" \
    --json "$work/t.json" > "$work/t.log" 2>&1 || { echo "FAIL $l $(tail -1 "$work/t.log")"; return; }
  python3 -c "import json,sys;j=json.load(open(sys.argv[1]));print('$l %.4f ms %.3f G/s'%(j['seconds_per_step']*1e3, j['compartment_solves_per_s']/1e9))" "$work/t.json"
}
for rep in $(seq "${REPS:-3}"); do
  for spec in "B 72 300 mB" "E 296 100 mE" "R 232 200 mR" "A 125 200 mA" "L 86 100 mL"; do
    set -- $spec; declare -n cells=$4
    one "$1-equal" "$EQUAL" "${cells[@]}" --neurons "$2" --steps "$3"
    one "$1-cells" "$CELLS" "${cells[@]}" --neurons "$2" --steps "$3"
  done
done
