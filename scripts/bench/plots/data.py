"""The benchmark CSVs: reading them, telling which measurement script wrote each one (by its
header), and saying where and when they were measured.

Standard library only: plot.py checks its CSVs before it needs matplotlib, so that a machine
without matplotlib still learns which command to run elsewhere.
"""

import csv
import os
import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]
RESULTS_DIR = REPO_ROOT / "scripts" / "results"

# The column that only one measurement script writes, checked in this order (a tridiagonal CSV
# has no "figure" column, a multi CSV no "morph", a classes CSV has "engine" too).
KIND_COLUMNS = (("method", "tridiag"), ("figure", "multi"), ("morph", "classes"),
                ("engine", "mono"))


class BadData(Exception):
    """A CSV that cannot be plotted: unreadable, unknown header, a missing column or value."""


class Row(dict):
    """One CSV row by column name; asking for a column the file lacks names the column and the
    file instead of raising a bare KeyError."""

    __slots__ = ("path",)

    def __missing__(self, column):
        raise BadData(f"column {column} missing in {self.path}")

    def num(self, column):
        try:
            return float(self[column])
        except (TypeError, ValueError):
            raise BadData(f"{self.path}: column {column} holds {self[column]!r}, not a number")


class Table:
    """A CSV file: its path, its header, its kind (mono, multi, classes, tridiag) and its rows."""

    def __init__(self, path):
        self.path = Path(path)
        try:
            with open(self.path, newline="", encoding="utf-8") as f:
                lines = list(csv.reader(f))
        except OSError as e:
            raise BadData(f"cannot read {path}: {e.strerror}")
        if not lines:
            raise BadData(f"{path}: empty file")
        self.header = [name.strip() for name in lines[0]]
        self.kind = next((kind for column, kind in KIND_COLUMNS if column in self.header), None)
        if self.kind is None:
            raise BadData(f"{path}: header not recognised")
        self.rows = []
        for values in lines[1:]:
            if not values:
                continue
            row = Row(zip(self.header, values))
            row.path = self.path
            self.rows.append(row)

    def name(self):
        """How footnotes name the file: relative to the repository when it lies inside, else
        its base name (a path of the machine that drew the figure tells the reader nothing)."""
        try:
            return str(self.path.resolve().relative_to(REPO_ROOT))
        except ValueError:
            return self.path.name


def unique(values):
    """The distinct values, in their first order."""
    return list(dict.fromkeys(values))


class Provenance:
    """Where and when a CSV was measured: `where` (machine and day) for a title, `footnote`
    (machine, CPU, run times, commit and file) for the bottom line of a figure.

    The current measurement scripts write gpu, date and commit on every row; an older
    tridiagonal CSV has none, so the .meta file that the wrappers' --run writes beside it, or
    else its name KIND_MACHINE_YYYY-MM-DD[b-z].csv, stands in."""

    def __init__(self, table):
        header = set(table.header)
        if {"gpu", "date", "commit"} <= header and table.rows:
            gpus = ", ".join(unique(r["gpu"] for r in table.rows))
            commits = ", ".join(unique(r["commit"] for r in table.rows))
            dates = sorted(r["date"] for r in table.rows)
            cpus = ""
            if {"cpu", "cores"} <= header:
                cpus = ", CPU " + ", ".join(unique(f"{r['cpu']} ({r['cores']} cores)"
                                                   for r in table.rows))
            days = unique(d[:10] for d in dates)
            self.where = f"{gpus}, {days[0] if len(days) == 1 else days[0] + ' to ' + days[-1]}"
            run = dates[0] if dates[0] == dates[-1] else f"{dates[0]} to {dates[-1]}"
            self.footnote = (f"Machine: {gpus}{cpus} | run {run} | commit {commits} | "
                             f"data: {table.name()}")
            return
        meta = table.path.with_suffix(".meta")
        if meta.is_file():
            fields = dict(line.split("=", 1) for line in meta.read_text().splitlines()
                          if "=" in line)
            gpu, date = fields.get("gpu", "unknown"), fields.get("date", "unknown")
            self.where = f"{gpu}, {date[:10]}"
            self.footnote = (f"Machine: {gpu} | run {date} | commit {fields.get('commit', '?')}"
                             f" | data: {table.name()}")
            return
        parts = table.path.stem.split("_")
        machine = parts[1] if len(parts) > 1 else "unknown"
        day = re.search(r"\d{4}-\d{2}-\d{2}", table.path.stem)
        day = day.group(0) if day else "unknown date"
        self.where = f"{machine}, {day} (from the file name)"
        self.footnote = (f"Machine: {machine}, date {day} (both from the file name: this CSV has "
                         f"no machine, date or commit column) | commit: not recorded | "
                         f"data: {table.name()}")


def default_csvs(figure):
    """The committed CSVs each figure draws when none is given, by kind."""
    # fig3 draws two-GPU curves: the run on the two-GPU machine (its CPU engines are that run's).
    mono = "mono_h200x2_2026-11-22.csv" if figure == "fig3" else "mono_h200_2026-11-22b.csv"
    names = {"mono": mono, "multi": "multi_h200_2026-11-22d.csv",
             "tridiag": "tridiag_h200_2026-11-22b.csv",
             "classes": "classes_h200_2026-11-22b.csv"}
    return {kind: RESULTS_DIR / name for kind, name in names.items()}


def plots_dir():
    return Path(os.environ.get("HINES_PLOTS_DIR") or RESULTS_DIR / "plots")
