#!/usr/bin/env python3
"""Medians and ratios of scripts/bench_sched.sh's CSV (issue 15).

Usage: scripts/bench/sched_summary.py bench_sched.csv

Throughput ratios are t(reference) / t(case) per step, from medians of the runs of one CSV (one
machine, one session); 'worst' takes the slowest run of the case against the median reference.
"""
import csv
import statistics
import sys
from collections import defaultdict


def main(path):
    rows = list(csv.DictReader(open(path)))
    groups = defaultdict(list)
    meta = {}
    for r in rows:
        key = (r["part"], r["case"], r["scheduler"], r["env"].replace("STARPU_SCHED=" + r["scheduler"], "").strip())
        groups[key].append(float(r["seconds_per_step"]))
        meta[key] = r
    if rows:
        r0 = rows[0]
        print(f"machine: {r0['gpu']} x{r0['gpus']}, {r0['cores']} cores; date {r0['date']}; commit {r0['commit']}")

    def stat(part, case, sched=None, env_has=None):
        for (p, c, s, e), times in groups.items():
            if p == part and c == case and (sched is None or s == sched) and (env_has is None or env_has in e):
                return statistics.median(times), min(times), max(times), len(times)
        return None

    def fmt(st):
        if not st:
            return "-"
        med, lo, hi, n = st
        return f"{med * 1e3:.3f} ms ({lo * 1e3:.3f}-{hi * 1e3:.3f}, n={n})"

    def ratio(ref, st):
        if not ref or not st:
            return "-", "-"
        return f"{ref[0] / st[0]:.3f}", f"{ref[0] / st[2]:.3f}"

    if any(k[0] == "mono" for k in groups):
        print("\nmono 256,000 medium-high, GPU only: ms per step (median, min-max) and throughput vs 1 task")
        suffixes = sorted({k[1].split("-", 2)[2] if k[1].count("-") >= 2 else "" for k in groups if k[0] == "mono"})
        for suffix in suffixes:
            tag = f"-{suffix}" if suffix else ""
            print(f"{'scheduler':<8} {'tasks':>9} {'ms/step':>34} {'ratio':>7} {'worst':>7}")
            for sched in ["eager", "lws", "dmda", "dmdas"]:
                ref = stat("mono", f"tasks-1{tag}", sched)
                for t in [1, 4, 16, 64]:
                    st = stat("mono", f"tasks-{t}{tag}", sched)
                    med, worst = ratio(ref, st)
                    print(f"{sched:<8} {str(t) + tag:>9} {fmt(st):>34} {med:>7} {worst:>7}")
    if any(k[0] == "multi" for k in groups):
        print("\nmulti real-cell mix (6 shipped cells), GPU only, vs 1 chunk (same scheduler and streams)")
        for (p, c, sched, e) in sorted(k for k in groups if k[0] == "multi"):
            st = stat(p, c, sched)
            parts = c.split("-")
            ref = None
            if parts[0] == "chunks" and len(parts) >= 2:
                ref = stat(p, "-".join(["chunks", "1"] + parts[2:]), sched)
            med, worst = ratio(ref, st)
            r = meta[(p, c, sched, e)]
            print(f"  {sched:<6} {c:<28} {fmt(st):>34} ratio {med} worst {worst} ({r['tasks_per_step']} tasks)")
    if any(k[0] == "hetero" for k in groups):
        print("\nCPU + GPU, calibrated dmdas, no where-mask (default heterogeneous cut)")
        for layout in ["interleaved", "block"]:
            both = stat("hetero", f"{layout}-cpu+gpu")
            alone = stat("hetero", f"{layout}-gpu-alone")
            one = stat("hetero", f"{layout}-gpu-alone-1-task")
            pin = stat("hetero", f"{layout}-cpu+gpu-pin")
            if not both:
                continue
            r = meta[next(k for k in groups if k[0] == "hetero" and k[1] == f"{layout}-cpu+gpu")]
            print(f"  {layout}: CPU+GPU {fmt(both)} ({r['tasks_per_step']} tasks, {r['cpu_workers']} CPU workers)")
            print(f"    GPU alone, default chunks {fmt(alone)}: CPU+GPU speed-up {ratio(alone, both)[0]} (worst {ratio(alone, both)[1]})")
            print(f"    GPU alone, 1 task         {fmt(one)}: CPU+GPU speed-up {ratio(one, both)[0]} (worst {ratio(one, both)[1]})")
            if pin:
                print(f"    CPU+GPU with --pin        {fmt(pin)}")
    if any(k[0] == "two" for k in groups):
        print("\ntwo GPUs")
        one = stat("two", "one-gpu-1-task")
        two = stat("two", "two-gpus-16-tasks")
        print(f"  one GPU, 1 task {fmt(one)}; two GPUs, 16 tasks {fmt(two)}: {ratio(one, two)[0]}x (worst {ratio(one, two)[1]})")
        m1 = stat("two", "one-gpu-multi-1-chunk")
        md = stat("two", "one-gpu-multi-default")
        m2 = stat("two", "two-gpus-multi-default")
        print(f"  multi mix: one GPU 1 chunk {fmt(m1)}, one GPU default {fmt(md)}, two GPUs default {fmt(m2)}: "
              f"{ratio(m1, m2)[0]}x vs 1 chunk, {ratio(md, m2)[0]}x vs one GPU default")
        o16 = stat("two", "one-gpu-multi-16-chunks")
        t16 = stat("two", "two-gpus-multi-16-chunks")
        print(f"  multi mix, 16 chunks: one GPU {fmt(o16)} ({ratio(m1, o16)[0]} of 1 chunk), two GPUs {fmt(t16)}: "
              f"{ratio(m1, t16)[0]}x one GPU's 1 chunk, {ratio(md, t16)[0]}x one GPU default")
        u = stat("two", "two-gpus-unseen-200000-first-run")
        u1 = stat("two", "one-gpu-unseen-200000-1-task")
        print(f"  200,000 neurons (never seen), first run, fresh models: two GPUs 16 tasks {fmt(u)} vs one GPU 1 task {fmt(u1)}: {ratio(u1, u)[0]}x")
    if any(k[0] == "unseen" for k in groups):
        print("\nsizes never seen (two GPUs): first run against second run and one GPU's one task")
        for n, first, second, one in [
                ("512000", "two-gpus-512000-default-first-run", "two-gpus-512000-default-second-run",
                 "one-gpu-512000-1-task"),
                ("200000", "two-gpus-200000-16-tasks-fresh-first-run",
                 "two-gpus-200000-16-tasks-fresh-second-run", "one-gpu-200000-1-task")]:
            f, s2, o = stat("unseen", first), stat("unseen", second), stat("unseen", one)
            print(f"  {n}: first {fmt(f)} ({ratio(o, f)[0]}x one GPU), second {fmt(s2)} "
                  f"({ratio(o, s2)[0]}x), one GPU 1 task {fmt(o)}; first/second {ratio(s2, f)[0]}")
    if any(k[0] == "connections" for k in groups):
        print("\nhardware queues per GPU (CUDA_DEVICE_MAX_CONNECTIONS), 8 against 32")
        cases = sorted({k[1][:-3] if k[1].endswith("-c8") else k[1][:-4]
                        for k in groups if k[0] == "connections"})
        for c in cases:
            a, b = stat("connections", c + "-c8"), stat("connections", c + "-c32")
            print(f"  {c:<34} 8: {fmt(a):>34}  32: {fmt(b):>34}  gain {ratio(a, b)[0]}")
    for part in ["variants", "extra", "verify"]:
        keys = [k for k in groups if k[0] == part]
        if keys:
            print(f"\n{part}")
            for k in keys:
                r = meta[k]
                err = f" max rel error {r['max_rel_error']}" if r["max_rel_error"] else ""
                print(f"  {k[1]:<34} {k[2]:<6} {fmt(stat(*k[:3])):>34} tasks {r['tasks_per_step']} "
                      f"workers/GPU {r['nworker_per_cuda']}{err}")
    # Runs whose GPUs ran unequal task counts (more than 5 % apart): the scheduler moved chunks.
    uneven = []
    for r in rows:
        counts = [int(n) for n in (r.get("tasks_per_gpu") or "").split(";") if n]
        if len(counts) >= 2 and min(counts) * 1.05 < max(counts):
            uneven.append(f"  {r['part']} {r['case']} rep {r['rep']} {r['scheduler']}: "
                          f"tasks per GPU {'/'.join(map(str, counts))}, "
                          f"{1e3 * float(r['seconds_per_step']):.3f} ms a step")
    if uneven:
        print("\nruns whose GPUs ran unequal task counts (> 5 % apart)")
        print("\n".join(uneven))


if __name__ == "__main__":
    main(sys.argv[1])
