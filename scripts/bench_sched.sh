#!/usr/bin/env bash
# Issue 15's benchmarks: StarPU scheduling many tasks per GPU, CPU and GPU together, steps submitted
# ahead. Every row is one hinestask run, data resident (the first step is timed apart), written to
# OUT/bench_sched.csv as soon as it ends; scripts/bench/sched_summary.py prints the medians and
# the ratios the issue asks for.
# Usage: scripts/bench_sched.sh BIN_DIR OUT_DIR [PART...]
#   parts (default: verify mono variants multi hetero traces): verify (correctness on the GPU),
#   mono (256,000 medium-high, GPU only: 1/4/16/64 tasks x eager/lws/dmda/dmdas, 3 runs each),
#   variants (streams per GPU, StarPU's clean-buffer defaults, per-step waits), multi (the six
#   shipped cells, 33,390 neurons: 1/4/16 chunks), hetero (CPU + GPU, calibrated dmdas, no mask,
#   against the GPU alone), traces (GPU-only 16 tasks and CPU + GPU, with trace summaries),
#   two (two GPUs: 16 tasks over both and the multi mix, against one GPU; a batch size never
#   seen; a trace), unseen (sizes never measured: first run against second, two GPUs), connections (CUDA_DEVICE_MAX_CONNECTIONS 8 against 32: 64 tasks and
#   multi chunks on one GPU, 16 tasks and the mix on two), twodiag (two GPUs: task counts, schedulers, streams, driver threads, windows;
#   64 tasks on one GPU with a driver thread per stream), extra (plain against early launches in multi chunk graphs, 32 workers per GPU).
# Environment: REPS (3), STEPS (200), STREAMS (workers per GPU to try in mono and multi; unset:
# hinestask's default), HETERO_LAYOUTS (block), MONO_NEURONS (256000), MULTI_NEURONS (33390), DATA (the SWC
# folder), BUDGET_S (skip what would start after this many seconds, default 540), COMMIT,
# TASK_STEPS (every run with --task-steps K), BENCH_DRY_RUN=1 (ignore the worker counts the cases set: a check of the script on a machine
# without GPU).
set -uo pipefail
bin=$(readlink -f "${1:?BIN_DIR}")
out=$(readlink -f "${2:?OUT_DIR}")
shift 2
parts=("${@:-verify mono variants multi hetero traces}")
read -r -a parts <<<"${parts[*]}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
reps=${REPS:-3}
steps=${STEPS:-200}
mono_n=${MONO_NEURONS:-256000}
multi_n=${MULTI_NEURONS:-33390}
data=${DATA:-$here/../morph/data}
budget=${BUDGET_S:-540}
mkdir -p "$out"
export STARPU_HOME=${STARPU_HOME:-$out/starpu-home}
export STARPU_SILENT=1 PATH="$bin:$PATH"
mkdir -p "$STARPU_HOME"
csv=$out/bench_sched.csv
log=$out/bench_sched.log
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo none)
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
cores=$(nproc)
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
commit=${COMMIT:-unknown}
started=$SECONDS
header="date,commit,gpu,gpus,cores,part,case,rep,scheduler,cpu_workers,cuda_workers,nworker_per_cuda,layout,neurons,task_neurons,tasks_per_step,window,pin,env,seconds_per_step,compartment_solves_per_s,max_rel_error,tasks_per_gpu,tasks_on_cpus"
[ -f "$csv" ] || echo "$header" >"$csv"
if [ "$(head -n 1 "$csv")" != "$header" ]; then
  echo "$csv: written by an older bench_sched.sh (other columns); give a new OUT_DIR" >&2
  exit 2
fi
mix=()
for f in "$data"/*.swc; do mix+=(--morph "$f"); done

over_budget() { [ $((SECONDS - started)) -ge "$budget" ]; }

# run PART CASE REP ENV... -- HINESTASK_ARGS...
run() {
  local part=$1 case=$2 rep=$3
  shift 3
  local envs=()
  while [ "$1" != "--" ]; do
    # A dry run on a machine without GPU keeps its own worker counts.
    [ "${BENCH_DRY_RUN:-0}" = 1 ] && [[ "$1" == STARPU_NCPU=* || "$1" == STARPU_NCUDA=* ]] || envs+=("$1")
    shift
  done
  shift
  if over_budget; then
    echo "SKIPPED (budget): $part $case $rep" | tee -a "$log"
    return 1
  fi
  local json=$out/run.json
  rm -f "$json"
  local t0=$SECONDS
  # TASK_STEPS=K: every run with tasks of K steps (--task-steps; recorded in the env column).
  local more=()
  if [ -n "${TASK_STEPS:-}" ]; then
    more=(--task-steps "$TASK_STEPS")
    envs+=("TASK_STEPS=$TASK_STEPS")
  fi
  if env "${envs[@]}" timeout 120 "$bin/hinestask" --quiet --json "$json" "$@" "${more[@]}" >>"$log" 2>&1; then
    python3 - "$json" "$stamp" "$commit" "$gpu" "$gpus" "$cores" "$part" "$case" "$rep" \
      "${envs[*]}" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
stamp, commit, gpu, gpus, cores, part, case, rep, envs = sys.argv[2:11]
err = j.get("max_rel_error")
print(",".join(str(x) for x in [stamp, commit, gpu, gpus, cores, part, case, rep, j["scheduler"],
      j["cpu_workers"], j["cuda_workers"], j.get("nworker_per_cuda", ""), j["layout"], j["neurons"],
      j["task_neurons"] if j["task_neurons"] is not None else "default", j["tasks_per_step"],
      j.get("window", ""), j.get("pin", ""), envs.replace(",", ";"), j["seconds_per_step"],
      j["compartment_solves_per_s"], "" if err is None else err,
      # where StarPU ran the tasks, per GPU ("a;b") and on the CPU cores; empty if not counted
      ";".join(str(n) for n in j.get("tasks_per_gpu") or []),
      "" if j.get("tasks_on_cpus") is None else j["tasks_on_cpus"]]))
PY
    echo "$(tail -n 1 "$csv" | cut -d, -f6-9,12,16,20) ($((SECONDS - t0)) s)"
  else
    echo "FAILED (status $?): $part $case $rep ${envs[*]} $*" | tee -a "$log"
    tail -n 5 "$log"
  fi
}

mono=(--mode mono --morph synthetic:medium-high --neurons "$mono_n" --layout interleaved)
task_neurons() { echo $(((mono_n + $1 - 1) / $1)); } # neurons per task for N tasks
chunk_neurons() { echo $(((multi_n + $1 - 1) / $1)); }

for part in "${parts[@]}"; do
  echo "== $part ($((SECONDS - started)) s)"
  case "$part" in
  verify)
    # Against the sequential reference, on the GPU only: mono 16 and 64 tasks, multi 16 chunks.
    for t in 16 64; do
      run verify "mono-$t-tasks" 1 STARPU_NCPU=0 STARPU_SCHED=eager -- "${mono[@]}" \
        --task-neurons "$(task_neurons $t)" --steps 100 --verify
    done
    run verify multi-16-chunks 1 STARPU_NCPU=0 -- --mode multi "${mix[@]}" --neurons "$multi_n" \
      --task-neurons "$(chunk_neurons 16)" --steps 50 --verify
    # HH everywhere and a stimulus that switches on and off: both CUDA graphs of every chunk.
    run verify multi-16-chunks-hh 1 STARPU_NCPU=0 -- --mode multi "${mix[@]}" --neurons 3200 \
      --task-neurons 200 --steps 80 --hh all --stim-amp 1 --stim-start 0.5 --stim-stop 1.5 --verify
    # Probes on the GPU: the steps-ahead window and per-step waits give the same bits; 64 tasks.
    probes=(--probe 0:0 --probe 4001:318 --probe 128000:100 --probe 255999:7 --probe-every 0.05)
    for w in 1 8; do
      STARPU_NCPU=0 timeout 120 "$bin/hinestask" --quiet "${mono[@]}" --task-neurons "$(task_neurons 64)" \
        --steps 100 --hh soma --stim-amp 1 "${probes[@]}" --window $w --probes "$out/probes_w$w.csv" >>"$log" 2>&1
    done
    if cmp -s "$out/probes_w1.csv" "$out/probes_w8.csv"; then
      echo "GPU probes, window 1 vs 8, 64 tasks: identical ($(wc -l <"$out/probes_w1.csv") rows)" | tee -a "$log"
    else
      echo "GPU probes, window 1 vs 8, 64 tasks: DIFFER" | tee -a "$log"
    fi
    rm -f "$out/probes_w1.csv" "$out/probes_w8.csv"
    # The same for the multi mix (chunk graphs), and against CPU workers only (tolerance 1e-9).
    mprobes=(--probe 0:0 --probe 5:40 --probe 1999:3 --probe 3100:0 --probe-every 0.05)
    for w in 1 8; do
      STARPU_NCPU=0 timeout 120 "$bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 3200 \
        --task-neurons 200 --steps 120 --hh all --stim-amp 1 --stim-start 0.5 --stim-stop 2 \
        "${mprobes[@]}" --window $w --probes "$out/mprobes_w$w.csv" >>"$log" 2>&1
    done
    STARPU_NCUDA=0 timeout 300 "$bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 3200 \
      --task-neurons 200 --steps 120 --hh all --stim-amp 1 --stim-start 0.5 --stim-stop 2 \
      "${mprobes[@]}" --probes "$out/mprobes_cpu.csv" >>"$log" 2>&1
    if cmp -s "$out/mprobes_w1.csv" "$out/mprobes_w8.csv"; then
      echo "GPU multi probes, window 1 vs 8, 16 chunks: identical ($(wc -l <"$out/mprobes_w1.csv") rows)" | tee -a "$log"
    else
      echo "GPU multi probes, window 1 vs 8, 16 chunks: DIFFER" | tee -a "$log"
    fi
    python3 - "$out/mprobes_cpu.csv" "$out/mprobes_w8.csv" <<'PY' | tee -a "$log"
import csv, sys
a = list(csv.reader(open(sys.argv[1]))); b = list(csv.reader(open(sys.argv[2])))
assert a[0] == b[0] and len(a) == len(b), "different shapes"
d = max(abs(float(x) - float(y)) for ra, rb in zip(a[1:], b[1:]) for x, y in zip(ra[1:], rb[1:]))
peak = max(float(x) for r in a[1:] for x in r[1:])
print(f"multi probes CPU vs GPU: {len(a) - 1} rows, max |difference| {d:.3e} mV (peak {peak:.1f} mV): {'ok' if d <= 1e-9 else 'ABOVE 1e-9'}")
PY
    rm -f "$out"/mprobes_*.csv
    ;;
  mono)
    # GPU only, every scheduler, 1/4/16/64 tasks per step; reps interleaved so drift hits all.
    # STREAMS: workers (streams) per GPU to try, "" for hinestask's default; each but the
    # default is named in the case (tasks-16-s8).
    for rep in $(seq 1 "$reps"); do
      for streams in ${STREAMS:-""}; do
        for sched in eager lws dmda dmdas; do
          for t in 1 4 16 64; do
            run mono "tasks-$t${streams:+-s$streams}" "$rep" STARPU_NCPU=0 STARPU_SCHED=$sched \
              ${streams:+STARPU_NWORKER_PER_CUDA=$streams} -- "${mono[@]}" \
              --task-neurons "$(task_neurons $t)" --steps "$steps"
          done
        done
      done
    done
    ;;
  variants)
    for t in 16 64; do
      for streams in 1 4 8; do
        run variants "tasks-$t-streams-$streams" 1 STARPU_NCPU=0 STARPU_NWORKER_PER_CUDA=$streams -- \
          "${mono[@]}" --task-neurons "$(task_neurons $t)" --steps "$steps"
      done
    done
    # StarPU's own clean-buffer thresholds (what wrote the chunks back), and per-step waits.
    run variants tasks-16-starpu-clean-buffers 1 STARPU_NCPU=0 STARPU_SCHED=eager \
      STARPU_MINIMUM_CLEAN_BUFFERS=5 STARPU_TARGET_CLEAN_BUFFERS=10 -- "${mono[@]}" \
      --task-neurons "$(task_neurons 16)" --steps 50
    run variants tasks-16-window-1 1 STARPU_NCPU=0 -- "${mono[@]}" \
      --task-neurons "$(task_neurons 16)" --steps "$steps" --window 1
    run variants tasks-64-window-16 1 STARPU_NCPU=0 -- "${mono[@]}" \
      --task-neurons "$(task_neurons 64)" --steps "$steps" --window 16
    run variants tasks-64-no-profiling 1 STARPU_NCPU=0 STARPU_PROFILING=0 -- "${mono[@]}" \
      --task-neurons "$(task_neurons 64)" --steps "$steps"
    run variants tasks-64-pipeline-2 1 STARPU_NCPU=0 STARPU_CUDA_PIPELINE=2 -- "${mono[@]}" \
      --task-neurons "$(task_neurons 64)" --steps "$steps"
    run variants default-chunks 1 STARPU_NCPU=0 -- "${mono[@]}" --steps "$steps"
    ;;
  multi)
    for rep in $(seq 1 "$reps"); do
      for streams in ${STREAMS:-""}; do
        for c in 1 4 16; do
          run multi "chunks-$c${streams:+-s$streams}" "$rep" STARPU_NCPU=0 STARPU_SCHED=dmdas \
            ${streams:+STARPU_NWORKER_PER_CUDA=$streams} -- --mode multi "${mix[@]}" \
            --neurons "$multi_n" --task-neurons "$(chunk_neurons $c)" --steps 100
        done
      done
    done
    for c in 1 4 16; do
      run multi "chunks-$c" 1 STARPU_NCPU=0 STARPU_SCHED=eager -- --mode multi "${mix[@]}" \
        --neurons "$multi_n" --task-neurons "$(chunk_neurons $c)" --steps 100
    done
    run multi chunks-64 1 STARPU_NCPU=0 STARPU_SCHED=dmdas -- --mode multi "${mix[@]}" \
      --neurons "$multi_n" --task-neurons "$(chunk_neurons 64)" --steps 100
    run multi default-chunks 1 STARPU_NCPU=0 -- --mode multi "${mix[@]}" --neurons "$multi_n" \
      --steps 100
    ;;
  hetero)
    # CPU + GPU under dmdas with the size models calibrated, no where-mask, the default
    # (heterogeneous) cut, against the GPU alone; interleaved and block layouts.
    for layout in ${HETERO_LAYOUTS:-block}; do
      h=(--mode mono --morph synthetic:medium-high --neurons "$mono_n" --layout $layout --block-size 32)
      for pass in 1 2; do
        run hetero "$layout-calibration-$pass" 1 STARPU_SCHED=dmdas -- "${h[@]}" --steps 100 --calibrate
      done
      for rep in $(seq 1 "$reps"); do
        run hetero "$layout-cpu+gpu" "$rep" STARPU_SCHED=dmdas -- "${h[@]}" --steps "$steps"
        run hetero "$layout-gpu-alone" "$rep" STARPU_SCHED=dmdas STARPU_NCPU=0 -- "${h[@]}" --steps "$steps"
        run hetero "$layout-gpu-alone-1-task" "$rep" STARPU_SCHED=dmdas STARPU_NCPU=0 -- "${h[@]}" \
          --steps "$steps" --task-neurons "$mono_n"
      done
      run hetero "$layout-cpu+gpu-pin" 1 STARPU_SCHED=dmdas -- "${h[@]}" --steps "$steps" --pin
    done
    cp "$STARPU_HOME"/.starpu/sampling/hinestask-sizes.* "$out/" 2>/dev/null
    ;;
  traces)
    # A few steps traced: the GPU alone with 16 tasks per step, and CPU + GPU (calibrated above).
    # (file names: letters, digits, '.', '_' and '-' only, so they come back from the GPU machine)
    for what in gpu-16-tasks cpu-gpu; do
      dir=$out/trace-$what
      rm -rf "$dir"
      if [ $what = gpu-16-tasks ]; then
        envs=(STARPU_NCPU=0) args=("${mono[@]}" --task-neurons "$(task_neurons 16)")
      else # the layout the hetero part calibrated
        envs=() args=(--mode mono --morph synthetic:medium-high --neurons "$mono_n" --layout block --block-size 32)
      fi
      env "${envs[@]}" STARPU_SCHED=dmdas timeout 120 "$bin/hinestask" --quiet \
        "${args[@]}" --steps 40 --probe 0:0 --probe 200000:5 --probe-every 0.025 \
        --probes "$dir.probes.csv" --trace "$dir" >>"$log" 2>&1 || echo "trace $what FAILED" | tee -a "$log"
      python3 "$here/trace_report.py" "$dir" | tee "$out/trace-$what-summary.txt"
      tar -C "$out" -czf "$out/trace-$what.tar.gz" "trace-$what/paje.trace" "trace-$what/tasks.rec" \
        "trace-$what/data.rec" "trace-$what-summary.txt" 2>>"$log"
      rm -rf "$dir" "$dir.probes.csv"
    done
    ;;
  extra)
    # Around the defaults: plain launches against early ones in chunk graphs, more workers per
    # GPU for 64 tasks.
    for rep in 1 2; do
      for c in 1 16; do
        run extra "multi-chunks-$c-plain" "$rep" STARPU_NCPU=0 -- --mode multi "${mix[@]}" \
          --neurons "$multi_n" --task-neurons "$(chunk_neurons $c)" --steps 100 --gpu-launch plain
      done
    done
    for sched in eager dmda; do
      run extra tasks-64-streams-32 1 STARPU_NCPU=0 STARPU_SCHED=$sched STARPU_NWORKER_PER_CUDA=32 -- \
        "${mono[@]}" --task-neurons "$(task_neurons 64)" --steps "$steps"
    done
    ;;
  two)
    # Two GPUs: 16 tasks per step over both against one GPU with one task; the multi mix; and a
    # batch size the models have never seen (fresh STARPU_HOME, first run).
    for rep in $(seq 1 "$reps"); do
      run two one-gpu-1-task "$rep" STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_SCHED=dmdas -- "${mono[@]}" \
        --task-neurons "$mono_n" --steps "$steps"
      run two two-gpus-16-tasks "$rep" STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_SCHED=dmdas -- "${mono[@]}" \
        --task-neurons "$(task_neurons 16)" --steps "$steps" --verify
      run two one-gpu-multi-1-chunk "$rep" STARPU_NCPU=0 STARPU_NCUDA=1 -- --mode multi "${mix[@]}" \
        --neurons "$multi_n" --task-neurons "$multi_n" --steps 100
      run two one-gpu-multi-default "$rep" STARPU_NCPU=0 STARPU_NCUDA=1 -- --mode multi "${mix[@]}" \
        --neurons "$multi_n" --steps 100
      run two two-gpus-multi-default "$rep" STARPU_NCPU=0 STARPU_NCUDA=2 -- --mode multi "${mix[@]}" \
        --neurons "$multi_n" --steps 100
      run two one-gpu-multi-16-chunks "$rep" STARPU_NCPU=0 STARPU_NCUDA=1 -- --mode multi "${mix[@]}" \
        --neurons "$multi_n" --task-neurons "$(chunk_neurons 16)" --steps 100
      run two two-gpus-multi-16-chunks "$rep" STARPU_NCPU=0 STARPU_NCUDA=2 -- --mode multi "${mix[@]}" \
        --neurons "$multi_n" --task-neurons "$(chunk_neurons 16)" --steps 100 --verify
    done
    fresh=$out/starpu-home-fresh
    mkdir -p "$fresh"
    run two two-gpus-unseen-200000-first-run 1 STARPU_HOME="$fresh" STARPU_NCPU=0 STARPU_NCUDA=2 -- \
      --mode mono --morph synthetic:medium-high --neurons 200000 --layout interleaved \
      --task-neurons 12500 --steps "$steps"
    run two one-gpu-unseen-200000-1-task 1 STARPU_NCPU=0 STARPU_NCUDA=1 -- \
      --mode mono --morph synthetic:medium-high --neurons 200000 --layout interleaved \
      --task-neurons 200000 --steps "$steps"
    # A few traced steps of 16 tasks over both GPUs.
    dir=$out/trace-two-gpus-16-tasks
    rm -rf "$dir"
    STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_SCHED=dmdas timeout 120 "$bin/hinestask" --quiet "${mono[@]}" \
      --task-neurons "$(task_neurons 16)" --steps 20 --trace "$dir" >>"$log" 2>&1 ||
      echo "trace two GPUs FAILED" | tee -a "$log"
    python3 "$here/trace_report.py" "$dir" | tee "$out/trace-two-gpus-16-tasks-summary.txt"
    tar -C "$out" -czf "$out/trace-two-gpus-16-tasks.tar.gz" trace-two-gpus-16-tasks/paje.trace \
      trace-two-gpus-16-tasks/tasks.rec trace-two-gpus-16-tasks/data.rec \
      trace-two-gpus-16-tasks-summary.txt 2>>"$log"
    rm -rf "$dir"
    ;;
  connections)
    # The CUDA driver's hardware queues per GPU (CUDA_DEVICE_MAX_CONNECTIONS, 8 by the driver's
    # default, 32 by hinestask's): kernels of streams that share a queue run one after another.
    # Both values set explicitly, interleaved; one GPU (STARPU_NCUDA=1) and two where present.
    for rep in $(seq 1 "$reps"); do
      for conn in 8 32; do
        c=(STARPU_NCPU=0 CUDA_DEVICE_MAX_CONNECTIONS=$conn)
        run connections "one-gpu-1-task-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=1 STARPU_SCHED=eager -- \
          "${mono[@]}" --task-neurons "$mono_n" --steps "$steps"
        for sched in eager lws dmda dmdas; do
          run connections "one-gpu-64-tasks-$sched-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=1 \
            STARPU_SCHED=$sched -- "${mono[@]}" --task-neurons "$(task_neurons 64)" --steps "$steps"
        done
        run connections "one-gpu-64-tasks-k8-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=1 -- "${mono[@]}" \
          --task-neurons "$(task_neurons 64)" --steps "$steps" --task-steps 8
        for ch in 1 16; do
          run connections "one-gpu-multi-$ch-chunks-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=1 -- \
            --mode multi "${mix[@]}" --neurons "$multi_n" --task-neurons "$(chunk_neurons $ch)" --steps 100
        done
        if [ "$gpus" -ge 2 ]; then
          run connections "two-gpus-16-tasks-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=2 -- "${mono[@]}" \
            --task-neurons "$(task_neurons 16)" --steps "$steps"
          run connections "two-gpus-multi-default-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=2 -- \
            --mode multi "${mix[@]}" --neurons "$multi_n" --steps 100
          run connections "two-gpus-multi-16-chunks-c$conn" "$rep" "${c[@]}" STARPU_NCUDA=2 -- \
            --mode multi "${mix[@]}" --neurons "$multi_n" --task-neurons "$(chunk_neurons 16)" --steps 100
        fi
      done
    done
    ;;
  unseen)
    # Batch sizes the size models have never seen, first run against second run, two GPUs:
    # issue 15's case (512,000 neurons, default cut, after the 256,000 runs of this STARPU_HOME)
    # and a fresh STARPU_HOME (200,000 neurons, 16 tasks).
    for n in 512000; do
      u=(--mode mono --morph synthetic:medium-high --neurons $n --layout interleaved --steps "$steps")
      run unseen "two-gpus-$n-default-first-run" 1 STARPU_NCPU=0 STARPU_NCUDA=2 -- "${u[@]}"
      run unseen "two-gpus-$n-default-second-run" 1 STARPU_NCPU=0 STARPU_NCUDA=2 -- "${u[@]}"
      run unseen "one-gpu-$n-1-task" 1 STARPU_NCPU=0 STARPU_NCUDA=1 -- "${u[@]}" --task-neurons $n
    done
    fresh=$out/starpu-home-unseen
    rm -rf "$fresh" && mkdir -p "$fresh"
    u=(--mode mono --morph synthetic:medium-high --neurons 200000 --layout interleaved --steps "$steps")
    for r in first second; do
      run unseen "two-gpus-200000-16-tasks-fresh-$r-run" 1 STARPU_HOME="$fresh" STARPU_NCPU=0 \
        STARPU_NCUDA=2 -- "${u[@]}" --task-neurons 12500
    done
    run unseen "two-gpus-200000-default-cut" 1 STARPU_HOME="$fresh" STARPU_NCPU=0 STARPU_NCUDA=2 -- "${u[@]}"
    run unseen "one-gpu-200000-1-task" 1 STARPU_HOME="$fresh" STARPU_NCPU=0 STARPU_NCUDA=1 -- \
      "${u[@]}" --task-neurons 200000
    # The first run traced, in another fresh STARPU_HOME: where its tasks ran, step by step, and
    # whether chunks moved between the GPUs while the models learned.
    traced=$out/starpu-home-unseen-traced dir=$out/trace-unseen-first-run
    rm -rf "$traced" "$dir" && mkdir -p "$traced"
    STARPU_HOME="$traced" STARPU_NCPU=0 STARPU_NCUDA=2 timeout 120 "$bin/hinestask" --quiet \
      --mode mono --morph synthetic:medium-high --neurons 200000 --layout interleaved \
      --task-neurons 12500 --steps 40 --trace "$dir" >>"$log" 2>&1 || echo "trace unseen FAILED" | tee -a "$log"
    python3 "$here/trace_report.py" "$dir" | tee "$out/trace-unseen-first-run-summary.txt"
    rm -rf "$dir" "$traced"
    ;;
  twodiag)
    # What limits 16 tasks per step over two GPUs (1.59x one GPU's one task, against 1.95x for
    # one task per GPU): the cut, the scheduler, streams, driver threads, the window; and 64
    # tasks on one GPU with a driver thread per stream. One repetition each, one session.
    run twodiag one-gpu-1-task 1 STARPU_NCPU=0 STARPU_NCUDA=1 -- "${mono[@]}" \
      --task-neurons "$mono_n" --steps "$steps"
    for t in 2 4 8 16 32; do
      run twodiag "two-gpus-$t-tasks" 1 STARPU_NCPU=0 STARPU_NCUDA=2 -- "${mono[@]}" \
        --task-neurons "$(task_neurons $t)" --steps "$steps"
    done
    for sched in eager lws dmda; do
      run twodiag "two-gpus-16-tasks-$sched" 1 STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_SCHED=$sched -- \
        "${mono[@]}" --task-neurons "$(task_neurons 16)" --steps "$steps"
    done
    for w in 4 8; do
      run twodiag "two-gpus-16-tasks-streams-$w" 1 STARPU_NCPU=0 STARPU_NCUDA=2 \
        STARPU_NWORKER_PER_CUDA=$w -- "${mono[@]}" --task-neurons "$(task_neurons 16)" --steps "$steps"
    done
    run twodiag two-gpus-16-tasks-thread-per-stream 1 STARPU_NCPU=0 STARPU_NCUDA=2 \
      STARPU_NWORKER_PER_CUDA=8 STARPU_CUDA_THREAD_PER_WORKER=1 -- "${mono[@]}" \
      --task-neurons "$(task_neurons 16)" --steps "$steps"
    for w in 2 12; do
      run twodiag "two-gpus-16-tasks-window-$w" 1 STARPU_NCPU=0 STARPU_NCUDA=2 -- "${mono[@]}" \
        --task-neurons "$(task_neurons 16)" --steps "$steps" --window $w
    done
    for sched in eager lws dmda dmdas; do
      run twodiag "one-gpu-64-tasks-$sched" 1 STARPU_NCPU=0 STARPU_NCUDA=1 STARPU_SCHED=$sched -- \
        "${mono[@]}" --task-neurons "$(task_neurons 64)" --steps "$steps"
      run twodiag "one-gpu-64-tasks-$sched-thread-per-stream" 1 STARPU_NCPU=0 STARPU_NCUDA=1 \
        STARPU_SCHED=$sched STARPU_NWORKER_PER_CUDA=8 STARPU_CUDA_THREAD_PER_WORKER=1 -- \
        "${mono[@]}" --task-neurons "$(task_neurons 64)" --steps "$steps"
    done
    run twodiag one-gpu-multi-1-chunk 1 STARPU_NCPU=0 STARPU_NCUDA=1 -- --mode multi "${mix[@]}" \
      --neurons "$multi_n" --task-neurons "$multi_n" --steps 100
    for c in 2 4 8; do
      run twodiag "two-gpus-multi-$c-chunks" 1 STARPU_NCPU=0 STARPU_NCUDA=2 -- --mode multi \
        "${mix[@]}" --neurons "$multi_n" --task-neurons "$(chunk_neurons $c)" --steps 100
    done
    run twodiag two-gpus-multi-2-chunks-thread-per-stream 1 STARPU_NCPU=0 STARPU_NCUDA=2 \
      STARPU_NWORKER_PER_CUDA=4 STARPU_CUDA_THREAD_PER_WORKER=1 -- --mode multi "${mix[@]}" \
      --neurons "$multi_n" --task-neurons "$(chunk_neurons 2)" --steps 100
    # StarPU's own counts: transfers between memory nodes, tasks per worker.
    STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_BUS_STATS=1 STARPU_WORKER_STATS=1 STARPU_SILENT=0 \
      timeout 120 "$bin/hinestask" --quiet "${mono[@]}" --task-neurons "$(task_neurons 16)" \
      --steps "$steps" >"$out/two-gpus-16-tasks-starpu-stats.txt" 2>&1
    ;;
  *)
    echo "unknown part $part" >&2
    ;;
  esac
done
echo "== done ($((SECONDS - started)) s)"
python3 "$here/bench/sched_summary.py" "$csv" | tee "$out/bench_sched_summary.txt"
