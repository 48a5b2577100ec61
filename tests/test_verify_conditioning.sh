#!/usr/bin/env bash
# --verify on NEURON's worst-conditioned step matrices (issue #17): short segments of thick
# somas couple neighbours up to 1e4 times more strongly than their capacitance, and the batch
# and the sequential solver, both exact eliminations in different orders, then differ by up to
# about 1e-11 of the voltage. What --verify holds the solver to is its backward error against
# the reference's last step (README "--verify"): at most 1e-12 here, passive and hh everywhere,
# mono and multi, with exit status 0 and ": ok".
# Cells: HSN-fluoro02 at d_X 1 um (the largest condition bound of morph/data, 9.1e6) and
# morph_ca1_n120 one segment per sample; tc200 (the largest of all 15 shared cells, 7.7e7 at
# d_X 1 um) and mp_ma_40984_gc2 at d_X 1 um when ../shared/morphologies is present (they are
# CeCILL-2.1 and not shipped: tests/data/PROVENANCE.md).
set -uo pipefail
hinestask=${HINESTASK:?path to hinestask}
source_dir=${HINES_SOURCE_DIR:?source folder}
shared=${HINES_SHARED_MORPHOLOGIES:-}
failures=0 count=0
check() { # name, then hinestask arguments
  local name=$1 out status backward
  shift
  count=$((count + 1))
  out=$("$hinestask" --neurons 4 --tstop 10 --stim-amp 1 --verify --quiet "$@" 2>&1)
  status=$?
  line=$(grep '^verify: ' <<<"$out")
  backward=$(sed -n 's/.*backward error \([^ ]*\) (sequential solver \([^,]*\),.*/\1/p' <<<"$line")
  difference=$(sed -n 's/.*max relative error \([^ ]*\) against.*/\1/p' <<<"$line")
  if [ $status -eq 0 ] && [ "${line%: ok}" != "$line" ] && [ -n "$backward" ] &&
    python3 -c "import sys; sys.exit(0 if float('$backward') <= 1e-12 else 1)"; then
    echo "ok $count - $name: backward error $backward, difference to the reference $difference"
  else
    echo "not ok $count - $name (exit $status): $out"
    failures=$((failures + 1))
  fi
}
cells=("$source_dir/morph/data/HSN-fluoro02.CNG.swc --dx 1"
  "$source_dir/morph/data/morph_ca1_n120.swc")
if [ -n "$shared" ] && [ -f "$shared/tc200.CNG.swc" ]; then
  cells+=("$shared/tc200.CNG.swc --dx 1" "$shared/mp_ma_40984_gc2.CNG.swc --dx 1")
else
  echo "# ../shared/morphologies not present: tc200 and mp_ma_40984_gc2 not checked"
fi
for cell in "${cells[@]}"; do
  for mode in mono multi; do
    for hh in none all; do
      read -r path options <<<"$cell"
      # shellcheck disable=SC2086 # options are words
      check "$(basename "$path")${options:+ $options}, $mode, hh $hh" --morph "$path" $options \
        --mode "$mode" --hh "$hh"
    done
  done
done
echo "1..$count"
exit $((failures > 0))
