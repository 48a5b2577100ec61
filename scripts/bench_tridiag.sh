#!/usr/bin/env bash
# Pure tridiagonal benchmark (the OGST 2018 paper's Fig. 9-13): interleaved Thomas CP and NCP,
# the flat one-thread-per-system Thomas, and cuSPARSE gtsv2StridedBatch / gtsvInterleavedBatch,
# fp32 and fp64, fixed sizes and sizes uniform in [size/2, size], over the paper's two grids:
#   batches 256 2560 25600 256000 of sizes 64 128 256 512
#   batches 20 200 2000 20000     of sizes 1024 2048 4096 8192
# Host-side set-up (generating, packing, validating every result) dominates the run time, not
# the solves: about 3 minutes in all on a 16-core H200 machine. The GPU time per point is small
# even at the largest (~164 M unknowns), so 15 timed repeats (median of 15) cost little.
# Methods whose device memory (with the harness's pristine copies) would pass 20 GB are skipped
# by tridiag_bench itself (a "# skip" line on stderr); at these grids none should be.
# Usage: scripts/bench_tridiag.sh BIN_DIR OUT.csv
#   BIN_DIR holds tridiag_bench (a build directory, or a bundle's bin/ with ../lib beside it).
#   Exit status 1 if any run failed (CUDA error or a result over the validation tolerance).
set -uo pipefail
bin=$(readlink -f "${1:?BIN_DIR}")
csv=${2:?OUT.csv}
repeats=${TRIDIAG_REPEATS:-15}
warmup=${TRIDIAG_WARMUP:-3}
max_gb=${TRIDIAG_MAX_DEVICE_GB:-20}

# A bundle (scripts/gpu_bundle.sh) keeps its libraries in ../lib; cuSPARSE comes from the
# machine's CUDA toolkit.
if [ -d "$bin/../lib" ]; then
  cuda_dirs=$(for lib in libcusparse.so.12 libnvJitLink.so.13; do
    find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1 | xargs -r dirname
  done | sort -u | paste -sd:)
  export LD_LIBRARY_PATH="$bin/../lib${cuda_dirs:+:$cuda_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
if ldd "$bin/tridiag_bench" | grep 'not found'; then
  echo "tridiag_bench: missing libraries (LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-})" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader >&2 || true

status=0
started=$(date +%s)
# Every row says where, when and from which commit it was measured.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
stamp=$(date -u +%Y-%m-%dT%H:%MZ)
commit=${HINESTASK_COMMIT:-$(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo unknown)}
: >"$csv"
run() { # extra arguments for tridiag_bench; rows go to the CSV and to stdout
  "$bin/tridiag_bench" --repeats "$repeats" --warmup "$warmup" --max-device-gb "$max_gb" \
    --precision fp32,fp64 --modes fixed,variable "$@" |
    awk -v d="$stamp" -v c="$commit" -v g="${gpu:-none}" \
      '/^method,/ { print "date,commit,gpu," $0; next } { print d "," c "," g "," $0; fflush() }' |
    tee -a "$csv"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
}
run --batches 256,2560,25600,256000 --sizes 64,128,256,512
run --no-header --batches 20,200,2000,20000 --sizes 1024,2048,4096,8192
echo "# bench_tridiag: $(($(date +%s) - started)) s, $(($(wc -l <"$csv") - 1)) rows in $csv," \
  "exit status $status" >&2
exit $status
