#!/usr/bin/env bash
# Traces of a small mono and a small multi run: `hinestask --trace DIR` must leave a Paje trace
# whose task states carry the task names and a tasks.rec whose tasks carry the codelets' models,
# and scripts/trace_report.py must summarise both and draw their Gantt charts.
# Usage: tests/test_trace.sh HINESTASK   (ctest passes the built program; TAP-ish output)
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
report="$here/../scripts/trace_report.py"
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0}
# At most 2 CPU workers keep the runs small and fast on any machine.
export STARPU_NCPU=${STARPU_NCPU:-2}
export STARPU_HOME=${STARPU_HOME:-$(mktemp -d)}
mkdir -p "$STARPU_HOME"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_trace.XXXXXX")
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

# traced_run NAME CODELET... -- HINESTASK-ARGS...: records, checks and reports one trace.
# Each CODELET is MODEL:TASK-NAME-PREFIX (the perfmodel symbol and the start of the task names).
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
  local codelet model prefix
  for codelet in "${codelets[@]}"; do
    model=${codelet%%:*}
    prefix=${codelet#*:}
    check "$name: paje.trace task states carry the names '$prefix ...'" /dev/null \
      grep -q -P "^\d+\t[0-9.]+\t\S+\t\S+\t\"?$prefix " "$dir/paje.trace"
    check "$name: tasks.rec tasks carry the model $model" /dev/null \
      grep -q -x "Model: $model" "$dir/tasks.rec"
  done
  local png_args=()
  [ $has_matplotlib = 1 ] && png_args=(--png "$tmp/$name.png")
  if "$python" "$report" "$dir" "${png_args[@]}" >"$tmp/$name.report" 2>&1; then
    ok "$name: trace_report.py exits 0"
  else
    not_ok "$name: trace_report.py exits 0" "$tmp/$name.report"
  fi
  sed 's/^/# /' "$tmp/$name.report"
  for codelet in "${codelets[@]}"; do
    model=${codelet%%:*}
    check "$name: the summary has a line for codelet $model" /dev/null \
      grep -q -E "^$model +[0-9]+ " "$tmp/$name.report"
  done
  check "$name: the summary has the workers' busy time and idle share" /dev/null \
    grep -q -E "^all workers +[0-9]+ +[0-9.]+ +[0-9.]+$" "$tmp/$name.report"
  check "$name: the summary says what data moved between memory nodes" /dev/null \
    grep -q "^data transfers" "$tmp/$name.report"
  if [ $has_matplotlib = 1 ]; then
    check "$name: the Gantt chart is a non-empty PNG" /dev/null is_png "$tmp/$name.png"
  else
    ok "$name: the Gantt chart is a non-empty PNG # SKIP no matplotlib for $python (scripts/setup.sh installs python3-matplotlib)"
  fi
}

traced_run mono hines_step:"step interleaved neurons" -- \
  --mode mono --morph synthetic:medium-high --layout interleaved --neurons 256 --steps 5
traced_run multi level_backward:backward level_forward:forward -- \
  --mode multi --morph synthetic:small-high --morph synthetic:medium-high --neurons 64 --steps 3 --multi-tasks levels

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

# Known problem (TODO, not counted as a failure): FxT names its file after STARPU_FXT_SUFFIX
# when it is set, and hinestask then converts whichever older prof_file_* the folder holds.
before=$after
STARPU_FXT_SUFFIX=elsewhere "$hinestask" --mode mono --morph synthetic:medium-high --neurons 256 \
  --steps 1 --quiet --force --trace "$tmp/mono" >"$tmp/suffix.log" 2>&1
status=$?
after=$(tasks_in "$tmp/mono")
n=$((n + 1))
if [ $status != 0 ] || [ "$after" -lt "$before" ]; then
  echo "ok $n - with STARPU_FXT_SUFFIX set, no stale trace is passed off as the new one"
else
  echo "not ok $n - with STARPU_FXT_SUFFIX set, no stale trace is passed off as the new one" \
    "# TODO hinestask converts the older prof_file_* ($after tasks, status $status)"
fi

echo "1..$n"
[ $failed = 0 ]
