#!/usr/bin/env bash
# Multi-morphology benchmarks on one GPU (the papers' Fig. 6, 13 and 14, and a real-SWC mix
# against mono-morphology throughput for the same number of compartments). Every row is one
# hinestask run with CUDA workers only and the data resident (the first step is timed apart).
# Usage: scripts/bench_multi.sh BIN_DIR OUT.csv
set -euo pipefail
bin=${1:?BIN_DIR}
csv=${2:?OUT.csv}
export STARPU_SILENT=1 STARPU_NCPU=0 STARPU_NCUDA=1
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo none)
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
commit=${HINESTASK_COMMIT:-unknown}
data=$(cd "$(dirname "$0")/../morph/data" && pwd)
echo "date,commit,gpu,figure,case,mode,layout,neurons,compartments,steps,seconds_per_step,compartment_solves_per_s,max_rel_error" >"$csv"

run() { # figure case steps hinestask-args...
  local figure=$1 case=$2 steps=$3 json
  shift 3
  json=$(mktemp)
  if "$bin/hinestask" --quiet --steps "$steps" --json "$json" "$@"; then
    python3 - "$json" "$figure" "$case" "$stamp" "$commit" "$gpu" "$steps" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
figure, case, stamp, commit, gpu, steps = sys.argv[2:8]
err = j["max_rel_error"]
print(",".join(str(x) for x in [stamp, commit, gpu, figure, case, j["mode"], j["layout"],
      j["neurons"], j["compartments"], steps, j["seconds_per_step"],
      j["compartment_solves_per_s"], "" if err is None else err]))
PY
    tail -n 1 "$csv"
  else
    echo "FAILED: $figure $case $*" >&2
  fi
  rm -f "$json"
}

# Real-SWC mix vs mono for the same total compartments (about 81.7 M: 256,000 x 319).
mix=()
for f in "$data"/*.swc; do mix+=(--morph "$f"); done
run realmix mono-medium-high-256000 100 --mode mono --morph synthetic:medium-high --neurons 256000 --layout interleaved
run realmix swc-mix-chunk 100 --mode multi "${mix[@]}" --neurons 33390 --verify
run realmix swc-mix-chunk-plain 100 --mode multi "${mix[@]}" --neurons 33390 --gpu-launch plain
run realmix swc-mix-chunk-depth 100 --mode multi "${mix[@]}" --neurons 33390 --level-order depth
run realmix swc-mix-chunk-trunk 100 --mode multi "${mix[@]}" --neurons 33390 --trunk-below 32768
run realmix swc-mix-chunk-2parts 100 --mode multi "${mix[@]}" --neurons 33390 --task-parts 2
run realmix swc-mix-levels 100 --mode multi "${mix[@]}" --neurons 33390 --multi-tasks levels
run realmix swc-mix-chunk-cp 100 --mode multi "${mix[@]}" --neurons 33390 --padding cp
run realmix swc-mix-chunk-x4 100 --mode multi "${mix[@]}" --neurons 133560

[ "${HINES_BENCH_ONLY:-}" = realmix ] && exit 0

# Fig. 6: mono vs multi, 10 % and 50 % branches, 25,600 neurons of 512 compartments.
for percent in 10 50; do
  run fig6 "mono-$percent%" 300 --mode mono --morph "synthetic:fig6:512:$percent" --neurons 25600 --layout interleaved
  run fig6 "multi-same-$percent%" 300 --mode multi --morph "synthetic:fig6:512:$percent" --neurons 25600
  shapes=()
  for seed in $(seq 1 16); do shapes+=(--morph "synthetic:fig6:512:$percent:$seed"); done
  run fig6 "multi-16-shapes-$percent%" 300 --mode multi "${shapes[@]}" --neurons 25600 --verify
done

# Fig. 13: CP vs NCP on variable sizes (32 random shapes of 100..1000 compartments).
shapes=()
for seed in $(seq 1 32); do shapes+=(--morph "synthetic:random:100:1000:$seed"); done
for padding in ncp cp; do
  run fig13 "$padding-25600" 200 --mode multi "${shapes[@]}" --neurons 25600 --padding "$padding"
done

# Fig. 14: 512-compartment binary trees with 2-4 levels, 256 ... 256,000 neurons.
for levels in 2 3 4; do
  for n in 256 2560 25600 256000; do
    steps=$((n >= 25600 ? 100 : 300))
    run fig14 "levels-$levels-multi" "$steps" --mode multi --morph "synthetic:fig14:$levels" --neurons "$n"
    run fig14 "levels-$levels-mono" "$steps" --mode mono --morph "synthetic:fig14:$levels" --neurons "$n" --layout interleaved
  done
done
