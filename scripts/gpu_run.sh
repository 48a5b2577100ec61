#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, over a bundle made by scripts/gpu_bundle.sh:
# checks that StarPU sees the GPU, runs the CUDA correctness checks, then the benchmarks.
# Results go to $OUT (or ./gpu-out). Usage: scripts/gpu_run.sh [BUNDLE] [what...]
#   what: check (CUDA worker + correctness), bench-mono, or a custom command after --
set -uo pipefail
bundle=$(readlink -f "${1:-.bundle}")
shift || true
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
# The bundle's own libraries first, then the CUDA libraries of this machine's toolkit.
cuda_dirs=$(for lib in libcublas.so.13 libcusparse.so.12 libnvJitLink.so.13; do
  find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1 | xargs -r dirname
done | sort -u | paste -sd:)
export LD_LIBRARY_PATH="$bundle/lib:${cuda_dirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STARPU_HOME=${STARPU_HOME:-$out/starpu-home}
export STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
if ldd "$bundle/bin/hinestask" | grep 'not found'; then
  echo "missing libraries (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)" >&2
  exit 1
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.txt"
for what in "${@:-check bench-mono}"; do
  case "$what" in
  check)
    STARPU_SILENT=0 "$bundle/bin/starpu_machine_display" 2>&1 | tee "$out/machine_display.txt" | head -20
    echo "== CUDA workers only: every layout against the sequential solver"
    HINES_TEST_CUDA_ONLY=1 CMOCKA_MESSAGE_OUTPUT=TAP "$bundle/bin/test_mono_layouts" 2>&1 | tee "$out/test_mono_cuda.tap"
    echo "exit status $?"
    for layout in flat interleaved block shared; do
      STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --layout "$layout" --neurons 100000 --steps 200 \
        --block-size 64 --verify 2>&1 | tee -a "$out/verify_cuda.txt"
    done
    ;;
  bench-mono)
    scripts/bench_mono.sh "$bundle/bin" "$out/bench_mono.csv" ${HINES_BENCH_SIZES:-}
    ;;
  esac
done
