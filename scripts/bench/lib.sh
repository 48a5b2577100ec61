# shellcheck shell=bash
# Shared by the figure wrappers (fig3.sh ... fig14.sh); not meant to be run on its own.
#   figure_main FIGURE KINDS "$@"
# parses the wrapper's arguments  [--run BIN_DIR] [CSV...]  and then
#   - with --run: runs the measurement script of every kind in KINDS (comma-separated) into a
#     fresh CSV, then plots those CSVs;
#   - without: plots the CSVs given, or the committed ones (plot.py picks them).
# Kinds and the scripts they run (the measurement scripts are not modified by this harness):
#   mono     scripts/bench_mono.sh BIN_DIR CSV [$HINES_BENCH_SIZES]        } each run
#   multi    scripts/bench_multi.sh BIN_DIR CSV                             } $HINES_BENCH_REPEATS
#   classes  scripts/bench/bench_classes.sh BIN_DIR CSV [$HINES_BENCH_SIZES] } times, merged
#   tridiag  scripts/bench_tridiag.sh BIN_DIR CSV   (median of 15 timed solves inside each row)
# Environment: HINES_RESULTS_DIR (where fresh CSVs go, default scripts/results),
# HINES_PLOTS_DIR (where PNGs go, default scripts/results/plots), HINESTASK_COMMIT.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$bench_dir/../.." && pwd)

# The first GPU's name, or "none".
gpu_name() {
  local name
  name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
  echo "${name:-none}"
}

# A path KIND_GPU_YYYY-MM-DD[b-z].csv in the results folder that does not exist yet: committed
# results are never overwritten.
fresh_csv() {
  local kind=$1 dir slug day base suffix
  dir=${HINES_RESULTS_DIR:-$repo_root/scripts/results}
  mkdir -p "$dir"
  slug=$(gpu_name | tr '[:upper:]' '[:lower:]' | sed -e 's/^nvidia //' -e 's/[^a-z0-9]\{1,\}/-/g' \
    -e 's/^-//' -e 's/-$//')
  day=$(date -u +%Y-%m-%d)
  base="$dir/${kind}_${slug:-none}_$day"
  for suffix in '' b c d e f g h i j k l m n o p q r s t u v w x y z; do
    if [ ! -e "$base$suffix.csv" ]; then
      echo "$base$suffix.csv"
      return 0
    fi
  done
  echo "fresh_csv: every name ${base}[b-z].csv is taken" >&2
  return 1
}

# The environment the measurement scripts expect from scripts/gpu_run.sh: a bundle's own
# libraries (BIN_DIR/../lib) first, then this machine's CUDA libraries.
bundle_env() {
  local bin=$1 cuda_dirs
  if [ -d "$bin/../lib" ]; then
    cuda_dirs=$(for lib in libcublas.so.13 libcusparse.so.12 libnvJitLink.so.13; do
      find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1 | xargs -r dirname
    done | sort -u | paste -sd:)
    LD_LIBRARY_PATH="$(cd "$bin/../lib" && pwd)${cuda_dirs:+:$cuda_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export LD_LIBRARY_PATH
  fi
  export STARPU_SILENT=1
  if [ -z "${HINESTASK_COMMIT:-}" ]; then
    HINESTASK_COMMIT=$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo unknown)
  fi
  export HINESTASK_COMMIT
}

# Runs a measurement script HINES_BENCH_REPEATS times (default 3; the word CSV in its arguments
# stands for each run's own file) and merges the runs into OUT: per configuration the median run
# and the spread (repeats, seconds_min, seconds_max; scripts/bench/median.py).
repeated() {
  local out=$1 repeats=${HINES_BENCH_REPEATS:-3} run args runs=()
  shift
  for run in $(seq 1 "$repeats"); do
    args=()
    for a in "$@"; do [ "$a" = CSV ] && args+=("${out%.csv}.run$run.csv") || args+=("$a"); done
    echo "== run $run of $repeats" >&2
    "${args[@]}" || echo "== run $run reported a failure (exit status $?)" >&2
    runs+=("${out%.csv}.run$run.csv")
  done
  python3 "$bench_dir/median.py" "$out" "${runs[@]}" && rm -f "${runs[@]}"
}

# Runs the measurement of one kind into a fresh CSV; sets measured_csv.
measured_csv=
measure() {
  local kind=$1 bin=$2 csv sizes=()
  csv=$(fresh_csv "$kind")
  read -r -a sizes <<<"${HINES_BENCH_SIZES:-}"
  echo "== $kind: measuring into $csv" >&2
  case "$kind" in
  mono) repeated "$csv" "$repo_root/scripts/bench_mono.sh" "$bin" CSV "${sizes[@]}" ;;
  multi) repeated "$csv" "$repo_root/scripts/bench_multi.sh" "$bin" CSV ;;
  classes) repeated "$csv" "$bench_dir/bench_classes.sh" "$bin" CSV "${sizes[@]}" ;;
  tridiag)
    # bench_tridiag.sh exits 1 when one run failed but keeps the other rows: plot what came.
    "$repo_root/scripts/bench_tridiag.sh" "$bin" "$csv" ||
      echo "== tridiag: bench_tridiag.sh reported a failed run (exit status $?)" >&2
    # Its CSV has no machine, date or commit column: keep them beside it.
    printf 'gpu=%s\ndate=%s\ncommit=%s\n' "$(gpu_name)" "$(date -u +%Y-%m-%dT%H:%MZ)" \
      "$HINESTASK_COMMIT" >"${csv%.csv}.meta"
    ;;
  *)
    echo "measure: unknown kind $kind" >&2
    return 2
    ;;
  esac
  if [ ! -s "$csv" ] || [ "$(wc -l <"$csv")" -lt 2 ]; then
    echo "== $kind: no rows measured in $csv" >&2
    return 1
  fi
  measured_csv=$csv
}

figure_main() {
  local figure=$1 kinds=$2 bin="" kind
  local csvs=()
  shift 2
  while [ $# -gt 0 ]; do
    case "$1" in
    --run)
      bin=${2:?--run needs BIN_DIR (a bundle bin/ from scripts/gpu_bundle.sh, or a build folder)}
      shift 2
      ;;
    -h | --help)
      echo "usage: $(basename "$0") [--run BIN_DIR] [CSV...]"
      echo "  Plots $figure into ${HINES_PLOTS_DIR:-scripts/results/plots}/; see scripts/bench/README.md."
      echo "  --run BIN_DIR  measure first (on a GPU machine) into a fresh CSV under scripts/results/"
      echo "  CSV...         plot these CSVs instead of the committed ones"
      return 0
      ;;
    *)
      csvs+=("$1")
      shift
      ;;
    esac
  done
  if [ -n "$bin" ]; then
    if [ ${#csvs[@]} -gt 0 ]; then
      echo "$(basename "$0"): give either --run BIN_DIR or CSV files, not both" >&2
      return 2
    fi
    bin=$(cd "$bin" && pwd)
    bundle_env "$bin"
    for kind in ${kinds//,/ }; do
      measure "$kind" "$bin"
      csvs+=("$measured_csv")
    done
    echo "== measured: ${csvs[*]}" >&2
  fi
  "$bench_dir/plot.py" "$figure" "${csvs[@]}"
}
