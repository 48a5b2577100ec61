#!/usr/bin/env bash
# The measurements behind VALIDATION.md: scripts/compare_neuron.py on every SWC file of the
# shared morphologies (malformed/ excluded), one after the other:
#   passive, one segment per sample, and the nested refinement: nseg of d_X 20 um times 1, 3, 9,
#   27 against NEURON at nseg times 81 (each also against NEURON at the same nseg);
#   hh on the soma and hh everywhere, a 100 ms step, with NEURON's rate tables off and on.
# The clamp amplitudes with hh are per cell: the ones, among 0.25, 0.5, 1, 2, ... 32 nA, at
# which NEURON fires the most spikes (a passive tree loads a soma with hh so much that most
# cells fire once at any of them).
# With GEOMETRY=cylinders it measures hinestask's older geometry the same way (passive and
# refinement, where --dx 20, 10, 5, 2, 1 is its resampling against NEURON at d_X 0.25 um, and
# hh everywhere with the tables off): what the NEURON geometry changed.
# Usage: [GEOMETRY=cylinders] scripts/validate_neuron.sh [MORPHOLOGY_DIR [OUTPUT]]
#   default /work/shared/morphologies, scripts/results/neuron_validation[_cylinders]_DATE.txt
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
geometry=${GEOMETRY:-neuron}
folder=${1:-/work/shared/morphologies}
suffix=$([ "$geometry" = neuron ] || echo "_$geometry")
output=${2:-$repo/scripts/results/neuron_validation${suffix}_$(date -u +%Y-%m-%d).txt}
compare=("$repo/scripts/compare_neuron.py" --hinestask "$repo/build/hinestask" --geometry "$geometry")

# file  hh-soma amplitude  hh-all amplitude (nA)
amplitudes="
041018-zA.CNG.swc 4 4
1220882a.CNG.swc 2 2
C220498B-I4.CNG.swc 0.25 2
Cha-F-000012.CNG.swc 0.25 0.25
HSN-fluoro02.CNG.swc 32 32
c91662.swc 0.25 1
l22.CNG.swc 4 2
morph_allen_485574832.swc 0.25 1
morph_ca1_n120.swc 4 2
mp_ma_40984_gc2.CNG.swc 0.5 1
pyramidal.swc 2 2
ri05.CNG.swc 2 2
tc200.CNG.swc 1 8
test_swc.swc 2 4
v_e_purk2.CNG.swc 4 32
"

{
  echo "# GEOMETRY=$geometry scripts/validate_neuron.sh $folder, $(date -u '+%Y-%m-%d %H:%M UTC'), $(hostname)"
  echo "# hinestask $(git -C "$repo" describe --always --dirty), NEURON $(/usr/bin/python3 -c \
    'import os; os.environ["NEURON_MODULE_OPTIONS"]="-nogui"; from neuron import h; print(h.nrnversion(5))' \
    2>/dev/null) ($(dpkg-query -W -f='${Package} ${Version}' python3-neuron 2>/dev/null))"
} > "$output"
status=0
for path in "$folder"/*.swc; do
  name=$(basename "$path")
  read -r soma_amp all_amp < <(awk -v f="$name" '$1 == f {print $2, $3}' <<< "$amplitudes")
  if [ -z "${soma_amp:-}" ]; then
    soma_amp=1 all_amp=1
  fi
  echo "== $name" >> "$output"
  "${compare[@]}" --checks passive --refine 1,3,9,27 --refine-dx 20 --reference-factor 81 "$path" \
    >> "$output" 2>&1 || status=1
  if [ "$geometry" != neuron ]; then
    "${compare[@]}" --checks hh-all --hh-amp "$all_amp" --hh-table off --verbose "$path" \
      >> "$output" 2>&1 || status=1
    continue
  fi
  for table in off on; do
    "${compare[@]}" --checks hh-soma --hh-amp "$soma_amp" --hh-table "$table" --verbose "$path" \
      >> "$output" 2>&1 || status=1
    "${compare[@]}" --checks hh-all --hh-amp "$all_amp" --hh-table "$table" --verbose "$path" \
      >> "$output" 2>&1 || status=1
  done
done
echo "# exit status $status" >> "$output"
echo "$output"
exit $status
