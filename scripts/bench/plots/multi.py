"""Fig. 6 and Fig. 14: throughput of the multi-morphology (branch-level) solver against the
mono-morphology one, from a CSV of scripts/bench_multi.sh (its rows of figure fig6 and fig14)."""

import re

import numpy as np

from . import style
from .data import Provenance, unique
from .mono import XLABEL

THROUGHPUT = "G compartment-steps/s = neurons × compartments / seconds per step."
# The three cases of every branch share of Fig. 6 (case names "KIND-PERCENT%").
FIG6_KINDS = (("mono", "mono (one shape, Full-Interleaved)", 0),
              ("multi-same", "multi, the same shape for every neuron", 3),
              ("multi-16-shapes", "multi, 16 different shapes of the class", 2))


def rows_of(table, figure):
    return [r for r in table.rows if r["figure"] == figure]


def per_neuron(row):
    """Compartments per neuron, as a number for the titles."""
    return f"{row.num('compartments') / row.num('neurons'):g}"


def fig6(tables, out_dir):
    table = tables["multi"]
    rows = rows_of(table, "fig6")
    giga = {}  # (branch percent, kind) -> G compartment-steps/s
    for r in rows:
        kind, percent = re.fullmatch(r"(.*)-(\d+)%", r["case"]).groups()
        giga[percent, kind] = r.num("compartment_solves_per_s") / 1e9
    percents = unique(p for p, _ in giga)
    provenance = Provenance(table)
    cells = (f"{style.commas(rows[-1].num('neurons'))} neurons of {per_neuron(rows[-1])} "
             "compartments, " if rows else "")
    fig = style.figure(
        1200, 820, "Fig. 6: mono- against multi-morphology throughput",
        f"{cells}fp64; multi = branch-level solver (NCP); {provenance.where}",
        f"{provenance.footnote}\n{THROUGHPUT} One GPU through StarPU, CUDA workers only, data "
        "resident.")
    ax = fig.add_subplot()
    if not rows:
        style.no_data(ax)
    width = 0.27
    for offset, (kind, label, colour) in zip((-width, 0, width), FIG6_KINDS):
        heights = [giga.get((p, kind), np.nan) for p in percents]
        bars = ax.bar(np.arange(len(percents)) + offset, heights, width * 0.92, label=label,
                      color=style.SERIES[colour][0], edgecolor="#333333", alpha=0.9)
        style.bar_values(ax, bars, lambda v: f"{v:.1f}", fontsize=11)
    ax.set_xticks(range(len(percents)), [f"{p} % branches" for p in percents])
    ax.set_xlabel("share of branch points in the morphology")
    ax.set_ylabel("throughput (G compartment-steps/s)")
    ax.margins(y=0.15)
    ax.grid(False, axis="x")
    ax.legend(loc="upper right")
    style.save(fig, out_dir / "fig6.png")


def fig14(tables, out_dir):
    table = tables["multi"]
    rows = rows_of(table, "fig14")
    points = {}  # (levels, "multi" | "mono") -> [(neurons, G/s)]
    for r in rows:
        levels, kind = re.fullmatch(r"levels-(\d+)-(\w+)", r["case"]).groups()
        points.setdefault((levels, kind), []).append(
            (r.num("neurons"), r.num("compartment_solves_per_s") / 1e9))
    levels = sorted(unique(lv for lv, _ in points), key=int)
    sizes = "/".join(sorted(unique(per_neuron(r) for r in rows), key=float))
    provenance = Provenance(table)
    trees = " and ".join(filter(None, (", ".join(levels[:-1]), "".join(levels[-1:]))))
    fig = style.figure(
        1300, 860,
        f"Fig. 14: multi- against mono-morphology throughput, binary trees of {trees} levels",
        f"{sizes} compartments per neuron, one GPU through StarPU, fp64; solid: multi (levels), "
        f"dashed: mono (interleaved); {provenance.where}",
        f"{provenance.footnote}\n{THROUGHPUT} Multi: branch-level solver (NCP, one task per "
        "chunk). Mono: Full-Interleaved.")
    ax = fig.add_subplot()
    style.log_axes(ax, [r.num("neurons") for r in rows], XLABEL,
                   "throughput (G compartment-steps/s, log scale)")
    for index, level in enumerate(levels):
        style.curve(ax, "fig14", points.get((level, "multi"), []), f"{level} levels, multi",
                    style.series(index))
        style.curve(ax, "fig14", points.get((level, "mono"), []), f"{level} levels, mono",
                    style.series(index, "--", filled=False))
    if not rows:
        style.no_data(ax)
    else:
        ax.legend(loc="upper left")
    style.save(fig, out_dir / "fig14.png")
