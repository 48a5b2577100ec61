#!/usr/bin/env python3
"""Round by round, what a run's step tasks did, from a trace's tasks.rec.

    scripts/bench/share_rounds.py DIR/tasks.rec GPU_CHUNKS [CODELET]

CODELET: hines_step (mono, the default) or chunk_step (multi).

A round is every chunk's k-th CODELET task (chunks told apart by the handle they write, in
submission order). For each round: when the last task on a GPU and on a core ended (ms since the
first task started), the mean and longest task on the cores and the mean on the GPU, how many
ran on each, and how many of the chunks cut for the cores (those after the first GPU_CHUNKS)
ran on a GPU. diag27b (BENCHMARKS.md, "A short last round") found with it the GPU's chunks on
cores in the last, shorter round. Then, from the GPU's third round to its second-to-last (the
first rounds build what the tasks keep, the last is short), how busy the cores were: their tasks'
time there over the cores' time, and a round's work on a core against the GPU's round (trace73,
BENCHMARKS.md, "The kept constants beside the GPU").
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
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    gpu_chunks = int(sys.argv[2])
    codelet = sys.argv[3] if len(sys.argv) == 4 else "hines_step"
    steps = [r for r in records(sys.argv[1]) if r.get("Name") == codelet and "StartTime" in r]
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
    steady = sorted(rounds)[2:-1]
    gpu_rounds = [[r for _, r in rounds[k] if int(r["MemoryNode"]) != 0] for k in steady]
    if not steady or not all(gpu_rounds):
        return
    start = min(float(r["StartTime"]) for r in gpu_rounds[0])
    end = max(float(r["EndTime"]) for r in gpu_rounds[-1])
    cores = {r["WorkerId"] for r in steps if int(r["MemoryNode"]) == 0}
    busy = sum(max(0.0, min(end, float(r["EndTime"])) - max(start, float(r["StartTime"])))
               for r in steps if int(r["MemoryNode"]) == 0)
    work = sum(duration(r) for k in steady for _, r in rounds[k] if int(r["MemoryNode"]) == 0)
    if cores:
        print("GPU rounds %d-%d: %.2f ms a round; cores busy %.0f %% of it; a round's work a core "
              "%.2f ms (%.0f %% of the GPU's round)" % (
                  steady[0], steady[-1], (end - start) / len(steady),
                  100 * busy / (len(cores) * (end - start)), work / len(steady) / len(cores),
                  100 * work / len(steady) / len(cores) / ((end - start) / len(steady))))


if __name__ == "__main__":
    main()
