#!/usr/bin/env bash
# Mono layouts on CPU workers only: Block-Interleaved (BS 32) against Full-Interleaved, every
# synthetic class at a few batch sizes, passive and HH, REPEATS runs each alternating the two
# layouts; one CSV row per run (machine, date, commit), then the medians and the ratio per case.
# What simulation_choose_layout's default on CPU workers rests on (BENCHMARKS.md, "The block
# layout on CPU workers").
# Usage: scripts/bench/cpu_layouts.sh HINESTASK OUT.csv [REPEATS (default 3)]
set -uo pipefail
bin=${1:?HINESTASK}
csv=${2:?OUT.csv}
repeats=${3:-3}
export STARPU_SILENT=1 STARPU_NCUDA=0
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
cores=$(nproc)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//;s/,//g')
host=$(hostname)
commit=${HINESTASK_COMMIT:-$(git -C "$(dirname "$0")/../.." rev-parse --short HEAD 2>/dev/null || echo unknown)}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
echo "date,commit,host,cpu,cores,cpu_workers,morph,hh,neurons,steps,layout,rep,ms_per_step,tasks_per_step" >"$csv"
# class neurons steps hh
cases=("small-low 2560 200 none" "small-high 51200 40 none" "medium-high 256 200 none"
  "medium-high 2560 100 none" "medium-high 64000 20 none" "big-low 8000 40 all"
  "big-high 2560 40 none" "medium-high 2560 60 all")
for rep in $(seq 1 "$repeats"); do
  for c in "${cases[@]}"; do
    read -r morph neurons steps hh <<<"$c"
    for layout in interleaved block; do
      if ! "$bin" --mode mono --morph "synthetic:$morph" --neurons "$neurons" --layout "$layout" \
        --steps "$steps" --hh "$hh" --quiet --force --json "$json" >/dev/null 2>&1; then
        echo "FAILED $c $layout" >&2
        continue
      fi
      python3 - "$json" "$(date -u +%FT%TZ),$commit,$host,$cpu,$cores" "$morph,$hh,$neurons,$steps,$layout,$rep" >>"$csv" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
print("%s,%d,%s,%.4f,%d" % (sys.argv[2], j["cpu_workers"], sys.argv[3],
                            j["seconds_per_step"] * 1e3, j["tasks_per_step"]))
EOF
    done
  done
done
python3 - "$csv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = {}
for r in rows:
    cases.setdefault((r["morph"], r["hh"], r["neurons"]), {}).setdefault(r["layout"], []).append(
        float(r["ms_per_step"]))
print("morph,hh,neurons,interleaved_ms,block_ms,block_speedup")
for (m, hh, n), v in cases.items():
    i, b = statistics.median(v.get("interleaved", [0])), statistics.median(v.get("block", [0]))
    print("%s,%s,%s,%.3f,%.3f,%.2f" % (m, hh, n, i, b, i / b if b else 0))
EOF
