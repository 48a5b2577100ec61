#!/usr/bin/env bash
# Builds of hinestask that differ from a configured CUDA build only in compile-time constants of
# the level kernels (codelets/hines_level_cuda.cu's `#ifndef NAME` defaults): that one object is
# compiled again with the flags and hinestask relinked against a copy of the codelet library, in
# about a minute on two cores where scripts/bench/build_variants.sh builds everything. Each
# stripped hinestask goes to OUT_DIR/hinestask_LABEL.gz (level_kernel_runs.sh's row BUILD).
# Usage: scripts/bench/level_variant.sh BUILD_DIR OUT_DIR LABEL='-DNAME=VALUE ...' [...]
#   (VARIANT_SOURCE=hines_branch_cuda.cu: that object instead, the branch kernel's constants)
#   e.g. scripts/bench/level_variant.sh /tmp/bdev .bundle/bin rp4='-DLEVEL_ROWS_PER_THREAD=4'
# BUILD_DIR: a Unix-makefile build of this repository with -DHINESTASK_CUDA=ON, hinestask built.
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 BUILD_DIR OUT_DIR LABEL='-DNAME=VALUE ...' ..." >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "$1" && pwd) out=$2
shift 2
mkdir -p "$out"
out=$(cd "$out" && pwd)
codelets=$build/codelets/CMakeFiles/hines_codelets.dir
[ -f "$codelets/flags.make" ] && [ -f "$build/CMakeFiles/hinestask.dir/linkLibs.rsp" ] ||
  { echo "$0: $build: not a CUDA build with hinestask (configure with -DHINESTASK_CUDA=ON)" >&2; exit 2; }
nvcc=$(sed -n 's/^# compile CUDA with //p' "$codelets/flags.make")
cuda_flags=$(sed -n 's/^CUDA_FLAGS = //p' "$codelets/flags.make")
cuda_defines=$(sed -n 's/^CUDA_DEFINES = //p' "$codelets/flags.make")
source=${VARIANT_SOURCE:-hines_level_cuda.cu}
for spec in "$@"; do
  label=${spec%%=*} flags=${spec#*=}
  [ "$label" != "$spec" ] && [[ $label =~ ^[A-Za-z0-9_]+$ ]] ||
    { echo "$0: $spec: not LABEL='-DNAME=VALUE ...'" >&2; exit 2; }
  work=$(mktemp -d "${TMPDIR:-/tmp}/level_variant.XXXXXX")
  # shellcheck disable=SC2086 # the flags are words
  (cd "$build/codelets" && "$nvcc" $cuda_defines --options-file CMakeFiles/hines_codelets.dir/includes_CUDA.rsp \
    $cuda_flags $flags -c "$repo/codelets/$source" -o "$work/$source.o")
  cp "$build/codelets/libhines_codelets.a" "$work/"
  (cd "$work" && ar r libhines_codelets.a "$source.o")
  sed "s|codelets/libhines_codelets.a|$work/libhines_codelets.a|" \
    "$build/CMakeFiles/hinestask.dir/linkLibs.rsp" >"$work/linkLibs.rsp"
  link=$(cat "$build/CMakeFiles/hinestask.dir/link.txt")
  link=${link/@CMakeFiles\/hinestask.dir\/linkLibs.rsp/@$work/linkLibs.rsp}
  link=${link/-o hinestask/-o $work/hinestask}
  (cd "$build" && eval "$link")
  strip "$work/hinestask"
  gzip -c "$work/hinestask" >"$out/hinestask_$label.gz"
  rm -rf "$work"
  echo "$out/hinestask_$label.gz: $flags"
done
