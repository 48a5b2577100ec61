#!/usr/bin/env bash
# Issue 20's GPU measurement: one batch over two ranks with one GPU each (mpirun -np 2, StarPU-MPI)
# against one rank with one GPU, and one rank with both GPUs for reference. The issue asks for
# 2 ranks x 1 GPU >= 1.9x 1 rank x 1 GPU. Batches: mono 256,000 x medium-high and the six cells
# of morph/data (multi, 33,390 neurons). Every run writes its JSON summary; one CSV row per run,
# then the medians and the speedups are printed (and appended to OUT.csv.summary).
# Usage: scripts/bench_mpi.sh BIN_DIR OUT.csv
# Environment: REPS (3), STEPS (500), MONO_NEURONS (256000), MULTI_NEURONS (33390), DATA (SWC
# folder), COMMIT, MPIRUN_FLAGS (extra mpirun options), CASES ("1x1 2x1 1x2"; also 2x1wrap: each
# rank shown one GPU by a CUDA_VISIBLE_DEVICES wrapper instead of hinestask's own node sharing,
# and 2x1one: one task per rank), BATCHES ("mono multi": which batches), TASK_STEPS (tasks
# of K steps), BENCH_NCPU (CPU
# workers per rank, default 0: GPUs only; 1 checks the script on a machine without GPU).
set -uo pipefail
bin=$(readlink -f "${1:?BIN_DIR}")
csv=$(readlink -f "${2:?OUT.csv}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
reps=${REPS:-3}
ncpu=${BENCH_NCPU:-0}
steps=${STEPS:-500}
mono_n=${MONO_NEURONS:-256000}
multi_n=${MULTI_NEURONS:-33390}
data=${DATA:-$here/../morph/data}
read -r -a cases <<<"${CASES:-1x1 2x1 1x2}"
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_mpi.XXXXXX")
trap 'rm -rf "$work"' EXIT
export STARPU_HOME=${STARPU_HOME:-$work/starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
command -v mpirun >/dev/null || { echo "bench_mpi.sh: mpirun not found" >&2; exit 2; }
mpirun_flags=(--oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)
read -r -a extra <<<"${MPIRUN_FLAGS:-}"
machine=$(hostname)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || echo none)
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
commit=${COMMIT:-$(git -C "$here/.." rev-parse --short HEAD 2>/dev/null || echo unknown)}
# One GPU per rank: each rank sees only the GPU of its local rank (a node's ranks share it out).
cat >"$work/one_gpu_per_rank.sh" <<'SH'
#!/bin/sh
local_rank=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}
export CUDA_VISIBLE_DEVICES=$local_rank
exec "$@"
SH
chmod +x "$work/one_gpu_per_rank.sh"
mix=()
for f in "$data"/*.swc; do mix+=(--morph "$f"); done
mono=(--mode mono --morph synthetic:medium-high --neurons "$mono_n")
multi=(--mode multi "${mix[@]}" --neurons "$multi_n")
# TASK_STEPS=K: the runs with tasks of K steps (--task-steps), every case alike.
[ -n "${TASK_STEPS:-}" ] && mono+=(--task-steps "$TASK_STEPS") && multi+=(--task-steps "$TASK_STEPS")
[ -f "$csv" ] || echo "machine,gpu,date,commit,batch,case,ranks,gpus_per_rank,rep,seconds_per_step,compartment_solves_per_s,rank_seconds_per_step,max_rel_error,rank_placement" >"$csv"

# run BATCH CASE REP ARGS...
run() {
  local batch=$1 case=$2 rep=$3
  shift 3
  local json="$work/$batch-$case-$rep.json" log="$work/$batch-$case-$rep.log"
  rm -f "$json"
  case $case in
  1x1) CUDA_VISIBLE_DEVICES=0 STARPU_NCPU=$ncpu "$bin/hinestask" "$@" --json "$json" >"$log" 2>&1 ;;
  1x2) CUDA_VISIBLE_DEVICES=0,1 STARPU_NCPU=$ncpu "$bin/hinestask" "$@" --json "$json" >"$log" 2>&1 ;;
  2x1 | 2x1one) # hinestask gives each rank of the node its GPU and cores (runtime/cluster.h)
    mpirun "${mpirun_flags[@]}" "${extra[@]}" -np 2 -x STARPU_NCPU=$ncpu -x STARPU_HOME \
      -x STARPU_SILENT "$bin/hinestask" "$@" --json "$json" >"$log" 2>&1 ;;
  2x1wrap)
    mpirun "${mpirun_flags[@]}" "${extra[@]}" -np 2 -x STARPU_NCPU=$ncpu -x STARPU_HOME \
      -x STARPU_SILENT "$work/one_gpu_per_rank.sh" "$bin/hinestask" "$@" --json "$json" \
      >"$log" 2>&1 ;;
  esac
  local status=$?
  if [ $status -ne 0 ] || [ ! -s "$json" ]; then
    echo "bench_mpi.sh: $batch $case rep $rep failed ($status); log:" >&2
    tail -n 20 "$log" >&2
    return
  fi
  python3 - "$json" "$machine" "$gpu" "$stamp" "$commit" "$batch" "$case" "$rep" >>"$csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
machine, gpu, stamp, commit, batch, case, rep = sys.argv[2:9]
ranks, per = case.split("x")
shares = d.get("rank_shares", [])
each = " ".join("%.6g" % s["seconds_per_step"] for s in shares)
ranks = ranks.rstrip("abcdefghijklmnopqrstuvwxyz")
per = per.rstrip("abcdefghijklmnopqrstuvwxyz")
# Where each rank ran: its GPU (StarPU's name, with the PCI bus), the CPU of the GPU's driver
# thread and the cores hinestask gave it.
placement = " | ".join("%s cpu %s cores %s-%s" % (s.get("gpu", "-"), s.get("gpu_driver_cpu", "-"),
                                                 s.get("first_core", "-"), s.get("last_core", "-"))
                       for s in shares)
print(",".join([machine, '"%s"' % gpu, stamp, commit, batch, case, ranks, per, rep,
                "%.6g" % d["seconds_per_step"], "%.6g" % d["compartment_solves_per_s"], each,
                str(d.get("max_rel_error")), '"%s"' % placement.replace('"', "'")]))
PY
  echo "$batch $case rep $rep: $(tail -n 1 "$csv" | cut -d, -f10) s per step"
}

for batch in ${BATCHES:-mono multi}; do
  if [ $batch = mono ]; then args=("${mono[@]}"); else args=("${multi[@]}"); fi
  for case in "${cases[@]}"; do
    # --verify once per case (first repetition): bitwise-equal ranks still get checked on the GPU.
    for rep in $(seq 1 "$reps"); do
      verify=()
      [ "$rep" = 1 ] && verify=(--verify)
      one=()
      [ "$case" = 2x1one ] && [ $batch = mono ] && one=(--task-neurons $(((mono_n + 1) / 2)))
      [ "$case" = 2x1one ] && [ $batch = multi ] && one=(--task-neurons $(((multi_n + 1) / 2)))
      run $batch "$case" "$rep" "${args[@]}" --steps "$steps" --quiet "${verify[@]}" "${one[@]}"
    done
  done
done

python3 - "$csv" "$stamp" <<'PY' | tee -a "$csv.summary"
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["date"] == sys.argv[2]]
med = {}
for r in rows:
    med.setdefault((r["batch"], r["case"]), []).append(float(r["seconds_per_step"]))
print("bench_mpi %s: median seconds per step (runs), speedup over 1 rank x 1 GPU" % sys.argv[2])
for (batch, case), values in sorted(med.items()):
    m = statistics.median(values)
    base = med.get((batch, "1x1"))
    speed = statistics.median(base) / m if base else float("nan")
    print("  %-5s %-4s %.4f ms (%d)  x%.2f%s" % (batch, case, 1e3 * m, len(values), speed,
          "  (issue 20 asks >= 1.9)" if case.startswith("2x1") else ""))
PY
