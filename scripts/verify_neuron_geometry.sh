#!/usr/bin/env bash
# --verify on every SWC file of the shared morphologies (malformed/ excluded) in the NEURON
# geometry: passive and hh everywhere (1 nA), mono and multi, one segment per sample and d_X 1 um
# (NEURON's worst-conditioned matrices: short segments of thick somas). Each line gives what
# --verify prints: the batch's backward error against the reference's last step system and the
# sequential solver's own (the solver's accuracy, README "--verify"), and the relative difference
# to the sequential reference's voltages with its conditioning tolerance.
# Usage: scripts/verify_neuron_geometry.sh [MORPHOLOGY_DIR [OUTPUT]]
#   default /work/shared/morphologies, scripts/results/verify_neuron_geometry_DATE.txt
# NEURONS (default 16; 8 of them are re-simulated), TSTOP (default 20 ms).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
folder=${1:-/work/shared/morphologies}
output=${2:-$repo/scripts/results/verify_neuron_geometry_$(date -u +%Y-%m-%d).txt}
neurons=${NEURONS:-16}
tstop=${TSTOP:-20}
export STARPU_SILENT=1
{
  echo "# scripts/verify_neuron_geometry.sh $folder, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname)"
  echo "# hinestask $(git -C "$repo" describe --always --dirty); each: hinestask --morph FILE" \
    "--mode MODE --neurons $neurons --tstop $tstop [--hh none | --hh all --stim-amp 1] [--dx 1]" \
    "--verify --quiet"
} > "$output"
status=0
for channels in passive hh-all; do
  if [ "$channels" = passive ]; then model=(--hh none); else model=(--hh all --stim-amp 1); fi
  for path in "$folder"/*.swc; do
    for mode in mono multi; do
      for segments in per-sample "--dx 1"; do
        # shellcheck disable=SC2086 # "--dx 1" is two words on purpose
        line=$("$repo/build/hinestask" --morph "$path" --mode "$mode" --neurons "$neurons" \
          --tstop "$tstop" "${model[@]}" $([ "$segments" = per-sample ] || echo $segments) \
          --verify --quiet 2>&1 | grep '^verify:' || true)
        [ -n "$line" ] && [ "${line%: ok}" != "$line" ] || status=1
        echo "$channels $(basename "$path") $mode $segments ${line:-no verify line}" >> "$output"
      done
    done
  done
done
echo "# exit status $status" >> "$output"
echo "$output"
exit $status
