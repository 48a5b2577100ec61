#!/usr/bin/env python3
"""The cores' share against the GPU alone, round by round, from level_kernel_runs.sh CSVs.

    scripts/bench/share_ratios.py [--labels L1,L2,...] [--alone LABEL] FILE.csv...

Each share row (its label among --labels; default: share, default, default-default, mainbind,
small, huge) is paired with the first later row of the same batch labelled gpu (--alone: LABEL,
as gpu-late for lag141's late rounds), the GPU alone of the same round; the ratio is the GPU alone's ms a step over the share's. Prints each mix's rounds
(min, median, max, how many below 1.00x and at 1.03x or more), then the totals (with the min,
mean and max of all rounds). BENCHMARKS.md,
"The kept constants beside the GPU, and the share's slow runs", counts the default's 99 rounds
with --labels share,default,default-default,mainbind,small ("huge" is pages77's 2 MiB build).
"""
import collections
import csv
import statistics
import sys


def main():
    args = sys.argv[1:]
    labels = {"share", "default", "default-default", "mainbind", "small", "huge"}
    if len(args) >= 2 and args[0] == "--labels":
        labels = set(args[1].split(","))
        args = args[2:]
    alone_label = "gpu"
    if len(args) >= 2 and args[0] == "--alone":
        alone_label = args[1]
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    ratios = collections.defaultdict(list)
    for path in args:
        with open(path) as f:
            rows = [r for r in csv.reader(f) if len(r) >= 8 and r[0] != "date"]
        for i, row in enumerate(rows):
            if row[5] not in labels:
                continue
            alone = next((r for r in rows[i + 1:] if r[4] == row[4] and r[5] == alone_label), None)
            if alone:
                ratios[row[4].split("-")[0]].append(float(alone[7]) / float(row[7]))
    below = at_target = total = 0
    every = [v for values in ratios.values() for v in values]
    for mix, values in ratios.items():
        low = sum(1 for v in values if v < 1.0)
        high = sum(1 for v in values if v >= 1.03)
        below, at_target, total = below + low, at_target + high, total + len(values)
        print("%-8s %3d rounds: min %.3f median %.3f max %.3f; below 1.00x %d, 1.03x or more %d" % (
            mix, len(values), min(values), statistics.median(values), max(values), low, high))
    print("all      %3d rounds: below 1.00x %d, 1.03x or more %d" % (total, below, at_target)
          + ("; min %.3f mean %.3f max %.3f" % (min(every), statistics.mean(every), max(every))
             if every else ""))


if __name__ == "__main__":
    main()
