#!/usr/bin/env bash
# Traces of a small mono, a small multi and a CPU+GPU-style run (several CPU workers, dmda, both
# level codelets; CPU-only here): `hinestask --trace DIR` must leave
#   - a paje.trace that a real Paje reader accepts: PajeNG's pj_dump reports no error (and so
#     does ViTE when it is installed), with one worker state per codelet, named after it, in
#     the codelet's colour, and every task shown as a state of its codelet;
#   - a tasks.rec whose tasks carry their codelets' names and models;
#   - every file traces/README.md says the folder holds;
# starpu_perfmodel_plot -s SYMBOL -i DIR/hinestask-fxt_0 (the command traces/README.md gives)
# must add the trace's tasks to the plot, and scripts/trace_report.py must summarise each trace.
# Usage: tests/test_trace.sh HINESTASK   (ctest passes the built program; TAP-ish output)
# Environment: HINES_STARPU_BIN, the StarPU tools' folder (ctest sets it; else PATH).
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
report="$source_dir/scripts/trace_report.py"
readme="$source_dir/traces/README.md"
starpu_bin=${HINES_STARPU_BIN:-}
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0}
# At most 2 CPU workers keep the runs small and fast on any machine.
export STARPU_NCPU=${STARPU_NCPU:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_trace.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# A private STARPU_HOME: the calibrated run below writes performance models.
export STARPU_HOME="$tmp/starpu-home"
mkdir -p "$STARPU_HOME"

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
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { # check DESCRIPTION LOG COMMAND...: one TAP line for the command's status
  local what=$1 log=$2
  shift 2
  if "$@"; then ok "$what"; else not_ok "$what" "$log"; fi
}
# The report runs under Debian's Python, where python3-matplotlib is (its #! line); a python3
# earlier on PATH (pyenv's, say) may lack matplotlib.
python=/usr/bin/python3
has_matplotlib=0
"$python" -c 'import matplotlib' >/dev/null 2>&1 && has_matplotlib=1
# PNG files start with \x89PNG.
is_png() { [ -s "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = PNG ]; }
# pj_dump's verdict: exit status 0 and nothing on stderr.
pj_dump_clean() { pj_dump "$1" >"$2" 2>"$3" && [ ! -s "$3" ]; }
# ViTE (Debian's vite), headless: its parser's count of errors and warnings must be zero.
vite_clean() {
  QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="$tmp/xdg" timeout 120 vite -f "$1" -e "$2" >"$3" 2>&1
  grep -q "^0 errors and 0 warnings were found during parsing" "$3"
}
mkdir -m 700 -p "$tmp/xdg"

# The files traces/README.md lists under "What the folder holds" (first column of its table).
readme_files() {
  awk '/^## What the folder holds/ {on = 1; next} /^## / {on = 0}
       on && /^\| `/ {split($0, cell, "`"); print cell[2]}' "$readme"
}
all_present() { # all_present DIR FILE...: every FILE exists in DIR (missing ones are printed)
  local dir=$1 f missing=0
  shift
  [ $# -gt 0 ] || { echo "# no files listed" >&2; return 1; }
  for f in "$@"; do
    [ -e "$dir/$f" ] || { echo "# missing: $f"; missing=1; }
  done
  return $missing
}

# traced_run NAME CODELET... -- HINESTASK-ARGS...: records, checks and reports one trace. Each
# CODELET is a codelet's name, which is also its perfmodel symbol and its tasks' name.
traced_run() {
  local name=$1
  shift
  local codelets=()
  while [ "$1" != -- ]; do
    codelets+=("$1")
    shift
  done
  shift
  local dir="$tmp/$name"
  if "$hinestask" "$@" --quiet --trace "$dir" >"$tmp/$name.log" 2>&1; then
    ok "$name: hinestask --trace exits 0"
  else
    not_ok "$name: hinestask --trace exits 0" "$tmp/$name.log"
    return
  fi
  check "$name: paje.trace and tasks.rec are not empty" "$dir/fxt_tool.log" \
    test -s "$dir/paje.trace" -a -s "$dir/tasks.rec"
  if command -v pj_dump >/dev/null 2>&1; then
    check "$name: pj_dump reads paje.trace without an error" "$tmp/$name.pj_dump.err" \
      pj_dump_clean "$dir/paje.trace" "$tmp/$name.pj_dump" "$tmp/$name.pj_dump.err"
  else
    not_ok "$name: pj_dump reads paje.trace without an error (pj_dump not found; scripts/setup.sh installs pajeng)"
  fi
  if python3 "$here/check_paje.py" "$dir" "$source_dir" "${codelets[@]}" \
    --pj-dump "$tmp/$name.pj_dump" >"$tmp/$name.check" 2>&1; then
    ok "$name: one state per codelet (${codelets[*]}), in its colour, one per task"
  else
    not_ok "$name: one state per codelet (${codelets[*]}), in its colour, one per task" \
      "$tmp/$name.check"
  fi
  sed 's/^/# /' "$tmp/$name.check"
  if command -v vite >/dev/null 2>&1; then
    check "$name: ViTE reads paje.trace with 0 errors and 0 warnings" "$tmp/$name.vite" \
      vite_clean "$dir/paje.trace" "$tmp/$name.svg" "$tmp/$name.vite"
  else
    skip "$name: ViTE reads paje.trace with 0 errors and 0 warnings" "vite not installed"
  fi
  mapfile -t listed < <(readme_files)
  check "$name: the folder holds every file traces/README.md names (${listed[*]})" /dev/null \
    all_present "$dir" "${listed[@]}"
  local png_args=()
  [ $has_matplotlib = 1 ] && png_args=(--png "$tmp/$name.png")
  if "$python" "$report" "$dir" "${png_args[@]}" >"$tmp/$name.report" 2>&1; then
    ok "$name: trace_report.py exits 0"
  else
    not_ok "$name: trace_report.py exits 0" "$tmp/$name.report"
  fi
  sed 's/^/# /' "$tmp/$name.report"
  local codelet
  for codelet in "${codelets[@]}"; do
    check "$name: the summary has a line for codelet $codelet" /dev/null \
      grep -q -E "^$codelet +[0-9]+ " "$tmp/$name.report"
  done
  check "$name: the summary has the workers' busy time and idle share" /dev/null \
    grep -q -E "^all workers +[0-9]+ +[0-9.]+ +[0-9.]+$" "$tmp/$name.report"
  check "$name: the summary says what data moved between memory nodes" /dev/null \
    grep -q "^data transfers" "$tmp/$name.report"
  if [ $has_matplotlib = 1 ]; then
    check "$name: the Gantt chart is a non-empty PNG" /dev/null is_png "$tmp/$name.png"
    "$python" "$report" "$dir" --png "$tmp/$name-until.png" --until-last-task \
      >"$tmp/$name.until" 2>&1
    check "$name: the chart up to the last task (--until-last-task) is a non-empty PNG" \
      "$tmp/$name.until" is_png "$tmp/$name-until.png"
  else
    skip "$name: the Gantt chart is a non-empty PNG" "no matplotlib for $python (scripts/setup.sh installs python3-matplotlib)"
  fi
}

# Mono, calibrated with StarPU's own models (--models starpu) so that the model
# starpu_perfmodel_plot below reads exists; one step a task, so that a later run of fewer
# steps into the same folder leaves fewer tasks (CPU workers alone take 8 by default).
traced_run mono hines_step batch_fill -- \
  --mode mono --morph synthetic:medium-high --layout interleaved --neurons 256 --steps 5 \
  --calibrate --models starpu --task-steps 1
traced_run multi chunk_step batch_fill -- \
  --mode multi --morph synthetic:small-high --morph synthetic:medium-high --neurons 64 --steps 3
# What a CPU+GPU run's trace holds, on CPUs: several workers under dmda, tasks of two codelets.
STARPU_NCPU=4 STARPU_SCHED=dmda traced_run cpu_gpu_style level_backward level_forward batch_fill -- \
  --mode multi --morph synthetic:small-high --morph synthetic:medium-high --neurons 64 --steps 3 \
  --multi-tasks levels
workers=$(grep '^WorkerId: ' "$tmp/cpu_gpu_style/tasks.rec" 2>/dev/null | sort -u | wc -l)
check "cpu_gpu_style: tasks ran on several workers ($workers)" /dev/null test "$workers" -ge 2
# Traces recorded on GPU machines and kept in the repository (CUDA workers, two memory nodes,
# data transfers): pj_dump must read them too. Those recorded before tasks were named after
# their codelets have task names with spaces; they are checked through a copy in which the
# names' spaces are underscores, which is what the names' absence of spaces gives today.
despace() { # despace TRACE_FOLDER OUT: paje.trace with the task names of tasks.rec de-spaced
  python3 - "$1" "$2" <<'PY'
import sys
folder, out = sys.argv[1:3]
names = {line[6:].rstrip("\n") for line in open(folder + "/tasks.rec", encoding="utf-8")
         if line.startswith("Name: ")}
text = open(folder + "/paje.trace", encoding="utf-8").read()
for name in sorted(names, key=len, reverse=True):
    if " " in name:
        text = text.replace(name, name.replace(" ", "_"))
open(out, "w", encoding="utf-8").write(text)
PY
}
for reference in "$source_dir"/traces/reference-*/; do
  [ -f "$reference/paje.trace" ] || continue
  label="reference trace $(basename "$reference")"
  trace="$reference/paje.trace"
  if grep -q -E '^Name: .* ' "$reference/tasks.rec" 2>/dev/null; then
    despace "$reference" "$tmp/reference.trace"
    trace="$tmp/reference.trace"
    label="$label (task names' spaces made underscores)"
  fi
  check "$label: pj_dump reads its paje.trace without an error" "$tmp/reference.err" \
    pj_dump_clean "$trace" "$tmp/reference.dump" "$tmp/reference.err"
  check "$label: pj_dump shows CUDA workers' states" /dev/null \
    grep -q -E '^State, CUDA' "$tmp/reference.dump"
  if command -v vite >/dev/null 2>&1; then
    check "$label: ViTE reads it with 0 errors and 0 warnings" "$tmp/reference.vite" \
      vite_clean "$trace" "$tmp/reference.svg" "$tmp/reference.vite"
  fi
done

# --until-last-task ends the chart's axis at the last task: on a reference trace whose data
# come home after its last task (traces/README.md) the chart then differs from the whole run's.
late=$source_dir/traces/reference-h200-cpu-gpu-512000-dmdas
if [ $has_matplotlib = 1 ] && [ -f "$late/paje.trace" ]; then
  "$python" "$report" "$late" --png "$tmp/late-all.png" >"$tmp/late.log" 2>&1
  "$python" "$report" "$late" --png "$tmp/late-tasks.png" --until-last-task >>"$tmp/late.log" 2>&1
  check "trace_report.py --until-last-task: a chart other than the whole run's" "$tmp/late.log" \
    eval 'is_png "$tmp/late-tasks.png" && is_png "$tmp/late-all.png" && ! cmp -s "$tmp/late-all.png" "$tmp/late-tasks.png"'
else
  skip "trace_report.py --until-last-task: a chart other than the whole run's" \
    "no matplotlib or no reference trace"
fi

# --from MS keeps what starts MS ms after the first submission: on the all-15 reference trace (the
# share's probe, 2.5 s of the batch's building, then the run) the run's 374 tasks of 494, and
# every task the summary then counts is one of them.
probed=$source_dir/traces/reference-h200-multi-cpu-gpu-all15-default
if [ -f "$probed/tasks.rec" ]; then
  "$python" "$report" "$probed" --from 2500 >"$tmp/from.log" 2>&1
  check "trace_report.py --from 2500: the run's 374 tasks of the trace's 494" "$tmp/from.log" \
    eval 'grep -q "^window: from 2500 ms .*: 374 of 494 tasks" "$tmp/from.log" && grep -q -E "^all workers +374 " "$tmp/from.log"'
  check "trace_report.py --from past the last task: exit 1 and one line" "$tmp/from-none.log" \
    eval '! "$python" "$report" "$probed" --from 1e9 >"$tmp/from-none.log" 2>&1 && [ "$(wc -l < "$tmp/from-none.log")" = 1 ]'
  check "trace_report.py --from nan: refused, exit 2, nothing on stdout" "$tmp/from-bad.err" \
    eval '"$python" "$report" "$probed" --from nan >"$tmp/from-bad.out" 2>"$tmp/from-bad.err"; [ $? = 2 ] && [ ! -s "$tmp/from-bad.out" ] && grep -q "argument --from" "$tmp/from-bad.err"'
else
  skip "trace_report.py --from 2500: the run's tasks" "no reference trace"
  skip "trace_report.py --from past the last task" "no reference trace"
  skip "trace_report.py --from nan: refused" "no reference trace"
fi

# starpu_perfmodel_plot -s hines_step -i DIR/hinestask-fxt_0, as traces/README.md documents it
# (run in a scratch folder: it writes its files and a few of the trace's there): one point per
# hines_step task of the trace.
plot_tool=${starpu_bin:+$starpu_bin/}starpu_perfmodel_plot
if [ -x "$plot_tool" ] || command -v "$plot_tool" >/dev/null 2>&1; then
  mkdir -p "$tmp/plot"
  (cd "$tmp/plot" && "$plot_tool" -s hines_step -i "$tmp/mono/hinestask-fxt_0") >"$tmp/plot.log" 2>&1
  status=$?
  tasks=$(grep -c -x "Model: hines_step" "$tmp/mono/tasks.rec")
  points=$(grep -c . "$tmp/plot/starpu_hines_step.data" 2>/dev/null)
  check "starpu_perfmodel_plot -s hines_step -i TRACE: exit 0, $points points for $tasks tasks" \
    "$tmp/plot.log" test "$status" = 0 -a "${points:-0}" = "$tasks" -a "$tasks" -gt 0
else
  not_ok "starpu_perfmodel_plot -i TRACE (starpu_perfmodel_plot not found; set HINES_STARPU_BIN)"
fi
check "traces/README.md documents that command" /dev/null \
  grep -q 'starpu_perfmodel_plot -s hines_step -i DIR/hinestask-fxt_0' "$readme"

# A trace folder holding a trace is refused without --force (exit 2), and the trace stays.
tasks_in() { grep -c '^Model: ' "$1/tasks.rec" 2>/dev/null || echo 0; }
before=$(tasks_in "$tmp/mono")
"$hinestask" --mode mono --morph synthetic:medium-high --neurons 256 --steps 2 --quiet \
  --trace "$tmp/mono" >"$tmp/refused.log" 2>&1
status=$?
check "mono again into the same folder without --force: refused with exit 2, the trace kept" \
  "$tmp/refused.log" test $status = 2 -a "$(tasks_in "$tmp/mono")" = "$before"

# Re-using a trace folder with --force must give the new run's trace, not the older one's.
"$hinestask" --mode mono --morph synthetic:medium-high --neurons 256 --steps 2 --quiet --force \
  --trace "$tmp/mono" >"$tmp/again.log" 2>&1
after=$(tasks_in "$tmp/mono")
check "mono again into the same folder: the trace is the new run's ($before tasks before, $after now)" \
  "$tmp/again.log" test "$after" -gt 0 -a "$after" -lt "$before"

# A STARPU_FXT_SUFFIX in the environment must not make an older trace pass for the new one.
before=$after
STARPU_FXT_SUFFIX=elsewhere "$hinestask" --mode mono --morph synthetic:medium-high --neurons 256 \
  --steps 1 --quiet --force --trace "$tmp/mono" >"$tmp/suffix.log" 2>&1
status=$?
after=$(tasks_in "$tmp/mono")
check "with STARPU_FXT_SUFFIX set, no stale trace is passed off as the new one ($after tasks, status $status)" \
  "$tmp/suffix.log" test $status != 0 -o "$after" -lt "$before"

echo "1..$n"
[ $failed = 0 ]
