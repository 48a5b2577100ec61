#!/usr/bin/env python3
"""Chunk by chunk, how a run's chunk tasks went, from a trace's tasks.rec (`hinestask --trace`).

    scripts/bench/share_chains.py DIR/tasks.rec [GPU_WORKERS]

GPU_WORKERS (default 16): StarPU's worker ids below it are CUDA workers (one H200 with
STARPU_NWORKER_PER_CUDA's 16 streams comes first), the others CPU workers.

Each chunk's tasks form a chain: a task starts after the one before it ends. The timed run is
what was submitted after the largest gap in submission times (the share's probe and calibration
rounds come before). For the run: when the GPU's and the cores' last tasks ended; for each chunk
on the cores, when its chain ended, its tasks' time, the time its ready tasks waited for a worker,
and its mean task (trace101 found the slowest chains were chunks holding a few copies of one cell
beside another cell's: BENCHMARKS.md, "The share's chunks keep a cell's copies together"); each
CPU worker's tasks and busy time; each GPU chunk's chain; and per 50 ms the CPU workers busy and
the GPU tasks in flight.
"""
import collections
import sys

from share_rounds import records  # tasks.rec's records (this folder)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    gpu_workers = int(sys.argv[2]) if len(sys.argv) == 3 else 16
    recs = [r for r in records(sys.argv[1]) if r.get("Name") == "chunk_step" and "StartTime" in r]
    if not recs:
        sys.exit("no chunk_step task in " + sys.argv[1])
    for r in recs:
        r["s"], r["e"] = float(r["StartTime"]), float(r["EndTime"])
        r["sub"], r["w"] = float(r["SubmitTime"]), int(r["WorkerId"])
    subs = sorted(r["sub"] for r in recs)
    t_run = subs[max(range(1, len(subs)), key=lambda i: subs[i] - subs[i - 1])] if len(subs) > 1 else subs[0]
    run = [r for r in recs if r["sub"] >= t_run]
    t0 = min(r["s"] for r in run)
    on_gpu = lambda r: r["w"] < gpu_workers
    gpu = [r for r in run if on_gpu(r)]
    cpu = [r for r in run if not on_gpu(r)]
    print("tasks in the run %d; GPU %d, last ends %.1f ms; cores %d, last ends %.1f ms (from the first start)"
          % (len(run), len(gpu), max([r["e"] for r in gpu] or [t0]) - t0, len(cpu),
             max([r["e"] for r in cpu] or [t0]) - t0))
    chains = collections.defaultdict(list)
    for r in run:
        chains[r["Handles"].split()[2]].append(r)  # the voltage each chunk task writes
    rows, gpu_rows = [], []
    for chain in chains.values():
        chain.sort(key=lambda r: r["s"])
        work = sum(r["e"] - r["s"] for r in chain)
        if on_gpu(chain[0]):
            gpu_rows.append((chain[-1]["e"] - t0, chain[0]["s"] - t0, work, len(chain)))
            continue
        wait, previous = 0.0, None
        for r in chain:
            ready = max(r["sub"], previous["e"]) if previous else r["sub"]
            wait += max(0.0, r["s"] - ready)
            previous = r
        rows.append((chain[-1]["e"] - t0, work, wait, len(chain), work / len(chain)))
    print("chunks on the cores: chain ends ms, tasks' time ms, waited ms, tasks, mean task ms")
    for row in sorted(rows):
        print("  %.1f %.1f %.1f %d %.2f" % row)
    workers = collections.defaultdict(list)
    for r in cpu:
        workers[r["w"]].append(r)
    print("CPU workers: id, tasks, busy ms, last end ms")
    for w in sorted(workers):
        t = workers[w]
        print("  %d %d %.1f %.1f" % (w, len(t), sum(r["e"] - r["s"] for r in t), max(r["e"] for r in t) - t0))
    print("chunks on the GPU: chain ends ms, first start ms, tasks' time ms, tasks")
    for row in sorted(gpu_rows):
        print("  %.1f %.1f %.1f %d" % row)
    span = max(r["e"] for r in run) - t0
    bins = int(span // 50) + 1
    busy, in_flight = [0.0] * bins, [0.0] * bins
    for r in run:
        a, b = r["s"] - t0, r["e"] - t0
        into = in_flight if on_gpu(r) else busy
        i = int(a // 50)
        while i < bins and i * 50 < b:
            into[i] += max(0.0, min(b, (i + 1) * 50) - max(a, i * 50))
            i += 1
    print("per 50 ms, CPU workers busy / GPU tasks in flight (means):")
    print("  " + " ".join("%.1f/%.1f" % (busy[i] / 50, in_flight[i] / 50) for i in range(bins)))


if __name__ == "__main__":
    main()
