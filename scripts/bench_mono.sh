#!/usr/bin/env bash
# Mono-morphology benchmark (the papers' Fig. 3 and 4): sequential, OpenMP flat, the StarPU CPU
# codelets, and every GPU layout through StarPU and launched directly, for 256 ... 256,000
# medium-high neurons (and Flat/Full-Interleaved on two GPUs when the machine has them;
# HINES_BENCH_FIG3_ONLY=1 keeps only Fig. 3's GPU layouts). Every engine runs in this one script
# on this one machine, built with the
# same flags, so the ratios compare like with like.
# Usage: scripts/bench_mono.sh BIN_DIR OUT.csv [SIZES...]
set -euo pipefail
bin=${1:?BIN_DIR}
csv=${2:?OUT.csv}
shift 2
sizes=("${@:-256 2560 25600 256000}")
read -r -a sizes <<<"${sizes[*]}"
morph=synthetic:medium-high
export STARPU_SILENT=1
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
cores=$(nproc)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo none)
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l || echo 0)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
commit=${HINESTASK_COMMIT:-$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "date,commit,gpu,cpu,cores,engine,layout,block_size,neurons,compartments,steps,seconds_per_step,compartment_solves_per_s" >"$csv"

record() { # engine layout bs neurons steps seconds_per_step
  local solves
  solves=$(awk -v n="$4" -v s="$6" 'BEGIN{printf "%.6g", n*319/s}')
  echo "$stamp,$commit,$gpu,$cpu,$cores,$1,$2,$3,$4,319,$5,$6,$solves" | tee -a "$csv"
}

json_field() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1"; }

starpu_run() { # engine-label layout bs neurons steps env...
  local label=$1 layout=$2 bs=$3 n=$4 steps=$5
  shift 5
  local json
  json=$(mktemp)
  if env "$@" "$bin/hinestask" --quiet --morph $morph --neurons "$n" --layout "$layout" \
    --block-size "$bs" --steps "$steps" --json "$json"; then
    record "$label" "$layout" "$bs" "$n" "$steps" "$(json_field "$json" seconds_per_step)"
  else
    echo "FAILED: $label $layout $bs $n" >&2
  fi
  rm -f "$json"
}

bench_run() { # engine layout bs n steps
  local line
  if line=$("$bin/hines_bench" "$1" $morph "$4" "$5" "$2" "$3"); then
    record "$1" "$2" "$3" "$4" "$5" "$(echo "$line" | cut -d, -f7)"
  else
    echo "FAILED: $*" >&2
  fi
}

for n in "${sizes[@]}"; do
  cpu_steps=$(awk -v n="$n" 'BEGIN{s=int(2e8/(n*319)); if(s<3)s=3; if(s>200)s=200; print s}')
  gpu_steps=$(awk -v n="$n" 'BEGIN{s=int(2.5e10/(n*319)); if(s<100)s=100; if(s>1000)s=1000; print s}')
  bench_run sequential flat 1 "$n" "$cpu_steps"
  OMP_PROC_BIND=true bench_run openmp-flat flat 1 "$n" $((cpu_steps * 4))
  for layout in flat block; do
    starpu_run starpu-cpu "$layout" 32 "$n" $((cpu_steps * 4)) STARPU_NCUDA=0 STARPU_NCPU="$cores"
  done
  if [ "${HINES_BENCH_GPU:-1}" = 1 ]; then
    configs=(flat:1 interleaved:1 block:32 block:64 block:128 block:256 block:512 shared:32 shared:64)
    [ "${HINES_BENCH_FIG3_ONLY:-0}" = 1 ] && configs=(flat:1 interleaved:1)
    for config in "${configs[@]}"; do
      layout=${config%%:*} bs=${config##*:}
      starpu_run starpu-gpu "$layout" "$bs" "$n" "$gpu_steps" STARPU_NCPU=0 STARPU_NCUDA=1
      bench_run cuda-direct "$layout" "$bs" "$n" "$gpu_steps"
    done
    # The papers' Fig. 3 has curves on two GPUs: one task per GPU, calibrated dmda (a first
    # calibration run feeds the models under this script's STARPU_HOME).
    if [ "$gpus" -ge 2 ]; then
      for layout in flat interleaved; do
        STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_SCHED=dmda "$bin/hinestask" --quiet --morph $morph \
          --neurons "$n" --layout "$layout" --steps 20 --calibrate >/dev/null 2>&1 || true
        starpu_run starpu-2gpu "$layout" 1 "$n" "$gpu_steps" STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_SCHED=dmda
      done
    fi
  fi
done
