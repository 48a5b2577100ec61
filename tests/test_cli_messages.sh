#!/usr/bin/env bash
# What hinestask tells the person running it, for runs it accepts: a warning (stderr, exit 0)
# for every option that does not apply and for more CPU workers than cores; progress lines on
# stderr off a terminal too, none with --quiet; the verification's honest count; the default
# job's real stimulus; singular and plural.
# Usage: tests/test_cli_messages.sh HINESTASK   (ctest passes the built program; TAP output)
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
hinestask=$(cd "$(dirname "$hinestask")" && pwd)/$(basename "$hinestask")
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0} STARPU_NCPU=${STARPU_NCPU:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_cli_messages.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2

n=0
failed=0
# expect NAME PATTERN FILE: one TAP line, whether FILE has a line matching the ERE PATTERN.
expect() {
  n=$((n + 1))
  if grep -q -E -- "$2" "$3"; then
    echo "ok $n - $1"
  else
    failed=$((failed + 1))
    echo "not ok $n - $1"
    echo "# expected a line matching: $2"
    sed 's/^/# /' "$3" | tail -n 15
  fi
}
refute() { # refute NAME PATTERN FILE: no line matches
  n=$((n + 1))
  if grep -q -E -- "$2" "$3"; then
    failed=$((failed + 1))
    echo "not ok $n - $1"
    grep -E -- "$2" "$3" | sed 's/^/# /' | head -n 5
  else
    echo "ok $n - $1"
  fi
}
# run NAME ARGS...: runs hinestask with stdout in NAME.out, stderr in NAME.err, status in NAME.rc
run() {
  local name=$1
  shift
  "$hinestask" "$@" >"$name.out" 2>"$name.err" </dev/null
  echo $? >"$name.rc"
}
tiny=(--morph synthetic:small-low --neurons 4 --steps 3)

run layout_multi --mode multi "${tiny[@]}" --layout block --block-size 8 --cpu-group 4 \
  --task-steps 4 --multi-tasks levels --quiet
expect "--layout in a multi run: warned, run accepted" '^0$' layout_multi.rc
expect "--layout in a multi run: the warning names it" \
  '^hinestask: warning: --layout applies to --mode mono only .*; ignored$' layout_multi.err
expect "--block-size in a multi run: warned" '^hinestask: warning: --block-size applies to --mode mono only; ignored$' layout_multi.err
expect "--cpu-group in a multi run: warned" '^hinestask: warning: --cpu-group applies to --mode mono only; ignored$' layout_multi.err
expect "--task-steps with per-level tasks: warned" '^hinestask: warning: --task-steps applies to chunk tasks only .*; ignored$' layout_multi.err

run multi_options_mono --mode mono "${tiny[@]}" --padding cp --multi-tasks levels --trunk-below 3 --quiet
for option in --padding --multi-tasks --trunk-below; do
  expect "$option in a mono run: warned" "^hinestask: warning: $option applies to --mode multi only; ignored\$" multi_options_mono.err
done
run block_size_interleaved --mode mono "${tiny[@]}" --layout interleaved --block-size 8 --quiet
expect "--block-size with the interleaved layout: warned" \
  '^hinestask: warning: --block-size applies to the block and shared layouts only; ignored$' block_size_interleaved.err
# The mono layout on CPU workers only: block unless asked (simulation_choose_layout); --block-size
# alone asks for blocks of that size.
run layout_auto --mode mono "${tiny[@]}" --quiet --json layout_auto.json
expect "CPU workers only: the block layout by default" '"layout": "block"' layout_auto.json
expect "the layout chosen automatically, in the JSON" '"layout_asked": "auto"' layout_auto.json
run layout_given --mode mono "${tiny[@]}" --layout interleaved --quiet --json layout_given.json
expect "--layout interleaved kept on CPU workers" '"layout": "interleaved"' layout_given.json
run block_size_alone --mode mono "${tiny[@]}" --block-size 8 --quiet --json block_size_alone.json
expect "--block-size alone: the block layout" '"layout": "block"' block_size_alone.json
expect "--block-size alone: its size" '"block_size": 8([^0-9]|$)' block_size_alone.json
refute "--block-size alone: no warning" 'block-size' block_size_alone.err
run levels_options --mode multi "${tiny[@]}" --multi-tasks levels --gpu-launch plain --task-parts 2 --quiet
expect "--gpu-launch with level tasks: warned" '^hinestask: warning: --gpu-launch applies to chunk tasks only' levels_options.err
expect "--task-parts with level tasks: warned" '^hinestask: warning: --task-parts applies to chunk tasks only' levels_options.err
run cell_options --mode multi "${tiny[@]}" --level-kernel cell --trunk-below 3 --gpu-launch plain --warp-lanes 8 --quiet
expect "--trunk-below with the cell kernel: warned" '^hinestask: warning: --trunk-below does not apply to --level-kernel cell' cell_options.err
expect "--gpu-launch with the cell kernel: warned" '^hinestask: warning: --gpu-launch does not apply to --level-kernel cell' cell_options.err
expect "--warp-lanes with the cell kernel: warned" '^hinestask: warning: --warp-lanes does not apply to --level-kernel cell' cell_options.err
expect "the cell kernel's run: accepted" '^0$' cell_options.rc
run flow_options --mode multi "${tiny[@]}" --level-kernel flow --trunk-below 3 --gpu-launch plain --quiet
expect "--trunk-below with the flow kernel: warned" '^hinestask: warning: --trunk-below does not apply to --level-kernel flow' flow_options.err
expect "--gpu-launch with the flow kernel: warned" '^hinestask: warning: --gpu-launch does not apply to --level-kernel flow' flow_options.err
expect "the flow kernel's run: accepted" '^0$' flow_options.rc
run trunk_auto --mode multi "${tiny[@]}" --trunk-branches 2 --hh none --quiet
expect "--trunk-branches where auto runs the branch kernel: warned" '^hinestask: warning: --trunk-branches applies to the level kernels, and --level-kernel auto ran the branch kernel .*; ignored$' trunk_auto.err
expect "--trunk-branches where auto runs the branch kernel: accepted" '^0$' trunk_auto.rc
run trunk_levels --mode multi "${tiny[@]}" --trunk-branches 2 --hh none --level-kernel levels --quiet
refute "--trunk-branches with the level kernels: no warning" 'warning' trunk_levels.err
expect "--trunk-branches with the level kernels: accepted" '^0$' trunk_levels.rc
run trunk_cell --mode multi "${tiny[@]}" --trunk-branches 2 --hh none --level-kernel cell --quiet
expect "--trunk-branches with the cell kernel: warned" '^hinestask: warning: --trunk-branches does not apply to --level-kernel cell' trunk_cell.err
run warps_mono --mode mono "${tiny[@]}" --level-warps off --warp-lanes 8 --quiet
for option in --level-warps --warp-lanes; do
  expect "$option in a mono run: warned" "^hinestask: warning: $option applies to --mode multi only; ignored\$" warps_mono.err
done
run subtrees_mono --mode mono "${tiny[@]}" --level-subtrees 64 --level-split 32 --quiet
for option in --level-subtrees --level-split; do
  expect "$option in a mono run: warned" "^hinestask: warning: $option applies to --mode multi only; ignored\$" subtrees_mono.err
done
run rows_flow --mode multi "${tiny[@]}" --level-kernel flow --level-rows apart --hh all --quiet
expect "--level-rows with the flow kernel: warned" '^hinestask: warning: --level-rows applies to --level-kernel levels only' rows_flow.err
run rows_mono --mode mono "${tiny[@]}" --level-rows apart --quiet
expect "--level-rows in a mono run: warned" '^hinestask: warning: --level-rows applies to --mode multi only; ignored$' rows_mono.err
run rows_auto --mode multi "${tiny[@]}" --hh all --quiet --json rows_auto.json
expect "rows apart by level size (auto) in the JSON" '"level_rows": "auto"' rows_auto.json
expect "the level size below which rows are built apart in the JSON" '"rows_apart_below": [1-9]' rows_auto.json
run rows_fused --mode multi "${tiny[@]}" --hh all --level-rows fused --quiet --json rows_fused.json
expect "--level-rows fused in the JSON" '"level_rows": "fused"' rows_fused.json
run rows_below --mode multi "${tiny[@]}" --hh all --level-rows 100 --quiet --json rows_below.json
expect "--level-rows N in the JSON" '"level_rows": "100"' rows_below.json
expect "--level-rows N: its limit in the JSON" '"rows_apart_below": 100([^0-9]|$)' rows_below.json
# --trunk-branches auto (the default): a trunk only for cells whose levels near the root form a
# long chain; the JSON says what was asked and how many levels the trunk took
run trunk_none --mode multi "${tiny[@]}" --level-kernel levels --quiet --json trunk_none.json
expect "default trunk asked in the JSON" '"trunk_branches": "auto"' trunk_none.json
expect "small cells: no trunk" '"trunk_levels": 0([^0-9]|$)' trunk_none.json
chain=(--morph synthetic:tree:20000:50 --neurons 2 --steps 2 --level-kernel levels --quiet)
run trunk_auto --mode multi "${chain[@]}" --json trunk_auto.json
expect "a long chain near the root: a trunk by default" '"trunk_levels": [1-9]' trunk_auto.json
run trunk_off --mode multi "${chain[@]}" --trunk-branches 0 --json trunk_off.json
expect "--trunk-branches 0: no trunk" '"trunk_levels": 0([^0-9]|$)' trunk_off.json
expect "--trunk-branches 0 in the JSON" '"trunk_branches": 0([^0-9.]|$)' trunk_off.json
run trunk_hh --mode multi "${chain[@]}" --hh all --json trunk_hh.json
expect "with channels: no trunk, no complaint" '"trunk_levels": 0([^0-9]|$)' trunk_hh.json
refute "with channels: no warning about the default trunk" 'trunk' trunk_hh.err
run priorities_default --mode multi "${tiny[@]}" --quiet --json priorities_default.json
expect "small levels first by default (small chunks), in the JSON" '"level_priorities": "on"' priorities_default.json
expect "--level-priorities auto by default, in the JSON" '"level_priorities_asked": "auto"' priorities_default.json
expect "stored pivots by default, in the JSON" '"level_pivots": "auto"' priorities_default.json
expect "--arrange auto by default, in the JSON" '"arrange_asked": "auto"' priorities_default.json
run arranged_cpus --mode multi --morph synthetic:small-low --morph synthetic:medium-high --neurons 40 --task-neurons 10 --steps 3 --quiet --json arranged_cpus.json
expect "CPU workers alone: every chunk laid out by morphology, in the JSON" '"arranged_neurons": 38' arranged_cpus.json
run arranged_off --mode multi --morph synthetic:small-low --morph synthetic:medium-high --neurons 40 --task-neurons 10 --steps 3 --arrange off --quiet --json arranged_off.json
expect "--arrange off: round robin, in the JSON" '"arranged_neurons": 0' arranged_off.json
expect "--arrange off asked, in the JSON" '"arrange_asked": "off"' arranged_off.json
expect "no GPU: no chunk cut in aligned copies, in the JSON" '"aligned_neurons": 0([^0-9]|$)' arranged_off.json
expect "no GPU: no warps of a cell taken from the share, in the JSON" '"aligned_tail_neurons": 0([^0-9]|$)' arranged_off.json
run arrange_mono --mode mono "${tiny[@]}" --arrange on --quiet
expect "--arrange with mono: warned" '^hinestask: warning: --arrange applies to --mode multi only' arrange_mono.err
run priorities_off --mode multi "${tiny[@]}" --level-priorities off --quiet --json priorities_off.json
expect "--level-priorities off in the JSON" '"level_priorities": "off"' priorities_off.json
expect "--level-priorities off asked, in the JSON" '"level_priorities_asked": "off"' priorities_off.json
run priorities_flow --mode multi "${tiny[@]}" --level-kernel flow --level-priorities off --quiet
expect "--level-priorities with the flow kernel: warned" '^hinestask: warning: --level-priorities applies to --level-kernel levels only' priorities_flow.err
run priorities_mono --mode mono "${tiny[@]}" --level-priorities on --quiet
expect "--level-priorities in a mono run: warned" '^hinestask: warning: --level-priorities applies to --mode multi only; ignored$' priorities_mono.err
expect "lean small levels by default, in the JSON" '"level_lean": "on"' priorities_default.json
# The options after the 64th are recorded too: a 64-bit mask once dropped --el-hh (the 65th
# when --level-lean came), so it went unwarned, and asking for it shifted past the mask
# (undefined behaviour, which UBSan reported in every run).
run el_hh_passive --mode multi "${tiny[@]}" --hh none --el-hh -60 --quiet
expect "--el-hh without channels: warned" '^hinestask: warning: --el-hh without --hh soma or all' el_hh_passive.err
run lean_off --mode multi "${tiny[@]}" --level-lean off --quiet --json lean_off.json
expect "--level-lean off in the JSON" '"level_lean": "off"' lean_off.json
# --level-warps auto: no warp sweeps in a passive batch with lean sweeps (a level given warps
# cannot be lean), the cost model's otherwise (these long branches get some)
long_branches=(--mode multi --morph synthetic:tree:2000:5 --neurons 20 --steps 2)
run warps_lean "${long_branches[@]}" --hh none --level-kernel levels --quiet --json warps_lean.json
expect "no warps in a passive batch with lean sweeps" '"warp_systems": 0,' warps_lean.json
run warps_no_lean "${long_branches[@]}" --hh none --level-kernel levels --level-lean off --quiet --json warps_no_lean.json
expect "the cost model's warps without lean sweeps" '"warp_systems": [1-9][0-9]*,' warps_no_lean.json
run warps_hh "${long_branches[@]}" --hh all --quiet --json warps_hh.json
expect "the cost model's warps with channels" '"warp_systems": [1-9][0-9]*,' warps_hh.json
run warps_cell "${long_branches[@]}" --hh none --level-kernel cell --quiet --json warps_cell.json
expect "the cost model's warps for the cell kernel (no lean sweeps there)" '"warp_systems": [1-9][0-9]*,' warps_cell.json
run warps_off "${long_branches[@]}" --hh all --level-warps off --quiet --json warps_off.json
expect "--level-warps off: none" '"warp_systems": 0,' warps_off.json
run root_default "${long_branches[@]}" --quiet --json root_default.json
expect "systems rooted at the cells' centers by default" '"level_root": "center",' root_default.json
run root_soma "${long_branches[@]}" --level-root soma --quiet --json root_soma.json
expect "--level-root soma in the JSON" '"level_root": "soma",' root_soma.json
run root_stim "${long_branches[@]}" --stim-compartment 3 --quiet --json root_stim.json
expect "the soma's root with the stimulus elsewhere" '"level_root": "soma",' root_stim.json
run root_stim_asked "${long_branches[@]}" --stim-compartment 3 --level-root center --quiet
expect "--level-root center with the stimulus elsewhere: warned" \
  '^hinestask: warning: --level-root center needs the stimulus at the soma \(--stim-compartment 0\): the systems stay rooted at the soma; ignored$' root_stim_asked.err
run root_bad "${long_branches[@]}" --level-root middle --quiet
expect "--level-root middle: refused" '^2$' root_bad.rc
expect "row factors by default in the JSON" '"level_factors": "rows",' root_default.json
run factors_elements "${long_branches[@]}" --level-factors elements --quiet --json factors_elements.json
expect "--level-factors elements in the JSON" '"level_factors": "elements",' factors_elements.json
run factors_bad "${long_branches[@]}" --level-factors columns --quiet --json factors_bad.json
expect "--level-factors columns: refused" '^2$' factors_bad.rc
expect "--level-factors columns: one line naming the option" \
  "^hinestask: --level-factors must be rows or elements, got 'columns'" factors_bad.err
ls factors_bad.json >listing.out 2>&1
expect "--level-factors columns: no JSON written" 'No such file' listing.out
run lean_cell --mode multi "${tiny[@]}" --level-kernel cell --level-lean off --quiet
expect "--level-lean with the cell kernel: warned" '^hinestask: warning: --level-lean applies to --level-kernel levels only' lean_cell.err
run cell_neurons_levels --mode multi "${tiny[@]}" --level-kernel levels --cell-neurons 4 --quiet
expect "--cell-neurons with the level kernels: warned" '^hinestask: warning: --cell-neurons applies to --level-kernel cell, shared or branches \(or a trunk of branches\) only' cell_neurons_levels.err
# --level-kernel auto (the default): the branch kernel for a small passive batch, the level
# kernels with channels or past 4 M compartments; the JSON says what ran and what was asked
run kernel_auto_passive --mode multi "${tiny[@]}" --hh none --json kernel_auto_passive.json
expect "auto: a small passive batch runs the branch kernel" '"level_kernel": "branches"' kernel_auto_passive.json
expect "auto: the JSON says auto was asked" '"level_kernel_asked": "auto"' kernel_auto_passive.json
expect "auto: the choice printed" '^branch kernel .--level-kernel auto: passive' kernel_auto_passive.out
run kernel_auto_hh --mode multi "${tiny[@]}" --hh all --quiet --json kernel_auto_hh.json
expect "auto: channels run the level kernels" '"level_kernel": "levels"' kernel_auto_hh.json
run kernel_auto_branchy --mode multi --morph synthetic:random:100:8000:1 --neurons 2 --steps 1 --hh none --quiet --json kernel_auto_branchy.json
expect "auto: cells of too many branches for a block's shared memory run the level kernels" '"level_kernel": "levels"' kernel_auto_branchy.json
run kernel_auto_large --mode multi --morph synthetic:medium-high --neurons 13000 --steps 1 --hh none --quiet --json kernel_auto_large.json
expect "auto: past 4 M compartments the level kernels" '"level_kernel": "levels"' kernel_auto_large.json
run kernel_branches_warps --mode multi "${tiny[@]}" --hh none --level-kernel branches --level-warps all --quiet
expect "--level-warps with the branch kernel: warned" '^hinestask: warning: --level-warps does not apply to --level-kernel branches' kernel_branches_warps.err
run shared_options --mode multi "${tiny[@]}" --level-kernel shared --trunk-below 3 --level-warps off --cell-neurons 2 --quiet --json shared.json
for option in --trunk-below --level-warps; do
  expect "$option with the on-chip kernel: warned" "^hinestask: warning: $option does not apply to --level-kernel shared" shared_options.err
done
expect "--cell-neurons with the on-chip kernel: accepted" '^0$' shared_options.rc
expect "the on-chip kernel in the JSON" '"level_kernel": "shared"' shared.json
expect "its neurons per block in the JSON" '"cell_neurons": 2' shared.json

run probes_alone "${tiny[@]}" --probes x.csv --quiet
expect "--probes without --probe: accepted" '^0$' probes_alone.rc
expect "--probes without --probe: warned that nothing is written" \
  '^hinestask: warning: --probes x.csv without --probe N:C: nothing is recorded and x.csv is not written$' probes_alone.err
n=$((n + 1))
if [ -e x.csv ]; then failed=$((failed + 1)); echo "not ok $n - --probes without --probe: no x.csv"; else echo "ok $n - --probes without --probe: no x.csv"; fi
run dx_synthetic "${tiny[@]}" --dx 5 --quiet
expect "--dx with synthetic morphologies only: warned" '^hinestask: warning: --dx resamples SWC files and this run has none; ignored$' dx_synthetic.err

run applies "${tiny[@]}" --mode mono --layout block --block-size 2 --cpu-group 4 --quiet
refute "options that apply: no warning" 'warning' applies.err

cores=$(nproc)
STARPU_NCPU=$((cores + 2)) run oversubscribed "${tiny[@]}" --quiet
expect "STARPU_NCPU above the cores: warned, run accepted" '^0$' oversubscribed.rc
expect "STARPU_NCPU above the cores: the warning names both numbers" \
  "^hinestask: warning: STARPU_NCPU=$((cores + 2)) asks for more CPU workers than the $cores cores? this process may use" oversubscribed.err

# Progress off a terminal: stderr is a file here. A line every HINESTASK_PROGRESS_SECONDS. The
# run lasts several of those wherever it runs: 400 steps at 0.1 s once ran in 0.11 s on two
# cores (3,600 steps/s), with no line at all in three runs of five; 2,000 steps at 0.02 s leave
# a few lines even at 20,000 steps/s.
HINESTASK_PROGRESS_SECONDS=0.02 run progress --mode mono --morph synthetic:medium-high --neurons 2048 --steps 2000
expect "progress off a terminal: newline-terminated lines with steps done, rate and time left" \
  '^step [0-9]+/2000 \([0-9]+ %\), [0-9.e+]+ steps/s, [0-9]+ (s|min [0-9]+ s) left$' progress.err
refute "progress off a terminal: no carriage returns" $'\r' progress.err
# Steps computed, not submitted: a window of steps in flight once had the first call take the
# whole run, and its one line read 400/400 while the steps were still running.
refute "progress counts the steps computed: no line at 2000/2000 while steps remain" '^step 2000/2000 ' progress.err
HINESTASK_PROGRESS_SECONDS=0.1 run quiet --mode mono --morph synthetic:medium-high --neurons 2048 --steps 400 --quiet
refute "--quiet: no progress" '^step ' quiet.err

run verify_one --mode mono --morph synthetic:small-low --neurons 1 --steps 3 --verify
expect "--verify with one neuron: 1 sampled neuron" '^verify: 1 sampled neuron, ' verify_one.out
run verify_three --mode mono --morph synthetic:small-low --neurons 3 --steps 3 --verify
expect "--verify with three neurons: 3 sampled neurons" '^verify: 3 sampled neurons, ' verify_three.out

# --cpu-share: the cores' own chunks beside GPUs (auto by default), in the JSON; a bad value refused
run share_default --mode mono "${tiny[@]}" --quiet --json share_default.json
expect "the cores' share auto by default in the JSON" '"cpu_share": "auto",' share_default.json
run share_on --mode mono "${tiny[@]}" --cpu-share on --quiet --json share_on.json
expect "--cpu-share on: runs" '^0$' share_on.rc
expect "--cpu-share on in the JSON" '"cpu_share": "on",' share_on.json
run share_bad --mode mono "${tiny[@]}" --cpu-share half --quiet --json share_bad.json
expect "--cpu-share half: refused" '^2$' share_bad.rc
expect "--cpu-share half: one line naming the option" \
  "^hinestask: --cpu-share must be auto, on or off, got 'half'" share_bad.err
ls share_bad.json >listing.out 2>&1
expect "--cpu-share half: no JSON written" 'No such file' listing.out
run share_multi --mode multi "${tiny[@]}" --cpu-share on --quiet --json share_multi.json
expect "--cpu-share with multi chunk tasks: runs" '^0$' share_multi.rc
refute "--cpu-share with multi chunk tasks: no warning" 'warning' share_multi.err
expect "--cpu-share with multi chunk tasks: in the JSON" '"cpu_share": "on",' share_multi.json
run share_levels --mode multi --multi-tasks levels "${tiny[@]}" --cpu-share on --quiet
expect "--cpu-share with per-level tasks: warned" \
  '^hinestask: warning: --cpu-share applies to mono batches and multi chunk tasks only .*; ignored$' \
  share_levels.err

run share_chunks_bad --mode multi "${tiny[@]}" --cpu-chunks 0 --quiet
expect "--cpu-chunks 0: refused" '^2$' share_chunks_bad.rc
run share_chunks_alone --mode multi "${tiny[@]}" --cpu-share off --cpu-chunks 2 --quiet
expect "--cpu-chunks with --cpu-share off: warned" \
  '^hinestask: warning: --cpu-chunks does not apply with --cpu-share off; ignored$' share_chunks_alone.err
run share_chunks_mono --mode mono "${tiny[@]}" --cpu-chunks 2 --quiet
expect "--cpu-chunks in a mono run: warned" \
  '^hinestask: warning: --cpu-chunks applies to --mode multi only; ignored$' share_chunks_mono.err

run one_morphology --mode multi "${tiny[@]}"
expect "one morphology, singular" 'from 1 morphology \(' one_morphology.out
run default_job --steps 4
expect "the default job says the stimulus it gives: 0.75 to 1.25 nA" \
  '^default job: 24 neurons of 6 shipped morphologies, Hodgkin-Huxley channels everywhere, a step of 0.75 to 1.25 nA \(1 nA \+-25 % across the batch\)' default_job.out
"$hinestask" --help >help.out
expect "--help says the default job's stimulus range" '0.75 to 1.25 nA' help.out

echo "1..$n"
[ $failed = 0 ]
