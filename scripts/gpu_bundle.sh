#!/usr/bin/env bash
# Packs hinestask, its benchmark and test programs, the CUDA-enabled StarPU tools and every shared
# library they need into one folder that runs on another machine with
#   LD_LIBRARY_PATH=BUNDLE/lib:<CUDA libraries> BUNDLE/bin/hinestask ...
# Left out: glibc (the target has its own) and the large CUDA libraries (libcuda, cuBLAS,
# cuSPARSE, nvJitLink), which the GPU machine's driver and toolkit provide.
# Usage: scripts/gpu_bundle.sh [BUILD_DIR] [BUNDLE_DIR]   (defaults: build .bundle)
set -euo pipefail
repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-$repo_root/build}
bundle=${2:-$repo_root/.bundle}
starpu_prefix=$(readlink -f "${HINESTASK_DEPS:-$HOME/.local/hinestask-deps}/starpu-current")

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
programs=("$build_dir/hinestask" "$build_dir/hines_bench" "$build_dir/tridiag_bench" "$build_dir"/tests/test_*)
for tool in starpu_machine_display starpu_fxt_tool starpu_perfmodel_display starpu_calibrate_bus; do
  programs+=("$starpu_prefix/bin/$tool")
done
for p in "${programs[@]}"; do
  [ -x "$p" ] && cp "$p" "$bundle/bin/"
done
# Open MPI (StarPU-MPI's MPI) is left out too: mpirun, its daemons and plugins must match the
# libmpi a rank loads, so ranks use the GPU machine's own Open MPI (apt install openmpi-bin).
skip='^(libc|libm|libpthread|libdl|librt|ld-linux.*|libcuda|libcublas.*|libcusparse|libnvJitLink|libnvidia-ml|libmpi|libopen-pal|libopen-rte|libpmix|libevent.*)\.so'
for p in "$bundle"/bin/*; do
  ldd "$p" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  name=$(basename "$lib")
  if ! [[ "$name" =~ $skip ]]; then
    cp -L "$lib" "$bundle/lib/$name"
  fi
done
# starpu_fxt_tool reads nothing else; the perf-model and trace tools need no data files.
# The shared morphologies, when this checkout has them beside it, for the level solver's test on
# the GPU (gpu_run.sh check-multi); the bundle is never committed.
shared=$(readlink -f "$repo_root/../shared/morphologies" 2>/dev/null || true)
if [ -n "$shared" ] && [ -d "$shared" ]; then
  mkdir -p "$bundle/morphologies"
  cp "$shared"/*.swc "$bundle/morphologies/"
  # and the malformed files, which test_swc reads wherever the shared set is given (gpu_suite.sh)
  [ -d "$shared/malformed" ] && cp -r "$shared/malformed" "$bundle/morphologies/"
fi
du -sh "$bundle" >&2
ls "$bundle/lib" >&2
