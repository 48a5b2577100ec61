#!/usr/bin/env bash
# Six synthetic morphology classes (the cuHinesBatch paper's Fig. 5): for each class of
# morph/synthetic.c (small-low small-high medium-low medium-high big-low big-high) and each batch
# size, the sequential solver, the Full-Interleaved layout through StarPU (one GPU, data
# resident) and the same CUDA kernel launched directly. Same engines, step counts and CSV
# columns as scripts/bench_mono.sh, plus a morph column; no measurement of this kind has been
# committed yet (scripts/bench/fig5.sh --run BIN_DIR runs this script, then plots it).
# Usage: scripts/bench/bench_classes.sh BIN_DIR OUT.csv [SIZES...]
set -euo pipefail
bin=${1:?BIN_DIR}
csv=${2:?OUT.csv}
shift 2
sizes=("${@:-256 2560 25600 256000}")
read -r -a sizes <<<"${sizes[*]}"
classes=(small-low small-high medium-low medium-high big-low big-high)
export STARPU_SILENT=1
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
cores=$(nproc)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo none)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
commit=${HINESTASK_COMMIT:-$(git -C "$(dirname "$0")/../.." rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "date,commit,gpu,cpu,cores,morph,engine,layout,block_size,neurons,compartments,steps,seconds_per_step,compartment_solves_per_s" >"$csv"

record() { # morph engine layout bs neurons compartments steps seconds_per_step
  local solves
  solves=$(awk -v n="$5" -v c="$6" -v s="$8" 'BEGIN{printf "%.6g", n*c/s}')
  echo "$stamp,$commit,$gpu,$cpu,$cores,$1,$2,$3,$4,$5,$6,$7,$8,$solves" | tee -a "$csv"
}

# hines_bench prints engine,layout,bs,neurons,compartments,steps,seconds_per_step,solves_per_s
bench_run() { # morph engine layout bs n steps
  local line
  if line=$("$bin/hines_bench" "$2" "synthetic:$1" "$5" "$6" "$3" "$4"); then
    record "$1" "$2" "$3" "$4" "$5" "$(echo "$line" | cut -d, -f5)" "$6" "$(echo "$line" | cut -d, -f7)"
  else
    echo "FAILED: hines_bench $*" >&2
  fi
}

starpu_run() { # morph n steps
  local json seconds total
  json=$(mktemp)
  if STARPU_NCPU=0 STARPU_NCUDA=1 "$bin/hinestask" --quiet --mode mono --morph "synthetic:$1" \
    --neurons "$2" --layout interleaved --steps "$3" --json "$json"; then
    seconds=$(sed -n 's/.*"seconds_per_step": \([0-9.e+-]*\).*/\1/p' "$json")
    total=$(sed -n 's/.*"compartments": \([0-9]*\).*/\1/p' "$json")
    record "$1" starpu-gpu interleaved 1 "$2" $((total / $2)) "$3" "$seconds"
  else
    echo "FAILED: hinestask synthetic:$1 $2" >&2
  fi
  rm -f "$json"
}

for class in "${classes[@]}"; do
  # compartments per neuron of this class, for the step counts (the solver reports it again)
  comps=$("$bin/hines_bench" sequential "synthetic:$class" 1 1 flat | cut -d, -f5)
  for n in "${sizes[@]}"; do
    cpu_steps=$(awk -v n="$n" -v c="$comps" 'BEGIN{s=int(2e8/(n*c)); if(s<3)s=3; if(s>200)s=200; print s}')
    gpu_steps=$(awk -v n="$n" -v c="$comps" 'BEGIN{s=int(2.5e10/(n*c)); if(s<100)s=100; if(s>1000)s=1000; print s}')
    bench_run "$class" sequential flat 1 "$n" "$cpu_steps"
    starpu_run "$class" "$n" "$gpu_steps"
    bench_run "$class" cuda-direct interleaved 1 "$n" "$gpu_steps"
  done
done
