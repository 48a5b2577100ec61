#!/usr/bin/env bash
# Leaf subtrees as systems (--level-subtrees, issue 19), or long branches cut into segments
# (OPTION=--level-split): every mix of bench_mixes.sh at mono's 81.66 M compartments (each with
# mono 256,000 x medium-high measured in the same run, every mix verified) and small batches of
# one cell, for each value of the option, GPU only unless the caller says otherwise. One CSV per
# value from bench_mixes.sh (mixes_VALUE.csv), and small.csv (the column named after the option).
# Usage: scripts/bench_subtrees.sh BIN_DIR OUT_DIR [SHARED_MORPHOLOGIES_DIR]
# Environment: OPTION (default --level-subtrees; any option taking N|off), LIMITS (default
# "off 16 32 64"), SMALL_REPEATS (default 2), SMALL_BATCHES (names as
# in the loop below), STEPS (default 100),
# HINESTASK_COMMIT (recorded), MIXES=0 (small batches only), SMALL=0 (mixes only).
set -euo pipefail
bin=$(cd "$1" && pwd) out=$2 shared=${3:-}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
limits=${LIMITS:-off 16 32 64}
option=${OPTION:---level-subtrees}
export STARPU_NCPU=${STARPU_NCPU:-0} STARPU_SILENT=1
if [ "${MIXES:-1}" = 1 ]; then
  for limit in $limits; do
    MIXES_ONLY=1 MIX_ARGS="${MIX_ARGS:-} $option $limit" "$repo/scripts/bench_mixes.sh" "$bin" \
      "$out/mixes_$limit.csv" "$shared"
  done
fi
[ "${SMALL:-1}" = 1 ] || exit 0
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo cpu-only)
commit=${HINESTASK_COMMIT:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)}
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
csv=$out/small.csv
echo "date,commit,gpu,batch,${option#--level-},repeat,neurons,compartments,ms_per_step,G_compartment_steps_per_s" >"$csv"
six=()
for f in "$repo"/morph/data/*.swc; do six+=(--morph "$f"); done
for repeat in $(seq "${SMALL_REPEATS:-2}"); do
  for batch in ${SMALL_BATCHES:-ca1-500 ca1-3000 ca1-500-hh ca1-3000-hh six-1044 medium-high-3000 random-2000 six-33390-hh}; do
    case $batch in
    ca1-*) n=${batch#ca1-} args=(--morph "$repo/morph/data/morph_ca1_n120.swc" --neurons "${n%-hh}" --steps 400) ;;
    six-*) n=${batch#six-} args=("${six[@]}" --neurons "${n%-hh}" --steps 200) ;;
    medium-high-*) args=(--morph synthetic:medium-high --neurons 3000 --steps 400) ;;
    random-*) args=(--neurons 2000 --steps 200)
      for r in 1 2 3 4; do args+=(--morph synthetic:random:100:8000:$r); done ;;
    esac
    case $batch in *-hh) args+=(--hh all) ;; *) args+=(--hh none) ;; esac
    for limit in $limits; do
      if "$bin/hinestask" --quiet --force --mode multi "${args[@]}" $option "$limit" \
        --json "$out/s.json" >"$out/s.log" 2>&1; then
        python3 - "$out/s.json" "$stamp,$commit,$gpu,$batch,$limit,$repeat" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%s,%d,%d,%.4f,%.3f" % (sys.argv[2], j["neurons"], j["compartments"],
      j["seconds_per_step"] * 1e3, j["compartment_solves_per_s"] / 1e9))
PY
        tail -n 1 "$csv"
      else
        echo "FAILED: $batch $option $limit: $(tail -1 "$out/s.log")" >&2
      fi
    done
  done
done
rm -f "$out/s.json" "$out/s.log"
