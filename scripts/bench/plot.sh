#!/usr/bin/env bash
# Shared plotting harness of scripts/bench/: draws one of the papers' figures from benchmark CSVs
# with gnuplot (pngcairo if this gnuplot has it, else png) into scripts/results/plots/.
# Usage: scripts/bench/plot.sh FIGURE [CSV...]
#   FIGURE: fig3 fig4 fig5 fig6 fig9 fig10 fig11 fig9-11 fig12 fig13 fig14
#   CSV:    benchmark CSVs; each is recognised by its header (bench_mono.sh, bench_multi.sh,
#           bench_tridiag.sh, bench/bench_classes.sh). Without any, the committed CSVs of
#           scripts/results/ are plotted.
# Environment: HINES_PLOTS_DIR (output folder, default scripts/results/plots).
# Every value drawn comes from the CSVs; the footnote of each PNG names the machine, the date,
# the commit and the CSV. A figure without data (fig5 without a classes CSV) is skipped with a
# message and exit status 0.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd "$here/../.." && pwd)
committed=$repo_root/scripts/results
plots_dir=${HINES_PLOTS_DIR:-$committed/plots}

usage() {
  sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

[ $# -ge 1 ] || {
  usage >&2
  exit 2
}
figure=$1
shift
case "$figure" in
fig3 | fig4) needs=mono ;;
fig5) needs=classes ;;
fig6 | fig14) needs=multi ;;
fig9 | fig10 | fig11 | fig9-11 | fig12) needs=tridiag ;;
fig13) needs="tridiag multi" ;;
-h | --help)
  usage
  exit 0
  ;;
*)
  echo "plot.sh: unknown figure '$figure'" >&2
  usage >&2
  exit 2
  ;;
esac

# ---------------------------------------------------------------- which CSV is which
csv_kind() {
  local header
  header=$(head -n 1 "$1" | tr -d '\r')
  case ",$header," in
  *,method,*) echo tridiag ;;
  *,figure,*) echo multi ;;
  *,morph,*) echo classes ;;
  *,engine,*) echo mono ;;
  *) echo unknown ;;
  esac
}

declare -A csv_of=()
if [ $# -gt 0 ]; then
  for csv in "$@"; do
    [ -r "$csv" ] || {
      echo "plot.sh: cannot read $csv" >&2
      exit 2
    }
    kind=$(csv_kind "$csv")
    if [ "$kind" = unknown ]; then
      echo "plot.sh: $csv: header not recognised" >&2
      exit 2
    fi
    if [ -n "${csv_of[$kind]:-}" ]; then
      echo "plot.sh: two $kind CSVs given; plotting the first, ${csv_of[$kind]}" >&2
    else
      csv_of[$kind]=$(cd "$(dirname "$csv")" && pwd)/$(basename "$csv")
    fi
  done
else
  csv_of[mono]=$committed/mono_h200_2026-11-22b.csv
  # Fig. 3 has two-GPU curves: the run on the two-GPU machine (its CPU engines too, same run).
  [ "$figure" = fig3 ] && csv_of[mono]=$committed/mono_h200x2_2026-11-22.csv
  csv_of[multi]=$committed/multi_h200_2026-11-22d.csv
  csv_of[tridiag]=$committed/tridiag_h200_2026-11-22b.csv
  csv_of[classes]=$committed/classes_h200_2026-11-22b.csv
fi
have=0
for kind in $needs; do
  [ -n "${csv_of[$kind]:-}" ] && have=1
done
if [ "$have" = 0 ]; then
  if [ "$figure" = fig5 ]; then
    cat >&2 <<'EOF'
fig5: SKIPPED, no data. The six morphology classes (Fig. 5) have not been measured: there is no
classes_*.csv in scripts/results/. Measure them on a GPU machine with
    scripts/bench/fig5.sh --run BIN_DIR      (BIN_DIR: a bundle's bin/ from scripts/gpu_bundle.sh)
which runs scripts/bench/bench_classes.sh into a fresh CSV and then plots it.
EOF
    exit 0
  fi
  echo "plot.sh: $figure needs a $needs CSV (given: ${*:-none})" >&2
  exit 2
fi

command -v gnuplot >/dev/null || {
  echo "plot.sh: gnuplot not found; the CSVs are ${csv_of[*]}: plot them on a machine with gnuplot:" >&2
  echo "    scripts/bench/plot.sh $figure ${csv_of[*]}" >&2
  exit 3
}
if gnuplot -e 'set terminal' 2>&1 | grep -qw pngcairo; then
  term_kind=pngcairo
else
  term_kind=png
fi
mkdir -p "$plots_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---------------------------------------------------------------- helpers
# Every awk program starts with this: columns are looked up by header name.
# shellcheck disable=SC2016 # awk text, expanded by awk
AWK_COLS='
{ sub(/\r$/, "") }
FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }
function v(name) {
  if (!(name in c)) { printf "plot.sh: column %s missing in %s\n", name, FILENAME > "/dev/stderr"; exit 3 }
  return $(c[name])
}
function commas(x,   s, r) {
  s = sprintf("%d", x); r = ""
  while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
  return s r
}
'

# A string for a gnuplot double-quoted literal.
gp_str() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  printf '%s' "${s//$'\n'/\\n}"
}

# Repository-relative name of a file, for the footnote.
rel() {
  case "$1" in
  "$repo_root"/*) echo "${1#"$repo_root"/}" ;;
  *) echo "$1" ;;
  esac
}

# One footnote line for one CSV: machine, date and commit from its rows; the tridiagonal CSV has
# no such columns, so a .meta file written by the wrapper's --run, else the file name, stands in.
provenance() {
  local csv=$1 header meta
  header=$(head -n 1 "$csv" | tr -d '\r')
  if [[ ",$header," == *,gpu,* && ",$header," == *,date,* && ",$header," == *,commit,* ]]; then
    awk -F, -v file="$(rel "$csv")" "$AWK_COLS"'
      function add(list, x) { return index(";" list ";", ";" x ";") ? list : (list == "" ? x : list ";" x) }
      { g = add(g, v("gpu")); k = add(k, v("commit")); d = v("date")
        if (first == "" || d < first) first = d; if (d > last) last = d
        if ("cpu" in c) cpu = add(cpu, v("cpu") " (" v("cores") " cores)") }
      END {
        gsub(/;/, ", ", g); gsub(/;/, ", ", k); gsub(/;/, ", ", cpu)
        printf "Machine: %s%s | run %s | commit %s | data: %s\n", g, (cpu == "" ? "" : ", CPU " cpu),
          (first == last ? first : first " to " last), k, file
      }' "$csv"
    return
  fi
  meta=${csv%.csv}.meta
  if [ -r "$meta" ]; then
    printf 'Machine: %s | run %s | commit %s | data: %s\n' \
      "$(sed -n 's/^gpu=//p' "$meta")" "$(sed -n 's/^date=//p' "$meta")" \
      "$(sed -n 's/^commit=//p' "$meta")" "$(rel "$csv")"
    return
  fi
  # KIND_MACHINE_YYYY-MM-DD[suffix].csv
  local base machine day
  base=$(basename "$csv" .csv)
  machine=$(echo "$base" | cut -d_ -f2)
  day=$(echo "$base" | cut -d_ -f3)
  printf 'Machine: %s, date %s (both from the file name: this CSV has no machine, date or commit column) | commit: not recorded | data: %s\n' \
    "${machine:-unknown}" "${day:-unknown}" "$(rel "$csv")"
}

# 1234567 -> 1,234,567
commas() {
  echo "$1" | xtics_of | sed -e 's/^("//' -e 's/".*//'
}

# gnuplot xtics list "(\"256\" 256, ...)" from numbers on stdin.
xtics_of() {
  sort -n -u | awk '{ s = sprintf("%d", $1); r = ""
      while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
      printf "%s\"%s\" %s", (NR > 1 ? ", " : "("), s r, $1 } END { if (NR) print ")"; else print "(\"1\" 1)" }'
}

# Writes the terminal, the colours and the footnote; FOOT holds the footnote lines.
gp_begin() { # png width height
  local font
  if [ "$term_kind" = pngcairo ]; then
    font='font "DejaVu Sans,13"'
    echo "set terminal pngcairo enhanced $font size $2,$3 background rgb 'white'"
  else
    echo "set terminal png enhanced font 'DejaVuSans' 12 size $2,$3"
  fi
  cat <<EOF
set output "$(gp_str "$1")"
set encoding utf8
set linetype 1 lc rgb "#1f77b4" lw 2.2 pt 7 ps 1.3
set linetype 2 lc rgb "#d62728" lw 2.2 pt 5 ps 1.2
set linetype 3 lc rgb "#2ca02c" lw 2.2 pt 9 ps 1.5
set linetype 4 lc rgb "#ff7f0e" lw 2.2 pt 11 ps 1.5
set linetype 5 lc rgb "#9467bd" lw 2.2 pt 13 ps 1.4
set linetype 6 lc rgb "#8c564b" lw 2.2 pt 15 ps 1.4
set linetype 7 lc rgb "#e377c2" lw 2.2 pt 4 ps 1.3
set linetype 8 lc rgb "#7f7f7f" lw 2.2 pt 6 ps 1.3
set linetype 9 lc rgb "#17becf" lw 2.2 pt 8 ps 1.3
set style line 100 lc rgb "#d8d8d8" lw 1 dt 1
set grid back xtics ytics mxtics mytics ls 100, ls 100
set border 31 lw 1.2 front lc rgb "black"
set key opaque box lc rgb "#999999" samplen 2.5 spacing 1.15
set label 99 "$(gp_str "$FOOT")" at screen 0.008, screen $(foot_y "$3") left front noenhanced font ",10" textcolor rgb "#333333"
set key Left reverse
EOF
}

# Screen height of the footnote's first line: every line of it above the bottom edge.
foot_y() { # image height in pixels
  local lines
  lines=$(printf '%s\n' "$FOOT" | wc -l)
  awk -v n="$lines" -v h="$1" 'BEGIN { printf "%.4f", (10 + (n - 1) * 17) / h }'
}

# Runs the gnuplot script; shows it on failure.
gp_run() { # script png
  if ! gnuplot "$1" 2>"$tmp/gnuplot.err"; then
    cat "$tmp/gnuplot.err" >&2
    echo "plot.sh: gnuplot failed on $1:" >&2
    cat -n "$1" >&2
    exit 1
  fi
  # gnuplot warns (empty ranges, ...) without failing: pass them on
  [ -s "$tmp/gnuplot.err" ] && sed 's/^/gnuplot: /' "$tmp/gnuplot.err" >&2
  echo "wrote $(rel "$2")"
}

# Collects "FILE using ... title ..." clauses for files that have data.
clauses=()
add() { # file rest-of-clause
  if [ -s "$1" ]; then
    clauses+=("\"$(gp_str "$1")\" $2")
  else
    echo "plot.sh: $figure: no rows for: ${2##*title }" >&2
  fi
}
plot_clauses() { # prints "plot a, \ b, ..." and empties the list
  local i
  if [ ${#clauses[@]} -eq 0 ]; then
    echo 'set label 98 "no data in the CSV for this panel" at graph 0.5, graph 0.5 center'
    echo 'plot [1:2][1:2] NaN notitle'
    echo 'unset label 98'
    return
  fi
  printf 'plot '
  for i in "${!clauses[@]}"; do
    [ "$i" -gt 0 ] && printf ', \\\n     '
    printf '%s' "${clauses[$i]}"
  done
  printf '\n'
  clauses=()
}

# ---------------------------------------------------------------- mono (Fig. 3, 4)
# neurons, speedup over the sequential solver at the same batch size, seconds per step
mono_series() { # engine layout block_size(or -) out
  awk -F, -v E="$1" -v L="$2" -v B="$3" "$AWK_COLS"'
    FNR == NR { if (v("engine") == "sequential") seq[v("neurons")] = v("seconds_per_step"); next }
    v("engine") == E && v("layout") == L && (B == "-" || v("block_size") == B) && (v("neurons") in seq) {
      print v("neurons"), seq[v("neurons")] / v("seconds_per_step"), v("seconds_per_step") }
  ' "${csv_of[mono]}" "${csv_of[mono]}" | sort -n >"$4"
}

mono_common() { # title-line subtitle-line
  local comps
  comps=$(awk -F, "$AWK_COLS"'{ x = v("compartments") } END { print x }' "${csv_of[mono]}")
  awk -F, "$AWK_COLS"'{ print v("neurons") }' "${csv_of[mono]}" >"$tmp/neurons"
  cat <<EOF
set title "{/:Bold $1}\n{/*0.8 $2 (synthetic medium-high cells, $comps compartments each)}"
set xlabel "number of neurons in the batch (log scale)"
set ylabel "speedup over the sequential solver at the same batch size (×, log scale)"
set logscale xy
set xtics $(xtics_of <"$tmp/neurons")
set xrange [*:*] noextend
set offsets graph 0.04, graph 0.04, 0, 0
set format y "%g"
set mxtics 10
set bmargin 5.5
EOF
}

fig3() {
  local png=$plots_dir/fig3.png gp=$tmp/fig3.gp
  mono_series starpu-2gpu flat - "$tmp/gpu2flat"
  mono_series starpu-2gpu interleaved - "$tmp/gpu2int"
  local two_gpus="Two-GPU curves: StarPU, one task per GPU, calibrated dmda."
  [ -s "$tmp/gpu2int" ] || two_gpus="Not measured in this CSV: curves on two GPUs (no starpu-2gpu rows)."
  FOOT="$(provenance "${csv_of[mono]}")
$two_gpus Speedup = sequential seconds per step / seconds per step, both at the same batch size."
  mono_series openmp-flat flat - "$tmp/omp"
  mono_series starpu-cpu block 32 "$tmp/cpublock"
  mono_series starpu-gpu flat - "$tmp/gpuflat"
  mono_series starpu-gpu interleaved - "$tmp/gpuint"
  mono_series cuda-direct interleaved - "$tmp/cudaint"
  {
    gp_begin "$png" 1300 860
    mono_common "Fig. 3: mono-morphology speedup over the sequential solver" \
      "CPU engines and $([ -s "$tmp/gpu2int" ] && echo "one and two GPUs" || echo "one GPU"), fp64, one implicit step"
    echo 'set key top left'
    add "$tmp/omp" 'using 1:2 with linespoints lt 8 title "OpenMP flat (all cores, no StarPU)"'
    add "$tmp/cpublock" 'using 1:2 with linespoints lt 6 title "StarPU CPU block codelet (BS 32)"'
    add "$tmp/gpuflat" 'using 1:2 with linespoints lt 4 title "GPU Flat (StarPU)"'
    add "$tmp/gpuint" 'using 1:2 with linespoints lt 1 title "GPU Full-Interleaved (StarPU)"'
    add "$tmp/cudaint" 'using 1:2 with linespoints lt 2 dt 2 title "GPU Full-Interleaved (CUDA kernel launched directly)"'
    if [ -s "$tmp/gpu2int" ]; then
      add "$tmp/gpu2flat" 'using 1:2 with linespoints lt 4 dt 3 title "2 GPUs Flat (StarPU)"'
      add "$tmp/gpu2int" 'using 1:2 with linespoints lt 1 dt 3 title "2 GPUs Full-Interleaved (StarPU)"'
    fi
    plot_clauses
  } >"$gp"
  gp_run "$gp" "$png"
}

fig4() {
  local png=$plots_dir/fig4.png gp=$tmp/fig4.gp bs lt=1
  FOOT="$(provenance "${csv_of[mono]}")
All curves: StarPU with one CUDA worker and no CPU worker (as bench_mono.sh runs them). BS = neurons per block."
  {
    gp_begin "$png" 1300 860
    mono_common "Fig. 4: Block-Interleaved and Block-Shared speedup over the sequential solver" \
      "one GPU through StarPU, fp64, one implicit step"
    echo 'set key top left'
    for bs in 32 64 128 256 512; do
      mono_series starpu-gpu block "$bs" "$tmp/block$bs"
      add "$tmp/block$bs" "using 1:2 with linespoints lt $lt title \"Block-Interleaved, BS $bs\""
      lt=$((lt + 1))
    done
    for bs in 32 64; do
      mono_series starpu-gpu shared "$bs" "$tmp/shared$bs"
      add "$tmp/shared$bs" "using 1:2 with linespoints lt $lt dt 2 title \"Block-Shared, BS $bs\""
      lt=$((lt + 1))
    done
    mono_series starpu-gpu interleaved - "$tmp/gpuint"
    add "$tmp/gpuint" 'using 1:2 with lines lt 8 dt 3 lw 1.5 title "Full-Interleaved (for reference)"'
    plot_clauses
  } >"$gp"
  gp_run "$gp" "$png"
}

# ---------------------------------------------------------------- six classes (Fig. 5)
fig5() {
  local png=$plots_dir/fig5.png gp=$tmp/fig5.gp csv=${csv_of[classes]} morph lt=1
  FOOT="$(provenance "$csv")
Speedup = sequential seconds per step / seconds per step, both at the same batch size and class."
  awk -F, "$AWK_COLS"'{ print v("neurons") }' "$csv" >"$tmp/neurons"
  {
    gp_begin "$png" 1300 860
    cat <<EOF
set title "{/:Bold Fig. 5: speedup of the Full-Interleaved GPU solver for six morphology classes}\n{/*0.8 one GPU through StarPU (solid) and the kernel launched directly (dashed), fp64, one implicit step}"
set xlabel "number of neurons in the batch (log scale)"
set ylabel "speedup over the sequential solver at the same batch size (×, log scale)"
set logscale xy
set xtics $(xtics_of <"$tmp/neurons")
set xrange [*:*] noextend
set offsets graph 0.04, graph 0.04, 0, 0
set format y "%g"
set bmargin 5.5
set key top left
EOF
    awk -F, "$AWK_COLS"'!seen[v("morph")]++ { print v("morph") }' "$csv" >"$tmp/morphs"
    while read -r morph; do
      for engine in starpu-gpu cuda-direct; do
        awk -F, -v M="$morph" -v E="$engine" "$AWK_COLS"'
          FNR == NR { if (v("morph") == M && v("engine") == "sequential") seq[v("neurons")] = v("seconds_per_step"); next }
          v("morph") == M && v("engine") == E && v("layout") == "interleaved" && (v("neurons") in seq) {
            print v("neurons"), seq[v("neurons")] / v("seconds_per_step"), v("compartments") }
        ' "$csv" "$csv" | sort -n >"$tmp/c_${morph}_$engine"
      done
      comps=$(awk 'NR == 1 { print $3 }' "$tmp/c_${morph}_starpu-gpu")
      add "$tmp/c_${morph}_starpu-gpu" "using 1:2 with linespoints lt $lt title \"$morph${comps:+ ($comps compartments)}\""
      add "$tmp/c_${morph}_cuda-direct" "using 1:2 with lines lt $lt dt 2 lw 1.5 notitle"
      lt=$((lt + 1))
    done <"$tmp/morphs"
    plot_clauses
  } >"$gp"
  gp_run "$gp" "$png"
}

# ---------------------------------------------------------------- multi (Fig. 6, 13, 14)
fig6() {
  local png=$plots_dir/fig6.png gp=$tmp/fig6.gp csv=${csv_of[multi]} info
  awk -F, "$AWK_COLS"'
    v("figure") == "fig6" {
      cs = v("case"); p = cs; sub(/.*-/, "", p); sub(/%$/, "", p)
      kind = cs; sub(/-[0-9]+%$/, "", kind)
      g[p, kind] = v("compartment_solves_per_s") / 1e9; ms[p, kind] = v("seconds_per_step") * 1e3
      if (!(p in seenp)) { seenp[p] = 1; order[++np] = p }
      n = v("neurons"); comp = v("compartments") / v("neurons")
    }
    END {
      for (i = 1; i <= np; i++) { p = order[i]
        printf "\"%s %% branches\" %s %s %s\n", p, val(g, p, "mono"), val(g, p, "multi-same"), val(g, p, "multi-16-shapes") }
      printf "%s %s\n", commas(n), comp > "/dev/stderr"
    }
    function val(a, p, k) { return ((p, k) in a) ? a[p, k] : "NaN" }
  ' "$csv" >"$tmp/fig6.dat" 2>"$tmp/fig6.info"
  info=$(cat "$tmp/fig6.info")
  FOOT="$(provenance "$csv")
G compartment-steps/s = neurons × compartments / seconds per step. One GPU through StarPU, CUDA workers only, data resident."
  {
    gp_begin "$png" 1200 820
    cat <<EOF
set title "{/:Bold Fig. 6: mono- against multi-morphology throughput}\n{/*0.8 ${info% *} neurons of ${info#* } compartments, fp64; multi = branch-level solver (NCP)}"
set ylabel "throughput (G compartment-steps/s)"
set xlabel "share of branch points in the morphology"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.9
set xrange [-0.6:$(awk 'END { print NR - 0.4 }' "$tmp/fig6.dat")]
set yrange [0:*]
set offsets 0, 0, graph 0.12, 0
set grid noxtics nomxtics ytics nomytics
set key top right
set bmargin 5.5
plot "$(gp_str "$tmp/fig6.dat")" using 2:xtic(1) lt 1 title "mono (one shape, Full-Interleaved)", \\
     '' using 3 lt 4 title "multi, the same shape for every neuron", \\
     '' using 4 lt 3 title "multi, 16 different shapes of the class", \\
     '' using (\$0 - 0.25):2:(sprintf("%.1f", \$2)) with labels offset 0, 0.8 notitle, \\
     '' using (\$0):3:(sprintf("%.1f", \$3)) with labels offset 0, 0.8 notitle, \\
     '' using (\$0 + 0.25):4:(sprintf("%.1f", \$4)) with labels offset 0, 0.8 notitle
EOF
  } >"$gp"
  gp_run "$gp" "$png"
}

fig14() {
  local png=$plots_dir/fig14.png gp=$tmp/fig14.gp csv=${csv_of[multi]} level lt=1 comps
  awk -F, -v D="$tmp" "$AWK_COLS"'
    v("figure") == "fig14" {
      cs = v("case"); split(cs, part, "-")  # levels-L-multi | levels-L-mono
      print v("neurons"), v("compartment_solves_per_s") / 1e9, v("seconds_per_step") > (D "/f14_" part[2] "_" part[3])
      print part[2] > (D "/f14_levels"); print v("neurons") > (D "/neurons")
      print v("compartments") / v("neurons") > (D "/f14_comps")
    }' "$csv"
  comps=$(sort -u "$tmp/f14_comps" | paste -sd/)
  FOOT="$(provenance "$csv")
G compartment-steps/s = neurons × compartments / seconds per step. Multi: branch-level solver (NCP, one task per chunk). Mono: Full-Interleaved."
  {
    gp_begin "$png" 1300 860
    cat <<EOF
set title "{/:Bold Fig. 14: multi- against mono-morphology throughput, binary trees of 2, 3 and 4 levels}\n{/*0.8 $comps compartments per neuron, one GPU through StarPU, fp64; solid: multi (levels), dashed: mono (interleaved)}"
set xlabel "number of neurons in the batch (log scale)"
set ylabel "throughput (G compartment-steps/s, log scale)"
set logscale xy
set xtics $(xtics_of <"$tmp/neurons")
set xrange [*:*] noextend
set offsets graph 0.04, graph 0.04, 0, 0
set format y "%g"
set key top left
set bmargin 5.5
EOF
    sort -n -u "$tmp/f14_levels" >"$tmp/f14_level_list"
    while read -r level; do
      sort -n -o "$tmp/f14_${level}_multi" "$tmp/f14_${level}_multi" 2>/dev/null || : >"$tmp/f14_${level}_multi"
      sort -n -o "$tmp/f14_${level}_mono" "$tmp/f14_${level}_mono" 2>/dev/null || : >"$tmp/f14_${level}_mono"
      add "$tmp/f14_${level}_multi" "using 1:2 with linespoints lt $lt title \"$level levels, multi\""
      add "$tmp/f14_${level}_mono" "using 1:2 with linespoints lt $lt dt 2 pt 6 title \"$level levels, mono\""
      lt=$((lt + 1))
    done <"$tmp/f14_level_list"
    plot_clauses
  } >"$gp"
  gp_run "$gp" "$png"
}

# ---------------------------------------------------------------- tridiagonal (Fig. 9-13)
tri_split_done=0
tri_split() { # one file per method, precision, size, variable: batch ms err bytes
  [ "$tri_split_done" = 1 ] && return
  mkdir -p "$tmp/tri"
  awk -F, -v D="$tmp/tri" "$AWK_COLS"'
    { f = D "/" v("method") "_" v("precision") "_" v("size") "_" v("variable_sizes")
      print v("batch"), v("seconds_median") * 1e3, v("max_rel_error"), v("device_bytes"), v("seconds_min") * 1e3, v("seconds_max") * 1e3 > f
      files[f] = 1 }
    END { for (f in files) close(f) }' "${csv_of[tridiag]}"
  local f
  for f in "$tmp"/tri/*; do
    [ -e "$f" ] && sort -n -o "$f" "$f"
  done
  tri_split_done=1
}
tri_sizes() { # precision min max -> sizes present (fixed sizes)
  awk -F, -v P="$1" -v lo="$2" -v hi="$3" "$AWK_COLS"'
    v("precision") == P && v("variable_sizes") == 0 && v("size") + 0 >= lo && v("size") + 0 <= hi { print v("size") }' \
    "${csv_of[tridiag]}" | sort -n -u
}
tri_methods=(thomas_cp thomas_ncp thomas_flat cusparse_gtsv2_strided cusparse_gtsv_interleaved)
declare -A tri_title=(
  [thomas_cp]="interleaved Thomas, CP (ours)"
  [thomas_ncp]="interleaved Thomas, NCP (ours)"
  [thomas_flat]="flat Thomas (ours)"
  [cusparse_gtsv2_strided]="cuSPARSE gtsv2StridedBatch"
  [cusparse_gtsv_interleaved]="cuSPARSE gtsvInterleavedBatch"
)
declare -A tri_style=(
  [thomas_cp]="lt 1"
  [thomas_ncp]="lt 2 dt 2"
  [thomas_flat]="lt 3"
  [cusparse_gtsv2_strided]="lt 4"
  [cusparse_gtsv_interleaved]="lt 5 dt 4"
)

# One panel: time vs batch size of every method, one precision and system size.
tri_panel() { # precision size first-panel(0|1)
  local m
  cut -d' ' -f1 "$tmp"/tri/*_"$1"_"$2"_0 2>/dev/null >"$tmp/batches" || true
  echo "set title \"{/:Bold systems of $(commas "$2") unknowns, $1}\""
  echo "set xtics $(xtics_of <"$tmp/batches")"
  for m in "${tri_methods[@]}"; do
    if [ "$3" = 1 ]; then
      add "$tmp/tri/${m}_$1_$2_0" "using 1:2 with linespoints ${tri_style[$m]} title \"${tri_title[$m]}\""
    else
      add "$tmp/tri/${m}_$1_$2_0" "using 1:2 with linespoints ${tri_style[$m]} notitle"
    fi
  done
  plot_clauses
}

# A legend alone, across the whole width (a key inside a small panel cannot be wide): a plot with
# no border or tics whose curves lie outside its y range. Draws the footnote too.
legend_row() { # y height maxrows entries ("STYLE|TITLE")...
  local y=$1 h=$2 rows=$3 e sep='plot '
  shift 3
  cat <<EOF
set origin 0, $y
set size 1, $h
unset border
unset tics
unset grid
unset title
unset xlabel
unset ylabel
unset logscale
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxrows $rows width 2 samplen 3.5 font ",14"
EOF
  for e in "$@"; do
    printf '%s2 with linespoints %s title "%s"' "$sep" "${e%%|*}" "${e#*|}"
    sep=$', \\\n     '
  done
  printf '\n'
  cat <<'EOF'
unset label 99
unset key
set border 31 lw 1.2 front lc rgb "black"
set tics
set grid back xtics ytics mxtics mytics ls 100, ls 100
set xrange [*:*] noextend
set yrange [*:*]
EOF
}

# Origin and size of panel INDEX (0 = top left) of a ROWS x COLS grid in [0, 1] x [Y0, Y1].
panel_at() { # index rows cols y0 y1
  awk -v i="$1" -v r="$2" -v c="$3" -v y0="$4" -v y1="$5" 'BEGIN {
    w = 1 / c; h = (y1 - y0) / r; row = int(i / c); col = i % c
    printf "set origin %.4f, %.4f\nset size %.4f, %.4f\n", col * w, y1 - (row + 1) * h, w, h }'
}

tri_figure() { # figN title rows cols width height precision:min:max...
  local name=$1 title=$2 rows=$3 cols=$4 width=$5 height=$6 png gp index=0 spec p lo hi size m
  local entries=()
  shift 6
  png=$plots_dir/$name.png
  gp=$tmp/$name.gp
  tri_split
  FOOT="$(provenance "${csv_of[tridiag]}")
Median of the timed solves of one batch (all systems the same size); the rows with variable sizes are in Fig. 13."
  for m in "${tri_methods[@]}"; do
    entries+=("${tri_style[$m]}|${tri_title[$m]}")
  done
  {
    gp_begin "$png" "$width" "$height"
    printf 'set multiplot title "{/:Bold %s}\\n{/*0.8 %s}"\n' "$title" \
      "time of one batched solve on one GPU: our one-thread-per-system Thomas solvers against cuSPARSE"
    legend_row 0.84 0.075 2 "${entries[@]}"
    cat <<EOF
set logscale xy
set format y "%g"
set xlabel "batch size (systems, log scale)"
set ylabel "time per batched solve (ms, log scale)"
set offsets graph 0.05, graph 0.05, 0, 0
set lmargin 10
set rmargin 4
EOF
    for spec in "$@"; do
      IFS=: read -r p lo hi <<<"$spec"
      for size in $(tri_sizes "$p" "$lo" "$hi"); do
        panel_at "$index" "$rows" "$cols" 0.05 0.84
        tri_panel "$p" "$size" 0
        index=$((index + 1))
      done
    done
    echo "unset multiplot"
  } >"$gp"
  gp_run "$gp" "$png"
}

fig9() {
  tri_figure fig9 "Fig. 9: batched tridiagonal solvers, small systems, fp64" 2 2 1500 1120 fp64:1:1023
}
fig10() {
  tri_figure fig10 "Fig. 10: batched tridiagonal solvers, small systems, fp32" 2 2 1500 1120 fp32:1:1023
}
fig11() {
  tri_figure fig11 "Fig. 11: batched tridiagonal solvers, large systems, fp64 (top) and fp32 (bottom)" \
    2 4 2300 1150 fp64:1024:1000000000 fp32:1024:1000000000
}

fig12() {
  local png=$plots_dir/fig12.png gp=$tmp/fig12.gp csv=${csv_of[tridiag]} m p point
  # error: max over the batch sizes of each method, precision and size (fixed sizes)
  mkdir -p "$tmp/err"
  awk -F, -v D="$tmp/err" "$AWK_COLS"'
    v("variable_sizes") == 0 { k = v("method") "_" v("precision") SUBSEP v("size")
      if (!(k in e) || v("max_rel_error") + 0 > e[k]) e[k] = v("max_rel_error") + 0 }
    END { for (k in e) { split(k, a, SUBSEP); print a[2], e[k] > (D "/" a[1]) } }' "$csv"
  for m in "$tmp"/err/*; do
    [ -e "$m" ] && sort -n -o "$m" "$m"
  done
  awk -F, "$AWK_COLS"'v("variable_sizes") == 0 { print v("size") }' "$csv" >"$tmp/sizes"
  # memory: every method at the fixed-size point with the most unknowns, plus CP/NCP with
  # variable sizes at the same batch and size
  point=$(awk -F, "$AWK_COLS"'v("variable_sizes") == 0 && v("batch") * v("size") > best { best = v("batch") * v("size"); b = v("batch"); s = v("size") }
    END { print b, s }' "$csv")
  awk -F, -v B="${point% *}" -v S="${point#* }" "$AWK_COLS"'
    v("batch") == B && v("size") == S { k = v("method") (v("variable_sizes") == 1 ? "_var" : "")
      gib[k, v("precision")] = v("device_bytes") / 1073741824; seen[k] = 1 }
    END {
      n = split("thomas_cp thomas_ncp thomas_flat cusparse_gtsv2_strided cusparse_gtsv_interleaved thomas_cp_var thomas_ncp_var", order, " ")
      label["thomas_cp"] = "Thomas\\nCP"; label["thomas_ncp"] = "Thomas\\nNCP"; label["thomas_flat"] = "flat\\nThomas"
      label["cusparse_gtsv2_strided"] = "gtsv2\\nStrided"; label["cusparse_gtsv_interleaved"] = "gtsv\\nInterleaved"
      label["thomas_cp_var"] = "Thomas CP\\nvariable\\nsizes"; label["thomas_ncp_var"] = "Thomas NCP\\nvariable\\nsizes"
      for (i = 1; i <= n; i++) { k = order[i]; if (!(k in seen)) continue
        printf "\"%s\" %s %s\n", label[k], ((k, "fp32") in gib) ? gib[k, "fp32"] : "NaN", ((k, "fp64") in gib) ? gib[k, "fp64"] : "NaN" }
    }' "$csv" >"$tmp/mem.dat"
  FOOT="$(provenance "$csv")
Error: max_rel_error column (largest over the batch sizes of each system size). Memory: device_bytes column."
  {
    gp_begin "$png" 1800 860
    cat <<EOF
set multiplot title "{/:Bold Fig. 12: accuracy and device memory of the batched tridiagonal solvers}\n{/*0.8 fixed-size systems on one GPU; our one-thread-per-system Thomas solvers against cuSPARSE}"
set size 0.5, 0.80
set origin 0.0, 0.08
set title "{/:Bold maximum relative error against a long double Thomas reference (sampled systems)}"
set logscale xy
set xlabel "system size (unknowns, log scale)"
set ylabel "maximum relative error (log scale)"
set xtics $(xtics_of <"$tmp/sizes")
set xtics rotate by -30
set format y "10^{%L}"
set yrange [1e-17:1e-5]
set xrange [*:*] noextend
set offsets graph 0.04, graph 0.04, 0, 0
set key at graph 0.98, graph 0.5 right center
set label 10 "fp32" at graph 0.03, graph 0.74 left font ",14"
set label 11 "fp64" at graph 0.03, graph 0.2 left font ",14"
EOF
    for m in "${tri_methods[@]}"; do
      add "$tmp/err/${m}_fp32" "using 1:2 with linespoints ${tri_style[$m]} title \"${tri_title[$m]}\""
      add "$tmp/err/${m}_fp64" "using 1:2 with linespoints ${tri_style[$m]} notitle"
    done
    plot_clauses
    cat <<EOF
unset label 99
unset label 10
unset label 11
set size 0.5, 0.80
set origin 0.5, 0.08
set title "{/:Bold device memory, $(commas "${point% *}") systems of $(commas "${point#* }") unknowns}"
unset logscale
set xtics norotate
set xtics font ",11"
set format y "%g"
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set xlabel "solver" offset 0, -1.6
set bmargin 6
set ylabel "device memory (GiB)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.9
set grid noxtics nomxtics ytics nomytics
unset key
set key inside top left Left reverse opaque box
plot "$(gp_str "$tmp/mem.dat")" using 2:xtic(1) lt 1 title "fp32", \\
     '' using 3 lt 2 title "fp64", \\
     '' using (\$0 - 1/6.):2:(sprintf("%.2f", \$2)) with labels offset 0, 0.7 font ",10" notitle, \\
     '' using (\$0 + 1/6.):3:(sprintf("%.2f", \$3)) with labels offset 0, 0.7 font ",10" notitle
unset multiplot
EOF
  } >"$gp"
  gp_run "$gp" "$png"
}

fig13() {
  local png=$plots_dir/fig13.png gp=$tmp/fig13.gp p size sizes lt group lo hi first=1 right=1.0 x y
  local has_tri=0 has_multi=0
  [ -n "${csv_of[tridiag]:-}" ] && has_tri=1
  [ -n "${csv_of[multi]:-}" ] && has_multi=1
  FOOT=""
  if [ "$has_tri" = 1 ]; then
    tri_split
    FOOT="$(provenance "${csv_of[tridiag]}")"
  fi
  if [ "$has_multi" = 1 ]; then
    awk -F, "$AWK_COLS"'
      v("figure") == "fig13" { pad = v("layout"); sub(/^levels-/, "", pad)
        printf "\"%s\" %s %s %s %s\n", toupper(pad), v("seconds_per_step") * 1e3, v("compartment_solves_per_s") / 1e9, v("neurons"), v("compartments") }' \
      "${csv_of[multi]}" | sort >"$tmp/f13multi.dat"
    FOOT="${FOOT:+$FOOT
}$(provenance "${csv_of[multi]}")"
    [ "$has_tri" = 1 ] && right=0.70
  fi
  FOOT="$FOOT
CP: computes on padded data (each system, or each branch of a level, padded to the longest); NCP: no padding. Tridiagonal variable sizes: uniform in [n/2, n] (bench_tridiag.sh)."
  {
    gp_begin "$png" 2000 1150
    printf '%s\n' 'set multiplot title "{/:Bold Fig. 13: padded (CP) against non-padded (NCP) solvers on systems of variable size}\n{/*0.8 one GPU; solid: CP, dashed: NCP}"'
    if [ "$has_tri" = 1 ]; then
      # 2 x 2 panels in [0, right] x [0.1, 0.9]: rows fp64 / fp32, columns small / large sizes
      y=0.49
      for p in fp64 fp32; do
        x=0
        for group in 1:1023 1024:1000000000; do
          IFS=: read -r lo hi <<<"$group"
          cat <<EOF
set size $(awk -v r="$right" 'BEGIN { print r / 2 }'), 0.40
set origin $x, $y
set logscale xy
set format y "%g"
set xlabel "batch size (systems, log scale)"
set ylabel "time per batched solve (ms, log)"
set xrange [*:*] noextend
set offsets graph 0.05, graph 0.05, 0, 0
set key top left font ",10" maxrows 4 samplen 2
EOF
          lt=1
          : >"$tmp/batches"
          sizes=$(tri_sizes "$p" "$lo" "$hi")
          for size in $sizes; do
            cut -d' ' -f1 "$tmp/tri/thomas_cp_${p}_${size}_1" >>"$tmp/batches" 2>/dev/null || true
            add "$tmp/tri/thomas_cp_${p}_${size}_1" "using 1:2 with linespoints lt $lt title \"n ≤ $size, CP\""
            add "$tmp/tri/thomas_ncp_${p}_${size}_1" "using 1:2 with linespoints lt $lt dt 2 pt 6 title \"n ≤ $size, NCP\""
            lt=$((lt + 1))
          done
          echo "set xtics $(xtics_of <"$tmp/batches")"
          echo "set title \"{/:Bold tridiagonal batches, $p, largest size $(commas "$(echo "$sizes" | head -n 1)") to $(commas "$(echo "$sizes" | tail -n 1)")}\""
          plot_clauses
          if [ "$first" = 1 ]; then
            echo "unset label 99"
            first=0
          fi
          x=$(awk -v r="$right" 'BEGIN { print r / 2 }')
        done
        y=0.09
      done
    fi
    if [ "$has_multi" = 1 ]; then
      local n c
      n=$(awk 'NR == 1 { print $4 }' "$tmp/f13multi.dat")
      c=$(awk 'NR == 1 { printf "%.0f", $5 / $4 }' "$tmp/f13multi.dat")
      cat <<EOF
set size $(awk -v r="$right" 'BEGIN { print 1 - r }'), 0.80
set origin $right, 0.09
unset logscale
set title "{/:Bold multi-morphology Hines step, fp64}\n{/*0.85 $(commas "$n") neurons of 32 random shapes (bench\\\\_multi.sh),}\n{/*0.85 mean $c compartments per neuron}"
set xlabel "padding"
set ylabel "time per step (ms)"
set xtics ()
set xtics autofreq
set format y "%g"
set yrange [0:*]
set offsets 0, 0, graph 0.2, 0
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.7
set grid noxtics nomxtics ytics nomytics
unset key
plot "$(gp_str "$tmp/f13multi.dat")" using 2:xtic(1) lt 1 notitle, \\
     '' using (\$0):2:(sprintf("%.3f ms\\n%.1f G/s", \$2, \$3)) with labels offset 0, 2.0 notitle
EOF
    fi
    echo "unset multiplot"
  } >"$gp"
  gp_run "$gp" "$png"
}

case "$figure" in
fig9-11)
  fig9
  fig10
  fig11
  ;;
*) "$figure" ;;
esac
