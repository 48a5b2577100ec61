#!/usr/bin/env bash
# Multi-morphology over several mixes, not one (issue 19): each mix scaled to the compartments of
# mono 256,000 x medium-high (81,664,000), measured in the same run as that mono batch, every
# mix verified against the sequential reference; then small batches of one cell (mono layouts
# against the level solver), and the mono/level-solver crossover that hinestask's automatic
# mode choice rests on. One CSV row per run.
# Usage: scripts/bench_mixes.sh BIN_DIR OUT.csv [SHARED_MORPHOLOGIES_DIR]
#   BIN_DIR: a folder with hinestask (a gpu_bundle.sh bundle's bin/ or a build folder).
#   SHARED_MORPHOLOGIES_DIR: the 15 extra real cells (../shared/morphologies); the mixes that
#   need them are skipped when it is absent.
# Environment: STEPS (default 100), HINESTASK_COMMIT (recorded in the CSV), TARGET_COMPARTMENTS
# (default 81,664,000; smaller for a quick check of the script), MIX_ARGS (extra options of
# every multi mix run, e.g. "--level-kernel cell"), MIXES_ONLY=1 (skip the small batches).
set -euo pipefail
bin=$(cd "$1" && pwd) csv=$2 shared=${3:-}
steps=${STEPS:-100}
repo=$(cd "$(dirname "$0")/.." && pwd)
data=$repo/morph/data
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo cpu-only)
commit=${HINESTASK_COMMIT:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)}
stamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
target=${TARGET_COMPARTMENTS:-81664000} # compartments of mono 256,000 x medium-high
echo "date,commit,gpu,group,case,mode,neurons,compartments,steps,seconds_per_step,compartment_solves_per_s,max_rel_error" >"$csv"

run() { # group case hinestask-args...
  local group=$1 case=$2 json
  shift 2
  json=$(mktemp)
  if STARPU_SILENT=1 "$bin/hinestask" --quiet --steps "$steps" --json "$json" "$@"; then
    python3 - "$json" "$group" "$case" "$stamp" "$commit" "$gpu" "$steps" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
group, case, stamp, commit, gpu, steps = sys.argv[2:8]
err = j.get("max_rel_error")
print(",".join(str(x) for x in [stamp, commit, gpu, group, case, j["mode"], j["neurons"],
      j["compartments"], steps, j["seconds_per_step"], j["compartment_solves_per_s"],
      "" if err is None else err]))
PY
    tail -n 1 "$csv"
  else
    echo "FAILED: $group $case $*" >&2
  fi
  rm -f "$json"
}

# Neurons of a round-robin mix of the given specs with about $target compartments.
neurons_for() {
  local total=0 count=0 n
  for spec in "$@"; do
    n=$(STARPU_SILENT=1 "$bin/hinestask" --morph "$spec" --summary 2>/dev/null | sed -E 's/.*: ([0-9]+) compartments.*/\1/')
    total=$((total + n))
    count=$((count + 1))
  done
  echo $((target * count / total))
}

mix() { # case spec...
  local case=$1 args=() neurons
  shift
  for spec in "$@"; do args+=(--morph "$spec"); done
  neurons=$(neurons_for "$@")
  # MIX_ARGS: extra options of every multi run (e.g. "--level-kernel cell").
  read -r -a more <<<"${MIX_ARGS:-}"
  run mixes "$case" --mode multi "${args[@]}" --neurons "$neurons" --verify "${more[@]}"
}

run mixes mono-medium-high-256000 --mode mono --morph synthetic:medium-high --neurons 256000 \
  --layout interleaved --verify
mix shipped6 "$data"/*.swc
if [ -n "$shared" ] && [ -d "$shared" ]; then
  mix all15 "$shared"/*.swc
  large=() small=()
  for f in "$shared"/*.swc; do
    n=$(STARPU_SILENT=1 "$bin/hinestask" --morph "$f" --summary 2>/dev/null | sed -E 's/.*: ([0-9]+) compartments.*/\1/')
    if [ "$n" -ge 4000 ]; then large+=("$f"); else small+=("$f"); fi
  done
  mix large-cells "${large[@]}"
  mix small-cells "${small[@]}"
fi
# Deep unbranched paths: 4,000 compartments in 9 branches (long chains), and random trees.
mix deep-chains synthetic:tree:4000:9:1 synthetic:tree:4000:9:2 synthetic:tree:2000:5:3
mix random-trees synthetic:random:100:8000:1 synthetic:random:100:8000:2 \
  synthetic:random:100:8000:3 synthetic:random:100:8000:4

# Small batches of one real cell (DeepDendrite's setting: 500 to 3,000 CA1 cells), and the
# mono/level-solver crossover on a small and a large cell (MIXES_ONLY=1: skipped).
[ "${MIXES_ONLY:-0}" = 1 ] && exit 0
for cell in "$data/morph_ca1_n120.swc" synthetic:medium-high; do
  name=$(basename "$cell" .swc)
  for neurons in 500 3000 10000 30000 100000 256000; do
    case "$name:$neurons" in morph_ca1_n120:100000 | morph_ca1_n120:256000) continue ;; esac
    run small-batches "$name-mono-$neurons" --mode mono --morph "$cell" --neurons "$neurons" \
      --layout interleaved
    run small-batches "$name-multi-$neurons" --mode multi --morph "$cell" --neurons "$neurons"
  done
done
