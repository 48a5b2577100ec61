#!/usr/bin/env bash
# scripts/bench/plot.py draws every family of figures (mono, classes, multi, tridiagonal, and
# Fig. 13 from two CSVs) from committed CSVs into a temporary folder: each run exits 0 and
# leaves a non-empty PNG of the expected name. Also: a CSV it does not recognise is refused
# with status 2. Skipped (77) where matplotlib is missing (plot.py exits 3).
# Usage: tests/test_plots.sh path/to/scripts/bench/plot.py
set -uo pipefail
plot=${1:?path to scripts/bench/plot.py}
results=$(cd "$(dirname "$plot")/../results" && pwd)
HINES_PLOTS_DIR=$(mktemp -d)
export HINES_PLOTS_DIR
trap 'rm -rf "$HINES_PLOTS_DIR"' EXIT
failed=0

# draws FIGURE "PNG..." CSV...: plot.py FIGURE CSV... exits 0 and writes each PNG, not empty.
draws() {
  local figure=$1 pngs=$2 status png
  shift 2
  "$plot" "$figure" "${@/#/$results/}" >"$HINES_PLOTS_DIR/log" 2>&1
  status=$?
  if [ $status = 3 ]; then
    echo "SKIP: $(head -n 1 "$HINES_PLOTS_DIR/log")"
    exit 77
  fi
  for png in $pngs; do
    if [ $status != 0 ] || [ ! -s "$HINES_PLOTS_DIR/$png" ]; then
      echo "not ok - $figure: no $png (exit status $status)"
      sed 's/^/# /' "$HINES_PLOTS_DIR/log"
      failed=1
      return
    fi
  done
  echo "ok - $figure: $pngs"
}

draws fig3 fig3.png mono_h200x2_2026-11-22.csv
draws fig4 fig4.png mono_h200_2026-11-22b.csv
draws fig5 fig5.png classes_h200_2026-11-22b.csv
draws fig6 fig6.png multi_h200_2026-11-22d.csv
draws fig14 fig14.png multi_h200_2026-11-22d.csv
draws fig9-11 "fig9.png fig10.png fig11.png" tridiag_h200_2026-11-22b.csv
# the older tridiagonal CSV: no machine, date or commit columns (provenance from its name)
draws fig12 fig12.png tridiag_h200_2026-11-22.csv
draws fig13 fig13.png tridiag_h200_2026-11-22b.csv multi_h200_2026-11-22d.csv

rm -f "$HINES_PLOTS_DIR"/*.png
"$plot" fig6 "$results/hetero_h200_2026-11-22.csv" 2>/dev/null
status=$?
if [ $status = 2 ] && [ -z "$(ls "$HINES_PLOTS_DIR"/*.png 2>/dev/null)" ]; then
  echo "ok - a CSV of unknown kind is refused with status 2"
else
  echo "not ok - a CSV of unknown kind: exit status $status (2 expected)"
  failed=1
fi
exit $failed
