"""The look the figures share: line styles, the title block and the footnote, log axes labelled
with the measured sizes, bar labels, and writing the PNG."""

import math
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")  # files only: the build and GPU machines have no display
import matplotlib.pyplot as plt  # noqa: E402 (after the backend is chosen)
from matplotlib import ticker  # noqa: E402

from .data import REPO_ROOT  # noqa: E402

DPI = 100
TITLE_PX = 62  # bold title and one subtitle line
FOOT_LINE_PX = 15
FOOT_CHAR_PX = 6.6  # mean width of a 9 pt DejaVu Sans character at DPI: where to wrap

plt.rcParams.update({
    "font.family": "DejaVu Sans",
    "font.size": 11,
    "axes.titlesize": 11.5,
    "axes.titleweight": "bold",
    "axes.labelsize": 11,
    "legend.fontsize": 10.5,
    "legend.framealpha": 1.0,
    "legend.edgecolor": "#999999",
    "legend.fancybox": False,
    "axes.grid": True,
    "grid.color": "#d8d8d8",
    "grid.linewidth": 0.8,
    "axes.axisbelow": True,
    # Value axes end on a tick (a power of ten on log axes), so every end is labelled; the
    # axes with a tick at each measured size keep their margins.
    "axes.autolimit_mode": "round_numbers",
    "savefig.facecolor": "white",
})

# Series styles, in the order the figures use them: colour, marker, filled marker. Markers keep
# curves apart where colours are hard to tell (print, colour blindness).
SERIES = [("#1f77b4", "o", True), ("#d62728", "s", True), ("#2ca02c", "^", True),
          ("#ff7f0e", "v", True), ("#9467bd", "D", True), ("#8c564b", "p", True),
          ("#e377c2", "s", False), ("#7f7f7f", "o", False), ("#17becf", "^", False)]


def series(index, linestyle="-", filled=None, marker=True):
    """ax.plot keyword arguments of series style INDEX; filled=False draws open markers."""
    colour, symbol, solid = SERIES[index % len(SERIES)]
    if filled is not None:
        solid = filled
    return dict(color=colour, linestyle=linestyle, linewidth=2 if marker else 1.5,
                marker=symbol if marker else None, markersize=7, markeredgecolor=colour,
                markerfacecolor=colour if solid else "white")


def commas(n):
    """1234567 -> '1,234,567'."""
    return f"{int(round(n)):,}"


def figure(width_px, height_px, title, subtitle, footnote, top_extra_px=0):
    """A figure with a bold title and a subtitle on top and the footnote lines (provenance and
    definitions) at the bottom; the axes fill what lies between, top_extra_px below the
    subtitle being kept free for a legend across the whole width."""
    fig = plt.figure(figsize=(width_px / DPI, height_px / DPI), dpi=DPI, layout="constrained")
    footnote = "\n".join(textwrap.fill(line, int((width_px - 16) / FOOT_CHAR_PX))
                         for line in footnote.split("\n"))
    lines = footnote.count("\n") + 1
    bottom = (8 + lines * FOOT_LINE_PX) / height_px
    top = 1 - (TITLE_PX + top_extra_px) / height_px
    fig.get_layout_engine().set(rect=(0, bottom, 1, top - bottom))
    fig.text(0.5, 1 - 12 / height_px, title, ha="center", va="top", fontsize=14,
             fontweight="bold")
    fig.text(0.5, 1 - 38 / height_px, subtitle, ha="center", va="top", fontsize=11)
    fig.text(8 / width_px, 6 / height_px, footnote, ha="left", va="bottom", fontsize=9,
             color="#333333", linespacing=1.35)
    return fig


def legend_top(fig, handles, labels, ncol, height_px):
    """A legend across the figure just under the subtitle (panels too small for a wide one)."""
    fig.legend(handles, labels, loc="upper center", ncol=ncol, fontsize=12,
               bbox_to_anchor=(0.5, 1 - (TITLE_PX + 4) / height_px), handlelength=3.5)


def _label_2_and_5(axis):
    """Minor log tick labels (2, 5, 20, 50, ...) on an axis that spans too few decades to show
    more than one or two powers of ten; none otherwise."""

    def label(value, _position):
        low, high = sorted(axis.get_view_interval())
        if low <= 0 or high / low > 30:
            return ""
        mantissa = round(value / 10 ** math.floor(math.log10(value)), 6)
        return f"{value:g}" if mantissa in (2, 5) else ""

    return ticker.FuncFormatter(label)


def log_axes(ax, xs, xlabel, ylabel):
    """Log x and y; the x ticks are the measured sizes XS (with thousands separators), the y
    labels plain numbers. Call it before drawing: lines drawn on linear axes leave x limits
    rounded to powers of ten."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ymargin(0.02)  # a wider margin would often push the axis to the next power of ten
    ticks = sorted(set(xs))
    ax.set_xticks(ticks, [commas(x) for x in ticks])
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: f"{v:g}"))
    ax.yaxis.set_minor_formatter(_label_2_and_5(ax.yaxis))
    ax.grid(True, which="minor", axis="y", color="#ececec", linewidth=0.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def curve(ax, figure_name, points, label, style, in_legend=True):
    """One line through (x, y) POINTS sorted by x, labelled LABEL in the legend unless
    in_legend is false; a curve without rows is reported on stderr (the CSV lacks that
    configuration) and drawn nowhere."""
    if not points:
        print(f"plot.py: {figure_name}: no rows for: {label}", file=sys.stderr)
        return
    xs, ys = zip(*sorted(points))
    ax.plot(xs, ys, label=label if in_legend else "_nolegend_", **style)


def no_data(ax):
    ax.text(0.5, 0.5, "no data in the CSV for this panel", ha="center", va="center",
            transform=ax.transAxes)


def bar_values(ax, bars, fmt, fontsize=10):
    """Each bar's value written above it (empty for a bar without data)."""
    ax.bar_label(bars, labels=["" if math.isnan(h) else fmt(h)
                               for h in (b.get_height() for b in bars)],
                 padding=3, fontsize=fontsize)


def save(fig, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    try:
        shown = path.resolve().relative_to(REPO_ROOT)
    except ValueError:
        shown = path
    print(f"wrote {shown}")
