#!/usr/bin/env bash
# Fuzzes the SWC reader (morph/swc.c) with libFuzzer, AddressSanitizer and UBSan: builds
# tests/fuzz_swc.c with morph/*.c using clang (no CMake), seeds the corpus with the shared
# morphologies and malformed/ files (those up to 64 KB), fuzzes for SECONDS, and appends a summary
# (one section per campaign) to scripts/results/fuzz_swc_DATE.txt. Exit status 1 when a crash,
# leak or timeout was found; the inputs are in WORK/crashes/ and replay with `WORK/fuzz_swc FILE`.
# Usage: scripts/fuzz_swc.sh SECONDS [CORPUS_DIR]
# Environment: FUZZ_WORK_DIR (binary, logs, crashes; default /tmp/hinestask-fuzz-swc),
#   HINES_SHARED_MORPHOLOGIES (seeds; default ../shared/morphologies), CC (default clang),
#   FUZZ_MAX_LEN (largest input in bytes, default 16384), FUZZ_SWC_SKIP_MAGNITUDE_CHECKS=1
#   (do not treat finite but extreme sizes as crashes; see tests/fuzz_swc.c).
# Needs clang with its runtime (Debian: apt-get install -y clang libclang-rt-14-dev).
set -euo pipefail
seconds=${1:?usage: scripts/fuzz_swc.sh SECONDS [CORPUS_DIR]}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${FUZZ_WORK_DIR:-/tmp/hinestask-fuzz-swc}
corpus=${2:-$work/corpus}
shared=${HINES_SHARED_MORPHOLOGIES:-$repo/../shared/morphologies}
cc=${CC:-clang}
max_len=${FUZZ_MAX_LEN:-16384}
largest_seed=65536
mkdir -p "$work" "$corpus" "$work/crashes"
work=$(cd "$work" && pwd)
corpus=$(cd "$corpus" && pwd)

# The commit the fuzzed code comes from, taken now: others may commit while the fuzzer runs.
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git -C "$repo" status --porcelain -- 'morph/*.[ch]' tests/fuzz_swc.c 2>/dev/null)" ]; then
  commit="$commit (morph/*.[ch] or tests/fuzz_swc.c modified)"
fi
"$cc" -std=gnu11 -g -O1 -Wall -Wextra -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer -I"$repo/morph" \
  "$repo"/morph/*.c "$repo/tests/fuzz_swc.c" -lm -o "$work/fuzz_swc"

seeds=0
for seed in "$shared"/*.swc "$shared"/malformed/*.swc; do
  if [ -f "$seed" ] && [ "$(stat -c %s "$seed")" -le $largest_seed ]; then
    cp -n "$seed" "$corpus/seed-$(basename "$seed")"
    seeds=$((seeds + 1))
  fi
done

# Tokens of the SWC grammar and of its edge cases, so mutations reach the value checks quickly.
cat >"$work/swc.dict" <<'EOF'
"#"
" -1"
" 1 "
"\x0d\x0a"
"\x09"
"nan"
"inf"
"1e999"
"-0"
"+3"
"0.0"
"1e-320"
"99999999999999999999"
"9223372036854775807"
"-9223372036854775808"
"2147483648"
"\xef\xbb\xbf"
"# units: nm"
"# units: mm"
" unit "
"nanometres"
"\x1b["
"\xc2\x9b"
EOF

# The fuzzer writes each input to a file there (in memory when /dev/shm exists).
input_dir=$(mktemp -d "$([ -w /dev/shm ] && echo /dev/shm || echo "${TMPDIR:-/tmp}")/fuzz_swc.XXXXXX")
trap 'rm -rf "$input_dir"' EXIT
export FUZZ_SWC_TMPDIR=$input_dir

crashes_before=$(find "$work/crashes" -type f | wc -l)
log=$work/fuzz-0.log
rm -f "$log"
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
set +e
(cd "$work" && ./fuzz_swc -jobs=1 -workers=1 -max_total_time="$seconds" -timeout=10 \
  -max_len="$max_len" -dict="$work/swc.dict" -print_final_stats=1 \
  -artifact_prefix="$work/crashes/" "$corpus" >"$work/fuzz.out" 2>&1)
fuzzer_status=$?
set -e
[ -f "$log" ] || log=$work/fuzz.out

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
exec_rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
coverage=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1 || true)
corpus_files=$(find "$corpus" -type f | wc -l)
crashes_after=$(find "$work/crashes" -type f | wc -l)
crashes=$((crashes_after - crashes_before))

mkdir -p "$repo/scripts/results"
summary=$repo/scripts/results/fuzz_swc_$(date -u +%Y-%m-%d).txt
[ -s "$summary" ] && echo >>"$summary"
{
  echo "fuzz_swc: libFuzzer + ASan + UBSan on swc_load, morphology_check, cable_coefficients_build"
  echo "date: $started"
  echo "commit: $commit"
  echo "compiler: $("$cc" --version | head -n 1)"
  echo "seconds: $seconds"
  echo "max_len: $max_len bytes; timeout 10 s per input"
  if [ "${FUZZ_SWC_SKIP_MAGNITUDE_CHECKS:-0}" = 1 ]; then
    echo "magnitude checks: off (FUZZ_SWC_SKIP_MAGNITUDE_CHECKS=1)"
  else
    echo "magnitude checks: on"
  fi
  echo "seeds: $seeds (shared morphologies and malformed/ up to $largest_seed bytes)"
  echo "execs: ${execs:-unknown} (${exec_rate:-?} per second)"
  echo "coverage: ${coverage:-unknown}"
  echo "corpus size: $corpus_files files"
  echo "crashes found: $crashes"
  find "$work/crashes" -type f -newer "$work/fuzz_swc" -printf '  %p\n'
  echo "fuzzer exit status: $fuzzer_status"
} | tee -a "$summary"
[ "$crashes" -eq 0 ] && [ "$fuzzer_status" -eq 0 ]
