#!/usr/bin/env python3
"""Merges repeated runs of one benchmark script into one CSV: for every configuration (the row's
columns other than the date and the measured values) it keeps the run with the median
seconds_per_step and adds its spread over the runs: repeats, seconds_min, seconds_max.
Usage: scripts/bench/median.py OUT.csv RUN1.csv RUN2.csv ...   (an odd count gives a true median)
"""
import csv
import sys

MEASURED = {"date", "seconds_per_step", "compartment_solves_per_s", "max_rel_error"}


def main(out_path, run_paths):
    header, groups, order = None, {}, []
    for path in run_paths:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if not rows:
            continue
        if header is None:
            header = rows[0]
        elif rows[0] != header:
            sys.exit(f"median.py: {path}: header differs from {run_paths[0]}")
        seconds = header.index("seconds_per_step")
        key_columns = [i for i, name in enumerate(header) if name not in MEASURED]
        for row in rows[1:]:
            key = tuple(row[i] for i in key_columns)
            if key not in groups:
                groups[key] = []
                order.append(key)
            groups[key].append(row)
    if header is None:
        sys.exit("median.py: no rows")
    seconds = header.index("seconds_per_step")
    with open(out_path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header + ["repeats", "seconds_min", "seconds_max"])
        for key in order:
            runs = sorted(groups[key], key=lambda r: float(r[seconds]))
            median_run = runs[(len(runs) - 1) // 2]  # the lower middle run for an even count
            values = [float(r[seconds]) for r in runs]
            writer.writerow(median_run + [len(runs), f"{min(values):.9g}", f"{max(values):.9g}"])
    print(f"median.py: {len(order)} configurations from {len(run_paths)} runs -> {out_path}",
          file=sys.stderr)
    short = sum(1 for k in order if len(groups[k]) != len(run_paths))
    if short:
        print(f"median.py: {short} configurations are missing from some runs", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
