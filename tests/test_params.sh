#!/usr/bin/env bash
# --params FILE, parameter sweeps (one CSV row per neuron):
#   - a sweep whose rows all repeat the command line's values gives the bits of the run without
#     --params, every column given (membrane factors of exactly 1), every mono layout;
#   - a sweep of 50 HH-soma neurons varying gnabar, stim_amp, cm and ra: each neuron's spike
#     times equal, bit for bit, those of a run of that neuron alone with its row as a one-row
#     sweep, and its spike count that of a run with the row's values given as options (whose
#     coefficients are computed directly, not as factors: a few ulps apart);
#   - --verify passes (the sequential reference runs each sampled neuron with its own values),
#     also with every column swept, on CPU groups of every width;
#   - the channel columns of every mechanism (hh.ena, km.gbar, ih.ehcn, ...): rows repeating
#     the options give the same bits; a km and ih sweep passes --verify and each sampled row
#     gives the spike times of that neuron run alone with its values as --channels options;
#   - the JSON summary names the file, its rows and columns;
#   - bad files: one line "FILE:LINE: column: problem", exit 2, nothing written.
# Usage: tests/test_params.sh HINESTASK   (ctest passes the built program; TAP output)
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
hinestask=$(cd "$(dirname "$hinestask")" && pwd)/$(basename "$hinestask")
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0} STARPU_NCPU=${STARPU_NCPU:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_params.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2

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
run() { # run LOG ARGS...: hinestask, quiet, output in LOG
  local log=$1
  shift
  "$hinestask" --quiet --force "$@" >"$log" 2>&1
}

# --- Rows that repeat the command line: the same bits as without --params.
cell=(--mode mono --morph synthetic:small-high --hh all --steps 300 --stim-amp 0.4
  --stim-spread 0 --stim-start 2 --stim-stop 6 --cm 1.1 --ra 90 --gl 2e-4 --el -64
  --gnabar 0.11 --gkbar 0.03 --gl-hh 0.0004 --el-hh -55)
python3 - <<'PY' >same.csv
print("cm,ra,gl,el,gnabar,gkbar,gl_hh,el_hh,stim_amp,stim_start,stim_stop")
for k in range(37):
    print("1.1,90,2e-4,-64,0.11,0.03,0.0004,-55,0.4,2,6")
PY
probes=(--probe 0:0 --probe 36:5 --probe 17:40 --probe 9:75 --probe-every 0.025)
for layout in interleaved block flat shared; do
  run plain.log "${cell[@]}" --neurons 37 --layout $layout --block-size 8 --cpu-group 5 \
    "${probes[@]}" --probes plain.csv
  run swept.log "${cell[@]}" --neurons 37 --layout $layout --block-size 8 --cpu-group 5 \
    "${probes[@]}" --probes swept.csv --params same.csv
  check "rows repeating the options: same bits as no --params ($layout layout)" swept.log \
    cmp plain.csv swept.csv
done
# A batch of one neuron (the CPU kernel's one-lane path) the same way.
head -2 same.csv >one_same.csv
run plain.log "${cell[@]}" --neurons 1 --probe 0:0 --probe 0:50 --probe-every 0.025 \
  --probes plain.csv
run swept.log "${cell[@]}" --neurons 1 --probe 0:0 --probe 0:50 --probe-every 0.025 \
  --probes swept.csv --params one_same.csv
check "one neuron, rows repeating the options: same bits" swept.log cmp plain.csv swept.csv

# --- A sweep of 50 neurons against separate runs of sampled rows.
python3 - <<'PY' >sweep.csv
import random
r = random.Random(18)
print("gnabar,stim_amp,cm,ra")
for k in range(50):
    print("%.4f,%.3f,%.3f,%.1f" % (r.uniform(0.06, 0.2), r.uniform(0.0, 0.6),
                                   r.uniform(0.8, 1.2), r.uniform(60, 150)))
PY
soma=(--mode mono --morph synthetic:small-high --hh soma --steps 2000)
run sweep.log "${soma[@]}" --neurons 50 --params sweep.csv --spikes sweep_spikes.csv --verify \
  --json sweep.json
check "sweep of 50 rows runs, --verify passes" sweep.log grep -q "verify: .*: ok" sweep.log
check "the sweep has neurons that fire and neurons that do not" sweep.log sh -c \
  '[ "$(tail -n +2 sweep_spikes.csv | cut -d, -f1 | sort -u | wc -l)" -ge 10 ] &&
   [ "$(tail -n +2 sweep_spikes.csv | cut -d, -f1 | sort -u | wc -l)" -lt 50 ]'
times_of() { # times_of SPIKES.csv NEURON
  awk -F, -v k="$2" 'NR > 1 && $1 == k { print $2 }' "$1"
}
for k in 0 7 13 21 34 49; do
  { head -1 sweep.csv; sed -n "$((k + 2))p" sweep.csv; } >row.csv
  run alone.log "${soma[@]}" --neurons 1 --params row.csv --spikes alone.csv
  check "row $k alone (a one-row sweep): the same spike times, bit for bit" alone.log \
    sh -c "[ \"$(times_of sweep_spikes.csv $k | tr '\n' ' ')\" = \"$(times_of alone.csv 0 | tr '\n' ' ')\" ]"
  IFS=, read -r gnabar amp cm ra < <(sed -n "$((k + 2))p" sweep.csv)
  run options.log "${soma[@]}" --neurons 1 --gnabar "$gnabar" --stim-amp "$amp" --cm "$cm" \
    --ra "$ra" --spikes options.csv
  check "row $k as options: the same spike count ($(times_of sweep_spikes.csv $k | wc -l))" \
    options.log sh -c "[ $(times_of sweep_spikes.csv $k | wc -l) -eq $(times_of options.csv 0 | wc -l) ]"
done
check "the JSON summary names the sweep" sweep.json python3 -c '
import json, sys
p = json.load(open("sweep.json"))["params"]
sys.exit(not (p["file"] == "sweep.csv" and p["rows"] == 50 and
              p["columns"] == ["cm", "ra", "gnabar", "stim_amp"]))'

# --- Every mechanism's columns (hh, km, ih: NAME.PARAM as --channels writes them).
places=hh:all,km:all,ih:all
numbers=km.gbar=0.002,ih.gbar=0.0002,ih.ehcn=-40,hh.ena=52,hh.ek=-75
mech=(--mode mono --morph synthetic:small-high --steps 1200 --stim-amp 0.3 --stim-spread 0
  --channels "$places,$numbers")
python3 - <<'PY' >mech_same.csv
print("km.gbar,km.ek,ih.gbar,ih.ehcn,hh.ena,hh.ek,hh.gnabar")
for k in range(21):
    print("0.002,-90,0.0002,-40,52,-75,0.12")
PY
run plain.log "${mech[@]}" --neurons 21 --probe 0:0 --probe 20:60 --probe-every 0.025 \
  --probes plain.csv
run swept.log "${mech[@]}" --neurons 21 --probe 0:0 --probe 20:60 --probe-every 0.025 \
  --probes swept.csv --params mech_same.csv
check "hh, km and ih columns repeating the options: same bits as no --params" swept.log \
  cmp plain.csv swept.csv
python3 - <<'PY' >mech.csv
import random
r = random.Random(20)
print("km.gbar,ih.gbar,ih.ehcn,hh.ek,stim_amp")
for k in range(30):
    print("%.5f,%.6f,%.2f,%.2f,%.3f" % (r.uniform(0.0, 0.01), r.uniform(0.0, 0.002),
                                       r.uniform(-50, -30), r.uniform(-85, -70),
                                       r.uniform(0.1, 0.6)))
PY
run mech.log "${mech[@]}" --neurons 30 --params mech.csv --spikes mech_spikes.csv --verify \
  --json mech.json
check "a km and ih sweep of 30 rows: --verify passes" mech.log grep -q "verify: .*: ok" mech.log
check "the km and ih sweep changes the spike counts from neuron to neuron" mech.log sh -c \
  '[ "$(tail -n +2 mech_spikes.csv | cut -d, -f1 | uniq -c | awk "{print \$1}" | sort -u | wc -l)" -ge 3 ]'
for k in 2 10 13; do  # 1, 3 and 3 spikes
  { head -1 mech.csv; sed -n "$((k + 2))p" mech.csv; } >row.csv
  IFS=, read -r km_gbar ih_gbar ih_ehcn hh_ek amp < <(sed -n "$((k + 2))p" mech.csv)
  run options.log "${mech[@]:0:10}" --neurons 1 --stim-amp "$amp" --spikes options.csv \
    --channels "$places,hh.ena=52,km.gbar=$km_gbar,ih.gbar=$ih_gbar,ih.ehcn=$ih_ehcn,hh.ek=$hh_ek"
  check "km/ih row $k as options: the same spike times, bit for bit" options.log \
    sh -c "[ \"$(times_of mech_spikes.csv $k | tr '\n' ' ')\" = \"$(times_of options.csv 0 | tr '\n' ' ')\" ]"
done
check "the JSON summary lists the mechanism columns" mech.json python3 -c '
import json, sys
p = json.load(open("mech.json"))["params"]
sys.exit(p["columns"] != ["stim_amp", "hh.ek", "km.gbar", "ih.gbar", "ih.ehcn"])'

# --- Every column swept, --verify on CPU groups of several widths and every layout.
python3 - <<'PY' >all.csv
import random
r = random.Random(5)
print("stim_stop,cm,ra,gl,el,gnabar,gkbar,gl_hh,el_hh,stim_amp,stim_start")
for k in range(45):
    start = r.uniform(0, 3)
    print(",".join("%.6g" % v for v in (start + r.uniform(0, 5), r.uniform(0.7, 1.5),
                                         r.uniform(50, 200), r.uniform(0, 3e-4),
                                         r.uniform(-70, -60), r.uniform(0.05, 0.2),
                                         r.uniform(0.01, 0.05), r.uniform(1e-4, 5e-4),
                                         r.uniform(-60, -50), r.uniform(-0.2, 0.8), start)))
PY
for layout in interleaved block flat shared; do
  for group in 1 7 32; do
    run all.log --mode mono --morph synthetic:small-high --hh all --neurons 45 --steps 400 \
      --layout $layout --block-size 16 --cpu-group $group --gl 0 --params all.csv --verify
    check "every column swept ($layout, CPU groups of $group, --gl 0): --verify passes" all.log \
      grep -q "verify: .*: ok" all.log
  done
done

# --- Bad files: one line, exit 2, nothing written.
bad() { # bad DESCRIPTION EXPECTED-LINE FILE-CONTENT [ARGS...]
  local what=$1 expected=$2 content=$3
  shift 3
  rm -f bad.csv bad.json
  printf '%b' "$content" >p.csv
  "$hinestask" --mode mono --morph synthetic:small-high --neurons 2 --hh soma --steps 10 \
    --json bad.json --spikes bad.csv --params p.csv "$@" >bad.out 2>bad.err
  local status=$?
  if [ $status -eq 2 ] && [ "$(wc -l <bad.err)" -eq 1 ] &&
    [ "$(cat bad.err)" = "hinestask: $expected" ] && [ ! -e bad.csv ] && [ ! -e bad.json ]; then
    ok "$what"
  else
    echo "# exit $status, expected: hinestask: $expected"
    not_ok "$what" bad.err
  fi
}
known="known: cm, ra, gl, el, gnabar, gkbar, gl_hh, el_hh, stim_amp, stim_start, stim_stop, hh.ena, hh.ek, km.gbar, km.ek, ih.gbar, ih.ehcn"
bad "unknown column" "p.csv:1: gna: unknown column ($known)" 'cm,gna\n1,2\n1,2\n'
bad "column named twice" "p.csv:1: cm: named twice" 'cm,ra,cm\n1,2,3\n1,2,3\n'
bad "empty column name" "p.csv:1: column 2: no name ($known)" 'cm,,ra\n1,2,3\n1,2,3\n'
bad "empty file" \
  "p.csv:1: header: the file is empty; the first line names the columns (any of ${known#known: })" ''
bad "not a number" "p.csv:3: ra: 'abc' is not a finite number" 'cm,ra\n1,100\n1,abc\n'
bad "a number and more" "p.csv:2: cm: '1.5uF' is not a finite number" 'cm,ra\n1.5uF,100\n1,100\n'
bad "nan" "p.csv:2: gnabar: 'nan' is not a finite number" 'gnabar\nnan\n0.1\n'
bad "inf" "p.csv:3: el: 'inf' is not a finite number" 'el\n-65\ninf\n'
bad "1e400" "p.csv:2: stim_amp: '1e400' is not a finite number" 'stim_amp\n1e400\n1\n'
bad "cm of 0" "p.csv:2: cm: '0' must be > 0" 'cm\n0\n1\n'
bad "negative ra" "p.csv:3: ra: '-100' must be > 0" 'ra\n100\n-100\n'
bad "negative gl" "p.csv:2: gl: '-1e-4' must be >= 0" 'gl\n-1e-4\n1e-4\n'
bad "negative gkbar" "p.csv:3: gkbar: '-0.01' must be >= 0" 'gkbar\n0.036\n-0.01\n'
bad "negative stim_start" "p.csv:2: stim_start: '-1' must be >= 0" 'stim_start\n-1\n1\n'
bad "stop before start" \
  "p.csv:3: stim_stop: the stimulus stops (2 ms) before it starts (5 ms)" \
  'stim_start,stim_stop\n1,2\n5,2\n'
bad "stop before the command line's start" \
  "p.csv:2: stim_stop: the stimulus stops (0.5 ms) before it starts (1 ms)" 'stim_stop\n0.5\n3\n'
bad "missing cell" "p.csv:3: ra: missing (the row has 1 cells, the header 2)" \
  'cm,ra\n1,100\n1\n'
bad "empty cell" "p.csv:2: cm: empty cell" 'cm,ra\n,100\n1,100\n'
bad "too many cells" "p.csv:2: column 3: 3 cells, the header has 2" 'cm,ra\n1,100,5\n1,100\n'
bad "too few rows" \
  "p.csv:2: row: 1 row for the 2 neurons of the batch (--neurons; one row per neuron)" \
  'cm\n1\n'
bad "too many rows" \
  "p.csv:4: row: more rows than the 2 neurons of the batch (--neurons; one row per neuron)" \
  'cm\n1\n1\n1\n'
bad "empty line" "p.csv:3: row: empty line (one row of 1 values per neuron)" 'cm\n1\n\n1\n'
bad "channel column without channels" \
  "p.csv:1: gnabar: the run has no Hodgkin-Huxley channels (--hh none); give --hh soma or all, or drop the column" \
  'gnabar\n0.1\n0.1\n' --hh none
bad "km column without km" \
  "p.csv:1: km.gbar: the run has no km channels; place them (--channels km:soma or km:all) or drop the column" \
  'km.gbar\n0.001\n0.001\n'
bad "negative ih.gbar" "p.csv:3: ih.gbar: '-1e-4' must be >= 0" 'ih.gbar\n1e-4\n-1e-4\n' \
  --channels hh:soma,ih:all
bad "hh.gnabar and gnabar are one column" "p.csv:1: hh.gnabar: named twice" \
  'gnabar,hh.gnabar\n0.1,0.1\n0.1,0.1\n'
bad "a mechanism's unknown parameter" "p.csv:1: km.gnabar: unknown column ($known)" \
  'km.gnabar\n0.1\n0.1\n' --channels km:soma
bad "a control byte shown, not obeyed" 'p.csv:2: cm: '"'"'1\x1b[31m'"'"' is not a finite number' \
  'cm\n1\x1b[31m\n1\n'
rm -f bad.csv bad.json
"$hinestask" --mode mono --morph synthetic:small-high --neurons 2 --steps 10 --json bad.json \
  --params missing.csv >bad.out 2>bad.err
status=$?
check "a missing file: one line, exit 2, nothing written" bad.err sh -c \
  "[ $status -eq 2 ] && [ \$(wc -l <bad.err) -eq 1 ] && grep -q '^hinestask: missing.csv: cannot read the --params file' bad.err && [ ! -e bad.json ]"
printf 'cm\n1\n1\n' >p.csv
"$hinestask" --morph synthetic:small-high --morph synthetic:small-low --neurons 2 --steps 10 \
  --params p.csv >bad.out 2>bad.err
status=$?
check "multi-morphology runs refuse --params (exit 2, one line)" bad.err sh -c \
  "[ $status -eq 2 ] && [ \$(wc -l <bad.err) -eq 1 ] && grep -q 'parameter sweeps run in --mode mono only' bad.err"
# CRLF line ends and spaces around the cells are read.
printf 'cm , ra\r\n 1.1, 90 \r\n1.1,90\r\n' >p.csv
check "CRLF line ends and spaces around cells are read" crlf.log run crlf.log --mode mono \
  --morph synthetic:small-high --neurons 2 --steps 10 --params p.csv

echo "1..$n"
[ "$failed" -eq 0 ]
