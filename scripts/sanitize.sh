#!/usr/bin/env bash
# Builds hinestask and its tests with AddressSanitizer and UndefinedBehaviorSanitizer (the CMake
# option HINESTASK_SANITIZE=ON) in a second build folder, against the StarPU that
# scripts/setup.sh installed, and runs the CPU test suite under them. Any sanitizer report fails
# the test it happens in; LeakSanitizer only ignores the leaks of the uninstrumented libraries
# listed in tests/lsan.supp (StarPU, hwloc, libgomp), never ours.
# Usage: scripts/sanitize.sh [BUILD_DIR [CTEST_ARGS...]]   (BUILD_DIR default: build-asan)
# Environment: HINESTASK_DEPS (StarPU prefix root, as for setup.sh), JOBS (make jobs).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-build-asan}
shift $(($# > 0 ? 1 : 0))
case "$build" in /*) ;; *) build=$repo/$build ;; esac
deps=${HINESTASK_DEPS:-$HOME/.local/hinestask-deps}
jobs=${JOBS:-$(nproc)}

# CUDA as scripts/setup.sh decides it (the codelets need their CUDA halves whenever StarPU has
# CUDA); the tests themselves run on CPU workers only. RelWithDebInfo (-O2 -g) gives readable
# stacks at a bearable speed.
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
mkdir -p "$build"
cmake -S "$repo" -B "$build" -DHINESTASK_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSTARPU_PREFIX="$deps/starpu-current" ${nvcc:+-DCMAKE_CUDA_COMPILER=$nvcc} \
  >"$build/sanitize-cmake.log" 2>&1 || {
  cat "$build/sanitize-cmake.log" >&2
  exit 1
}
cmake --build "$build" -j"$jobs" >"$build/sanitize-build.log" 2>&1 || {
  grep -E -A5 'error' "$build/sanitize-build.log" | head -80 >&2
  echo "sanitize.sh: build failed (log: $build/sanitize-build.log)" >&2
  exit 1
}
grep -E 'warning' "$build/sanitize-build.log" >&2 || true

# halt_on_error / exitcode: a report ends the program with a failing status, so ctest sees it.
# fast_unwind_on_malloc=0: allocations made inside libraries built without frame pointers (hwloc's
# plugins) keep their whole stack, so tests/lsan.supp can name the library function that made
# them.
# Tests that start other programs' processes the sanitizer cannot judge (tests/test_mpi.sh:
# Open MPI) skip themselves under this variable.
export HINES_SANITIZER_BUILD=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:print_summary=1:fast_unwind_on_malloc=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$repo/tests/lsan.supp:print_suppressions=0
cd "$build"
ctest --output-on-failure "$@"
