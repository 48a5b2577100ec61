#!/usr/bin/env python3
"""The shares' probe rounds (scripts/bench/level_kernel_runs.sh modes probe85, probe86, probe87).

Usage: scripts/bench/probe_rounds.py LOG... (the modes' logs: CSV rows, each share row followed
by its JSON's shares, probe keys and CPU workers' loads)

Prints, per share row, its ms a step, the GPU alone's of the same round and load, their ratio
(the GPU alone's ms over the share's), the cores' neurons as run and as probed, the probe's
measured over predicted, and the median CPU worker's ms executing; then, per label kind
and load (quiet, hogs),
the rounds, min, median, max, rounds at 1.03x or more and below 1.00x; mono batches (monoc-) and
multi mixes apart. Kinds: default (the cut made again), report (the probe measured and the cut
kept), shrink (probe87's build whose probe only shrinks the cut).
"""
import re
import statistics
import sys
from collections import defaultdict


def rounds_of(path):
    rows, cur = [], None
    for line in open(path):
        line = line.strip()
        if line.startswith("20") and line.count(",") >= 9:
            f = line.split(",")
            cur = {"batch": f[4], "label": f[5], "rep": f[6], "ms": float(f[7])}
            rows.append(cur)
        elif cur and '"cpu_share_neurons"' in line:
            cur["share"] = int(re.search(r'"cpu_share_neurons": (\d+)', line).group(1))
        elif cur and '"share_probe_measured_ms"' in line:
            measured = float(re.search(r'"share_probe_measured_ms": ([\d.e+-]+)', line).group(1))
            predicted = float(re.search(r'"share_probe_predicted_ms": ([\d.e+-]+)', line).group(1))
            cur["probe"] = measured / predicted
            probed = re.search(r'"share_probed_neurons": (\d+)', line)
            cur["probed"] = int(probed.group(1)) if probed else None
        elif cur and '"cpu_worker_executing_ms"' in line:
            v = sorted(float(x) for x in re.search(r'"cpu_worker_executing_ms": \[([^\]]*)\]', line).group(1).split(","))
            cur["executing"] = v[len(v) // 2]
    return rows


def main():
    kinds = defaultdict(list)
    for path in sys.argv[1:]:
        rows = rounds_of(path)
        gpu = {}
        for r in rows:
            if r["label"].startswith("gpu"):
                load = r["label"].split("-")[1] if "-" in r["label"] else "quiet"
                gpu[(r["batch"], r["rep"], load)] = r["ms"]
        for r in rows:
            if not r["label"].startswith(("default", "report", "shrink")):
                continue
            kind, _, load = r["label"].partition("-")
            load = load or "quiet"
            g = gpu.get((r["batch"], r["rep"], load))
            if not g:
                continue
            ratio = g / r["ms"]
            solver = "mono" if r["batch"].startswith("monoc-") else "multi"
            kinds[(solver, kind, load)].append((ratio, r["batch"]))
            print("%-13s %-14s %s %.4f gpu %.4f %.3fx cores %s probed %s probe %s executing %s" % (
                r["batch"], r["label"], r["rep"], r["ms"], g, ratio, r.get("share"), r.get("probed"),
                "%.3f" % r["probe"] if "probe" in r else "-",
                "%.0f" % r["executing"] if "executing" in r else "-"))
    for key in sorted(kinds):
        v = sorted(x for x, _ in kinds[key])
        print("%s %s %s: %d rounds, min %.3f median %.3f max %.3f, %d at 1.03x or more, %d below 1.00x (%s)" % (
            key[0], key[1], key[2], len(v), v[0], statistics.median(v), v[-1], sum(x >= 1.03 for x in v),
            sum(x < 1.0 for x in v),
            ", ".join("%s %.3f" % (b, x) for x, b in sorted(kinds[key]) if x < 1.0)))


if __name__ == "__main__":
    main()
