#!/usr/bin/env bash
# Several builds of hinestask on the batches of issues 18 and 19, in one run on one GPU: each
# batch runs once with every build, then the next batch, REPS rounds, so that drift hits every
# build alike. How the L2-hint distances were chosen (BENCHMARKS.md, "Asking L2 ahead"): builds
# that differ only in a compile-time constant (scripts/bench/build_variants.sh), compared here.
# Usage: scripts/bench/compare_builds.sh OUT.csv LABEL=HINESTASK[:OPTIONS] [...]
#   HINESTASK: a hinestask binary (a bundle's bin/hinestask: its ../lib goes on LD_LIBRARY_PATH);
#   OPTIONS: options of that label's runs, separated by spaces, so that one build can also be
#   compared with itself under other options (e.g. lanes8='bin/hinestask:--warp-lanes 8').
# Environment: REPS (2); BATCHES (default below): NAME-NEURONS[-hh] with NAME one of mono (256,000
#   medium-high; NEURONS ignored), six (the six cells of morph/data), random
#   (synthetic:random:100:8000:1..4), rnd2 (synthetic:random:50:5000:11..14), all15 (every SWC of
#   SHARED_MORPHOLOGIES, default ../shared/morphologies; skipped where missing), large (those of
#   them with 4,000 compartments or more, as bench_mixes.sh's large cells), deep
#   (synthetic:tree:4000:9 and :2000:5), ca1 (morph/data/morph_ca1_n120.swc); -hh: HH everywhere
#   (else passive); COMMIT (the CSV's commit column); BENCH_NCPU (CPU workers, default 0: the GPU
#   alone; 1 checks the script on a machine without GPU); GPUS (CUDA workers, default: every GPU).
# One CSV row per run (date, commit, gpu, batch, build, repeat, ms_per_step, G_per_s); then the
# runs of each batch and build are printed side by side.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT.csv LABEL=HINESTASK [LABEL=HINESTASK ...]" >&2; exit 2; }
csv=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
labels=() bins=() options=()
for spec in "$@"; do
  label=${spec%%=*} bin=${spec#*=} more=
  case $bin in *:*) more=${bin#*:} bin=${bin%%:*} ;; esac
  [ "$label" != "$spec" ] && [ -x "$bin" ] ||
    { echo "$0: $spec: not LABEL=EXECUTABLE[:OPTIONS]" >&2; exit 2; }
  labels+=("$label") bins+=("$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")") options+=("$more")
done
reps=${REPS:-2}
ncpu=${BENCH_NCPU:-0}
commit=${COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
gpu=${gpu:-none}
shared=${SHARED_MORPHOLOGIES:-$here/../shared/morphologies}
work=$(mktemp -d "${TMPDIR:-/tmp}/compare_builds.XXXXXX")
trap 'rm -rf "$work"' EXIT
export STARPU_HOME=${STARPU_HOME:-$work/starpu-home} STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
six=() all15=() large=()
for f in "$here"/morph/data/*.swc; do six+=(--morph "$f"); done
for f in "$shared"/*.swc; do
  [ -f "$f" ] || continue
  all15+=(--morph "$f")
  n=$(LD_LIBRARY_PATH="$(dirname "${bins[0]}")/../lib:${LD_LIBRARY_PATH:-}" "${bins[0]}" --morph "$f" \
    --summary 2>/dev/null | sed -E 's/.*: ([0-9]+) compartments.*/\1/')
  [ "${n:-0}" -ge 4000 ] 2>/dev/null && large+=(--morph "$f")
done

# Sets A to the batch's hinestask arguments; returns 1 for a batch it cannot build here.
batch_args() {
  local name=${1%%-*} rest=${1#*-} hh=none
  case $rest in *-hh) hh=all rest=${rest%-hh} ;; esac
  [ "$rest" = hh ] && hh=all rest=0
  A=(--neurons "$rest")
  case $name in
  mono) A=(--mode mono --morph synthetic:medium-high --neurons 256000 --steps 100) ;;
  six) A+=(--mode multi "${six[@]}" --steps 200) ;;
  random) A+=(--mode multi --steps 200); for r in 1 2 3 4; do A+=(--morph synthetic:random:100:8000:$r); done ;;
  rnd2) A+=(--mode multi --steps 200); for r in 11 12 13 14; do A+=(--morph synthetic:random:50:5000:$r); done ;;
  all15) [ ${#all15[@]} -gt 0 ] || return 1; A+=(--mode multi "${all15[@]}" --steps 100) ;;
  large) [ ${#large[@]} -gt 0 ] || return 1; A+=(--mode multi "${large[@]}" --steps 100) ;;
  deep) A+=(--mode multi --morph synthetic:tree:4000:9 --morph synthetic:tree:2000:5 --steps 100) ;;
  ca1) A+=(--mode multi --morph "$here/morph/data/morph_ca1_n120.swc" --steps 400) ;;
  *) return 1 ;;
  esac
  A+=(--hh "$hh")
}

batches=${BATCHES:-mono-0 mono-0-hh six-33390 six-16695 random-23585 rnd2-30000 all15-16356 deep-24499 ca1-500 ca1-3000 six-33390-hh}
[ -f "$csv" ] || echo "date,commit,gpu,batch,build,repeat,ms_per_step,G_per_s" >"$csv"
for rep in $(seq 1 "$reps"); do
  for batch in $batches; do
    batch_args "$batch" || { [ "$rep" = 1 ] && echo "skipped $batch (not available here)" >&2; continue; }
    for i in "${!bins[@]}"; do
      json=$work/run.json
      read -r -a more <<<"${options[$i]}"
      gpus=()
      [ -n "${GPUS:-}" ] && gpus=(STARPU_NCUDA="$GPUS")
      if env "${gpus[@]}" LD_LIBRARY_PATH="$(dirname "${bins[$i]}")/../lib:${LD_LIBRARY_PATH:-}" \
        STARPU_NCPU=$ncpu timeout 300 "${bins[$i]}" --quiet --force "${A[@]}" "${more[@]}" \
        --json "$json" >"$work/run.log" 2>&1; then
        python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print("%s,%.4f,%.3f" % (sys.argv[2], j["seconds_per_step"] * 1e3, j["compartment_solves_per_s"] / 1e9))' \
          "$json" "$(date -u +%FT%TZ),$commit,$gpu,$batch,${labels[$i]},$rep" >>"$csv"
      else
        echo "FAILED $batch ${labels[$i]}: $(tail -n 1 "$work/run.log")" >&2
      fi
    done
  done
done
python3 - "$csv" "${labels[@]}" <<'PY'
import collections, csv, sys
runs = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    runs[(r["batch"], r["build"])].append(float(r["ms_per_step"]))
print("ms per step, runs of each build:", " | ".join(sys.argv[2:]))
for batch in dict.fromkeys(b for b, _ in runs):
    print("%-16s" % batch, " | ".join("/".join("%.4f" % t for t in runs[(batch, label)]) or "-"
                                      for label in sys.argv[2:]))
PY
