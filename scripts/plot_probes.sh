#!/usr/bin/env bash
# Draws the probe voltages that hinestask --probes (or the default job) wrote, one line per
# probe, into a PNG next to the CSV (or OUT.png). Needs gnuplot (Debian gnuplot-nox).
# Usage: scripts/plot_probes.sh PROBES.csv [OUT.png]
set -euo pipefail
csv=${1:?usage: scripts/plot_probes.sh PROBES.csv [OUT.png]}
png=${2:-${csv%.csv}.png}
[ -r "$csv" ] || { echo "plot_probes: cannot read $csv" >&2; exit 2; }
columns=$(head -n 1 "$csv" | awk -F, '{print NF}')
[ "$columns" -ge 2 ] || { echo "plot_probes: $csv has no probe column" >&2; exit 2; }
terminal=pngcairo
gnuplot -e 'set terminal pngcairo' >/dev/null 2>&1 || terminal=png
gnuplot <<GNUPLOT
set terminal $terminal size 1200,700
set output '$png'
set datafile separator ','
set key outside right top noenhanced
set xlabel 'time (ms)'
set ylabel 'membrane potential (mV)'
set title 'hinestask probes: $(basename "$csv")' noenhanced
set grid
plot for [c=2:$columns] '$csv' using 1:c with lines title columnhead(c)
GNUPLOT
echo "$png"
