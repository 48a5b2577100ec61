#!/usr/bin/env python3
"""Random mixes of hinestask's options, each run against the same batch with the solver's
options left at their defaults.

Every case draws a batch (one to three cells of the repository's or generated ones, a few
neurons and steps, the membrane's options: channels, rates, geometry, dt) and a set of solver
options (mode, layout, task sizes and steps, kernels, level options, window, CPU group, the
scheduler and the number of CPU workers). It then runs the batch twice, with and without the
solver's options, and asks of the pair:

- exit status 0 or 2 only (never a crash, a timeout or a failure during the run);
- 2: one line of error (warnings aside) naming the program, and none of the outputs written;
- 0: --verify passed (the sampled neurons against the sequential solver), the JSON summary
  parses and names the steps run, the probe file has a row per sample, and its voltages are
  those of the run without the solver's options to 1e-10 relative: the options only reorder
  the same arithmetic (the kernels' voltages agree to rounding, most of them bit for bit).

A fresh seed every run unless HINES_OPTION_MIX_SEED is set; the seed and any failing command
are printed so that a failure can be replayed. Usage: test_option_mix.py HINESTASK [CASES]."""

import csv
import json
import os
import random
import subprocess
import sys
import tempfile

HINESTASK = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HINESTASK", "hinestask")
# The runs start in their own folders: a path given relative to here must still name it.
if os.sep in HINESTASK:
    HINESTASK = os.path.abspath(HINESTASK)
CASES = int(sys.argv[2]) if len(sys.argv) > 2 else 24
SOURCE = os.environ.get("HINES_SOURCE_DIR",
                        os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = int(os.environ.get("HINES_OPTION_MIX_SEED") or random.SystemRandom().randrange(1 << 30))
# The sanitizers' build runs several times slower.
RUN_TIMEOUT_S = 600

CELLS = sorted(os.path.join(SOURCE, "morph", "data", f)
               for f in os.listdir(os.path.join(SOURCE, "morph", "data")) if f.endswith(".swc"))
GENERATED = ["synthetic:small-low", "synthetic:medium-high", "synthetic:fig6:100:50",
             "synthetic:fig14:3", "synthetic:random:10:500:3", "synthetic:tree:300:4:2",
             "synthetic:comb:5"]
# What the physics is: both runs of a case take the same.
MEMBRANE = {
    "--hh": ["none", "soma", "all"],
    "--hh-rates": ["table", "exact"],
    "--channels": ["km:soma", "ih:all", "hh:all,km:soma", "hh:soma,ih.gbar=0.001"],
    "--geometry": ["neuron", "cylinders"],
    "--dx": ["5", "50"],
    "--dt": ["0.025", "0.1"],
    "--stim-spread": ["0", "0.5"],
}
# How it is solved: the second run of a case leaves these at their defaults.
SOLVER = {
    "--mode": ["auto", "mono", "multi"],
    "--layout": ["flat", "interleaved", "block", "shared"],
    "--block-size": ["1", "7", "32"],
    "--task-neurons": ["1", "3", "17", "64"],
    "--task-steps": ["1", "3", "8"],
    "--task-parts": ["1", "2", "3"],
    "--trunk-below": ["0", "2", "50"],
    "--trunk-branches": ["auto", "0", "2"],
    "--padding": ["cp", "ncp"],
    "--multi-tasks": ["chunk", "levels", "neuron"],
    "--level-kernel": ["auto", "levels", "cell", "flow", "shared", "branches"],
    "--level-rows": ["auto", "fused", "apart", "5"],
    "--level-pivots": ["auto", "stored", "computed", "3"],
    "--level-subtrees": ["off", "8", "64"],
    "--level-split": ["off", "4", "64"],
    "--level-root": ["center", "soma"],
    "--level-order": ["depth", "height"],
    "--level-warps": ["auto", "off", "all"],
    "--cell-neurons": ["1", "2", "4"],
    "--arrange": ["auto", "on", "off"],
    "--cpu-group": ["1", "5", "32", "64"],
    "--window": ["1", "2", "4"],
}
SCHEDULERS = ["dmdas", "dmda", "eager", "lws", "ws", "random"]


def draw(rng):
    batch = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        batch += ["--morph", rng.choice(CELLS + GENERATED)]
    neurons = rng.choice([1, 3, 8, 24, 64])
    batch += ["--neurons", str(neurons), "--steps", str(rng.choice([3, 12, 40])),
              "--stim-start", "0"]
    for option in rng.sample(sorted(MEMBRANE), rng.randint(0, 2)):
        batch += [option, rng.choice(MEMBRANE[option])]
    solver = []
    for option in rng.sample(sorted(SOLVER), rng.randint(1, 5)):
        solver += [option, rng.choice(SOLVER[option])]
    probes = sorted({(rng.randrange(neurons), rng.choice([0, 1])) for _ in range(3)})
    environment = {"STARPU_SCHED": rng.choice(SCHEDULERS), "STARPU_NCPU": str(rng.choice([1, 2]))}
    return batch, solver, probes, environment


def run(folder, name, arguments, probes, environment):
    """hinestask's exit status, stderr lines and outputs for one run."""
    outputs = {kind: os.path.join(folder, f"{name}.{kind}") for kind in ("json", "csv", "spikes")}
    command = [HINESTASK] + arguments + ["--verify", "--quiet", "--json", outputs["json"],
                                         "--probes", outputs["csv"], "--spikes", outputs["spikes"]]
    for neuron, compartment in probes:
        command += ["--probe", f"{neuron}:{compartment}"]
    env = dict(os.environ, STARPU_HOME=os.path.join(folder, "starpu-home"), STARPU_SILENT="1",
               **environment)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
                              env=env, cwd=folder)
        status, stderr = done.returncode, done.stderr
    except subprocess.TimeoutExpired:
        status, stderr = "timeout", ""
    shown = " ".join(f"{k}={v}" for k, v in environment.items()) + " " + " ".join(command)
    return status, stderr.splitlines(), outputs, shown


def probe_rows(path):
    with open(path, newline="") as f:
        return [[float(x) for x in row] for row in list(csv.reader(f))[1:]]


def check(folder, index, batch, solver, probes, environment):
    """The problems with one case (an empty list when there are none)."""
    problems = []
    results = {}
    for name, arguments in (("mixed", batch + solver), ("plain", batch)):
        status, lines, outputs, shown = run(folder, f"{index}-{name}", arguments, probes,
                                            environment)
        results[name] = (status, outputs)
        errors = [line for line in lines if "warning" not in line and "note:" not in line]
        if status not in (0, 2):
            problems.append(f"exit status {status}: {shown}\n    " + "\n    ".join(lines[-6:]))
        elif status == 2:
            if len(errors) != 1 or not errors[0].startswith("hinestask: "):
                problems.append(f"refused without one error line: {shown}\n    " +
                                "\n    ".join(lines[-6:]))
            written = [path for path in outputs.values() if os.path.exists(path)]
            if written:
                problems.append(f"refused, yet wrote {written}: {shown}")
        else:
            with open(outputs["json"]) as f:
                summary = json.load(f)
            steps = int(batch[batch.index("--steps") + 1])
            if summary.get("steps") != steps:
                problems.append(f"the JSON says {summary.get('steps')} steps, not {steps}: {shown}")
            if len(probe_rows(outputs["csv"])) < 2:
                problems.append(f"the probe file has fewer than two samples: {shown}")
            results[name] = (status, outputs, shown)
    if not problems and results["mixed"][0] == 0 and results["plain"][0] == 0:
        mixed = probe_rows(results["mixed"][1]["csv"])
        plain = probe_rows(results["plain"][1]["csv"])
        worst = 0.0
        if len(mixed) != len(plain) or any(len(a) != len(b) for a, b in zip(mixed, plain)):
            worst = float("inf")
        else:
            for a, b in zip(mixed, plain):
                for x, y in zip(a[1:], b[1:]):
                    worst = max(worst, abs(x - y) / max(abs(y), 1.0))
        if not worst <= 1e-10:
            problems.append(f"probe voltages {worst:.3g} apart (relative) from the same batch "
                            f"with the solver's defaults: {results['mixed'][2]}\n    against "
                            f"{results['plain'][2]}")
    return problems, [results[n][0] for n in ("mixed", "plain")]


def main():
    rng = random.Random(SEED)
    print(f"# seed {SEED} (HINES_OPTION_MIX_SEED={SEED} replays it), {CASES} cases")
    failures = 0
    ran = refused = 0
    with tempfile.TemporaryDirectory(prefix="option-mix-") as folder:
        for index in range(CASES):
            batch, solver, probes, environment = draw(rng)
            problems, statuses = check(folder, index, batch, solver, probes, environment)
            ran += statuses.count(0)
            refused += statuses.count(2)
            for problem in problems:
                print(f"not ok: case {index}: {problem}")
            failures += bool(problems)
    print(f"# {CASES} cases, {ran} runs, {refused} refused, {failures} failing (seed {SEED})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
