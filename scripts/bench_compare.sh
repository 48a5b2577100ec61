#!/usr/bin/env bash
# Two builds of hinestask measured in one run on one GPU, for a before/after check: mono 256,000
# medium-high (interleaved) and the real-SWC multi mix (the six cells of morph/data, 33,390
# neurons), each repeated, the two builds alternating so that drift hits both alike. One CSV row
# per run; the medians and the ratio go to stdout.
# Usage: scripts/bench_compare.sh BEFORE_BIN_DIR AFTER_BIN_DIR OUT.csv [REPEATS]
#   *_BIN_DIR: a bin/ folder with hinestask (a gpu_bundle.sh bundle's bin/, or a build folder);
#   each bundle's ../lib goes on LD_LIBRARY_PATH for its own runs. Labels: the folders' names,
#   or BEFORE_LABEL / AFTER_LABEL (e.g. commits).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BEFORE_BIN_DIR AFTER_BIN_DIR OUT.csv [REPEATS]" >&2; exit 2; }
before=$(cd "$1" && pwd) after=$(cd "$2" && pwd) csv=$3 repeats=${4:-3}
data=$(cd "$(dirname "$0")/../morph/data" && pwd)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo unknown)
before_label=${BEFORE_LABEL:-$(basename "$(dirname "$before")")}
after_label=${AFTER_LABEL:-$(basename "$(dirname "$after")")}
mix=()
for f in "$data"/*.swc; do mix+=(--morph "$f"); done
echo "date,gpu,build,case,repeat,neurons,compartments,steps,seconds_per_step,compartment_solves_per_s" >"$csv"
run() { # bin label case repeat args...
  local bin=$1 label=$2 case=$3 repeat=$4
  shift 4
  local json
  json=$(mktemp)
  LD_LIBRARY_PATH="$bin/../lib:${LD_LIBRARY_PATH:-}" STARPU_SILENT=1 STARPU_NCPU=0 \
    "$bin/hinestask" --quiet --steps 100 --json "$json" "$@"
  python3 - "$json" "$label" "$case" "$repeat" "$gpu" >>"$csv" <<'PY'
import json, sys, datetime
j = json.load(open(sys.argv[1]))
print(",".join([datetime.date.today().isoformat(), sys.argv[5], sys.argv[2], sys.argv[3], sys.argv[4],
                str(j["neurons"]), str(j["compartments"]), str(j["steps"]),
                "%.9g" % j["seconds_per_step"], "%.6g" % j["compartment_solves_per_s"]]))
PY
  rm -f "$json"
}
for r in $(seq 1 "$repeats"); do
  for side in before after; do
    if [ $side = before ]; then bin=$before label=$before_label; else bin=$after label=$after_label; fi
    run "$bin" "$label" mono-medium-high-256000 "$r" --mode mono --morph synthetic:medium-high \
      --neurons 256000 --layout interleaved
    run "$bin" "$label" swc-mix-33390 "$r" --mode multi "${mix[@]}" --neurons 33390
  done
done
python3 - "$csv" "$before_label" "$after_label" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for case in sorted({r["case"] for r in rows}):
    med = {}
    for label in sys.argv[2:4]:
        times = [float(r["seconds_per_step"]) for r in rows if r["case"] == case and r["build"] == label]
        med[label] = statistics.median(times)
        print(f"{case:28s} {label:14s} median {1e3 * med[label]:.4f} ms/step over {len(times)} runs "
              f"(min {1e3 * min(times):.4f}, max {1e3 * max(times):.4f})")
    print(f"{case:28s} after/before time ratio {med[sys.argv[3]] / med[sys.argv[2]]:.4f}")
PY
