"""Fig. 3 and Fig. 4: speedup of the mono-morphology solvers over the sequential solver against
the number of neurons, from a CSV of scripts/bench_mono.sh."""

from . import style
from .data import Provenance

XLABEL = "number of neurons in the batch (log scale)"
YLABEL = "speedup over the sequential solver at the same batch size (×, log scale)"
SPEEDUP = ("Speedup = sequential seconds per step / seconds per step, both at the same batch "
           "size.")


def speedups(table, engine, layout, block_size=None):
    """(neurons, speedup) points of one engine, layout and (when given) block size; the
    speedup divides the sequential solver's seconds per step at the same batch size by this
    configuration's. Batch sizes the sequential solver did not run are left out."""
    sequential = {r["neurons"]: r.num("seconds_per_step") for r in table.rows
                  if r["engine"] == "sequential"}
    return [(float(r["neurons"]), sequential[r["neurons"]] / r.num("seconds_per_step"))
            for r in table.rows
            if r["engine"] == engine and r["layout"] == layout
            and (block_size is None or r["block_size"] == str(block_size))
            and r["neurons"] in sequential]


def mono_figure(table, title, what, footnote):
    """The figure and its one log-log panel; the subtitle says what ran, on which cells, where
    and when."""
    compartments = table.rows[-1]["compartments"] if table.rows else "?"
    provenance = Provenance(table)
    fig = style.figure(1300, 860, title,
                       f"{what}, synthetic medium-high cells of {compartments} compartments; "
                       f"{provenance.where}",
                       f"{provenance.footnote}\n{footnote}")
    ax = fig.add_subplot()
    style.log_axes(ax, [float(r["neurons"]) for r in table.rows], XLABEL, YLABEL)
    return fig, ax


def fig3(tables, out_dir):
    table = tables["mono"]
    two_gpus = bool(speedups(table, "starpu-2gpu", "interleaved"))
    fig, ax = mono_figure(
        table, "Fig. 3: mono-morphology speedup over the sequential solver",
        f"CPU engines and {'one and two GPUs' if two_gpus else 'one GPU'}, fp64, one implicit "
        "step",
        ("Two-GPU curves: StarPU, one task per GPU, calibrated dmda. " if two_gpus else
         "Not measured in this CSV: curves on two GPUs (no starpu-2gpu rows). ") + SPEEDUP)
    curves = [
        ("openmp-flat", "flat", None, "OpenMP flat (all cores, no StarPU)",
         style.series(7, filled=False)),
        ("starpu-cpu", "block", 32, "StarPU CPU block codelet (BS 32)", style.series(5)),
        ("starpu-gpu", "flat", None, "GPU Flat (StarPU)", style.series(3)),
        ("starpu-gpu", "interleaved", None, "GPU Full-Interleaved (StarPU)", style.series(0)),
        ("cuda-direct", "interleaved", None,
         "GPU Full-Interleaved (CUDA kernel launched directly)", style.series(1, "--")),
    ]
    if two_gpus:
        curves += [
            ("starpu-2gpu", "flat", None, "2 GPUs Flat (StarPU)", style.series(3, ":")),
            ("starpu-2gpu", "interleaved", None, "2 GPUs Full-Interleaved (StarPU)",
             style.series(0, ":")),
        ]
    for engine, layout, block_size, label, look in curves:
        style.curve(ax, "fig3", speedups(table, engine, layout, block_size), label, look)
    ax.legend(loc="upper left")
    style.save(fig, out_dir / "fig3.png")


def fig4(tables, out_dir):
    table = tables["mono"]
    fig, ax = mono_figure(
        table, "Fig. 4: Block-Interleaved and Block-Shared speedup over the sequential solver",
        "one GPU through StarPU, fp64, one implicit step",
        "All curves: StarPU with one CUDA worker and no CPU worker (as bench_mono.sh runs them). "
        "BS = neurons per block. " + SPEEDUP)
    index = 0
    for layout, name, sizes, dashes in (
            ("block", "Block-Interleaved", (32, 64, 128, 256, 512), "-"),
            ("shared", "Block-Shared", (32, 64), "--")):
        for block_size in sizes:
            style.curve(ax, "fig4", speedups(table, "starpu-gpu", layout, block_size),
                        f"{name}, BS {block_size}", style.series(index, dashes))
            index += 1
    style.curve(ax, "fig4", speedups(table, "starpu-gpu", "interleaved"),
                "Full-Interleaved (for reference)", style.series(7, ":", marker=False))
    ax.legend(loc="upper left")
    style.save(fig, out_dir / "fig4.png")
