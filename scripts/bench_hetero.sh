#!/usr/bin/env bash
# CPU + GPU together under calibrated dmda against the GPU alone (256,000 medium-high neurons,
# data resident), and a small traced run with both kinds of workers for traces/.
# Usage: scripts/bench_hetero.sh BIN_DIR OUT_DIR
set -euo pipefail
bin=${1:?BIN_DIR}
out=${2:?OUT_DIR}
export STARPU_SILENT=1
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
csv=$out/bench_hetero.csv
echo "case,scheduler,cpu_workers,cuda_workers,task_neurons,tasks_per_step,seconds_per_step,compartment_solves_per_s" >"$csv"
common=(--quiet --force --mode mono --morph synthetic:medium-high --neurons 256000 --layout block --block-size 32)
row() { # case json
  python3 - "$1" "$2" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[2]))
print(",".join(str(x) for x in [sys.argv[1], j["scheduler"], j["cpu_workers"], j["cuda_workers"],
      j.get("task_neurons", ""), j["tasks_per_step"], j["seconds_per_step"],
      j["compartment_solves_per_s"]]))
PY
  tail -n 1 "$csv"
}
j=$(mktemp)
if [ "${HINES_HETERO_ONLY_STREAMS:-0}" != 1 ]; then
STARPU_NCPU=0 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 200 --json "$j" && row gpu-only-1-task "$j"
for chunks in 8000 32000; do
  # calibrate the history models of this chunk shape on both kinds of workers, then measure
  STARPU_CALIBRATE=1 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 60 --task-neurons "$chunks" --json "$j" >/dev/null
  STARPU_CALIBRATE=1 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 60 --task-neurons "$chunks" --json "$j" >/dev/null
  STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 200 --task-neurons "$chunks" --json "$j" && row "cpu+gpu-dmda-$chunks" "$j"
  STARPU_NCPU=0 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 200 --task-neurons "$chunks" --json "$j" && row "gpu-only-$chunks" "$j"
done
STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 200 --json "$j" && row cpu+gpu-dmda-default "$j"
# Several streams per GPU (StarPU workers sharing one device) let small chunks run concurrently.
for streams in 2 4; do
  STARPU_NWORKER_PER_CUDA=$streams STARPU_NCPU=0 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" \
    --steps 200 --task-neurons 32000 --json "$j" && row "gpu-only-32000-$streams-streams" "$j"
done
fi
# CPU workers beside a GPU driven through 4 streams, models calibrated for this chunk shape.
for pass in 1 2; do
  STARPU_CALIBRATE=1 STARPU_NWORKER_PER_CUDA=4 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" \
    --steps 60 --task-neurons 32000 --json "$j" >/dev/null
done
STARPU_NWORKER_PER_CUDA=4 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" --steps 200 \
  --task-neurons 32000 --json "$j" && row "cpu+gpu-dmda-32000-4-streams" "$j"
STARPU_NWORKER_PER_CUDA=4 STARPU_NCPU=0 STARPU_SCHED=dmda "$bin/hinestask" "${common[@]}" \
  --steps 200 --task-neurons 32000 --json "$j" && row "gpu-only-32000-4-streams-again" "$j"
[ "${HINES_HETERO_ONLY_STREAMS:-0}" = 1 ] && exit 0
# reference trace: CPU + CUDA workers, dmda with the models calibrated above, a few steps
STARPU_SCHED=dmda "$bin/hinestask" --quiet --mode mono --morph synthetic:medium-high --neurons 256000 \
  --layout block --block-size 32 --task-neurons 32000 --steps 6 --trace "$out/trace-dmda" &&
  tar -C "$out" -czf "$out/trace-dmda.tar.gz" trace-dmda/paje.trace trace-dmda/tasks.rec \
    trace-dmda/data.rec trace-dmda/dag.dot && rm -rf "$out/trace-dmda"
rm -f "$j"
