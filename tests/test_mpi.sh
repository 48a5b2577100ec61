#!/usr/bin/env bash
# Distributed runs (issue #20): `mpirun -np 2` and `-np 3` (an uneven, compartment-weighted
# split) must give bitwise the voltages of the run of one process of the same batch, for a mono
# and a multi-morphology batch: the probe CSVs (17 digits, so cmp
# compares bits; the probes sit on every rank's neurons) are identical and --verify passes on
# every rank. Rank 0 writes the one JSON summary, with one share per rank, and the one spike
# file (--spikes), the one process's bytes. Bad input under
# `-np 3` (a bad morphology file, too few neurons) exits 2 on every rank, with the same one
# line, within seconds, and writes nothing.
# Usage: tests/test_mpi.sh HINESTASK   (ctest passes the built program; TAP-ish output)
# Skips (77) only where mpirun is missing: scripts/setup.sh installs Open MPI.
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
hinestask="$(cd "$(dirname "$hinestask")" && pwd)/$(basename "$hinestask")"
# Under scripts/sanitize.sh (AddressSanitizer): Open MPI is not instrumented, patches the
# allocator with its own memory hooks and keeps its start-up allocations to the end, so the
# sanitizer would judge Open MPI rather than hinestask; the plain build runs this test.
if [ -n "${HINES_SANITIZER_BUILD:-}" ]; then
  echo "1..0 # SKIP distributed runs are not checked under AddressSanitizer (Open MPI is uninstrumented)"
  exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
  echo "1..0 # SKIP mpirun not found (scripts/setup.sh installs openmpi-bin)"
  exit 77
fi
here=$(cd "$(dirname "$0")" && pwd)
data=$(cd "$here/../morph/data" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export STARPU_HOME="$tmp/starpu-home"
mkdir -p "$STARPU_HOME"
# One CPU worker per rank, unbound: several ranks share a small machine (StarPU-MPI adds its
# own progress thread per rank).
export STARPU_SILENT=1 STARPU_NCUDA=0 STARPU_NCPU=1 STARPU_WORKERS_NOBIND=1
export HINESTASK_PROGRESS_SECONDS=1000
mpirun_flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_flags+=(--allow-run-as-root)

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
  n=$((n + 1))
  failed=$((failed + 1))
  echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/# /' "$2" | tail -n 20
}

# compare NAME RANKS ARGS...: the run of one process, then mpirun -np RANKS.
compare() {
  local name=$1 ranks=$2
  shift 2
  local single="$tmp/$name-1.csv" multi="$tmp/$name-$ranks.csv" json="$tmp/$name-$ranks.json"
  local log="$tmp/$name-$ranks.log"
  if [ ! -f "$single" ]; then
    if ! "$hinestask" "$@" --quiet --probes "$single" >"$tmp/$name-1.log" 2>&1; then
      not_ok "$name: the run of one process failed" "$tmp/$name-1.log"
      return
    fi
  fi
  local started=$SECONDS
  timeout 300 mpirun "${mpirun_flags[@]}" -np "$ranks" "$hinestask" "$@" --probes "$multi" \
    --json "$json" >"$log" 2>&1
  local status=$?
  if [ $status -ne 0 ]; then
    not_ok "$name: mpirun -np $ranks exited $status" "$log"
    return
  fi
  if cmp -s "$single" "$multi"; then
    ok "$name: mpirun -np $ranks gives bitwise the probe voltages of one process ($((SECONDS - started)) s)"
  else
    diff "$single" "$multi" | head -n 6 >"$tmp/diff"
    not_ok "$name: mpirun -np $ranks: probe voltages differ from one process" "$tmp/diff"
  fi
  if grep -q "^verify: .*: ok$" "$log"; then
    ok "$name: -np $ranks: --verify passes on every rank's sampled neurons"
  else
    not_ok "$name: -np $ranks: no passing verify line" "$log"
  fi
  if python3 - "$json" "$ranks" <<'PY' >"$tmp/json.check" 2>&1; then
import json, sys
d = json.load(open(sys.argv[1]))
ranks = int(sys.argv[2])
shares = d["rank_shares"]
assert d["ranks"] == ranks and len(shares) == ranks, (d.get("ranks"), len(shares))
assert sum(s["neurons"] for s in shares) == d["neurons"]
assert sum(s["compartments"] for s in shares) == d["compartments"]
first = 0
for r, s in enumerate(shares):
    assert s["rank"] == r and s["first_neuron"] == first and s["neurons"] > 0
    assert s["cpu_workers"] >= 1 and s["seconds_per_step"] > 0 and s["compartment_solves_per_s"] > 0
    # each rank's own StarPU ran at least its step tasks, all on its CPU workers here
    assert s["tasks_on_gpus"] == 0 and s["tasks_on_cpus"] >= s["tasks_per_step"] * d["steps"] // d.get("task_steps", 1), s
    first += s["neurons"]
PY
    ok "$name: -np $ranks: rank 0's JSON has every rank's share, covering the batch"
  else
    not_ok "$name: -np $ranks: JSON summary" "$tmp/json.check"
  fi
}

mono=(--mode mono --morph synthetic:medium-high --neurons 300 --steps 60 --stim-start 0
  --probe-every 0.05 --verify --probe 0:0 --probe 99:7 --probe 100:0 --probe 149:318
  --probe 150:3 --probe 201:100 --probe 250:0 --probe 299:10)
cells=()
for f in "$data"/*.swc; do cells+=(--morph "$f"); done
multi=(--mode multi "${cells[@]}" --neurons 23 --steps 40 --stim-start 0 --probe-every 0.05
  --verify --probe 0:0 --probe 5:3 --probe 8:0 --probe 11:2 --probe 13:2 --probe 17:0
  --probe 20:5 --probe 22:1)
compare mono 2 "${mono[@]}"
compare mono 3 "${mono[@]}"
compare multi 2 "${multi[@]}"
compare multi 3 "${multi[@]}"
compare multi-levels 3 "${multi[@]}" --multi-tasks levels
compare multi-neuron 3 "${multi[@]}" --multi-tasks neuron
# a trunk of branches: its levels from the morphologies, so each rank's share has the same trunk
compare multi-trunk 3 "${multi[@]}" --level-kernel levels --hh none --trunk-branches 2

# --spikes under -np 2 and 3: rank 0 gathers every rank's spikes; the file is the one process's
# (the somata of every rank fire, read back several times over the run).
spikes_compare() { # spikes_compare NAME RANKS ARGS...
  local name=$1 ranks=$2
  shift 2
  local single="$tmp/$name-spikes-1.csv" multi="$tmp/$name-spikes-$ranks.csv"
  [ -f "$single" ] || "$hinestask" "$@" --quiet --spikes "$single" >"$tmp/$name-spikes-1.log" 2>&1
  timeout 300 mpirun "${mpirun_flags[@]}" -np "$ranks" "$hinestask" "$@" --quiet \
    --spikes "$multi" --json "$tmp/$name-spikes-$ranks.json" >"$tmp/$name-spikes-$ranks.log" 2>&1
  local status=$?
  if [ $status -eq 0 ] && [ "$(cut -d, -f1 "$single" | sort -u | wc -l)" -gt 20 ] &&
    cmp -s "$single" "$multi" && python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["spikes"]
sys.exit(not (s["total"] == int(sys.argv[2]) - 1 and s["neurons_with_spikes"] > 20))' \
    "$tmp/$name-spikes-$ranks.json" "$(wc -l <"$single")"; then
    ok "$name: --spikes under mpirun -np $ranks: rank 0 writes the one process's spike file"
  else
    diff "$single" "$multi" 2>&1 | head -n 6 >"$tmp/diff"
    cat "$tmp/$name-spikes-$ranks.log" >>"$tmp/diff"
    not_ok "$name: --spikes under mpirun -np $ranks (status $status)" "$tmp/diff"
  fi
}
spiking=(--morph synthetic:small-high --neurons 30 --hh all --stim-amp 1 --steps 400)
spikes_compare mono 2 --mode mono "${spiking[@]}"
spikes_compare mono 3 --mode mono "${spiking[@]}"
spikes_compare multi 3 --mode multi "${spiking[@]}"
# A parameter sweep (--params): each rank takes the rows of its own neurons (and --verify its
# sampled neurons' values); the spike file and the probes are the one process's.
python3 "$(dirname "$0")/../scripts/make_params.py" "$tmp/sweep.csv" --neurons 30 \
  --columns gnabar,gkbar,stim_amp,cm,ra
spikes_compare sweep 3 --mode mono "${spiking[@]}" --params "$tmp/sweep.csv"
compare sweep 2 --mode mono --morph synthetic:small-high --neurons 30 --hh all --steps 100 \
  --params "$tmp/sweep.csv" --verify --probe 0:0 --probe 14:3 --probe 15:0 --probe 29:40

# --trace under -np 2: each rank's StarPU records its own FxT file, rank 0 merges them into one
# paje.trace (starpu_fxt_tool -i ... -i ...) with both ranks' workers, which PajeNG reads. One
# step a task: five steps give each worker five tasks (CPU workers alone take 8 by default).
mkdir -p "$tmp/traced"
(cd "$tmp/traced" && timeout 300 mpirun "${mpirun_flags[@]}" -np 2 "$hinestask" --mode mono \
  --morph synthetic:small-high --neurons 64 --steps 5 --task-steps 1 --trace tr --quiet \
  >"$tmp/trace.log" 2>&1)
status=$?
paje="$tmp/traced/tr/paje.trace"
if [ $status -eq 0 ] && [ -s "$paje" ] && [ -s "$tmp/traced/tr/hinestask-fxt_0" ] &&
  [ -s "$tmp/traced/tr/hinestask-fxt_1" ] && grep -qP '\t0_CPU0\s*$' "$paje" &&
  grep -qP '\t1_CPU0\s*$' "$paje"; then
  ok "--trace under -np 2: one paje.trace with both ranks' workers (0_CPU0, 1_CPU0)"
else
  not_ok "--trace under -np 2 (mpirun status $status)" "$tmp/trace.log"
fi
if command -v pj_dump >/dev/null 2>&1 && [ -s "$paje" ]; then
  # Every rank's tasks show as states of its worker (hinestask merges the ranks' events in time
  # order: as starpu_fxt_tool leaves them, PajeNG drops most of rank 0's states).
  if pj_dump "$paje" >"$tmp/pj.txt" 2>"$tmp/pj.err" && [ ! -s "$tmp/pj.err" ] &&
    [ "$(grep -c '^State, 0_CPU0, .*hines_step' "$tmp/pj.txt")" -ge 5 ] &&
    [ "$(grep -c '^State, 1_CPU0, .*hines_step' "$tmp/pj.txt")" -ge 5 ]; then
    ok "--trace under -np 2: pj_dump reads the merged paje.trace, every rank's tasks as its worker's states"
  else
    not_ok "--trace under -np 2: pj_dump" "$tmp/pj.err"
  fi
fi

# Bad input under -np 3: every rank refuses it alone, before MPI starts, and none waits.
printf 'this is not SWC\n1 1 0 0 0\n' >"$tmp/bad.swc"
# rank_status RANKS ARGS...: each rank's exit status in $tmp/status.RANK, its stderr in
# $tmp/stderr.RANK (the wrapper itself exits 0, so that mpirun lets every rank finish).
cat >"$tmp/rank.sh" <<'SH'
#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
"$@" 2>"$TMP_OUT/stderr.$r" >/dev/null
echo $? >"$TMP_OUT/status.$r"
SH
chmod +x "$tmp/rank.sh"
bad_case() {
  local name=$1
  shift
  rm -f "$tmp"/status.* "$tmp"/stderr.*
  mkdir -p "$tmp/out-$name"
  local started=$SECONDS
  (cd "$tmp/out-$name" && TMP_OUT=$tmp timeout 60 mpirun "${mpirun_flags[@]}" -x TMP_OUT -np 3 \
    "$tmp/rank.sh" "$hinestask" "$@" --json "$tmp/out-$name/s.json" >"$tmp/bad.log" 2>&1)
  local status=$? seconds=$((SECONDS - started))
  local statuses lines
  statuses=$(cat "$tmp"/status.* 2>/dev/null | sort | uniq -c | tr -s ' ')
  lines=$(cat "$tmp"/stderr.* 2>/dev/null | sort -u)
  if [ $status -eq 0 ] && [ "$statuses" = " 3 2" ] && [ "$(printf '%s\n' "$lines" | wc -l)" = 1 ] &&
    [ -n "$lines" ] && [ $seconds -le 20 ] && [ -z "$(ls -A "$tmp/out-$name")" ]; then
    ok "$name under -np 3: every rank exits 2 with the same line in ${seconds} s, nothing written: $lines"
  else
    printf 'mpirun status %s, %s s\nstatuses:%s\nlines:\n%s\n' "$status" "$seconds" "$statuses" \
      "$lines" >"$tmp/bad.report"
    cat "$tmp/bad.log" >>"$tmp/bad.report"
    not_ok "$name under -np 3" "$tmp/bad.report"
  fi
  # And mpirun itself, run as users run it, ends with status 2.
  timeout 60 mpirun "${mpirun_flags[@]}" -np 3 "$hinestask" "$@" >"$tmp/bad2.log" 2>&1
  status=$?
  if [ $status -eq 2 ]; then
    ok "$name: mpirun -np 3 hinestask ... exits 2"
  else
    not_ok "$name: mpirun -np 3 hinestask ... exited $status, not 2" "$tmp/bad2.log"
  fi
}
bad_case "a bad morphology file" --morph "$tmp/bad.swc" --neurons 30 --steps 5
bad_case "too few neurons for the ranks" --morph synthetic:small-low --neurons 2 --steps 5

# A rank that dies mid-run: mpirun stops the others promptly, and rank 0 writes nothing.
mkdir -p "$tmp/dies"
(cd "$tmp/dies" && exec mpirun "${mpirun_flags[@]}" -np 3 "$hinestask" --mode mono \
  --morph synthetic:medium-high --neurons 3000 --steps 1000000 --quiet --json s.json \
  >"$tmp/dies.log" 2>&1) &
launcher=$!
victim=
for _ in $(seq 1 100); do
  sleep 0.2
  victim=$(pgrep -P "$launcher" -x hinestask | sed -n 2p)
  [ -n "$victim" ] && break
done
sleep 2
started=$SECONDS
[ -n "$victim" ] && kill -9 "$victim"
for _ in $(seq 1 100); do
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.2
done
if kill -0 "$launcher" 2>/dev/null; then
  kill "$launcher"
  not_ok "a rank killed mid-run: the others still run after $((SECONDS - started)) s" "$tmp/dies.log"
elif [ -z "$victim" ]; then
  not_ok "a rank killed mid-run: no rank found to kill" "$tmp/dies.log"
else
  wait "$launcher"
  status=$?
  if [ $status -ne 0 ] && [ ! -e "$tmp/dies/s.json" ] && grep -q "exited on signal 9" "$tmp/dies.log"; then
    ok "a rank killed mid-run: mpirun stops the others in $((SECONDS - started)) s (status $status), says so, nothing written"
  else
    not_ok "a rank killed mid-run (mpirun status $status)" "$tmp/dies.log"
  fi
fi

echo "1..$n"
[ $failed -eq 0 ]
