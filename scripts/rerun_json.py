#!/usr/bin/env python3
"""Runs hinestask again from the JSON summary of an earlier run (--json FILE, or the default
job's hinestask-results/run-*/summary.json).

  scripts/rerun_json.py SUMMARY.json [--from command-line|parameters] [--hinestask PATH]
                        [--cwd DIR] [--probes FILE] [--spikes FILE] [--json FILE] [--print]

--from command-line (the default) runs the recorded command line again, in the recorded working
directory unless --cwd says otherwise, with the StarPU variables the run saw. --from parameters
builds the command line from the recorded parameters alone (mode, options in effect,
morphologies, sizes, time step, membrane, channels, stimulus, parameter sweep file, probes, spike
threshold): every
value explicit, so the rerun does not depend on the defaults of the hinestask that runs it.
--probes, --spikes and --json send the rerun's outputs elsewhere than the recorded ones (with --from command-line they are
appended, and hinestask takes the last). --print prints the command instead of running it.
The exit status is hinestask's. Python 3 standard library only.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def number(value):
    """A JSON number as hinestask reads it back: Python's repr is the shortest round trip."""
    return repr(value) if isinstance(value, float) else str(value)


def from_parameters(j, cwd, probes_file=None, spikes_file=None):
    args = ["--mode", j["mode"]]
    if j["mode"] == "mono":
        args += ["--cpu-group", number(j["cpu_group"])]
        # layout_asked auto: hinestask chose by the workers (block on CPUs only), so the rerun
        # chooses again; summaries from before it record the layout that ran
        if j.get("layout_asked") != "auto":
            args += ["--layout", j["layout"]]
            if "block_size" in j:
                args += ["--block-size", number(j["block_size"])]
    else:
        args += ["--multi-tasks", j["multi_tasks"]]
        for key, option in (("padding", "--padding"), ("level_order", "--level-order"),
                            ("trunk_below", "--trunk-below"),
                            ("trunk_branches", "--trunk-branches"), ("task_parts", "--task-parts"),
                            ("gpu_launch", "--gpu-launch"), ("level_kernel", "--level-kernel"),
                            ("level_rows", "--level-rows"), ("level_pivots", "--level-pivots"),
                            ("level_priorities", "--level-priorities"),
                            ("level_lean", "--level-lean"), ("level_factors", "--level-factors"),
                            ("level_warps", "--level-warps"), ("cell_neurons", "--cell-neurons"),
                            ("warp_lanes", "--warp-lanes")):
            if key + "_asked" in j:  # what was asked: auto is chosen again
                args += [option, number(j[key + "_asked"])]
            elif key in j:
                args += [option, number(j[key])]
        if "padding" in j:  # the level solver: summaries from before subtrees had none
            args += ["--level-subtrees", number(j.get("level_subtrees", 0))]
            args += ["--level-split", number(j.get("level_split", 0))]
            # summaries from before --level-root rooted every cell at its soma
            args += ["--level-root", j.get("level_root", "soma")]
    if j.get("task_neurons") is not None:
        args += ["--task-neurons", number(j["task_neurons"])]
    if j.get("task_steps_asked") is not None:  # null or absent: the default, chosen again
        args += ["--task-steps", number(j["task_steps_asked"])]
    if j.get("cpu_share", "auto") != "auto":
        args += ["--cpu-share", j["cpu_share"]]
    if j.get("cpu_chunks") is not None:
        args += ["--cpu-chunks", number(j["cpu_chunks"])]
    if j.get("arrange_asked", "auto") != "auto":  # absent: before --arrange, auto's rule
        args += ["--arrange", j["arrange_asked"]]
    workdir = j.get("working_directory") or cwd
    for spec in j["morphologies"]:
        if not spec.startswith("synthetic:") and not os.path.isabs(spec):
            spec = os.path.join(workdir, spec)
        args += ["--morph", spec]
    if "dx_um" in j:
        args += ["--dx", number(j["dx_um"])]
    if "nseg_factor" in j:
        args += ["--nseg-factor", number(j["nseg_factor"])]
    args += ["--neurons", number(j["neurons"]), "--steps", number(j["steps"]),
             "--dt", number(j["dt_ms"])]
    m = j["membrane"]
    args += ["--cm", number(m["cm_uF_per_cm2"]), "--ra", number(m["ra_ohm_cm"]),
             "--gl", number(m["gl_S_per_cm2"]), "--el", number(m["el_mV"])]
    args += ["--hh", j["hh"]]
    if "hh_rates" in j:  # summaries from before --hh-rates computed the rates exactly
        args += ["--hh-rates", j["hh_rates"]]
    else:
        args += ["--hh-rates", "exact"]
    if "hh_channels" in j:
        c = j["hh_channels"]
        args += ["--gnabar", number(c["gnabar_S_per_cm2"]), "--gkbar", number(c["gkbar_S_per_cm2"]),
                 "--gl-hh", number(c["gl_S_per_cm2"]), "--el-hh", number(c["el_mV"])]
    # The other channel mechanisms (--channels), with their conductances and reversals.
    items = []
    for name, mechanism in j.get("mechanisms", {}).items():
        if name == "hh":
            continue
        items.append("%s:%s" % (name, mechanism["placement"]))
        for current, values in mechanism["currents"].items():
            items.append("%s.%s=%s" % (name, current, number(values["gbar_S_per_cm2"])))
            if "reversal_parameter" in values:
                items.append("%s.%s=%s" % (name, values["reversal_parameter"],
                                           number(values["reversal_mV"])))
    if items:
        args += ["--channels", ",".join(items)]
    s = j["stimulus"]
    args += ["--stim-compartment", number(s["compartment"]),
             "--stim-amp", number(s["amplitude_nA"]), "--stim-spread", number(s["spread"]),
             "--stim-start", number(s["start_ms"]), "--stim-stop", number(s["stop_ms"])]
    if "params" in j:
        sweep = j["params"]["file"]
        args += ["--params", sweep if os.path.isabs(sweep) else os.path.join(workdir, sweep)]
    for probe in j.get("probes", []):
        args += ["--probe", probe]
    if "probes" in j:
        args += ["--probe-every", number(j["probe_every_ms"]),
                 "--probes", probes_file or j["probes_file"]]
    if "spikes" in j:
        args += ["--spikes", spikes_file or j["spikes"]["file"],
                 "--spike-threshold", number(j["spikes"]["threshold_mV"])]
    if j.get("calibrate"):
        args += ["--calibrate"]
    return args


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("summary")
    parser.add_argument("--from", dest="source", choices=["command-line", "parameters"],
                        default="command-line")
    parser.add_argument("--hinestask", help="the program to run (default: the recorded one, "
                        "else build/hinestask beside this script)")
    parser.add_argument("--cwd", help="where to run (default: the recorded working directory)")
    parser.add_argument("--probes", help="write the probe CSV here instead")
    parser.add_argument("--spikes", help="write the spike CSV here instead")
    parser.add_argument("--json", help="write the rerun's JSON summary here instead")
    parser.add_argument("--print", action="store_true", help="print the command, do not run it")
    a = parser.parse_args()
    with open(a.summary, encoding="utf-8") as f:
        j = json.load(f)
    cwd = a.cwd or j.get("working_directory") or os.getcwd()
    recorded = j["command_line"]
    program = a.hinestask or recorded[0]
    if not a.hinestask and not os.path.isabs(program):
        program = os.path.join(j.get("working_directory") or "", program)
    if not os.access(program, os.X_OK):
        program = os.path.join(HERE, "..", "build", "hinestask")
    if a.source == "command-line":
        args = list(recorded[1:])
    else:
        args = from_parameters(j, cwd, a.probes, a.spikes)
    if a.probes and a.source == "command-line":
        args += ["--probes", a.probes]
    if a.spikes and a.source == "command-line":
        args += ["--spikes", a.spikes]
    if a.json:
        args += ["--json", a.json]
    env = dict(os.environ)
    for name, value in j.get("environment", {}).items():
        if name != "STARPU_HOME":  # the models live where this machine keeps them
            env[name] = value
    command = [program] + args
    if a.print:
        settings = [f"{k}={shlex.quote(v)}" for k, v in j.get("environment", {}).items()
                    if k != "STARPU_HOME"]
        print(f"cd {shlex.quote(cwd)} && " + " ".join(settings + [shlex.quote(x) for x in command]))
        return 0
    return subprocess.call(command, cwd=cwd, env=env)


if __name__ == "__main__":
    sys.exit(main())
