"""Fig. 9-12: our batched tridiagonal solvers against cuSPARSE, from a CSV of
scripts/bench_tridiag.sh: solve time against batch size (Fig. 9, 10, 11), accuracy and device
memory (Fig. 12). Fig. 13 (padding.py) draws its rows of variable sizes."""

import math

import numpy as np
from matplotlib import ticker
from matplotlib.lines import Line2D

from . import style
from .data import Provenance

GIB = 2 ** 30
# Solver (method column) -> legend text and line style, in legend order.
METHODS = {
    "thomas_cp": ("interleaved Thomas, CP (ours)", style.series(0)),
    "thomas_ncp": ("interleaved Thomas, NCP (ours)", style.series(1, "--")),
    "thomas_flat": ("flat Thomas (ours)", style.series(2)),
    "cusparse_gtsv2_strided": ("cuSPARSE gtsv2StridedBatch", style.series(3)),
    "cusparse_gtsv_interleaved": ("cuSPARSE gtsvInterleavedBatch", style.series(4, "-.")),
}
SUBTITLE = ("time of one batched solve on one GPU: our one-thread-per-system Thomas solvers "
            "against cuSPARSE")
XLABEL = "batch size (systems, log scale)"


def series(table, method, precision, size, variable):
    """(batch, median ms per batched solve) points of one solver, precision and system size;
    VARIABLE picks the rows whose systems have sizes uniform in [size/2, size]."""
    return [(r.num("batch"), r.num("seconds_median") * 1e3) for r in table.rows
            if r["method"] == method and r["precision"] == precision
            and r["size"] == str(size) and r["variable_sizes"] == ("1" if variable else "0")]


def sizes(table, precision, low, high, variable=False):
    """The system sizes in [LOW, HIGH] that the CSV has for PRECISION, ascending."""
    return sorted({int(r["size"]) for r in table.rows
                   if r["precision"] == precision
                   and r["variable_sizes"] == ("1" if variable else "0")
                   and low <= int(r["size"]) <= high})


def time_figure(name, title, columns, width, height, table, panels, out_dir):
    """One panel per (precision, size) of PANELS, COLUMNS panels a row, every solver's median
    time against batch size; one legend across the top for all the panels."""
    provenance = Provenance(table)
    fig = style.figure(width, height, title, f"{SUBTITLE}; {provenance.where}",
                       f"{provenance.footnote}\nMedian of the timed solves of one batch (all "
                       "systems the same size); the rows with variable sizes are in Fig. 13.",
                       top_extra_px=70)
    grid = fig.add_gridspec(max(1, math.ceil(len(panels) / columns)), columns)
    for index, (precision, size) in enumerate(panels):
        ax = fig.add_subplot(grid[index // columns, index % columns])
        ax.set_title(f"systems of {style.commas(size)} unknowns, {precision}")
        points = {m: series(table, m, precision, size, variable=False) for m in METHODS}
        batches = [b for p in points.values() for b, _ in p]
        style.log_axes(ax, batches, XLABEL, "time per batched solve (ms, log scale)")
        for method, (label, look) in METHODS.items():
            style.curve(ax, name, points[method], label, look)
        if not batches:
            style.no_data(ax)
    if not panels:
        style.no_data(fig.add_subplot(grid[0, 0]))
    style.legend_top(fig, [Line2D([], [], **look) for _, look in METHODS.values()],
                     [label for label, _ in METHODS.values()], 3, height)
    style.save(fig, out_dir / f"{name}.png")


def fig9(tables, out_dir):
    table = tables["tridiag"]
    time_figure("fig9", "Fig. 9: batched tridiagonal solvers, small systems, fp64", 2, 1500,
                1120, table, [("fp64", s) for s in sizes(table, "fp64", 1, 1023)], out_dir)


def fig10(tables, out_dir):
    table = tables["tridiag"]
    time_figure("fig10", "Fig. 10: batched tridiagonal solvers, small systems, fp32", 2, 1500,
                1120, table, [("fp32", s) for s in sizes(table, "fp32", 1, 1023)], out_dir)


def fig11(tables, out_dir):
    table = tables["tridiag"]
    panels = [(p, s) for p in ("fp64", "fp32") for s in sizes(table, p, 1024, math.inf)]
    time_figure("fig11", "Fig. 11: batched tridiagonal solvers, large systems, fp64 (top) and "
                "fp32 (bottom)", 4, 2300, 1150, table, panels, out_dir)


def fig12(tables, out_dir):
    table = tables["tridiag"]
    fixed = [r for r in table.rows if r["variable_sizes"] == "0"]
    provenance = Provenance(table)
    fig = style.figure(
        1800, 860, "Fig. 12: accuracy and device memory of the batched tridiagonal solvers",
        "fixed-size systems on one GPU; our one-thread-per-system Thomas solvers against "
        f"cuSPARSE; {provenance.where}",
        f"{provenance.footnote}\nError: max_rel_error column (largest over the batch sizes of "
        "each system size). Memory: device_bytes column.")
    error_ax, memory_ax = fig.subplots(1, 2)

    # Accuracy: the worst error over the batch sizes, per solver, precision and system size.
    worst = {}
    for r in fixed:
        key = (r["method"], r["precision"], r.num("size"))
        worst[key] = max(worst.get(key, 0.0), r.num("max_rel_error"))
    error_ax.set_title("maximum relative error against a long double Thomas reference\n"
                       "(sampled systems)")
    style.log_axes(error_ax, [r.num("size") for r in fixed], "system size (unknowns, log scale)",
                   "maximum relative error (log scale)")
    error_ax.yaxis.set_major_formatter(ticker.LogFormatterSciNotation())
    for precision in ("fp32", "fp64"):
        for method, (label, look) in METHODS.items():
            points = [(size, e) for (m, p, size), e in worst.items()
                      if m == method and p == precision]
            # One legend entry per solver: the fp64 curves share the fp32 ones' styles.
            style.curve(error_ax, "fig12", points, label, look, in_legend=precision == "fp32")
        errors = [e for (_, p, _), e in worst.items() if p == precision and e > 0]
        if errors:
            # Name each precision's band of curves above its worst point, at the left edge.
            error_ax.annotate(precision, (0.02, max(errors) * 3), fontsize=13,
                              xycoords=("axes fraction", "data"))
    errors = [e for e in worst.values() if e > 0]
    if errors:
        # Room above the top band for its name; the axis ends on powers of ten.
        error_ax.set_ylim(10 ** math.floor(math.log10(min(errors))),
                          10 ** math.ceil(math.log10(max(errors) * 10)))
    error_ax.legend(loc="center right")

    # Memory: every solver at the fixed-size point with the most unknowns, and CP and NCP with
    # variable sizes at that same batch and size.
    if fixed:
        largest = max(fixed, key=lambda r: r.num("batch") * r.num("size"))
        batch, size = largest["batch"], largest["size"]
        gib = {}  # (bar, precision) -> GiB
        for r in table.rows:
            if r["batch"] == batch and r["size"] == size:
                bar = r["method"] + ("_var" if r["variable_sizes"] == "1" else "")
                gib[bar, r["precision"]] = r.num("device_bytes") / GIB
        names = {"thomas_cp": "Thomas\nCP", "thomas_ncp": "Thomas\nNCP",
                 "thomas_flat": "flat\nThomas", "cusparse_gtsv2_strided": "gtsv2\nStrided",
                 "cusparse_gtsv_interleaved": "gtsv\nInterleaved",
                 "thomas_cp_var": "Thomas CP\nvariable\nsizes",
                 "thomas_ncp_var": "Thomas NCP\nvariable\nsizes"}
        bars = [b for b in names if any(key[0] == b for key in gib)]
        for offset, precision, colour in ((-0.19, "fp32", 0), (0.19, "fp64", 1)):
            drawn = memory_ax.bar(np.arange(len(bars)) + offset,
                                  [gib.get((b, precision), np.nan) for b in bars], 0.36,
                                  label=precision, color=style.SERIES[colour][0],
                                  edgecolor="#333333", alpha=0.9)
            style.bar_values(memory_ax, drawn, lambda v: f"{v:.2f}", fontsize=9)
        memory_ax.set_xticks(range(len(bars)), [names[b] for b in bars])
        memory_ax.set_xlim(-0.6, len(bars) - 0.4)
        memory_ax.set_title(f"device memory, {style.commas(float(batch))} systems of "
                            f"{style.commas(float(size))} unknowns")
        memory_ax.legend(loc="upper left")
    else:
        style.no_data(memory_ax)
    memory_ax.set_xlabel("solver")
    memory_ax.set_ylabel("device memory (GiB)")
    memory_ax.margins(y=0.1)
    memory_ax.grid(False, axis="x")
    style.save(fig, out_dir / "fig12.png")
