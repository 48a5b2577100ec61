#!/usr/bin/env bash
# Hodgkin-Huxley everywhere on the CPU: the gates' rates from the tables (--hh-rates table)
# against exact rates, with the passive membrane for scale, in nanoseconds per compartment-step:
#   kernel  the mono CPU step kernel alone (hines_bench cpu-step-*: 1,024 medium-high neurons,
#           groups of 32, the median step's thread CPU time)
#   mono    hinestask --mode mono, 2,000 medium-high neurons, one CPU worker
#   multi   hinestask --mode multi, two shipped cells and medium-high, 300 neurons, one CPU worker
# Everything on one core (taskset), the runs of a repeat back to back and the repeats
# alternating, so that a busy machine slows every kind alike; BENCHMARKS.md quotes the medians.
# The GPU side of the comparison is scripts/gpu_run.sh bench-rates.
# Usage: scripts/bench_rates.sh BIN_DIR OUT.csv [REPEATS [CORE]]   (BIN_DIR: hinestask, hines_bench)
set -euo pipefail
bin=${1:?BIN_DIR}
hinestask=$bin/hinestask
csv=${2:?OUT.csv}
repeats=${3:-5}
core=${4:-0}
data=$(cd "$(dirname "$0")/.." && pwd)/morph/data
export STARPU_SILENT=1 STARPU_NCPU=1 STARPU_NCUDA=0
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
commit=$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "date,commit,cpu,load_1min,batch,channels,repeat,neurons,steps,seconds_per_step,ns_per_compartment_step" >"$csv"
mono=(--mode mono --morph synthetic:medium-high --neurons 2000 --steps 200)
multi=(--mode multi --morph "$data/c91662.swc" --morph "$data/pyramidal.swc" --morph synthetic:medium-high
       --neurons 300 --steps 100)
for repeat in $(seq 1 "$repeats"); do
  for channels in passive exact table; do
    taskset -c "$core" "$bin/hines_bench" "cpu-step-$channels" synthetic:medium-high 1024 40 \
      interleaved | awk -F, -v d="$(date -u +%Y-%m-%dT%H:%MZ)" -v c="$commit" -v cpu="$cpu" \
      -v l="$(cut -d' ' -f1 /proc/loadavg)" -v ch="$channels" -v r="$repeat" \
      '{printf "%s,%s,\"%s\",%s,kernel,%s,%s,%d,%d,%.6g,%.3f\n", d, c, cpu, l, ch, r, $4, $6, $7, 1e9 / $8}' \
      >>"$csv"
    tail -n 1 "$csv"
  done
  for batch in mono multi; do
    for channels in passive exact table; do
      case $channels in
      passive) hh=(--hh none) ;;
      *) hh=(--hh all --hh-rates "$channels") ;;
      esac
      if [ "$batch" = mono ]; then args=("${mono[@]}"); else args=("${multi[@]}"); fi
      taskset -c "$core" "$hinestask" --quiet "${args[@]}" "${hh[@]}" --force --json "$json"
      python3 - "$json" "$(date -u +%Y-%m-%dT%H:%MZ)" "$commit" "$cpu" "$(cut -d' ' -f1 /proc/loadavg)" \
        "$batch" "$channels" "$repeat" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print('%s,%s,"%s",%s,%s,%s,%s,%d,%d,%.6g,%.3f' % (
    sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7], sys.argv[8],
    j["neurons"], j["steps"], j["seconds_per_step"], 1e9 / j["compartment_solves_per_s"]))
PY
      tail -n 1 "$csv"
    done
  done
done
