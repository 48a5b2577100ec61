#!/usr/bin/env bash
# The multi-morphology level sweeps and the branch kernel on CPU workers only, two builds side by
# side (before and after the row sweeps of codelets/level_rows_cpu.h and branch_rows_cpu.h,
# say): mixes of real and synthetic cells, passive and HH, the default level kernel (auto) and
# the level kernels or the branch kernel forced; REPEATS rounds,
# the two builds alternating within each; one CSV row per run (machine, date, commit of each
# build), then the medians and the ratio per case. BENCHMARKS.md, "Level sweeps row by row on
# CPU workers".
# Usage: scripts/bench/cpu_levels.sh OLD_HINESTASK NEW_HINESTASK OUT.csv [REPEATS (default 3)]
set -uo pipefail
old=${1:?OLD_HINESTASK}
new=${2:?NEW_HINESTASK}
csv=${3:?OUT.csv}
repeats=${4:-3}
here=$(cd "$(dirname "$0")/../.." && pwd)
export STARPU_SILENT=1 STARPU_NCUDA=0
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
cores=$(nproc)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//;s/,//g')
host=$(hostname)
json=$(mktemp)
trap 'rm -f "$json"' EXIT
six=()
for f in "$here"/morph/data/*.swc; do six+=(--morph "$f"); done
ca1=(--morph "$here/morph/data/morph_ca1_n120.swc")
random=(--morph synthetic:random:100:8000:1 --morph synthetic:random:100:8000:2)
deep=(--morph synthetic:tree:4000:9 --morph synthetic:tree:2000:5)
echo "date,build,commit,host,cpu,cores,cpu_workers,case,level_kernel,rep,ms_per_step,G_per_s" >"$csv"
# case name, then its options
run_case() {
  local name=$1 rep=$2 build bin
  shift 2
  for build in old new; do
    bin=$old
    [ $build = new ] && bin=$new
    if ! "$bin" --quiet --force --mode multi "$@" --json "$json" >/dev/null 2>&1; then
      echo "FAILED $name $build" >&2
      continue
    fi
    python3 - "$json" "$(date -u +%FT%TZ),$build" "$host,$cpu,$cores" "$name" "$rep" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%s,%s,%s,%d,%s,%s,%s,%.4f,%.4f" % (sys.argv[2], j["commit"], sys.argv[3], j["cpu_workers"],
      sys.argv[4], j["level_kernel"], sys.argv[5], j["seconds_per_step"] * 1e3,
      j["compartment_solves_per_s"] / 1e9))
PY
  done
}
for rep in $(seq 1 "$repeats"); do
  run_case six-3000 "$rep" "${six[@]}" --neurons 3000 --steps 30 --hh none
  run_case six-3000-hh "$rep" "${six[@]}" --neurons 3000 --steps 10 --hh all
  run_case six-600-levels "$rep" "${six[@]}" --neurons 600 --steps 40 --hh none --level-kernel levels
  run_case six-600-auto "$rep" "${six[@]}" --neurons 600 --steps 40 --hh none
  run_case ca1-300-levels "$rep" "${ca1[@]}" --neurons 300 --steps 40 --hh none --level-kernel levels
  run_case ca1-300-hh "$rep" "${ca1[@]}" --neurons 300 --steps 20 --hh all
  run_case random-200-levels "$rep" "${random[@]}" --neurons 200 --steps 40 --hh none --level-kernel levels
  run_case deep-200-levels "$rep" "${deep[@]}" --neurons 200 --steps 40 --hh none --level-kernel levels
  run_case ca1-300-auto "$rep" "${ca1[@]}" --neurons 300 --steps 40 --hh none
  run_case random-200-branches "$rep" "${random[@]}" --neurons 200 --steps 40 --hh none --level-kernel branches
  run_case deep-200-branches "$rep" "${deep[@]}" --neurons 200 --steps 40 --hh none --level-kernel branches
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = {}
for r in rows:
    c = cases.setdefault(r["case"], {"kernel": r["level_kernel"]})
    c.setdefault(r["build"], []).append(float(r["ms_per_step"]))
    c.setdefault(r["build"] + "_g", []).append(float(r["G_per_s"]))
print("case,level_kernel,old_ms,new_ms,old_G_per_s,new_G_per_s,speedup")
for name, v in cases.items():
    o, n = statistics.median(v.get("old", [0])), statistics.median(v.get("new", [0]))
    print("%s,%s,%.3f,%.3f,%.3f,%.3f,%.2f" % (name, v["kernel"], o, n,
          statistics.median(v.get("old_g", [0])), statistics.median(v.get("new_g", [0])),
          o / n if n else 0))
PY
