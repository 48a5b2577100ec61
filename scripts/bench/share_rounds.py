#!/usr/bin/env python3
"""Round by round, what a mono run's step tasks did, from a trace's tasks.rec.

    scripts/bench/share_rounds.py DIR/tasks.rec GPU_CHUNKS

A round is every chunk's k-th hines_step task (chunks told apart by the handle they write, in
submission order). For each round: when the last task on a GPU and on a core ended (ms since the
first task started), the mean and longest task on the cores and the mean on the GPU, how many
ran on each, and how many of the chunks cut for the cores (those after the first GPU_CHUNKS)
ran on a GPU. diag27b (BENCHMARKS.md, "A short last round") found with it the GPU's chunks on
cores in the last, shorter round.
"""
import collections
import sys


def records(path):
    current = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if current:
                    yield current
                current = {}
                continue
            key, _, value = line.partition(": ")
            current[key] = value
    if current:
        yield current


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    gpu_chunks = int(sys.argv[2])
    steps = [r for r in records(sys.argv[1]) if r.get("Name") == "hines_step" and "StartTime" in r]
    steps.sort(key=lambda r: int(r["SubmitOrder"]))
    chunk_of = {}
    for r in steps:
        chunk_of.setdefault(r["Handles"].split()[2], len(chunk_of))
    rounds = collections.defaultdict(list)
    seen = collections.Counter()
    for r in steps:
        chunk = chunk_of[r["Handles"].split()[2]]
        rounds[seen[chunk]].append((chunk, r))
        seen[chunk] += 1
    t0 = min(float(r["StartTime"]) for r in steps)

    def duration(r):
        return float(r["EndTime"]) - float(r["StartTime"])

    print("round gpu_end_ms cpu_end_ms cpu_mean_ms cpu_max_ms gpu_mean_ms on_gpu on_cpu core_chunks_on_gpu")
    for k in sorted(rounds):
        on_gpu = [(c, r) for c, r in rounds[k] if int(r["MemoryNode"]) != 0]
        on_cpu = [(c, r) for c, r in rounds[k] if int(r["MemoryNode"]) == 0]
        gpu_end = max((float(r["EndTime"]) for _, r in on_gpu), default=t0) - t0
        cpu_end = max((float(r["EndTime"]) for _, r in on_cpu), default=t0) - t0
        cpu_times = [duration(r) for _, r in on_cpu]
        gpu_times = [duration(r) for _, r in on_gpu]
        moved = sum(1 for c, _ in on_gpu if c >= gpu_chunks)
        print("%5d %10.1f %10.1f %11.2f %10.2f %11.2f %6d %6d %18d" % (
            k, gpu_end, cpu_end, sum(cpu_times) / max(len(cpu_times), 1), max(cpu_times, default=0),
            sum(gpu_times) / max(len(gpu_times), 1), len(on_gpu), len(on_cpu), moved))


if __name__ == "__main__":
    main()
