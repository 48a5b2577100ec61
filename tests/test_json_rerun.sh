#!/usr/bin/env bash
# The JSON summary reproduces its run: for a multi run, a mono run and the default job (short),
# scripts/rerun_json.py reruns hinestask from the summary's recorded command line and from its
# recorded parameters alone, each in a fresh folder, and the probe voltages (the CSV) must be
# the same bytes. The summary itself must be valid JSON with what shaped the run (version,
# commit, command line, host, StarPU, start time, membrane, stimulus, channels, dt), only the
# options that apply, and numbers as a person writes them.
# Usage: tests/test_json_rerun.sh HINESTASK   (ctest passes the built program; TAP output)
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
hinestask=$(cd "$(dirname "$hinestask")" && pwd)/$(basename "$hinestask")
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
rerun="$source_dir/scripts/rerun_json.py"
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0} STARPU_NCPU=${STARPU_NCPU:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_json_rerun.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1))
  failed=$((failed + 1))
  echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/# /' "$2" | tail -n 20
  return 0
}
check() { # check DESCRIPTION LOG COMMAND...
  local what=$1 log=$2
  shift 2
  if "$@"; then ok "$what"; else not_ok "$what" "$log"; fi
}
# json_check FILE PYTHON-EXPRESSION: the expression, with j the parsed summary, is true.
json_check() {
  python3 - "$1" "$2" <<'PY'
import json, re, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[1]).read()
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# The one path under DIR that PATTERN (a glob relative to DIR) matches: the default job writes
# into a run folder named by its start time.
match_in() { (cd "$1" && compgen -G "$2" | head -n 1); }

# reproduce NAME SUMMARY CSV HINESTASK-ARGS...: runs hinestask in $tmp/NAME/run, then reruns it
# from the summary ($tmp/NAME/run/SUMMARY) both ways and compares the probe CSVs. SUMMARY and
# CSV are paths relative to the run's folder, or globs for the default job's run folder.
reproduce() {
  local name=$1 summary=$2 csv=$3
  shift 3
  local base="$tmp/$name"
  mkdir -p "$base/run" "$base/cmd" "$base/par"
  if (cd "$base/run" && "$hinestask" "$@") >"$base/run.log" 2>&1; then
    ok "$name: the run exits 0"
  else
    not_ok "$name: the run exits 0" "$base/run.log"
    return
  fi
  local csv_pattern=$csv
  summary=$(match_in "$base/run" "$summary")
  csv=$(match_in "$base/run" "$csv")
  check "$name: the summary is valid JSON" "$base/run/$summary" \
    json_check "$base/run/$summary" "True"
  python3 "$rerun" "$base/run/$summary" --hinestask "$hinestask" --cwd "$base/cmd" \
    >"$base/cmd.log" 2>&1
  check "$name: rerun from the recorded command line: exit 0, the same probe voltages, bit for bit" \
    "$base/cmd.log" cmp "$base/run/$csv" "$base/cmd/$(match_in "$base/cmd" "$csv_pattern")"
  python3 "$rerun" "$base/run/$summary" --from parameters --hinestask "$hinestask" \
    --cwd "$base/par" --probes par.csv --json par.json --print >"$base/par.log" 2>&1
  python3 "$rerun" "$base/run/$summary" --from parameters --hinestask "$hinestask" \
    --cwd "$base/par" --probes par.csv --json par.json >>"$base/par.log" 2>&1
  check "$name: rerun from the recorded parameters alone: the same probe voltages, bit for bit" \
    "$base/par.log" cmp "$base/run/$csv" "$base/par/par.csv"
  sed -n '1s/^/# /p' "$base/par.log"
  # The parameters' rerun gives the same parameters back (what ran, not how it was asked).
  check "$name: the rerun's summary records the same parameters" "$base/par.log" python3 - \
    "$base/run/$summary" "$base/par/par.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
skip = {"command_line", "working_directory", "started_utc", "seconds_total", "seconds_per_step",
        "seconds_first_step", "seconds_building", "seconds_starting", "seconds_ending", "compartment_solves_per_s", "default_job", "probes_file",
        "verified_neurons", "max_rel_error", "backward_error", "mode_reason",
        "level_kernel_asked", "cpu_worker_tasks", "cpu_worker_executing_ms"}
diff = [k for k in set(a) | set(b) if k not in skip and a.get(k) != b.get(k)]
if diff:
    print("# differ:", {k: (a.get(k), b.get(k)) for k in diff})
sys.exit(1 if diff else 0)
PY
}

data="$source_dir/morph/data"
reproduce multi summary.json voltages.csv \
  --mode multi --morph "$data/c91662.swc" --morph synthetic:small-high --morph "$data/Cha-F-000012.CNG.swc" \
  --neurons 7 --steps 400 --dt 0.02 --hh soma --cm 1.1 --ra 120 --gl 2e-4 --el -64 \
  --stim-amp 0.8 --stim-start 1 --stim-stop 5 --stim-spread 0.3 --probe 0:0 --probe 1:0 \
  --probe 5:7 --probe-every 0.05 --probes voltages.csv --json summary.json --verify --quiet
# A trunk of branches (its rate as recorded, its chunks as recorded, round robin as asked).
reproduce trunk summary.json voltages.csv \
  --mode multi --morph "$data/morph_ca1_n120.swc" --morph "$data/c91662.swc" --neurons 9 \
  --task-neurons 4 --level-kernel levels --trunk-branches 1.5 --hh none --steps 200 \
  --stim-amp 1 --probe 0:0 --probe 8:40 --probes voltages.csv --json summary.json --quiet \
  --cpu-share on --cpu-chunks 2 --arrange off
# (one step a task, so that its tasks add up to steps x tasks a step: longer tasks end where a
# probe sample is due)
reproduce mono summary.json voltages.csv \
  --mode mono --morph synthetic:small-high --layout block --block-size 8 --neurons 40 \
  --steps 300 --hh all --stim-amp 0.5 --stim-compartment 3 --probe 0:0 --probe 39:12 \
  --probes voltages.csv --json summary.json --quiet --task-steps 1
# The default job: its stimulus, channels and probes are implicit; 400 steps (10 ms) of it.
reproduce default_job 'hinestask-results/run-*/summary.json' \
  'hinestask-results/run-*/probes.csv' --steps 400 --stim-start 2 --quiet

# What the summaries say.
multi="$tmp/multi/run/summary.json"
mono="$tmp/mono/run/summary.json"
default="$tmp/default_job/run/$(match_in "$tmp/default_job/run" 'hinestask-results/run-*/summary.json')"
# The commit the program was built from: a commit of this repository (HEAD once rebuilt), or
# "unknown" outside a git checkout.
commit=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['commit'])" "$multi")
known_commit() {
  case $1 in
  unknown) ! git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1 ;;
  *) [[ $1 =~ ^[0-9a-f]{7,40}(-dirty)?$ ]] && git -C "$source_dir" cat-file -e "${1%-dirty}^{commit}" ;;
  esac
}
check "the summary names the version and the commit it was built from ($commit)" "$multi" \
  json_check "$multi" "j['version'] == '$("$hinestask" --version | sed -n 's/^hinestask \([^ ]*\).*/\1/p')'"
check "that commit is one of this repository's" /dev/null known_commit "$commit"
check "the summary holds the command line as given" "$multi" json_check "$multi" \
  "j['command_line'][0] == '$hinestask' and j['command_line'][-1] == '--quiet' and len(j['command_line']) == 47"
check "the summary holds host, CPU, GPUs, StarPU version, scheduler and a UTC start time" \
  "$multi" json_check "$multi" \
  "j['host'] and j['cpu'] and j['gpus'] == [] and j['starpu_version'].startswith('1.3.') and j['scheduler'] and re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ', j['started_utc'])"
check "the summary holds membrane, channels, stimulus and time step" "$multi" json_check \
  "$multi" "j['membrane'] == {'cm_uF_per_cm2': 1.1, 'ra_ohm_cm': 120, 'gl_S_per_cm2': 0.0002, 'el_mV': -64, 'initial_mV': -64} and j['hh'] == 'soma' and j['hh_channels']['gnabar_S_per_cm2'] == 0.12 and j['stimulus'] == {'compartment': 0, 'amplitude_nA': 0.8, 'spread': 0.3, 'amplitude_range_nA': [0.68, 0.92], 'start_ms': 1, 'stop_ms': 5} and j['dt_ms'] == 0.02 and j['steps'] == 400"
check "numbers as a person writes them (dt 0.02, gl 0.0002, ra 120, range 0.68)" "$multi" \
  json_check "$multi" "'\"dt_ms\": 0.02,' in text and '\"gl_S_per_cm2\": 0.0002,' in text and '\"ra_ohm_cm\": 120,' in text and '[0.68, 0.92]' in text"
check "the default job's summary: dt 0.025, the implicit 1 nA step of 0.75 to 1.25 nA, HH everywhere" \
  "$default" json_check "$default" \
  "'\"dt_ms\": 0.025,' in text and j['default_job'] and j['stimulus']['amplitude_nA'] == 1 and j['stimulus']['amplitude_range_nA'] == [0.75, 1.25] and j['hh'] == 'all'"
check "a mono summary has no multi-only option, and block_size with the block layout" "$mono" \
  json_check "$mono" \
  "not {'multi_tasks', 'padding', 'level_order', 'trunk_below', 'task_parts', 'gpu_launch'} & set(j) and j['block_size'] == 8 and j['layout'] == 'block'"
check "a multi summary has no mono-only option" "$multi" json_check "$multi" \
  "not {'block_size', 'cpu_group'} & set(j) and j['multi_tasks'] == 'chunk' and 'gpu_launch' not in j"
check "the summary says where the tasks ran: every step's tasks on the CPU workers, no GPU (no share beside one, none waiting for models)" "$mono" \
  json_check "$mono" \
  "j['tasks_per_gpu'] == [] and j['tasks_on_cpus'] == j['tasks_per_step'] * -(-j['steps'] // j['task_steps']) and j['cpu_share_neurons'] == 0 and j['interleaved_chunks'] == 0 and j['cpu_share_uncalibrated'] is False"
check "each CPU worker's tasks and ms executing them: one entry a worker, adding up to tasks_on_cpus" "$mono" \
  json_check "$mono" \
  "len(j['cpu_worker_tasks']) == len(j['cpu_worker_executing_ms']) == j['cpu_workers'] and sum(j['cpu_worker_tasks']) == j['tasks_on_cpus'] and all(t >= 0 for t in j['cpu_worker_tasks']) and all(m >= 0 for m in j['cpu_worker_executing_ms']) and sum(j['cpu_worker_executing_ms']) > 0"
check "the counts add up across reads (a run that prints reads them before the summary)" \
  "$tmp/mono" bash -c "cd '$tmp/mono' && '$hinestask' --mode mono --morph synthetic:small-low --neurons 40 --steps 30 --task-steps 1 --json counted.json >/dev/null && python3 -c \"import json,sys; j=json.load(open('counted.json')); sys.exit(j['tasks_on_cpus'] != j['tasks_per_step'] * j['steps'] or sum(j['cpu_worker_tasks']) != j['tasks_on_cpus'])\""
# With no GPU worker tasks advance 8 steps by default (placement.h, PLACEMENT_CPU_TASK_STEPS),
# cut where a probe sample is due: 90 steps sampled every 20 make 15 rounds (the first step
# alone, 19 in 3, three times 20 in 3, 10 in 2), against 90 with one step a task.
check "CPU workers alone: tasks of 8 steps by default, mono and multi, rounds of whole tasks" \
  "$tmp/mono" bash -c "cd '$tmp/mono' && for m in mono multi; do '$hinestask' --mode \$m --morph synthetic:small-low --neurons 40 --steps 90 --probe 0:0 --probe-every 0.5 --probes steps_\$m.csv --quiet --json steps_\$m.json || exit 1; python3 -c \"import json,sys; j=json.load(open('steps_\$m.json')); n=j['tasks_on_cpus']; t=j['tasks_per_step']; sys.exit(not (j['task_steps'] == 8 and n == t * 15))\" || exit 1; done"
# The run's phases account for its whole time: starting, building, the first step, the other
# steps, ending (each positive; the sum within a millisecond of seconds_total, its own rounding).
check "seconds_starting, _building, _first_step, the steps and _ending add up to seconds_total" \
  "$mono" json_check "$mono" \
  "all(j[k] > 0 for k in ('seconds_starting', 'seconds_building', 'seconds_first_step', 'seconds_ending')) and abs(j['seconds_starting'] + j['seconds_building'] + j['seconds_first_step'] + j['seconds_per_step'] * (j['steps'] - 1) + j['seconds_ending'] - j['seconds_total']) < 1e-3"
check "an interleaved mono run has no block_size" "$tmp/mono" bash -c \
  "cd '$tmp/mono' && '$hinestask' --mode mono --morph synthetic:small-low --neurons 4 --layout interleaved --steps 2 --quiet --json i.json && python3 -c \"import json,sys; sys.exit('block_size' in json.load(open('i.json')))\""

echo "1..$n"
[ $failed = 0 ]
