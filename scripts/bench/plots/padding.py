"""Fig. 13: padded (CP) against non-padded (NCP) solvers on systems of variable size: the
tridiagonal batches with variable sizes (scripts/bench_tridiag.sh) and the multi-morphology
step with each padding (scripts/bench_multi.sh, rows of figure fig13). Either CSV alone draws
its own panels."""

import math

import numpy as np

from . import style
from .data import Provenance, unique
from .tridiag import XLABEL, series, sizes

# Tridiagonal panels: rows fp64 / fp32, columns small / large systems.
SIZE_GROUPS = ((1, 1023), (1024, math.inf))


def tridiag_panel(ax, table, precision, low, high):
    """Time against batch size of the CP and NCP Thomas solvers, one colour per largest size."""
    largest = sizes(table, precision, low, high, variable=True)
    points = {(size, method): series(table, method, precision, size, variable=True)
              for size in largest for method in ("thomas_cp", "thomas_ncp")}
    style.log_axes(ax, [b for p in points.values() for b, _ in p], XLABEL,
                   "time per batched solve (ms, log)")
    for index, size in enumerate(largest):
        for method, name, look in (("thomas_cp", "CP", style.series(index)),
                                   ("thomas_ncp", "NCP", style.series(index, "--", filled=False))):
            style.curve(ax, "fig13", points[size, method], f"n ≤ {size}, {name}", look)
    if largest:
        ax.set_title(f"tridiagonal batches, {precision}, largest size "
                     f"{style.commas(largest[0])} to {style.commas(largest[-1])}")
        ax.legend(loc="upper left", ncol=2, fontsize=9, handlelength=2.5)
    else:
        ax.set_title(f"tridiagonal batches, {precision}")
        style.no_data(ax)


def multi_panel(ax, table):
    """Bars of the time per step of the multi-morphology step with CP and with NCP."""
    rows = sorted((r for r in table.rows if r["figure"] == "fig13"),
                  key=lambda r: r["layout"])  # levels-cp before levels-ncp
    if not rows:
        ax.set_title("multi-morphology Hines step, fp64")
        style.no_data(ax)
        return
    first = rows[0]
    ax.set_title("multi-morphology Hines step, fp64\n"
                 f"{style.commas(first.num('neurons'))} neurons of 32 random shapes "
                 "(bench_multi.sh),\n"
                 f"mean {first.num('compartments') / first.num('neurons'):.0f} compartments "
                 "per neuron", fontsize=11)
    milliseconds = [r.num("seconds_per_step") * 1e3 for r in rows]
    bars = ax.bar(np.arange(len(rows)), milliseconds, 0.45, color=style.SERIES[0][0],
                  edgecolor="#333333", alpha=0.9)
    throughput = {b: r.num("compartment_solves_per_s") / 1e9 for b, r in zip(bars, rows)}
    ax.bar_label(bars, labels=[f"{ms:.3f} ms\n{throughput[b]:.1f} G/s"
                               for b, ms in zip(bars, milliseconds)], padding=3)
    ax.set_xticks(range(len(rows)),
                  [r["layout"].removeprefix("levels-").upper() for r in rows])
    ax.set_xlim(-0.8, len(rows) - 0.2)
    ax.set_xlabel("padding")
    ax.set_ylabel("time per step (ms)")
    ax.margins(y=0.2)
    ax.grid(False, axis="x")


def fig13(tables, out_dir):
    tridiag, multi = tables.get("tridiag"), tables.get("multi")
    where = "; ".join(unique(Provenance(t).where for t in (tridiag, multi) if t))
    footnotes = [Provenance(t).footnote for t in (tridiag, multi) if t]
    fig = style.figure(
        2000, 1150,
        "Fig. 13: padded (CP) against non-padded (NCP) solvers on systems of variable size",
        f"one GPU; {'solid: CP, dashed: NCP; ' if tridiag else ''}{where}",
        "\n".join(footnotes + [
            "CP: computes on padded data (each system, or each branch of a level, padded to the "
            "longest); NCP: no padding. Tridiagonal variable sizes: uniform in [n/2, n] "
            "(bench_tridiag.sh)."]))
    if tridiag and multi:
        grid = fig.add_gridspec(2, 3, width_ratios=(1, 1, 0.8))
    else:
        grid = fig.add_gridspec(2, 2)
    if tridiag:
        for row, precision in enumerate(("fp64", "fp32")):
            for column, (low, high) in enumerate(SIZE_GROUPS):
                tridiag_panel(fig.add_subplot(grid[row, column]), tridiag, precision, low, high)
    if multi:
        multi_panel(fig.add_subplot(grid[:, 2] if tridiag else grid[:, :]), multi)
    style.save(fig, out_dir / "fig13.png")
