#!/usr/bin/env bash
# Builds of hinestask that differ only in compile-time constants of the CUDA kernels (the L2-hint
# distances, the sweeps' prefetch groups: every `#ifndef NAME` default in codelets/ and runtime/;
# the flags go to the C and the CUDA compiler alike), for
# scripts/bench/compare_builds.sh on a GPU machine. Each build gets its own folder; its stripped
# hinestask is written as OUT_DIR/hinestask_LABEL.gz (a bundle carries several in little room:
# gunzip them beside the bundle's bin/hinestask, whose ../lib they share).
# Usage: scripts/bench/build_variants.sh OUT_DIR LABEL='-DNAME=VALUE ...' [LABEL='...' ...]
#   e.g. scripts/bench/build_variants.sh .bundle/bin near='-DHINES_MONO_L2_AHEAD=1' far='-DLEVEL_L2_AHEAD=16'
# Environment: BUILD_ROOT (where the build folders go, default /tmp/hinestask-variants),
#   CUDA_ARCHITECTURES (default 90), STARPU_PREFIX (default: the one build/ was configured with),
#   HINESTASK_MARCH (default native; x86-64-v4 to match a bundle built for another AVX-512 host).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 OUT_DIR LABEL='-DNAME=VALUE ...' ..." >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$1
shift
mkdir -p "$out"
root=${BUILD_ROOT:-/tmp/hinestask-variants}
mkdir -p "$root"
prefix=${STARPU_PREFIX:-$(sed -n 's/^STARPU_PREFIX:[A-Z]*=//p' "$repo/build/CMakeCache.txt" 2>/dev/null)}
[ -n "$prefix" ] || { echo "$0: no STARPU_PREFIX (run scripts/setup.sh first)" >&2; exit 2; }
for spec in "$@"; do
  label=${spec%%=*} flags=${spec#*=}
  [ "$label" != "$spec" ] && [[ $label =~ ^[A-Za-z0-9_]+$ ]] ||
    { echo "$0: $spec: not LABEL='-DNAME=VALUE ...'" >&2; exit 2; }
  dir=$root/$label
  cmake -S "$repo" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DSTARPU_PREFIX="$prefix" \
    -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHITECTURES:-90}" -DHINESTASK_MARCH="${HINESTASK_MARCH:-native}" "-DCMAKE_CUDA_FLAGS=$flags" "-DCMAKE_C_FLAGS=$flags" >"$dir.cmake.log" 2>&1 ||
    { echo "$0: $label: cmake failed, see $dir.cmake.log" >&2; exit 1; }
  cmake --build "$dir" -j"$(nproc)" --target hinestask >"$dir.build.log" 2>&1 ||
    { echo "$0: $label: build failed, see $dir.build.log" >&2; exit 1; }
  strip -o "$dir/hinestask.stripped" "$dir/hinestask"
  gzip -c "$dir/hinestask.stripped" >"$out/hinestask_$label.gz"
  echo "$out/hinestask_$label.gz: $flags"
done
