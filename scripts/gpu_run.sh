#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, over a bundle made by scripts/gpu_bundle.sh:
# checks that StarPU sees the GPU, runs the CUDA correctness checks, then the benchmarks.
# Results go to $OUT (or ./gpu-out). Usage: scripts/gpu_run.sh [BUNDLE] [what...]
#   what: check, check-multi, check-bits, check-spikes, check-verify (correctness), bench-params
#   (--params sweeps: bits CPU vs GPU, spikes against separate runs, cost), bench-mono, bench-multi, bench-hetero,
#   bench-tridiag, bench-sched (issue 15's scheduling matrix, scripts/bench_sched.sh;
#   bench-sched-two on two GPUs), bench-mpi (issue 20: two ranks with one GPU each, mpirun),
#   bench-cell (issue 19: the cell-block kernel checked on the GPU and timed against the level
#   kernels on small batches of one cell)
#   check-warps, bench-warps (issue 19: the level kernels' warp sweeps: same bits, timings),
#   bench-levels (what one level costs: combs of 50 to 200 one-compartment levels),
#   bench-cell-warps (the cell-block kernel with warp sweeps: bits, and timings against the
#   level kernels), check-flow, bench-flow (the flow kernel: same bits as the level kernels and
#   the CPU; timings against the level kernels on one and two GPUs, and every mix)
#   bench-rates (issue 18 item 2: HH rate tables against exact rates, and their bits check)
#   bench-mech (issue 18 item 4: mono 256,000 medium-high, hh everywhere alone and with the
#   M current km, tables and exact; then CPU-only vs GPU-only probe files with km)
#   check-ih (issue 18: Ih and every mechanism's --params columns: cost against the build
#   before, channel sets with ih, CPU-only vs GPU-only bits), profile-multi-hh (ncu on the
#   level kernels of the HH mix against the passive one), bench-builds (builds of hinestask
#   side by side in the bundle, e.g. level kernels compiled with other prefetch depths),
#   check-subtrees (--level-subtrees, and --level-split with SPLIT=N: same bits on CPU workers
#   and every GPU kernel; timings: scripts/bench_subtrees.sh, OPTION=--level-split for the cut)
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
export PATH="$bundle/bin:$PATH" # starpu_fxt_tool for --trace
export STARPU_HOME=${STARPU_HOME:-$out/starpu-home}
export STARPU_SILENT=1
mkdir -p "$STARPU_HOME"
if ldd "$bundle/bin/hinestask" | grep 'not found'; then
  echo "missing libraries (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)" >&2
  exit 1
fi
# One CSV row from a run's JSON summary: the three labels given, then neurons, steps, ms per
# step and G compartment-steps/s.
throughput_row() {
  python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print("%s,%s,%s,%d,%d,%.4f,%.3f" % (sys.argv[2], sys.argv[3], sys.argv[4], j["neurons"], j["steps"],
      j["seconds_per_step"] * 1e3, j["compartment_solves_per_s"] / 1e9))' "$@"
}
# PASS or FAIL (status 1) as two probe files are the same bytes or not, the line also appended to
# a log.
same_bytes() { # reference candidate label log
  if cmp -s "$1" "$2"; then
    echo "PASS: $3: identical probe files" | tee -a "$4"
  else
    echo "FAIL: $3: probe files differ" | tee -a "$4"
    return 1
  fi
}
# The environment that runs hinestask on CPU workers only, the GPU only, or both under dmda.
worker_placement() { # cpu|gpu|both
  case $1 in
  cpu) echo STARPU_NCUDA=0 ;;
  gpu) echo STARPU_NCPU=0 ;;
  both) echo STARPU_SCHED=dmda ;;
  esac
}
# One CSV row from a run's JSON summary: the labels given, then neurons, compartments, ms per
# step and G compartment-steps/s.
summary_row() { # JSON label...
  python3 - "$@" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(",".join(sys.argv[2:] + [str(j["neurons"]), str(j["compartments"]),
      "%.4f" % (j["seconds_per_step"] * 1e3), "%.3f" % (j["compartment_solves_per_s"] / 1e9)]))
PY
}
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
  check-multi)
    echo "== multi-morphology level solver on the GPU against the sequential reference"
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for tasks in chunk levels; do
      for padding in ncp cp; do
        STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 600 \
          --steps 400 --hh all --stim-amp 1 --multi-tasks $tasks --padding $padding --verify 2>&1 |
          sed "s/^/$tasks $padding: /" | tee -a "$out/verify_cuda.txt"
      done
    done
    if [ -d "$bundle/morphologies" ]; then
      echo "== the level solver's test (every shared SWC file plus random trees, CP and NCP, both"
      echo "   task shapes, trunks, parts) on the GPU only, kernels launched early and plainly;"
      echo "   one seed: every configuration's digest must be the same both ways"
      seed=${HINES_TEST_SEED:-$RANDOM$RANDOM}
      for plain in 0 1; do
        HINES_TEST_SEED=$seed HINES_TEST_PLAIN_LAUNCHES=$plain HINES_SHARED_MORPHOLOGIES="$bundle/morphologies" \
          STARPU_NCPU=0 STARPU_NCUDA=1 "$bundle/bin/test_multi_levels" >"$out/test_multi_levels_cuda_plain$plain.txt" 2>&1
        echo "plain launches $plain: exit status $? ($(grep -c 'result digest' "$out/test_multi_levels_cuda_plain$plain.txt") configurations)" |
          tee -a "$out/verify_cuda.txt"
        grep -E 'FAILED|ERROR' "$out/test_multi_levels_cuda_plain$plain.txt" | head -n 5
      done
      if diff <(grep 'result digest' "$out/test_multi_levels_cuda_plain0.txt") \
        <(grep 'result digest' "$out/test_multi_levels_cuda_plain1.txt") >/dev/null; then
        echo "early and plain launches: identical digests and errors in every configuration" | tee -a "$out/verify_cuda.txt"
      else
        echo "early and plain launches: digests DIFFER" | tee -a "$out/verify_cuda.txt"
      fi
      grep 'max relative error' "$out/test_multi_levels_cuda_plain0.txt" | sed 's/.*max relative error \([^;]*\);.*/\1/' |
        sort -g | tail -n 1 | sed 's/^/largest relative error against the reference: /' | tee -a "$out/verify_cuda.txt"
      HINES_SHARED_MORPHOLOGIES="$bundle/morphologies" STARPU_NCPU=0 STARPU_NCUDA=1 \
        tests/same_digest.sh "$bundle/bin/test_multi_levels" eager dmda 2>&1 |
        tee "$out/same_digest_cuda.txt"
      echo "two schedulers on the GPU, same digest: exit status ${PIPESTATUS[0]}" | tee -a "$out/verify_cuda.txt"
    fi
    echo "== chunk tasks with a trunk, kernels launched early and plainly: both against the reference"
    for launch in early plain; do
      STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 600 \
        --steps 400 --hh all --stim-amp 1 --trunk-below 300 --gpu-launch $launch --verify 2>&1 |
        sed "s/^/trunk $launch: /" | tee -a "$out/verify_cuda.txt"
    done
    echo "== early and plain launches give the same voltages (probes, every bit: 17 digits)"
    probes=()
    for p in 0:0 1:50 2:7 3:100 4:3 5:0 100:20 333:0 599:40; do probes+=(--probe "$p"); done
    for launch in early plain; do
      for trunk in 0 300; do
        STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 600 \
          --steps 2000 --hh all --stim-amp 1 --trunk-below $trunk --gpu-launch $launch \
          "${probes[@]}" --force --probes "$out/probes_${launch}_trunk$trunk.csv"
      done
    done
    for trunk in 0 300; do
      if cmp -s "$out/probes_early_trunk$trunk.csv" "$out/probes_plain_trunk$trunk.csv"; then
        echo "trunk-below $trunk: early and plain launches: identical probe files" | tee -a "$out/verify_cuda.txt"
      else
        echo "trunk-below $trunk: early and plain launches: probe files DIFFER" | tee -a "$out/verify_cuda.txt"
      fi
    done
    echo "== the same HH configuration on CPU workers only and on the GPU only: probe files"
    for workers in cpu:STARPU_NCUDA=0 cuda:STARPU_NCPU=0; do
      env "${workers#*:}" "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 24 \
        --steps 4000 --hh all --stim-amp 1 --stim-start 20 --stim-stop 80 --probe 0:0 --probe 3:0 \
        --probe 3:100 --probe 5:0 --force --probes "$out/probes_${workers%%:*}.csv"
    done
    python3 - "$out/probes_cpu.csv" "$out/probes_cuda.csv" <<'PY' | tee "$out/probes_cpu_vs_cuda.txt"
import csv, sys
a = list(csv.reader(open(sys.argv[1]))); b = list(csv.reader(open(sys.argv[2])))
assert a[0] == b[0] and len(a) == len(b)
diff = max(abs(float(x) - float(y)) for ra, rb in zip(a[1:], b[1:]) for x, y in zip(ra[1:], rb[1:]))
peak = max(float(x) for r in a[1:] for x in r[1:])
print(f"CPU vs CUDA probes: {len(a) - 1} samples x {len(a[0]) - 1} probes, max |difference| {diff:.3e} mV (peak {peak:.1f} mV): {'ok' if diff <= 1e-9 else 'ABOVE 1e-9'}")
PY
    ;;
  check-verify)
    echo "== --verify's backward error (README) on the GPU only: NEURON's worst-conditioned step"
    echo "   matrices (d_X 1 um), passive and hh everywhere, mono and multi; each line must say ok"
    cells=("morph/data/HSN-fluoro02.CNG.swc --dx 1" "morph/data/morph_ca1_n120.swc")
    [ -d "$bundle/morphologies" ] && cells+=("$bundle/morphologies/tc200.CNG.swc --dx 1"
      "$bundle/morphologies/mp_ma_40984_gc2.CNG.swc --dx 1")
    for cell in "${cells[@]}"; do
      read -r path options <<<"$cell"
      for mode in mono multi; do
        for hh in none all; do
          # shellcheck disable=SC2086 # options are words
          STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --morph "$path" $options --mode $mode \
            --hh $hh --neurons 2000 --tstop 20 --stim-amp 1 --verify 2>&1 |
            sed "s|^|$(basename "$path") ${options:-per-sample} $mode hh $hh: |" |
            tee -a "$out/verify_backward_cuda.txt"
        done
      done
    done
    ;;
  check-bits)
    # Issue #18: a neuron's voltages must not depend on where its task ran. One HH batch (mono
    # and multi) on CPU workers only, on the GPU only, and under dmda with both kinds of workers
    # (small tasks, so that both kinds get some): the probe files must be identical bytes. The
    # probes are printed with 17 significant digits (every bit), and test_same_bits' digests of the final
    # voltages (every bit of every compartment) are compared the same three ways too.
    echo "== same bits on CPU workers, on the GPU and under dmda with both (issue #18)"
    steps=${HINES_BITS_STEPS:-1000}
    bits_pass=1
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    mono_probes=()
    for p in 0:0 1:40 17:0 255:100 1000:7 2559:0 2559:318; do mono_probes+=(--probe "$p"); done
    multi_probes=()
    for p in 0:0 1:3 5:0 17:7 100:0 239:2; do multi_probes+=(--probe "$p"); done
    for batch in mono multi; do
      if [ "$batch" = mono ]; then
        args=(--mode mono --morph synthetic:medium-high --neurons 2560 --task-neurons 160 "${mono_probes[@]}")
      else
        args=(--mode multi "${mix[@]}" --neurons 240 --task-neurons 24 "${multi_probes[@]}")
      fi
      for workers in cpu gpu both; do
        case $workers in
        cpu) placement=(STARPU_NCUDA=0) ;;
        gpu) placement=(STARPU_NCPU=0) ;;
        both) placement=(STARPU_SCHED=dmda STARPU_WORKER_STATS=1) ;;
        esac
        env "${placement[@]}" "$bundle/bin/hinestask" --quiet "${args[@]}" --hh all --stim-amp 1 \
          --steps "$steps" --probes "$out/bits_${batch}_$workers.csv" >"$out/bits_${batch}_$workers.log" 2>&1 ||
          echo "$batch on $workers: exit status $? (see bits_${batch}_$workers.log)"
      done
      grep -iE 'cpu|cuda' "$out/bits_${batch}_both.log" | grep -iE 'task' | head -n 8
      for workers in gpu both; do
        if cmp "$out/bits_${batch}_cpu.csv" "$out/bits_${batch}_$workers.csv"; then
          echo "PASS: $batch, CPU workers only vs $workers: identical probe files" | tee -a "$out/bits.txt"
        else
          bits_pass=0
          echo "FAIL: $batch, CPU workers only vs $workers: probe files differ" | tee -a "$out/bits.txt"
        fi
      done
    done
    seed=${HINES_TEST_SEED:-$RANDOM$RANDOM}
    for workers in cpu gpu both; do
      case $workers in
      cpu) placement=(STARPU_NCUDA=0) ;;
      gpu) placement=(STARPU_NCPU=0) ;;
      both) placement=(STARPU_SCHED=dmda) ;;
      esac
      # STARPU_FXT_TRACE=0 as under ctest: an FxT-enabled StarPU otherwise traces every run of the
      # test into /tmp, which kept the CPU+GPU run from ending within the call (acc968d).
      env "${placement[@]}" STARPU_FXT_TRACE=0 HINES_TEST_SEED="$seed" HINES_SOURCE_DIR="$PWD" CMOCKA_MESSAGE_OUTPUT=TAP \
        "$bundle/bin/test_same_bits" >"$out/test_same_bits_$workers.txt" 2>&1
      echo "test_same_bits on $workers: exit status $?"
      grep 'result digest' "$out/test_same_bits_$workers.txt" | sed 's/.*result digest/digest/' >"$out/digests_$workers.txt"
    done
    for workers in gpu both; do
      if [ -s "$out/digests_cpu.txt" ] && cmp -s "$out/digests_cpu.txt" "$out/digests_$workers.txt"; then
        echo "PASS: test_same_bits digests, CPU workers only vs $workers: $(paste -sd' ' "$out/digests_cpu.txt")" | tee -a "$out/bits.txt"
      else
        bits_pass=0
        echo "FAIL: test_same_bits digests, CPU workers only vs $workers differ or are missing" | tee -a "$out/bits.txt"
      fi
    done
    [ "$bits_pass" = 1 ] && echo "check-bits: PASS" || echo "check-bits: FAIL"
    ;;
  check-spikes)
    # Issue #18 item 6: --spikes detects the soma crossings inside the step, on whichever worker
    # runs it, with the same arithmetic on both kinds. The same HH batches (mono in every layout,
    # multi with chunk and per-level tasks) on CPU workers only, on the GPU only and under dmda
    # with both: the spike files must be identical bytes (times printed with 17 digits). Then
    # the cost: 256,000 mono neurons on the GPU with and without --spikes (ms per step).
    echo "== same spikes on CPU workers, on the GPU and under dmda with both (issue #18, item 6)"
    steps=${HINES_SPIKES_STEPS:-4000}
    spikes_pass=1
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for batch in mono-interleaved mono-block mono-flat mono-shared multi-chunk multi-levels; do
      case $batch in
      mono-*) args=(--mode mono --morph synthetic:medium-high --neurons 2560 --task-neurons 160
                    --layout "${batch#mono-}" --block-size 32) ;;
      multi-*) args=(--mode multi "${mix[@]}" --neurons 240 --task-neurons 24
                     --multi-tasks "${batch#multi-}") ;;
      esac
      # Per-level tasks are hundreds of small tasks a step: a tenth of the steps (on the H200 x2
      # machine 4,000 steps of them did not end within the check's 200 s).
      batch_steps=$steps
      [ "$batch" = multi-levels ] && batch_steps=$((steps / 10))
      for workers in cpu gpu both; do
        case $workers in
        cpu) placement=(STARPU_NCUDA=0) ;;
        gpu) placement=(STARPU_NCPU=0) ;;
        both) placement=(STARPU_SCHED=dmda) ;;
        esac
        env "${placement[@]}" "$bundle/bin/hinestask" "${args[@]}" --hh all --stim-amp 1 \
          --steps "$batch_steps" --spikes "$out/spikes_${batch}_$workers.csv" --force \
          >"$out/spikes_${batch}_$workers.log" 2>&1 ||
          echo "$batch on $workers: exit status $? (see spikes_${batch}_$workers.log)"
      done
      grep '^spikes:' "$out/spikes_${batch}_cpu.log"
      if [ "$(wc -l <"$out/spikes_${batch}_cpu.csv" 2>/dev/null || echo 0)" -lt 2 ]; then
        spikes_pass=0
        echo "FAIL: $batch: no spikes on CPU workers" | tee -a "$out/spikes.txt"
      fi
      for workers in gpu both; do
        if cmp "$out/spikes_${batch}_cpu.csv" "$out/spikes_${batch}_$workers.csv"; then
          echo "PASS: $batch, CPU workers only vs $workers: identical spike files" | tee -a "$out/spikes.txt"
        else
          spikes_pass=0
          echo "FAIL: $batch, CPU workers only vs $workers: spike files differ" | tee -a "$out/spikes.txt"
        fi
      done
    done
    for spikes in none spikes; do
      extra=()
      [ "$spikes" = spikes ] && extra=(--spikes "$out/spikes_256k.csv" --force)
      STARPU_NCPU=0 "$bundle/bin/hinestask" --mode mono --morph synthetic:medium-high \
        --neurons 256000 --hh all --stim-amp 1 --steps 1000 "${extra[@]}" \
        >"$out/spikes_cost_$spikes.log" 2>&1
      echo "256,000 neurons, GPU only, $spikes: $(grep -E 'per step|^spikes:' "$out/spikes_cost_$spikes.log" | paste -sd' ')" |
        tee -a "$out/spikes.txt"
    done
    [ "$spikes_pass" = 1 ] && echo "check-spikes: PASS" || echo "check-spikes: FAIL"
    ;;
  bench-params)
    # Issue #18 item 5: parameter sweeps (--params, one CSV row per neuron). (1) Same bits on CPU
    # workers only, on the GPU only and under dmda with both: probe and spike files identical
    # bytes, for a sweep of channels and stimulus and for one of every column (the membrane
    # factors). (2) A 10,000-row sweep on the GPU: 20 sampled rows run alone, as a one-row
    # sweep and with their values as options, fire at the same times. (3) The cost: 256,000
    # medium-high neurons, HH everywhere and HH in the soma, with a 256,000-row sweep of gnabar,
    # gkbar and stim_amp and without, GPU only, 3 repeats each (CSV); the sweep must stay within
    # 5 % of the run without it (medians).
    echo "== --params: same bits on CPU and GPU, a sweep against separate runs, its cost"
    params_pass=1
    rm -f "$out/params.txt" "$out/params_rows.txt"
    steps=${HINES_PARAMS_STEPS:-2000}
    probes=()
    for p in 0:0 1:40 17:0 255:100 1000:7 2559:0 2559:318; do probes+=(--probe "$p"); done
    for sweep in channels membrane; do
      case $sweep in
      channels) columns=gnabar,gkbar,stim_amp ;;
      membrane) columns=cm,ra,gl,el,gnabar,gkbar,gl_hh,el_hh,stim_amp,stim_start,stim_stop ;;
      esac
      python3 scripts/make_params.py "$out/params_bits_$sweep.csv" --neurons 2560 --columns "$columns"
      for workers in cpu gpu both; do
        case $workers in
        cpu) placement=(STARPU_NCUDA=0) ;;
        gpu) placement=(STARPU_NCPU=0) ;;
        both) placement=(STARPU_SCHED=dmda) ;;
        esac
        env "${placement[@]}" "$bundle/bin/hinestask" --quiet --mode mono --morph synthetic:medium-high \
          --neurons 2560 --task-neurons 160 --hh all --steps "$steps" --params "$out/params_bits_$sweep.csv" \
          "${probes[@]}" --probes "$out/params_bits_${sweep}_$workers.csv" \
          --spikes "$out/params_spikes_${sweep}_$workers.csv" --force >"$out/params_bits_${sweep}_$workers.log" 2>&1 ||
          echo "$sweep sweep on $workers: exit status $? (see params_bits_${sweep}_$workers.log)"
      done
      for workers in gpu both; do
        if cmp "$out/params_bits_${sweep}_cpu.csv" "$out/params_bits_${sweep}_$workers.csv" &&
          cmp "$out/params_spikes_${sweep}_cpu.csv" "$out/params_spikes_${sweep}_$workers.csv"; then
          echo "PASS: $sweep sweep, CPU workers only vs $workers: identical probe and spike files ($(($(wc -l <"$out/params_spikes_${sweep}_cpu.csv") - 1)) spikes)" | tee -a "$out/params.txt"
        else
          params_pass=0
          echo "FAIL: $sweep sweep, CPU workers only vs $workers: files differ" | tee -a "$out/params.txt"
        fi
      done
    done
    # (2) 10,000 rows on the GPU against 20 sampled rows run alone.
    python3 scripts/make_params.py "$out/params_10k.csv" --neurons 10000 --columns gnabar,gkbar,stim_amp
    cell=(--quiet --mode mono --morph synthetic:medium-high --hh all --steps "$steps" --force)
    STARPU_NCPU=0 "$bundle/bin/hinestask" "${cell[@]}" --neurons 10000 --params "$out/params_10k.csv" \
      --spikes "$out/params_10k_spikes.csv" --json "$out/params_10k.json" >"$out/params_10k.log" 2>&1 ||
      echo "10,000-row sweep: exit status $?"
    same=0
    for k in $(python3 -c "import random; print(*sorted(random.Random(5).sample(range(10000), 20)))"); do
      { head -n 1 "$out/params_10k.csv"; sed -n "$((k + 2))p" "$out/params_10k.csv"; } >"$out/params_row.csv"
      IFS=, read -r gnabar gkbar amp < <(sed -n "$((k + 2))p" "$out/params_10k.csv")
      STARPU_NCPU=0 "$bundle/bin/hinestask" "${cell[@]}" --neurons 1 --params "$out/params_row.csv" \
        --spikes "$out/params_alone.csv" >/dev/null 2>&1
      STARPU_NCPU=0 "$bundle/bin/hinestask" "${cell[@]}" --neurons 1 --gnabar "$gnabar" --gkbar "$gkbar" \
        --stim-amp "$amp" --spikes "$out/params_options.csv" >/dev/null 2>&1
      want=$(awk -F, -v k="$k" 'NR > 1 && $1 == k { print $2 }' "$out/params_10k_spikes.csv" | paste -sd' ')
      alone=$(awk -F, 'NR > 1 { print $2 }' "$out/params_alone.csv" | paste -sd' ')
      options=$(awk -F, 'NR > 1 { print $2 }' "$out/params_options.csv" | paste -sd' ')
      count=$(echo "$want" | wc -w)
      echo "row $k: sweep $count spikes, alone $(echo "$alone" | wc -w), as options $(echo "$options" | wc -w)" >>"$out/params_rows.txt"
      if [ "$want" = "$alone" ] && [ "$want" = "$options" ]; then
        same=$((same + 1))
      else
        params_pass=0
        echo "FAIL: row $k: sweep [$want] alone [$alone] options [$options]" | tee -a "$out/params.txt"
      fi
    done
    echo "sampled rows with the sweep's spike times, bit for bit, alone and as options: $same of 20 ($(sort -u "$out/params_rows.txt" | awk '{print $4}' | sort -n | paste -sd' ') spikes each)" | tee -a "$out/params.txt"
    # (3) The cost.
    python3 scripts/make_params.py "$out/params_256k.csv" --neurons 256000 --columns gnabar,gkbar,stim_amp
    echo "hh,params,repeat,ms_per_step,compartment_solves_per_s" >"$out/bench_params.csv"
    for repeat in 1 2 3; do
      for hh in all soma; do
        for sweep in none params; do
          extra=()
          [ "$sweep" = params ] && extra=(--params "$out/params_256k.csv")
          STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode mono --morph synthetic:medium-high \
            --neurons 256000 --hh "$hh" --steps 1000 "${extra[@]}" --force --json "$out/params_j.json" \
            >"$out/params_cost.log" 2>&1 || echo "cost run $hh $sweep: exit status $?"
          python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('%s,%s,%s,%.6f,%.6g' % (sys.argv[2], sys.argv[3], sys.argv[4], j['seconds_per_step'] * 1e3, j['compartment_solves_per_s']))" \
            "$out/params_j.json" "$hh" "$sweep" "$repeat" >>"$out/bench_params.csv"
        done
      done
    done
    rm -f "$out/params_j.json" "$out/params_256k.csv" "$out/params_row.csv"
    python3 - "$out/bench_params.csv" <<'PY' | tee -a "$out/params.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = True
for hh in ("all", "soma"):
    ms = {s: statistics.median(float(r["ms_per_step"]) for r in rows if r["hh"] == hh and r["params"] == s)
          for s in ("none", "params")}
    ratio = ms["params"] / ms["none"]
    ok &= ratio <= 1.05
    print("%s: HH %s, 256,000 neurons: %.4f ms/step without --params, %.4f with (x%.3f, limit 1.05)"
          % ("PASS" if ratio <= 1.05 else "FAIL", hh, ms["none"], ms["params"], ratio))
sys.exit(0 if ok else 1)
PY
    [ $? = 0 ] || params_pass=0
    [ "$params_pass" = 1 ] && echo "bench-params: PASS" || echo "bench-params: FAIL"
    ;;
  bench-cell)
    # Issue 19: the cell-block kernel (--level-kernel cell: one launch per step, a thread block
    # sweeps every level of a few neurons) against the level kernels, on small batches of one
    # cell. (1) --verify on the GPU only; (2) the same spikes on CPU workers and on the GPU (the
    # CPU runs the kernel's host emulation: same bits); (3) timings, levels vs cell, then the
    # cell kernel's block shapes. About 3 minutes on an H200.
    echo "== cell-block kernel on the GPU only against the sequential reference"
    cell_pass=1
    ca1=morph/data/morph_ca1_n120.swc
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for hh in none all; do
      for batch in ca1-500 ca1-3000 mix-600; do
        case $batch in
        ca1-*) args=(--morph "$ca1" --neurons "${batch#ca1-}") ;;
        mix-*) args=("${mix[@]}" --neurons "${batch#mix-}") ;;
        esac
        if ! STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "${args[@]}" --hh $hh \
          --stim-amp 1 --steps 200 --level-kernel cell --verify 2>&1 |
          sed "s/^/cell $batch hh $hh: /" | tee -a "$out/verify_cell.txt"; then
          cell_pass=0
        fi
      done
    done
    grep -q 'verify:.*: ok' "$out/verify_cell.txt" && [ "$(grep -c 'verify:.*: ok' "$out/verify_cell.txt")" = 6 ] ||
      cell_pass=0
    echo "== same spikes, cell kernel on CPU workers (host emulation) and on the GPU"
    for workers in cpu gpu; do
      placement=(STARPU_NCUDA=0)
      [ $workers = gpu ] && placement=(STARPU_NCPU=0)
      env "${placement[@]}" "$bundle/bin/hinestask" --quiet --mode multi --morph "$ca1" \
        --neurons 120 --hh all --stim-amp 1 --steps 800 --level-kernel cell \
        --spikes "$out/spikes_cell_$workers.csv" --force >"$out/spikes_cell_$workers.log" 2>&1 ||
        cell_pass=0
    done
    if [ "$(wc -l <"$out/spikes_cell_cpu.csv" 2>/dev/null || echo 0)" -ge 2 ] &&
      cmp "$out/spikes_cell_cpu.csv" "$out/spikes_cell_gpu.csv"; then
      echo "PASS: cell kernel, CPU workers vs GPU: identical spike files" | tee -a "$out/verify_cell.txt"
    else
      cell_pass=0
      echo "FAIL: cell kernel, CPU workers vs GPU: spike files differ or empty" | tee -a "$out/verify_cell.txt"
    fi
    echo "== timings, GPU only, 200 steps: level kernels vs cell-block kernel"
    csv=$out/bench_cell.csv
    commit=${HINESTASK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    echo "commit,gpu,cell,neurons,hh,kernel,cell_neurons_given,cell_neurons,repeat,compartments,seconds_per_step,g_compartment_steps_per_s" >"$csv"
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    cell_time() { # cell-spec neurons hh kernel cell-neurons(0: auto) repeat
      local extra=()
      [ "$5" != 0 ] && extra=(--cell-neurons "$5")
      STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi --morph "$1" --neurons "$2" \
        --hh "$3" --steps 200 --level-kernel "$4" "${extra[@]}" --force --json "$out/cell.json" &&
        python3 - "$out/cell.json" "$commit" "$gpu_name" "$(basename "$1" .swc)" "$2" "$3" "$4" "$5" "$6" >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
commit, gpu, cell, neurons, hh, kernel, given, repeat = sys.argv[2:10]
print(",".join(str(x) for x in [commit, gpu, cell, neurons, hh, kernel, given,
      j.get("cell_neurons", ""), repeat, j["compartments"], j["seconds_per_step"],
      j["compartment_solves_per_s"] / 1e9]))
PY
      tail -n 1 "$csv"
    }
    for repeat in 1 2; do
      for batch in "$ca1 500" "$ca1 3000" "$ca1 10000" "synthetic:medium-high 3000"; do
        for kernel in levels cell; do
          cell_time $batch none $kernel 0 $repeat
        done
      done
      for batch in "$ca1 500" "$ca1 3000"; do
        for kernel in levels cell; do
          cell_time $batch all $kernel 0 $repeat
        done
      done
    done
    echo "== the cell kernel's block shapes (neurons per block), passive"
    for neurons in 500 3000; do
      for per_block in 1 2 4 8 16; do
        cell_time "$ca1" $neurons none cell $per_block 1
      done
    done
    rm -f "$out/cell.json"
    [ "$cell_pass" = 1 ] && echo "bench-cell checks: PASS" || echo "bench-cell checks: FAIL"
    ;;
  bench-rates)
    # Issue #18 item 2: Hodgkin-Huxley everywhere with the rates from the tables (--hh-rates
    # table) against exact rates, on the GPU only: mono, 256,000 medium-high neurons, and multi,
    # the real-SWC mix (33,390 neurons); 3 repeats each way, alternating, into bench_rates.csv.
    # Then the tables' bits: CPU workers only against the GPU only, the probe files identical
    # (as check-bits, which runs the default, tables, under dmda too).
    echo "== HH everywhere: rate tables against exact rates, GPU only"
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    echo "batch,rates,repeat,neurons,steps,ms_per_step,G_compartments_per_s" >"$out/bench_rates.csv"
    for batch in mono multi; do
      if [ "$batch" = mono ]; then
        args=(--mode mono --morph synthetic:medium-high --neurons 256000 --steps 300)
      else
        args=(--mode multi "${mix[@]}" --neurons 33390 --steps 100)
      fi
      for repeat in 1 2 3; do
        for rates in exact table; do
          STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet "${args[@]}" --hh all --hh-rates "$rates" \
            --force --json "$out/rates.json" >"$out/rates_${batch}_$rates.log" 2>&1 &&
            throughput_row \
              "$out/rates.json" "$batch" "$rates" "$repeat" | tee -a "$out/bench_rates.csv" ||
            echo "$batch $rates: exit status $? (see rates_${batch}_$rates.log)"
        done
      done
    done
    rm -f "$out/rates.json"
    echo "== rate tables: same bits on CPU workers and on the GPU"
    steps=${HINES_BITS_STEPS:-1000}
    for batch in mono multi; do
      if [ "$batch" = mono ]; then
        args=(--mode mono --morph synthetic:medium-high --neurons 2560 --task-neurons 160)
        for p in 0:0 1:40 17:0 255:100 1000:7 2559:0 2559:318; do args+=(--probe "$p"); done
      else
        args=(--mode multi "${mix[@]}" --neurons 240 --task-neurons 24)
        for p in 0:0 1:3 5:0 17:7 100:0 239:2; do args+=(--probe "$p"); done
      fi
      for workers in cpu gpu; do
        case $workers in
        cpu) placement=(STARPU_NCUDA=0) ;;
        gpu) placement=(STARPU_NCPU=0) ;;
        esac
        env "${placement[@]}" "$bundle/bin/hinestask" --quiet "${args[@]}" --hh all --hh-rates table \
          --stim-amp 1 --steps "$steps" --probes "$out/rates_bits_${batch}_$workers.csv" \
          >"$out/rates_bits_${batch}_$workers.log" 2>&1 ||
          echo "$batch on $workers: exit status $? (see rates_bits_${batch}_$workers.log)"
      done
      if cmp "$out/rates_bits_${batch}_cpu.csv" "$out/rates_bits_${batch}_gpu.csv"; then
        echo "PASS: $batch with rate tables, CPU workers only vs GPU only: identical probe files" |
          tee -a "$out/rates_bits.txt"
      else
        echo "FAIL: $batch with rate tables, CPU workers only vs GPU only: probe files differ" |
          tee -a "$out/rates_bits.txt"
      fi
    done
    ;;
  bench-mech)
    # Issue #18 item 4 (channel mechanisms as data): the cost of the generic mechanism loop on
    # the GPU. Mono, 256,000 medium-high neurons, GPU only, 3 repeats alternating: hh
    # everywhere alone (the kernels' hh specialisation, the default; compare with bench-rates'
    # mono rows) and with the M current km everywhere or on the soma (the generic loop), with
    # rate tables and exact rates, into bench_mech.csv. Then the bits with km: CPU workers only
    # against the GPU only, the probe files identical (as check-bits).
    echo "== channel mechanisms: hh alone and hh + km, GPU only"
    echo "channels,rates,repeat,neurons,steps,ms_per_step,G_compartments_per_s" >"$out/bench_mech.csv"
    args=(--mode mono --morph synthetic:medium-high --neurons 256000 --steps 300)
    for repeat in 1 2 3; do
      for channels in hh:all hh:all,km:soma hh:all,km:all; do
        for rates in table exact; do
          STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet "${args[@]}" --channels "$channels" \
            --hh-rates "$rates" --force --json "$out/mech.json" >"$out/mech_${channels//[:,]/_}_$rates.log" 2>&1 &&
            throughput_row \
              "$out/mech.json" "\"$channels\"" "$rates" "$repeat" | tee -a "$out/bench_mech.csv" ||
            echo "$channels $rates: exit status $? (see mech_${channels//[:,]/_}_$rates.log)"
        done
      done
    done
    rm -f "$out/mech.json"
    echo "== hh + km: same bits on CPU workers and on the GPU"
    steps=${HINES_BITS_STEPS:-1000}
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for batch in mono multi; do
      if [ "$batch" = mono ]; then
        args=(--mode mono --morph synthetic:medium-high --neurons 2560 --task-neurons 160)
        for p in 0:0 1:40 17:0 255:100 1000:7 2559:0 2559:318; do args+=(--probe "$p"); done
      else
        args=(--mode multi "${mix[@]}" --neurons 240 --task-neurons 24)
        for p in 0:0 1:3 5:0 17:7 100:0 239:2; do args+=(--probe "$p"); done
      fi
      for channels in hh:all,km:all hh:soma,km:all; do
        for rates in table exact; do
          tag="${batch}_${channels//[:,]/_}_$rates"
          for workers in cpu gpu; do
            env "$(worker_placement $workers)" "$bundle/bin/hinestask" --quiet "${args[@]}" --channels "$channels" \
              --hh-rates "$rates" --stim-amp 1 --steps "$steps" --probes "$out/mech_bits_${tag}_$workers.csv" \
              >"$out/mech_bits_${tag}_$workers.log" 2>&1 ||
              echo "$tag on $workers: exit status $? (see mech_bits_${tag}_$workers.log)"
          done
          if cmp "$out/mech_bits_${tag}_cpu.csv" "$out/mech_bits_${tag}_gpu.csv"; then
            echo "PASS: $batch --channels $channels --hh-rates $rates, CPU workers only vs GPU only: identical probe files" |
              tee -a "$out/mech_bits.txt"
          else
            echo "FAIL: $batch --channels $channels --hh-rates $rates, CPU workers only vs GPU only: probe files differ" |
              tee -a "$out/mech_bits.txt"
          fi
        done
      done
    done
    ;;
  check-ih)
    # Issue 18: Ih as a third mechanism and every mechanism's --params columns. (1) Cost of the
    # larger generic code: mono 256,000 medium-high, GPU only, hh everywhere and with km on the
    # soma, without and with a 256,000-row sweep of gnabar, gkbar and stim_amp, this build
    # against the one before Ih ($bundle/bin/hinestask_before, when the bundle has it), 3
    # repeats alternating; (2) channel sets with ih, table rates; (3) bits: CPU workers only
    # against the GPU only, mono and multi with hh, km and ih, and a mono sweep of km and ih
    # columns. CSV ih_cost.csv, ih_bits.txt.
    # IH_PARTS (default "cost bits"), IH_SETS (the channel sets with ih timed),
    # IH_BITS_BATCHES (default "mono multi sweep") and IH_BITS_RATES ("table exact") pick parts;
    # IH_STIM_AMP (default 1 nA; negative: hyperpolarised cells, ih's table below -100 mV).
    echo "== Ih and mechanism columns: cost, channel sets, bits"
    ih_parts=${IH_PARTS:-cost bits}
    csv="$out/ih_cost.csv"
    echo "binary,channels,sweep,repeat,neurons,steps,ms_per_step,G_compartments_per_s" >"$csv"
    if [[ " $ih_parts " == *" cost "* ]]; then
      python3 scripts/make_params.py "$out/ih_hh_sweep.csv" --neurons 256000 --columns gnabar,gkbar,stim_amp
      python3 scripts/make_params.py "$out/ih_mech_sweep.csv" --neurons 256000 \
        --columns km.gbar,ih.gbar,ih.ehcn,stim_amp
      binaries=(after)
      [ -x "$bundle/bin/hinestask_before" ] && binaries=(before after)
      args=(--mode mono --morph synthetic:medium-high --neurons 256000 --steps 300 --quiet --force)
      # One timed run: build (before/after), channels, sweep (none, hh, mech), repeat.
      ih_cost_run() {
        local program="$bundle/bin/hinestask" extra=()
        [ "$1" = before ] && program="$bundle/bin/hinestask_before"
        [ "$3" = hh ] && extra=(--params "$out/ih_hh_sweep.csv")
        [ "$3" = mech ] && extra=(--params "$out/ih_mech_sweep.csv")
        STARPU_NCPU=0 "$program" "${args[@]}" --channels "$2" "${extra[@]}" \
          --json "$out/ih.json" >"$out/ih_run.log" 2>&1 &&
          throughput_row "$out/ih.json" "$1,\"$2\"" "$3" "$4" >>"$csv" ||
          echo "$1 $2 $3: exit status $? ($(tail -1 "$out/ih_run.log"))"
      }
      for repeat in 1 2 3; do
        for binary in "${binaries[@]}"; do
          for channels in ${IH_BASE_SETS:-hh:all hh:all,km:soma}; do
            ih_cost_run "$binary" "$channels" none "$repeat"
            ih_cost_run "$binary" "$channels" hh "$repeat"
          done
        done
        for channels in ${IH_SETS:-hh:all,ih:all hh:all,km:soma,ih:all hh:soma,ih:all}; do
          ih_cost_run after "$channels" none "$repeat"
          [[ "$channels" == *km* ]] && ih_cost_run after "$channels" mech "$repeat"
        done
      done
      rm -f "$out/ih.json" "$out/ih_hh_sweep.csv" "$out/ih_mech_sweep.csv"
      python3 - "$csv" <<'PY' | tee "$out/ih_cost.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keys = sorted({(r["binary"], r["channels"], r["sweep"]) for r in rows})
for k in keys:
    ms = [float(r["ms_per_step"]) for r in rows if (r["binary"], r["channels"], r["sweep"]) == k]
    print("%-7s %-22s sweep %-5s median %.4f ms/step (min %.4f, max %.4f, n %d)"
          % (k[0], k[1], k[2], statistics.median(ms), min(ms), max(ms), len(ms)))
PY
    fi
    [[ " $ih_parts " == *" bits "* ]] || continue
    steps=${HINES_BITS_STEPS:-600}
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    python3 scripts/make_params.py "$out/ih_bits_sweep.csv" --neurons 2560 \
      --columns km.gbar,ih.gbar,ih.ehcn,hh.ek,stim_amp
    for batch in ${IH_BITS_BATCHES:-mono multi sweep}; do
      case $batch in
      mono | sweep)
        bargs=(--mode mono --morph synthetic:medium-high --neurons 2560 --task-neurons 160)
        for p in 0:0 1:40 17:0 255:100 1000:7 2559:0 2559:318; do bargs+=(--probe "$p"); done
        [ "$batch" = sweep ] && bargs+=(--params "$out/ih_bits_sweep.csv")
        ;;
      multi)
        bargs=(--mode multi "${mix[@]}" --neurons 240 --task-neurons 24)
        for p in 0:0 1:3 5:0 17:7 100:0 239:2; do bargs+=(--probe "$p"); done
        ;;
      esac
      for rates in ${IH_BITS_RATES:-table exact}; do
        tag="${batch}_$rates"
        for workers in cpu gpu; do
          env "$(worker_placement $workers)" "$bundle/bin/hinestask" --quiet --force "${bargs[@]}" \
            --channels hh:all,km:soma,ih:all,ih.gbar=0.001 --hh-rates "$rates" --stim-amp "${IH_STIM_AMP:-1}" \
            --steps "$steps" --probes "$out/ih_bits_${tag}_$workers.csv" \
            --spikes "$out/ih_spikes_${tag}_$workers.csv" >"$out/ih_bits_${tag}_$workers.log" 2>&1 ||
            echo "$tag on $workers: exit status $? ($(tail -1 "$out/ih_bits_${tag}_$workers.log"))"
        done
        same_bytes "$out/ih_bits_${tag}_cpu.csv" "$out/ih_bits_${tag}_gpu.csv" \
          "$batch hh:all,km:soma,ih:all $rates, CPU workers only vs GPU only ($(($(wc -l <"$out/ih_spikes_${tag}_cpu.csv") - 1)) spikes)" \
          "$out/ih_bits.txt"
        cmp -s "$out/ih_spikes_${tag}_cpu.csv" "$out/ih_spikes_${tag}_gpu.csv" ||
          echo "FAIL: $tag spike files differ" | tee -a "$out/ih_bits.txt"
        rm -f "$out/ih_bits_${tag}_"*.csv "$out/ih_spikes_${tag}_"*.csv
      done
    done
    rm -f "$out/ih_bits_sweep.csv"
    ;;
  profile-multi-hh)
    # Where the HH multi step's time goes (issue 18: the mix at 25 G/s): ncu on the level
    # kernels of one step of the six shipped cells x 33,390 neurons, HH everywhere, against the
    # same passive; speed of light, occupancy, warp stalls, launch statistics (ncu_*.csv).
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    ncu_bin=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    for hh in all none; do
      STARPU_NCPU=0 timeout 240 "$ncu_bin" --clock-control none --kernel-name regex:"backward_kernel|forward_kernel" \
        --launch-skip "${NCU_SKIP:-400}" --launch-count "${NCU_COUNT:-72}" \
        --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats \
        --section MemoryWorkloadAnalysis --csv --page details \
        "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 33390 --task-neurons 33390 --hh $hh --steps 20 \
        >"$out/ncu_multi_hh_$hh.csv" 2>"$out/ncu_multi_hh_$hh.err" ||
        echo "ncu hh $hh: exit status $? ($(tail -2 "$out/ncu_multi_hh_$hh.err"))"
    done
    ;;
  bench-builds)
    # One batch set, several builds of hinestask side by side ($bundle/bin/hinestask and every
    # $bundle/bin/hinestask_VARIANT, e.g. built with -DLEVEL_PREFETCH=2), alternating, GPU
    # only, BUILDS_REPEATS repeats (default 2): the HH multi mix (the six shipped cells x
    # 33,390), the same passive, 3,000 CA1 cells with HH. builds.csv. BUILDS_ARGS: options added
    # to every run (e.g. "--level-kernel flow").
    echo "== builds side by side"
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    echo "build,batch,repeat,neurons,compartments,ms_per_step,G_compartments_per_s" >"$out/builds.csv"
    for repeat in $(seq "${BUILDS_REPEATS:-2}"); do
      for program in "$bundle/bin/hinestask" "$bundle"/bin/hinestask_*; do
        build=$(basename "$program")
        for batch in ${BUILDS_BATCHES:-mix-hh mix-passive ca1-3000-hh}; do
          case $batch in
          mix-*) bargs=(--mode multi "${mix[@]}" --neurons 33390 --steps 100) ;;
          six1044-*) bargs=(--mode multi "${mix[@]}" --neurons 1044 --steps 200) ;;
          random-*)
            bargs=(--mode multi --neurons 23585 --steps 100)
            for r in 1 2 3 4; do bargs+=(--morph synthetic:random:100:8000:$r); done
            ;;
          ca1-*)
            neurons=${batch#ca1-}
            bargs=(--mode multi --morph morph/data/morph_ca1_n120.swc --neurons "${neurons%%-*}" --steps 400)
            ;;
          esac
          case $batch in
          *-hh) bargs+=(--hh all) ;;
          *) bargs+=(--hh none) ;;
          esac
          read -r -a more <<<"${BUILDS_ARGS:-}" # extra options of every run
          STARPU_NCPU=0 timeout 120 "$program" --quiet --force "${bargs[@]}" "${more[@]}" --json "$out/b.json" >"$out/b.log" 2>&1 &&
            summary_row "$out/b.json" "$build" "$batch" "$repeat" | tee -a "$out/builds.csv" ||
            echo "$build $batch: exit status $? ($(tail -1 "$out/b.log"))"
        done
      done
    done
    rm -f "$out/b.json"
    ;;
  check-warps)
    # Warp sweeps (codelets/level_layout.h): the same bits as the thread sweeps and the CPU. HH
    # batches of CA1 cells, the six shipped cells in several chunks and random trees, on CPU
    # workers only and on the GPU with --level-warps off, all and auto (and CP with all, and 8 and
    # 16 lanes per branch): the probe files must be identical bytes; every GPU run passes --verify.
    echo "== warp sweeps: same bits as thread sweeps and CPU workers, --verify on the GPU"
    warps_pass=1
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for batch in ca1 mix random; do
      case $batch in
      ca1) args=(--morph morph/data/morph_ca1_n120.swc --neurons 300 --probe 0:0 --probe 7:2000 --probe 299:2600) ;;
      mix) args=("${mix[@]}" --neurons 240 --task-neurons 24 --probe 0:0 --probe 5:0 --probe 17:7 --probe 239:2) ;;
      random) args=(--morph synthetic:random:100:8000:1 --morph synthetic:random:100:8000:2 --neurons 40 --probe 0:0 --probe 39:50) ;;
      esac
      for run in cpu off all auto all-cp all-8 all-16 auto-8; do
        placement=(STARPU_NCPU=0) verify=(--verify) extra=()
        case $run in
        cpu) placement=(STARPU_NCUDA=0) verify=() ;;
        all-cp) extra=(--level-warps all --padding cp) ;;
        *-8 | *-16) extra=(--level-warps "${run%-*}" --warp-lanes "${run##*-}") ;;
        *) extra=(--level-warps $run) ;;
        esac
        [ $run = all-cp ] && [ $batch != ca1 ] && continue
        env "${placement[@]}" "$bundle/bin/hinestask" --quiet --mode multi "${args[@]}" --hh all \
          --stim-amp 1 --steps 400 "${extra[@]}" "${verify[@]}" --force \
          --probes "$out/warps_${batch}_$run.csv" >"$out/warps_run.log" 2>&1 || {
          warps_pass=0
          echo "FAIL: $batch $run: exit status $?"
        }
        sed "s/^/$batch $run: /" "$out/warps_run.log" | grep -iE 'verify|error' | tee -a "$out/warps_check.txt"
        [ $run = cpu ] || same_bytes "$out/warps_${batch}_cpu.csv" "$out/warps_${batch}_$run.csv" \
          "$batch, CPU workers vs GPU $run" "$out/warps_check.txt" || warps_pass=0
      done
      rm -f "$out"/warps_"${batch}"_*.csv
    done
    rm -f "$out/warps_run.log"
    [ "$warps_pass" = 1 ] && echo "check-warps: PASS" || echo "check-warps: FAIL"
    ;;
  bench-warps)
    # Warp sweeps against thread sweeps (--level-warps off, auto, all), GPU only, 100 steps: one
    # cell's small batches (passive and HH), the six cells' fixed cost (a step at 1,044 to 33,390
    # neurons), then every mix of bench_mixes.sh at mono's 81.66 M compartments. Environment:
    # WARP_LANES (lanes per branch to time, default 32), WARP_MODES (default "off auto all"),
    # WARP_MIX_MODES (the mixes' modes, default "off auto"; empty: no mixes).
    csv=$out/bench_warps.csv
    commit=${HINESTASK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    echo "date,commit,gpu,case,hh,warps,lanes,neurons,compartments,ms_per_step,g_per_s" >"$csv"
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    warps_time() { # case hh warps lanes hinestask-args...
      local case=$1 hh=$2 warps=$3 lanes=$4
      shift 4
      STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "$@" --hh "$hh" --steps 100 \
        --level-warps "$warps" --warp-lanes "$lanes" --force --json "$out/w.json" &&
        summary_row "$out/w.json" "$(date -u +%FT%TZ)" "$commit" "$gpu_name" "$case" "$hh" "$warps" \
          "$lanes" >>"$csv"
      tail -n 1 "$csv"
    }
    for lanes in ${WARP_LANES:-32}; do
      for warps in ${WARP_MODES:-off auto all}; do
        [ "$warps" = off ] && [ "$lanes" != "${WARP_LANES%% *}" ] && continue # off: once
        ca1=(--morph morph/data/morph_ca1_n120.swc)
        for n in 500 3000 10000; do
          warps_time ca1-$n none $warps $lanes "${ca1[@]}" --neurons $n
        done
        for n in 500 3000; do
          warps_time ca1-$n all $warps $lanes "${ca1[@]}" --neurons $n --stim-amp 1
        done
        warps_time medium-high-3000 none $warps $lanes --morph synthetic:medium-high --neurons 3000
        for n in 1044 4174 33390; do
          warps_time six-$n none $warps $lanes "${mix[@]}" --neurons $n
        done
        warps_time six-4174 all $warps $lanes "${mix[@]}" --neurons 4174 --stim-amp 1
        warps_time six-33390 all $warps $lanes "${mix[@]}" --neurons 33390 --stim-amp 1
      done
    done
    rm -f "$out/w.json"
    for warps in ${WARP_MIX_MODES-off auto}; do
      MIX_ARGS="--level-warps $warps" MIXES_ONLY=1 HINESTASK_COMMIT=$commit \
        scripts/bench_mixes.sh "$bundle/bin" "$out/mixes_warps_$warps.csv" "$bundle/morphologies"
    done
    ;;
  check-subtrees)
    # Leaf subtrees as systems (--level-subtrees, codelets/level_layout.h): the same bits on CPU
    # workers and on the GPU with the level kernels (warps auto and all with 8 lanes), the flow
    # kernel, the cell-block kernel and the on-chip cell kernel, the level kernels with rows built
    # apart (--level-rows apart: thread and warp sweeps, CP, parts) (RUNS: a subset), HH batches of
    # CA1 cells, the six shipped cells in several chunks and random trees, 400 steps, subtrees of at most SUBTREES compartments (default 32)
    # and branches cut at SPLIT compartments (--level-split, default off); every GPU run passes
    # --verify. Then test_multi_levels on the GPU (its subtree and split cases), when the bundle
    # has it.
    echo "== subtree systems (${SUBTREES:-32}), branches cut at ${SPLIT:-off}: same bits on CPU workers and every GPU kernel, --verify on the GPU" |
      tee -a "$out/subtrees_check.txt"
    subtrees_pass=1
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for batch in ca1 mix random; do
      case $batch in
      ca1) args=(--morph morph/data/morph_ca1_n120.swc --neurons 300 --probe 0:0 --probe 7:2000 --probe 299:2600) ;;
      mix) args=("${mix[@]}" --neurons 240 --task-neurons 24 --probe 0:0 --probe 5:0 --probe 17:7 --probe 239:2) ;;
      random) args=(--morph synthetic:random:100:8000:1 --morph synthetic:random:100:8000:2 --neurons 40 --probe 0:0 --probe 39:50 --probe 38:3000) ;;
      esac
      for run in ${RUNS:-cpu levels levels-all-8 flow cell shared}; do
        placement=(STARPU_NCPU=0) verify=(--verify) extra=()
        case $run in
        cpu) placement=(STARPU_NCUDA=0) verify=() ;;
        levels-all-8) extra=(--level-warps all --warp-lanes 8) ;;
        flow) extra=(--level-kernel flow) ;;
        cell) extra=(--level-kernel cell) ;;
        shared) extra=(--level-kernel shared) ;;
        rows-apart) extra=(--level-rows apart) ;;
        rows-apart-all-8) extra=(--level-rows apart --level-warps all --warp-lanes 8) ;;
        rows-apart-cp) extra=(--level-rows apart --padding cp) ;;
        rows-apart-parts) extra=(--level-rows apart --task-parts 3) ;;
        esac
        env "${placement[@]}" timeout 120 "$bundle/bin/hinestask" --quiet --mode multi "${args[@]}" \
          --hh all --stim-amp 1 --steps 400 --level-subtrees "${SUBTREES:-32}" \
          --level-split "${SPLIT:-off}" "${extra[@]}" \
          "${verify[@]}" --force --probes "$out/subtrees_${batch}_$run.csv" >"$out/subtrees_run.log" 2>&1 || {
          subtrees_pass=0
          echo "FAIL: $batch $run: exit status $?"
        }
        sed "s/^/$batch $run: /" "$out/subtrees_run.log" | grep -iE 'verify|error' | cut -c1-160 |
          tee -a "$out/subtrees_check.txt"
        [ $run = cpu ] || same_bytes "$out/subtrees_${batch}_cpu.csv" "$out/subtrees_${batch}_$run.csv" \
          "$batch, CPU workers vs GPU $run" "$out/subtrees_check.txt" || subtrees_pass=0
      done
      rm -f "$out"/subtrees_"${batch}"_*.csv
    done
    rm -f "$out/subtrees_run.log"
    if [ -x "$bundle/bin/test_multi_levels" ]; then
      STARPU_NCPU=0 timeout 300 "$bundle/bin/test_multi_levels" >"$out/subtrees_test_multi_levels.txt" 2>&1 ||
        subtrees_pass=0
      grep -E 'subtree|cut at|on-chip|FAILED|PASSED' "$out/subtrees_test_multi_levels.txt" | tee -a "$out/subtrees_check.txt"
    fi
    [ "$subtrees_pass" = 1 ] && echo "check-subtrees: PASS" || echo "check-subtrees: FAIL"
    ;;
  check-flow)
    # The flow kernel (--level-kernel flow, codelets/level_flow.h): the same bits as the level
    # kernels and the CPU. HH batches of CA1 cells, the six shipped cells in several chunks and
    # random trees, on CPU workers, then on the GPU with the level kernels and the flow kernel
    # (warps auto, off, all with 8 lanes, CP): identical probe files; every GPU run passes
    # --verify. Then test_multi_levels on the GPU (its flow cases compare the flow kernel with
    # the level kernels and the sequential reference), when the bundle has it.
    echo "== flow kernel: same bits as the level kernels and CPU workers, --verify on the GPU"
    flow_pass=1
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for batch in ca1 mix random; do
      case $batch in
      ca1) args=(--morph morph/data/morph_ca1_n120.swc --neurons 300 --probe 0:0 --probe 7:2000 --probe 299:2600) ;;
      mix) args=("${mix[@]}" --neurons 240 --task-neurons 24 --probe 0:0 --probe 5:0 --probe 17:7 --probe 239:2) ;;
      random) args=(--morph synthetic:random:100:8000:1 --morph synthetic:random:100:8000:2 --neurons 40 --probe 0:0 --probe 39:50) ;;
      esac
      for run in cpu levels flow flow-off flow-all-8 flow-cp; do
        placement=(STARPU_NCPU=0) verify=(--verify) extra=(--level-kernel flow)
        case $run in
        cpu) placement=(STARPU_NCUDA=0) verify=() extra=() ;;
        levels) extra=() ;;
        flow-off) extra+=(--level-warps off) ;;
        flow-all-8) extra+=(--level-warps all --warp-lanes 8) ;;
        flow-cp) extra+=(--padding cp) ;;
        esac
        env "${placement[@]}" timeout 120 "$bundle/bin/hinestask" --quiet --mode multi "${args[@]}" \
          --hh all --stim-amp 1 --steps 400 "${extra[@]}" "${verify[@]}" --force \
          --probes "$out/flow_${batch}_$run.csv" >"$out/flow_run.log" 2>&1 || {
          flow_pass=0
          echo "FAIL: $batch $run: exit status $?"
        }
        sed "s/^/$batch $run: /" "$out/flow_run.log" | grep -iE 'verify|error' | cut -c1-160 |
          tee -a "$out/flow_check.txt"
        [ $run = cpu ] || same_bytes "$out/flow_${batch}_cpu.csv" "$out/flow_${batch}_$run.csv" \
          "$batch, CPU workers vs GPU $run" "$out/flow_check.txt" || flow_pass=0
      done
      rm -f "$out"/flow_"${batch}"_*.csv
    done
    rm -f "$out/flow_run.log"
    if [ -x "$bundle/bin/test_multi_levels" ]; then
      STARPU_NCPU=0 timeout 300 "$bundle/bin/test_multi_levels" >"$out/flow_test_multi_levels.txt" 2>&1 ||
        flow_pass=0
      grep -E 'flow|FAILED|PASSED' "$out/flow_test_multi_levels.txt" | tee -a "$out/flow_check.txt"
    fi
    [ "$flow_pass" = 1 ] && echo "check-flow: PASS" || echo "check-flow: FAIL"
    ;;
  bench-flow)
    # The flow kernel against the level kernels, GPU only, 100 steps, FLOW_REPEATS repeats
    # (default 2), the two kernels alternating: one cell's small batches, the six cells from
    # their fixed cost (1,044 neurons) to 33,390, passive and HH; with two GPUs, the six cells x
    # 33,390 on one GPU and on both (issue 15's ratio); then every mix of bench_mixes.sh at
    # mono's compartments with each kernel (FLOW_MIXES=0: none).
    csv=$out/bench_flow.csv
    commit=${HINESTASK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
    echo "date,commit,gpu,case,hh,kernel,gpus,repeat,neurons,compartments,ms_per_step,g_per_s" >"$csv"
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    flow_time() { # case hh kernel gpus repeat hinestask-args...
      local case=$1 hh=$2 kernel=$3 ngpus=$4 repeat=$5
      shift 5
      STARPU_NCPU=0 STARPU_NCUDA=$ngpus timeout 120 "$bundle/bin/hinestask" --quiet --mode multi "$@" \
        --hh "$hh" --steps 100 --level-kernel "$kernel" --force --json "$out/f.json" &&
        summary_row "$out/f.json" "$(date -u +%FT%TZ)" "$commit" "$gpu_name" "$case" "$hh" "$kernel" \
          "$ngpus" "$repeat" >>"$csv"
      tail -n 1 "$csv"
    }
    for repeat in $(seq "${FLOW_REPEATS:-2}"); do
      for kernel in levels flow; do
        ca1=(--morph morph/data/morph_ca1_n120.swc)
        for n in 500 3000; do
          flow_time ca1-$n none $kernel 1 $repeat "${ca1[@]}" --neurons $n
          flow_time ca1-$n all $kernel 1 $repeat "${ca1[@]}" --neurons $n --stim-amp 1
        done
        for n in 1044 33390; do
          flow_time six-$n none $kernel 1 $repeat "${mix[@]}" --neurons $n
          flow_time six-$n all $kernel 1 $repeat "${mix[@]}" --neurons $n --stim-amp 1
        done
        flow_time random-23585 none $kernel 1 $repeat --morph synthetic:random:100:8000:1 \
          --morph synthetic:random:100:8000:2 --morph synthetic:random:100:8000:3 \
          --morph synthetic:random:100:8000:4 --neurons 23585
        if [ "$gpus" -ge 2 ]; then
          flow_time six-33390 none $kernel 2 $repeat "${mix[@]}" --neurons 33390
          flow_time six-33390 all $kernel 2 $repeat "${mix[@]}" --neurons 33390 --stim-amp 1
        fi
      done
    done
    rm -f "$out/f.json"
    if [ "${FLOW_MIXES:-1}" = 1 ]; then
      for kernel in levels flow; do
        STARPU_NCPU=0 STARPU_NCUDA=1 MIX_ARGS="--level-kernel $kernel" MIXES_ONLY=1 \
          HINESTASK_COMMIT=$commit \
          scripts/bench_mixes.sh "$bundle/bin" "$out/mixes_$kernel.csv" "$bundle/morphologies"
      done
    fi
    ;;
  bench-cell-warps)
    # The cell-block kernel (one launch a step, a barrier between levels) with warp sweeps for
    # the levels' longest branches: the same bits as the CPU (the kernel's host emulation), then
    # ms per step against the level kernels, GPU only, 100 steps.
    echo "== cell kernel with warp sweeps: same bits as CPU workers, --verify on the GPU"
    cw_pass=1
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for batch in ca1 mix; do
      case $batch in
      ca1) args=(--morph morph/data/morph_ca1_n120.swc --neurons 300 --probe 0:0 --probe 7:2000 --probe 299:2600) ;;
      mix) args=("${mix[@]}" --neurons 240 --task-neurons 24 --probe 0:0 --probe 5:0 --probe 17:7 --probe 239:2) ;;
      esac
      for run in cpu off auto all; do
        placement=(STARPU_NCPU=0) verify=(--verify)
        [ $run = cpu ] && placement=(STARPU_NCUDA=0) verify=()
        w=$run
        [ $run = cpu ] && w=off
        env "${placement[@]}" "$bundle/bin/hinestask" --quiet --mode multi "${args[@]}" --hh all \
          --stim-amp 1 --steps 400 --level-kernel cell --level-warps $w "${verify[@]}" --force \
          --probes "$out/cw_${batch}_$run.csv" >"$out/cw_run.log" 2>&1 || {
          cw_pass=0
          echo "FAIL: $batch $run: exit status $?"
        }
        grep -iE 'verify|error' "$out/cw_run.log" | sed "s/^/$batch $run: /" | cut -c1-120
        [ $run = cpu ] || same_bytes "$out/cw_${batch}_cpu.csv" "$out/cw_${batch}_$run.csv" \
          "cell kernel, $batch, CPU workers vs GPU warps $run" "$out/cell_warps_check.txt" || cw_pass=0
      done
      rm -f "$out"/cw_"${batch}"_*.csv
    done
    rm -f "$out/cw_run.log"
    [ "$cw_pass" = 1 ] && echo "cell warps check: PASS" || echo "cell warps check: FAIL"
    csv=$out/bench_cell_warps.csv
    commit=${HINESTASK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    echo "date,commit,gpu,case,hh,kernel,warps,neurons,compartments,ms_per_step,g_per_s" >"$csv"
    for rep in 1 2; do
      for batch in ca1-500 ca1-3000 six-1044 six-4174; do
        case $batch in
        ca1-*) args=(--morph morph/data/morph_ca1_n120.swc --neurons "${batch#ca1-}") ;;
        six-*) args=("${mix[@]}" --neurons "${batch#six-}") ;;
        esac
        for hh in none all; do
          for kw in levels:auto cell:off cell:auto cell:all; do
            STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "${args[@]}" --hh $hh \
              --stim-amp 1 --steps 100 --level-kernel "${kw%:*}" --level-warps "${kw#*:}" --force \
              --json "$out/cw.json" &&
              summary_row "$out/cw.json" "$(date -u +%FT%TZ)" "$commit" "$gpu_name" $batch $hh \
                "${kw%:*}" "${kw#*:}" >>"$csv"
            tail -n 1 "$csv"
          done
        done
      done
    done
    rm -f "$out/cw.json"
    ;;
  bench-levels)
    # What one level costs the level solver: combs (synthetic:comb:T, T levels of one-compartment
    # branches) of 50, 100 and 200 levels, 1 to 10,000 neurons, early and plain launches, GPU
    # only, 200 steps; ms per step over 2 T kernels a step gives the cost of a kernel boundary.
    csv=$out/bench_levels.csv
    commit=${HINESTASK_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
    gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    echo "date,commit,gpu,teeth,neurons,gpu_launch,ms_per_step,us_per_kernel" >"$csv"
    for launch in early plain; do
      for teeth in 50 100 200; do
        for n in 1 1000 10000; do
          STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi --morph synthetic:comb:$teeth \
            --neurons $n --steps 200 --gpu-launch $launch --force --json "$out/l.json" &&
            python3 - "$out/l.json" "$(date -u +%FT%TZ)" "$commit" "$gpu_name" $teeth $n $launch >>"$csv" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
ms = j["seconds_per_step"] * 1e3
print(",".join(sys.argv[2:8] + ["%.4f" % ms, "%.2f" % (ms * 1e3 / (2 * int(sys.argv[5])))]))
PY
          tail -n 1 "$csv"
        done
      done
    done
    rm -f "$out/l.json"
    ;;
  bench-mono)
    scripts/bench_mono.sh "$bundle/bin" "$out/bench_mono.csv" ${HINES_BENCH_SIZES:-}
    ;;
  bench-multi)
    scripts/bench_multi.sh "$bundle/bin" "$out/bench_multi.csv"
    ;;
  bench-realmix)
    HINES_BENCH_ONLY=realmix scripts/bench_multi.sh "$bundle/bin" "$out/bench_realmix.csv"
    ;;
  bench-hetero)
    scripts/bench_hetero.sh "$bundle/bin" "$out"
    ;;
  bench-sched)
    DATA=$PWD/morph/data scripts/bench_sched.sh "$bundle/bin" "$out"
    ;;
  bench-sched-two)
    DATA=$PWD/morph/data scripts/bench_sched.sh "$bundle/bin" "$out" two
    ;;
  bench-mpi)
    # Issue 20: 2 ranks x 1 GPU (mpirun, StarPU-MPI) against 1 rank x 1 GPU and 1 rank x 2 GPUs.
    DATA=$PWD/morph/data scripts/bench_mpi.sh "$bundle/bin" "$out/bench_mpi.csv"
    ;;
  extras)
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    echo "== out-of-core: 256,000 neurons (1.3 GB) through 512 MB of GPU memory"
    STARPU_LIMIT_CUDA_MEM=512 STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode mono \
      --neurons 256000 --task-neurons 16000 --steps 20 --verify --force --json "$out/out_of_core.json" 2>&1 |
      tee "$out/out_of_core.txt"
    echo "== simulator throughput: real-SWC mix with HH everywhere, GPU and 16 CPU cores"
    STARPU_NCPU=0 "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 33390 \
      --hh all --steps 100 --force --json "$out/sim_gpu.json" && grep -E 'per_step|solves' "$out/sim_gpu.json"
    STARPU_NCUDA=0 "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" --neurons 3339 \
      --hh all --steps 40 --task-neurons 100 --force --json "$out/sim_cpu.json" && grep -E 'per_step|solves|cpu_workers' "$out/sim_cpu.json"
    ;;
  two-gpus)
    echo "== 256,000 medium-high neurons, data resident: 1 GPU vs 2 GPUs (one chunk per GPU)"
    for gpus in 1 2 1 2; do
      STARPU_NCPU=0 STARPU_NCUDA=$gpus STARPU_SCHED=dmda "$bundle/bin/hinestask" --quiet \
        --mode mono --neurons 256000 --steps 300 --force --json "$out/j.json" &&
        python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('gpus', sys.argv[2], 'ms/step', round(j['seconds_per_step']*1e3, 4), 'G/s', round(j['compartment_solves_per_s']/1e9, 2))" "$out/j.json" $gpus | tee -a "$out/two_gpus.txt"
    done
    mix=()
    for f in morph/data/*.swc; do mix+=(--morph "$f"); done
    for gpus in 1 2; do
      STARPU_NCPU=0 STARPU_NCUDA=$gpus "$bundle/bin/hinestask" --quiet --mode multi "${mix[@]}" \
        --neurons 33390 --steps 100 --force --json "$out/j.json" &&
        python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print('multi real mix, gpus', sys.argv[2], 'ms/step', round(j['seconds_per_step']*1e3, 4), 'G/s', round(j['compartment_solves_per_s']/1e9, 2))" "$out/j.json" $gpus | tee -a "$out/two_gpus.txt"
    done
    STARPU_NCPU=0 STARPU_NCUDA=2 STARPU_SCHED=dmda "$bundle/bin/hinestask" --quiet --mode mono \
      --neurons 256000 --steps 6 --trace "$out/trace-2gpus" &&
      tar -C "$out" -czf "$out/trace-2gpus.tar.gz" trace-2gpus/paje.trace trace-2gpus/tasks.rec \
        trace-2gpus/data.rec trace-2gpus/dag.dot && rm -rf "$out/trace-2gpus"
    rm -f "$out/j.json"
    ;;
  bandwidth)
    "$bundle/bin/hines_bench" copy-bandwidth - 4096 20 flat | tee "$out/copy_bandwidth.txt"
    ;;
  bench-tridiag)
    scripts/bench_tridiag.sh "$bundle/bin" "$out/bench_tridiag.csv" 2>"$out/bench_tridiag.log"
    tail -n 5 "$out/bench_tridiag.log"
    ;;
  esac
done
