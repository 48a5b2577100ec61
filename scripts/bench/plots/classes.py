"""Fig. 5: speedup of the Full-Interleaved GPU solver over the sequential solver for the six
synthetic morphology classes, from a CSV of scripts/bench/bench_classes.sh."""

from matplotlib.lines import Line2D

from . import style
from .data import Provenance, unique
from .mono import XLABEL, YLABEL


def speedups(table, morph, engine):
    """(neurons, speedup) points of one class and engine (interleaved layout) over the
    sequential solver on the same class and batch size."""
    sequential = {r["neurons"]: r.num("seconds_per_step") for r in table.rows
                  if r["morph"] == morph and r["engine"] == "sequential"}
    return [(float(r["neurons"]), sequential[r["neurons"]] / r.num("seconds_per_step"))
            for r in table.rows
            if r["morph"] == morph and r["engine"] == engine and r["layout"] == "interleaved"
            and r["neurons"] in sequential]


def fig5(tables, out_dir):
    table = tables["classes"]
    provenance = Provenance(table)
    fig = style.figure(
        1300, 860, "Fig. 5: speedup of the Full-Interleaved GPU solver for six morphology classes",
        "one GPU through StarPU (solid) and the kernel launched directly (dashed), fp64, one "
        f"implicit step; {provenance.where}",
        f"{provenance.footnote}\nSpeedup = sequential seconds per step / seconds per step, both "
        "at the same batch size and class.")
    ax = fig.add_subplot()
    style.log_axes(ax, [float(r["neurons"]) for r in table.rows], XLABEL, YLABEL)
    for index, morph in enumerate(unique(r["morph"] for r in table.rows)):
        compartments = next(r["compartments"] for r in table.rows if r["morph"] == morph)
        style.curve(ax, "fig5", speedups(table, morph, "starpu-gpu"),
                    f"{morph} ({compartments} compartments)", style.series(index))
        style.curve(ax, "fig5", speedups(table, morph, "cuda-direct"),
                    f"{morph}, kernel launched directly", style.series(index, "--", marker=False),
                    in_legend=False)
    # The line styles once, in grey, rather than twelve entries.
    handles, labels = ax.get_legend_handles_labels()
    handles += [Line2D([], [], color="#555555", linewidth=2),
                Line2D([], [], color="#555555", linewidth=1.5, linestyle="--")]
    labels += ["solid: through StarPU", "dashed: CUDA kernel launched directly"]
    ax.legend(handles, labels, loc="upper left")
    style.save(fig, out_dir / "fig5.png")
