#!/usr/bin/env bash
# Two builds of hinestask side by side on CPU workers alone, at the shapes of the cores' share
# beside a GPU (chunks of a few neurons, --task-neurons) and at hinestask's defaults: random
# trees and real-cell mixes, passive and with HH on the somas or everywhere. Each case runs once
# with each build in turn, REPEATS rounds, so that drift hits both alike; one CSV row per run
# (date, build, commit, host, cpu, cores, CPU workers, case, repeat, ms a step, G
# compartment-steps/s), then per case the medians, the ratio of the medians and the range of
# the per-round ratios. BENCHMARKS.md, "A subtree's sweep on CPU workers".
# Usage: scripts/bench/cpu_chunks.sh OLD_HINESTASK NEW_HINESTASK OUT.csv [REPEATS (default 5)]
# Environment: NCPU (CPU workers of the chunk cases, default 1: one core's rate, as each of the
#   share's cores), SHARED_MORPHOLOGIES (default ../shared/morphologies: the real-cell mixes A,
#   C, D, E, large are skipped where it is missing), CASES (names below, default all), STEPS
#   (default 1000; HH cases a third).
set -uo pipefail
old=${1:?OLD_HINESTASK}
new=${2:?NEW_HINESTASK}
csv=${3:?OUT.csv}
repeats=${4:-5}
here=$(cd "$(dirname "$0")/../.." && pwd)
shared=${SHARED_MORPHOLOGIES:-$here/../shared/morphologies}
export STARPU_SILENT=1 STARPU_NCUDA=0
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//;s/,//g')
host=$(hostname)
cores=$(nproc)
steps=${STEPS:-1000}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
random=() r2=() six=()
for r in 1 2 3 4; do random+=(--morph synthetic:random:100:8000:$r); done
for r in 5 6 7 8; do r2+=(--morph synthetic:random:100:8000:$r); done
for f in "$here"/morph/data/*.swc; do six+=(--morph "$f"); done
mix_of() { local f; for f in "$@"; do [ -f "$shared/$f.swc" ] && printf -- '--morph\n%s\n' "$shared/$f.swc"; done; }
mapfile -t large < <(mix_of 041018-zA.CNG C220498B-I4.CNG pyramidal ri05.CNG test_swc)
mapfile -t mixA < <(mix_of 041018-zA.CNG ri05.CNG morph_allen_485574832)
mapfile -t mixD < <(mix_of 041018-zA.CNG test_swc c91662 HSN-fluoro02.CNG)
mapfile -t mixE < <(mix_of ri05.CNG pyramidal morph_allen_485574832 v_e_purk2.CNG tc200.CNG)
mixC=("${large[@]}" "${six[@]}")
echo "date,build,commit,host,cpu,cores,cpu_workers,case,rep,ms_per_step,G_per_s" >"$csv"
# the cases: NAME MIX NEURONS TASK_NEURONS (0: the default chunks, every core) HH
cases=(
  "random-12-tn1 random 12 1 none" "random-12-tn3 random 12 3 none" "random-44-tn11 random 44 11 none"
  "random-96-tn24 random 96 24 none" "R2-12-tn3 r2 12 3 none" "six-60-tn15 six 60 15 none"
  "random-24-tn6 random 24 6 none" "random-64-tn16 random 64 16 none" "random-256-tn64 random 256 64 none"
  "R2-64-tn16 r2 64 16 none" "six-240-tn60 six 240 60 none"
  "random-12-tn3-soma random 12 3 soma" "random-44-tn11-soma random 44 11 soma"
  "random-12-tn3-hh random 12 3 all" "random-44-tn11-hh random 44 11 all" "six-60-tn15-hh six 60 15 all"
  "E-24-tn6 E 24 6 none" "C-16-tn4 C 16 4 none" "A-36-tn9 A 36 9 none" "D-24-tn6 D 24 6 none"
  "large-20-tn5 large 20 5 none" "E-24-tn6-soma E 24 6 soma" "D-24-tn6-hh D 24 6 all"
  "random-800-default random 800 0 none" "R2-800-default r2 800 0 none" "six-1200-default six 1200 0 none"
  "C-300-default C 300 0 none" "random-400-default-hh random 400 0 all")
run_case() {
  local name=$1 mix=$2 neurons=$3 tn=$4 hh=$5 rep=$6 build bin ncpu=${NCPU:-1} n=$steps m=()
  case $mix in
  random) m=("${random[@]}") ;; r2) m=("${r2[@]}") ;; six) m=("${six[@]}") ;; C) m=("${mixC[@]}") ;;
  large) m=("${large[@]}") ;; A) m=("${mixA[@]}") ;; D) m=("${mixD[@]}") ;; E) m=("${mixE[@]}") ;;
  esac
  case $mix in large | A | C | D | E) [ ${#m[@]} -ge 6 ] || return 0 ;; esac # no shared cells
  local chunks=(--task-neurons "$tn")
  [ "$tn" = 0 ] && chunks=() ncpu=$cores n=$((steps / 10))
  [ "$hh" = none ] || n=$((n / 3))
  for build in old new; do
    bin=$old
    [ $build = new ] && bin=$new
    if ! STARPU_NCPU=$ncpu "$bin" --quiet --force --mode multi "${m[@]}" --neurons "$neurons" \
      "${chunks[@]}" --hh "$hh" --steps "$n" --json "$json" >/dev/null 2>&1; then
      echo "FAILED $name $build" >&2
      continue
    fi
    python3 - "$json" "$(date -u +%FT%TZ),$build" "$host,$cpu,$cores" "$name" "$rep" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print("%s,%s,%s,%d,%s,%s,%.4f,%.4f" % (sys.argv[2], j["commit"], sys.argv[3], j["cpu_workers"],
      sys.argv[4], sys.argv[5], j["seconds_per_step"] * 1e3, j["compartment_solves_per_s"] / 1e9))
PY
  done
}
for rep in $(seq 1 "$repeats"); do
  for c in "${cases[@]}"; do
    read -r name mix neurons tn hh <<<"$c"
    [ -n "${CASES:-}" ] && [[ " $CASES " != *" $name "* ]] && continue
    run_case "$name" "$mix" "$neurons" "$tn" "$hh" "$rep"
  done
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = {}
for r in rows:
    cases.setdefault(r["case"], {}).setdefault(r["rep"], {})[r["build"]] = float(r["ms_per_step"])
print("case,cpu_workers,old_ms,new_ms,speedup,round_min,round_max")
workers = {r["case"]: r["cpu_workers"] for r in rows}
for name, reps in cases.items():
    o = statistics.median(v["old"] for v in reps.values() if "old" in v)
    n = statistics.median(v["new"] for v in reps.values() if "new" in v)
    ratios = [v["old"] / v["new"] for v in reps.values() if "old" in v and "new" in v]
    print("%s,%s,%.4f,%.4f,%.3f,%.3f,%.3f" % (name, workers[name], o, n, o / n, min(ratios), max(ratios)))
PY
