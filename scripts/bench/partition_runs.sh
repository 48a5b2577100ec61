#!/usr/bin/env bash
# One GPU call for the partitioned chains (--level-partition, codelets/level_partition.h;
# BENCHMARKS.md, "Partitioned chains in the solver"): whether two threads a long branch shorten
# a GPU's step at half the batch (the two-GPU ratio's F) without slowing the full batch, every
# limit and level rule beside the default, then whether CPU workers and the GPU still give the
# same bits, then the level tests on CUDA workers. Each part has its own time limit, so the whole
# call stays under about 330 s on an H100 (the rows take about 2.5 s each).
# Usage, on the GPU machine with a bundle in .bundle (scripts/gpu_bundle.sh, with the shared
# morphologies and test_multi_levels):  COMMIT=abc1234 OUT=dir scripts/bench/partition_runs.sh
# Environment: VARIANTS (label::options with commas for spaces, as half141's builds; the first
#   also runs the rest of the mixes and the bits),
#   PAIRS_FIRST (two rounds) and PAIRS_REST (one round, the first variant only), BITS_MIXES.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${OUT:-$PWD/gpu-out}
mkdir -p "$out"
P=--level-partition
variants=${VARIANTS:-"n8::$P,32,$P-narrow,8 p32::$P,32 n4::$P,32,$P-narrow,4 p48n8::$P,48,$P-narrow,8"}
first_variant=${variants%% *}
nvidia-smi --query-gpu=name --format=csv,noheader > "$out/gpu.txt"
# the mixes short of 1.9x first (T, C, D, A), two rounds; every variant at both sizes
FULL_BUILDS="$variants" HALF_BUILDS="$variants" ROUNDS=2 LIMIT=170 \
  PAIRS=${PAIRS_FIRST:-"T-35976:T-17988 C-11720:C-5860 D-7404:D-3702 A-8820:A-4410"} \
  timeout 190 bash "$here/level_kernel_runs.sh" half141 > "$out/partition_first.log" 2>&1
mv "$out/half141.csv" "$out/partition_first.csv" 2>/dev/null
# the mixes at or near 1.9x, one round, the first variant only (the narrow rule of 8)
FULL_BUILDS="$first_variant" HALF_BUILDS="$first_variant" ROUNDS=1 LIMIT=70 \
  PAIRS=${PAIRS_REST:-"large-6643:large-3322 all15-16356:all15-8178 B-8330:B-4165 six-33390:six-16695"} \
  timeout 85 bash "$here/level_kernel_runs.sh" half141 > "$out/partition_rest.log" 2>&1
mv "$out/half141.csv" "$out/partition_rest.csv" 2>/dev/null
# the same bits from CPU workers alone and the GPU alone, with the first variant's options
opts=${first_variant#*::}
MIXES=${BITS_MIXES:-"T-17988 C-5860"} EXTRA=$opts timeout 100 bash "$here/level_kernel_runs.sh" cpugpu148 \
  > "$out/partition_bits.txt" 2>&1
# the level tests on CUDA workers alone (partitioned_chains_match_reference among them)
bundle=$(readlink -f .bundle)
cuda_dirs=$(for lib in libcublas.so.13 libnvJitLink.so.13; do
  find /usr/local/cuda*/ /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1 | xargs -r dirname
done | sort -u | paste -sd:)
if [ -x "$bundle/bin/test_multi_levels" ]; then
  LD_LIBRARY_PATH="$bundle/lib:$cuda_dirs" HINES_SOURCE_DIR=$PWD STARPU_HOME="$out/test-home" \
    STARPU_SILENT=1 STARPU_NCPU=0 timeout 90 "$bundle/bin/test_multi_levels" > "$out/partition_tests.txt" 2>&1
  echo "test_multi_levels rc=$?" >> "$out/partition_tests.txt"
fi
rm -rf "$out"/hinestask_* "$out/starpu-home" "$out/test-home"
