#!/usr/bin/python3
"""Draws one of the papers' figures from benchmark CSVs into scripts/results/plots/.

Usage: scripts/bench/plot.py FIGURE [CSV...]
  FIGURE: fig3 fig4 fig5 fig6 fig9 fig10 fig11 fig9-11 fig12 fig13 fig14
  CSV:    benchmark CSVs; each is recognised by its header (bench_mono.sh, bench_multi.sh,
          bench_tridiag.sh, bench/bench_classes.sh). Without any, the committed CSVs of
          scripts/results/ are plotted.
Environment: HINES_PLOTS_DIR (output folder, default scripts/results/plots).
Every value drawn comes from the CSVs; the footnote of each PNG names the machine, the date,
the commit and the CSV. A figure without data (fig5 without a classes CSV) is skipped with a
message and exit status 0.
Exit status: 0 drawn (or skipped), 1 drawing failed, 2 bad usage or a CSV that cannot be
plotted, 3 matplotlib missing (the command to run on a machine that has it is printed).
Runs under /usr/bin/python3, the Python of Debian's python3-matplotlib and python3-numpy.
"""

import importlib.util
import signal
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in scripts/bench/plots/
from plots.data import BadData, Table, default_csvs, plots_dir  # noqa: E402

# The kinds of CSV each figure draws; fig13 draws what it has of either.
NEEDS = {"fig3": ("mono",), "fig4": ("mono",), "fig5": ("classes",), "fig6": ("multi",),
         "fig9": ("tridiag",), "fig10": ("tridiag",), "fig11": ("tridiag",),
         "fig9-11": ("tridiag",), "fig12": ("tridiag",), "fig13": ("tridiag", "multi"),
         "fig14": ("multi",)}

FIG5_SKIPPED = """\
fig5: SKIPPED, no data. The six morphology classes (Fig. 5) have not been measured: there is no
classes_*.csv in scripts/results/. Measure them on a GPU machine with
    scripts/bench/fig5.sh --run BIN_DIR      (BIN_DIR: a bundle's bin/ from scripts/gpu_bundle.sh)
which runs scripts/bench/bench_classes.sh into a fresh CSV and then plots it."""


def drawers(figure):
    """The functions that draw FIGURE (imported here: they need matplotlib)."""
    from plots import classes, mono, multi, padding, tridiag
    return {"fig3": [mono.fig3], "fig4": [mono.fig4], "fig5": [classes.fig5],
            "fig6": [multi.fig6], "fig14": [multi.fig14], "fig9": [tridiag.fig9],
            "fig10": [tridiag.fig10], "fig11": [tridiag.fig11],
            "fig9-11": [tridiag.fig9, tridiag.fig10, tridiag.fig11],
            "fig12": [tridiag.fig12], "fig13": [padding.fig13]}[figure]


def tables_of(figure, paths):
    """The CSVs by kind: the ones given (the first of each kind), or the committed ones."""
    if not paths:
        return {kind: Table(path) for kind, path in default_csvs(figure).items()
                if kind in NEEDS[figure]}
    tables = {}
    for path in paths:
        table = Table(path)
        if table.kind in tables:
            print(f"plot.py: two {table.kind} CSVs given; plotting the first, "
                  f"{tables[table.kind].path}", file=sys.stderr)
        else:
            tables[table.kind] = table
    return tables


def main(argv):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `plot.py --help | head` ends quietly
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    figure, paths = argv[0], argv[1:]
    if figure not in NEEDS:
        print(f"plot.py: unknown figure '{figure}'\n{__doc__}", file=sys.stderr)
        return 2
    try:
        tables = tables_of(figure, paths)
    except BadData as e:
        print(f"plot.py: {e}", file=sys.stderr)
        return 2
    if not any(kind in tables for kind in NEEDS[figure]):
        if figure == "fig5":
            print(FIG5_SKIPPED, file=sys.stderr)
            return 0
        print(f"plot.py: {figure} needs a {' or '.join(NEEDS[figure])} CSV (given: "
              f"{' '.join(paths) or 'none'})", file=sys.stderr)
        return 2
    if importlib.util.find_spec("matplotlib") is None:
        names = " ".join(t.name() for t in tables.values())
        print(f"plot.py: matplotlib not found for {sys.executable} (Debian: apt-get install "
              f"python3-matplotlib python3-numpy); plot the CSVs on a machine that has it:\n"
              f"    scripts/bench/plot.py {figure} {names}", file=sys.stderr)
        return 3
    try:
        for draw in drawers(figure):
            draw(tables, plots_dir())
    except BadData as e:
        print(f"plot.py: {figure}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
