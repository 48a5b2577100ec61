#!/usr/bin/env bash
# The test suite on a GPU machine, with StarPU's CUDA workers on: what `make test` runs on CPU
# workers only (ctest sets STARPU_NCUDA=0), run again where the runtime may place any task on the
# GPU beside the cores. The tests' own checks are unchanged: voltages against the sequential
# solver, bitwise identity over task counts, windows and schedulers, random option mixes with
# --verify, spikes, parameter sweeps and JSON reruns.
#
# Run from the repository root of a checkout carrying a bundle (scripts/gpu_bundle.sh) in .bundle,
# its programs gzipped or not in .bundle/bin; results under $OUT (required): the logs in logs.tgz,
# summary.txt with each test's exit status (0 pass, 77 skipped, 124 timed out).
# Usage: scripts/gpu_suite.sh [JOBS] [SECONDS_A_TEST]   (defaults 4 and 300); ONLY=REGEX runs the
# tests whose names match; MIX_ROUNDS=N adds N more runs of test_option_mix (48 cases each, fresh
# seeds).
set -uo pipefail
jobs=${1:-4}
limit=${2:-300}
out=${OUT:?set OUT to the results folder}
root=$PWD
bin=$root/.bundle/bin
for f in "$bin"/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
# lib/ and morphologies/ may come packed in one archive, to fit the carry limit
[ -f "$root/.bundle/libmorph.tar.gz" ] && tar xzf "$root/.bundle/libmorph.tar.gz" -C "$root/.bundle"
chmod +x "$bin"/* 2>/dev/null
cuda_libs=$(dirname "$(find /usr/local/cuda*/ -name 'libcublas.so.1*' 2>/dev/null | head -n 1)")
export LD_LIBRARY_PATH=$root/.bundle/lib:$cuda_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# ctest's environment (tests/CMakeLists.txt) without STARPU_NCUDA=0.
export STARPU_NOPENCL=0 STARPU_SILENT=1 STARPU_FXT_TRACE=0 CMOCKA_MESSAGE_OUTPUT=TAP
export HINES_SOURCE_DIR=$root HINESTASK=$bin/hinestask
[ -d "$root/.bundle/morphologies/malformed" ] && export HINES_SHARED_MORPHOLOGIES=$root/.bundle/morphologies
nvidia-smi -L >"$out/gpu.txt" 2>&1
"$bin/starpu_machine_display" >"$out/machine.txt" 2>&1

# name | environment | command (each test in a STARPU_HOME of its own, as ctest's policies)
cases=$(
  for t in test_accuracy test_cli_bad_input test_distribution test_hines_math \
    test_hines_reference test_level_warps test_mono_layouts test_multi_levels \
    test_neuron_geometry test_rate_tables test_reroot test_same_bits test_schedule \
    test_simulation test_swc test_synthetic test_thomas_batch; do
    echo "$t||$bin/$t"
  done
  for policy in eager lws dmda dmdas; do
    echo "test_mono_layouts_$policy|HINES_TEST_SCHEDULER_ONLY=1 STARPU_SCHED=$policy|$bin/test_mono_layouts"
    echo "test_multi_levels_$policy|HINES_TEST_SCHEDULER_ONLY=1 STARPU_SCHED=$policy|$bin/test_multi_levels"
  done
  echo "test_mono_layouts_cuda|HINES_TEST_CUDA_ONLY=1|$bin/test_mono_layouts"
  echo "test_multi_levels_same_bits_eager_vs_dmda|HINES_TEST_SCHEDULER_ONLY=1|tests/same_digest.sh $bin/test_multi_levels eager dmda"
  echo "test_same_bits_dmda_vs_pheft|HINES_TEST_SCHEDULER_ONLY=1|tests/same_digest.sh $bin/test_same_bits dmda pheft"
  echo "test_option_mix||python3 -u tests/test_option_mix.py $bin/hinestask 48"
  for round in $(seq 1 "${MIX_ROUNDS:-0}"); do
    echo "test_option_mix_more$round||python3 -u tests/test_option_mix.py $bin/hinestask 48"
  done
  for s in test_spikes test_params test_json_rerun test_mode_choice test_cli_messages \
    test_readme_examples test_verify_conditioning; do
    echo "$s||tests/$s.sh $bin/hinestask"
  done
)

[ -n "${ONLY:-}" ] && cases=$(echo "$cases" | grep -E "^(${ONLY})\|")

run_case() {
  local name=${1%%|*} rest=${1#*|}
  local environment=${rest%%|*} command=${rest#*|}
  local home=$out/homes/$name
  mkdir -p "$home"
  local start=$SECONDS
  # shellcheck disable=SC2086
  (cd "$root" && env STARPU_HOME="$home" $environment timeout "$limit" $command) \
    >"$out/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc ${environment:-(ctest env)} $((SECONDS - start)) s" >>"$out/summary.txt"
}
export -f run_case
export out root limit
echo "$cases" | tr '\n' '\0' | xargs -0 -P "$jobs" -I{} bash -c 'run_case "$1"' _ {}
rm -rf "$out/homes"
# One archive of the logs: a device call brings back only a few files.
(cd "$out" && tar czf logs.tgz ./*.log && rm -f ./*.log)
sort -o "$out/summary.txt" "$out/summary.txt"
echo "passed $(grep -c ' rc=0 ' "$out/summary.txt"), skipped $(grep -c ' rc=77 ' "$out/summary.txt"), failed $(grep -vc ' rc=0 \| rc=77 ' "$out/summary.txt")" |
  tee -a "$out/summary.txt"
