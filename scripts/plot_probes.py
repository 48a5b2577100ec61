#!/usr/bin/python3
"""Draws the probe voltages that `hinestask --probes FILE` (or the default job) wrote: one line
per probe against time, into a PNG next to the CSV (or OUT.png), and prints the PNG's path.

Usage: scripts/plot_probes.py PROBES.csv [OUT.png]

The CSV's first column is time_ms, then one neuronN_compartmentC_mV column per probe.
Needs matplotlib (Debian's python3-matplotlib, for /usr/bin/python3: hence the #! line).
Exit status: 0 drawn, 1 matplotlib missing or OUT.png not writable, 2 bad usage or a CSV
without probe columns.
"""

import csv
import os
import re
import sys


def read_probes(path):
    """The time column and, per probe, its legend label and voltages."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or len(rows[0]) < 2:
        raise ValueError("no probe column")
    header, values = rows[0], [[float(x) for x in row] for row in rows[1:] if row]
    times = [row[0] for row in values]
    probes = []
    for j, name in enumerate(header[1:], start=1):
        where = re.fullmatch(r"neuron(\d+)_compartment(\d+)_mV", name)
        label = f"neuron {where[1]}, compartment {where[2]}" if where else name
        probes.append((label, [row[j] for row in values]))
    return times, probes


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    csv_path = argv[0]
    png = argv[1] if len(argv) == 2 else os.path.splitext(csv_path)[0] + ".png"
    try:
        times, probes = read_probes(csv_path)
    except OSError as e:
        print(f"plot_probes: cannot read {csv_path}: {e.strerror}", file=sys.stderr)
        return 2
    except (ValueError, IndexError) as e:
        print(f"plot_probes: {csv_path}: not a probes CSV ({e})", file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")  # a file only: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"plot_probes: matplotlib not found for {sys.executable} (Debian: apt-get "
              "install python3-matplotlib; run this script as /usr/bin/python3)",
              file=sys.stderr)
        return 1
    fig, ax = plt.subplots(figsize=(12, 7), dpi=100, layout="constrained")
    for label, volts in probes:
        ax.plot(times, volts, linewidth=1.2, label=label)
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("membrane potential (mV)")
    # The file's name, not its path: a path of the machine that ran tells the reader nothing.
    ax.set_title(f"hinestask probes: {os.path.basename(csv_path)} ({len(probes)} probes, "
                 f"{len(times)} samples)")
    ax.grid(True, color="#d8d8d8")
    # Up to 64 probes: the legend takes more columns rather than running off the image.
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False,
              ncol=1 + (len(probes) - 1) // 24, fontsize=9 if len(probes) > 12 else 10)
    try:
        fig.savefig(png)
    except OSError as e:
        print(f"plot_probes: cannot write {png}: {e.strerror}", file=sys.stderr)
        return 1
    finally:
        plt.close(fig)
    print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
