#!/usr/bin/python3
"""Runs NEURON and hinestask on the same SWC file with the same parameters and compares the
soma voltage: passive (max |dV|), and with Hodgkin-Huxley channels on the soma and everywhere
(spike counts and times).

NEURON reads the file through Import3d, as a user would; hinestask uses its default NEURON
geometry. Both cut every section by the same nseg rule (--dx: the CellBuilder's d_X rule,
--d-lambda: its d_lambda rule, neither: one segment per piece between 3-D points), so the two
solve the same discretised model ("matched discretisation"). --refine also measures how
hinestask converges to NEURON's own refined answer under a nested refinement: every section's
nseg from the d_X rule at --refine-dx, times each factor of --refine (1,3,9,27: hinestask's
--nseg-factor, NEURON's nseg multiplied alike), against NEURON at --reference-factor (81). Each
level keeps the nodes of the one before and divides every section's segments by the same
factor, so a second-order error falls about 9 times per level in every section alike; a d_X
ladder (20, 10, 5 um) refines each section by its own odd count, and the sections' errors,
of either sign, can then cancel at one d_X and not at the next (VALIDATION.md).

Needs NEURON for Python (Debian: apt-get install python3-neuron) under the system Python,
/usr/bin/python3, which is this script's interpreter. Exit status: 0 every check passed,
1 a check failed, 2 bad usage or a run that failed, 77 NEURON is not importable (a test that
uses this script is then skipped).

Conventions that make the two runs the same model:
- hinestask evaluates the clamp at the start of a step, NEURON at its middle (t + dt/2), so
  hinestask gets --stim-start/--stim-stop half a step earlier than NEURON's del and del+dur.
- --neurons 1 and --stim-spread 0: the batch's amplitude spread is off.
- A soma sample of radius 0 would make NEURON's soma empty (NaN voltages); hinestask repairs
  zero radii (morph/README.md) and NEURON is given the file with the same repairs.
- --hh soma puts hh on compartment 0, NEURON's soma(0.5) segment; NEURON then gets hh in the
  soma with zero conductances outside that segment (the same model when the soma has one).
- NEURON's hh uses rate tables (usetable_hh = 1, 1 mV steps, linear interpolation of x_inf and
  tau) by default; so does hinestask (--hh-rates table: the cnexp update's two coefficients
  interpolated on the same grid), or it computes the rates exactly (--hh-rates exact).
  --hh-table off (the default here) turns NEURON's tables off, --hh-table on leaves them on;
  --hh-rates picks hinestask's, by default the same kind as NEURON's (exact with tables off:
  the same model).
"""
import argparse
import csv
import importlib.util
import json
import math
import os
import re
import subprocess
import sys
import statistics
import tempfile
import time

# NEURON without its GUI: no DISPLAY warning on a headless machine.
os.environ.setdefault("NEURON_MODULE_OPTIONS", "-nogui")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---------------------------------------------------------------- NEURON side (a subprocess)


def neuron_simulate(job):
    """Runs one NEURON simulation described by `job` (a dict) and returns (t, v, info)."""
    from neuron import h

    h.load_file("stdrun.hoc")
    h.load_file("import3d.hoc")
    reader = h.Import3d_SWC_read()
    reader.quiet = 1
    reader.input(job["swc"])
    gui = h.Import3d_GUI(reader, 0)
    gui.instantiate(None)
    sections = list(h.allsec())
    root = [s for s in sections if s.parentseg() is None][0]
    # Import3d's root section of one point (a one-point or NeuroMorpho 3-point soma) becomes
    # a cylinder as long as it is wide: one segment under the per-sample rule.
    sphere_root = int(reader.sections.o(0).raw.ncol()) == 1
    for s in sections:
        s.Ra = job["ra"]
        s.cm = job["cm"]
    rule, value = job["rule"], job["value"]
    for s in sections:
        if rule == "sample":
            s.nseg = 1 if (s == root and sphere_root) else max(1, int(s.n3d()) - 1)
        elif rule == "dx":
            s.nseg = (int((s.L / value + 0.999) / 2) * 2 + 1) * job.get("nseg_factor", 1)
        elif rule == "d_lambda":
            s.nseg = int((s.L / (value * h.lambda_f(job["frequency"], sec=s)) + 0.999) / 2) * 2 + 1
        else:
            raise ValueError(rule)
    for s in sections:
        s.insert("pas")
        for seg in s:
            seg.pas.g = job["gl"]
            seg.pas.e = job["el"]
    h.celsius = 6.3
    hh_numbers = (job.get("mechanisms") or {}).get("hh")
    if job["hh"] != "none":
        h.usetable_hh = 1 if job["hh_table"] else 0
        hh_sections = sections if job["hh"] == "all" else [root]
        for s in hh_sections:
            s.insert("hh")
        if job["hh"] == "soma":
            # hinestask's compartment 0 is the segment holding x = 0.5, NEURON's node_index:
            # the middle one for odd nseg, the one after the middle for even nseg.
            middle = min(int(root.nseg * 0.5), root.nseg - 1)
            for index, seg in enumerate(root):
                if index != middle:
                    seg.hh.gnabar = seg.hh.gkbar = seg.hh.gl = 0
        if hh_numbers:  # hinestask's hh numbers (--channels hh.PARAM=VALUE)
            currents = hh_numbers["currents"]
            middle = min(int(root.nseg * 0.5), root.nseg - 1)
            for s in hh_sections:
                for index, seg in enumerate(s):
                    if job["hh"] == "all" or index == middle:
                        seg.hh.gnabar = currents["gnabar"]["gbar_S_per_cm2"]
                        seg.hh.gkbar = currents["gkbar"]["gbar_S_per_cm2"]
                        seg.hh.gl = currents["gl"]["gbar_S_per_cm2"]
                        seg.hh.el = currents["gl"]["reversal_mV"]
                        seg.ena = currents["gnabar"]["reversal_mV"]
                        seg.ek = currents["gkbar"]["reversal_mV"]
    for name, mechanism in (job.get("mechanisms") or {}).items():
        if name != "hh":
            insert_kschan(name, mechanism, sections, root)
    stim = h.IClamp(root(0.5))
    stim.delay = job["delay"]
    stim.dur = job["duration"]
    stim.amp = job["amp"]
    v = h.Vector().record(root(0.5)._ref_v)
    t = h.Vector().record(h._ref_t)
    h.dt = job["dt"]
    h.steps_per_ms = 1.0 / job["dt"]
    h.secondorder = 0  # backward Euler, as hinestask
    if job.get("cache_efficient"):
        h.CVode().cache_efficient(1)
    h.finitialize(job["el"])
    started = time.perf_counter()
    h.continuerun(job["tstop"])
    seconds = time.perf_counter() - started
    info = {
        "seconds": seconds,
        "sections": len(sections),
        "segments": sum(s.nseg for s in sections),
        "area_um2": sum(seg.area() for s in sections for seg in s),
        "version": h.nrnversion(5),
    }
    return list(t), list(v), info


# hinestask's rate forms (codelets/mechanisms.h, slope s in mV) as KSChan's (KSTrans.set_f
# ftype 2 exp A*exp(k*(v-d)), 3 linoid A*x/(1-exp(-x)) with x = k*(v-d), 4 sigmoid
# A/(1+exp(k*(v-d)))): k = 1/s, d = vh, A = a (exp, sigmoid) or a*s (linoid).
KSCHAN_FORMS = {"exp": 2, "linoid": 3, "sigmoid": 4}


def kschan_parameters(rate):
    a, s = rate["a"], rate["s_mV"]
    return [a * s if rate["form"] == "linoid" else a, 1.0 / s, rate["vh_mV"]]


def insert_kschan(name, mechanism, sections, root):
    """One NEURON ChannelBuilder channel (h.KSChan, no compiling) per current of a hinestask
    mechanism, as hinestask's --json describes it: ohmic, its gates HH-style with hinestask's
    alpha and beta, rates exact (KSChan's tables off). On the soma: hinestask's compartment 0,
    the root's segment holding x = 0.5 (gmax 0 on its other segments)."""
    from neuron import h

    where = sections if mechanism["placement"] == "all" else [root]
    middle = min(int(root.nseg * 0.5), root.nseg - 1)
    for current, numbers in mechanism["currents"].items():
        ks = h.KSChan(0)
        channel = "%s_%s_hinestask" % (name, current)
        ks.name(channel)
        ks.ion("NonSpecific")
        ks.iv_type(0)
        ks.gmax(numbers["gbar_S_per_cm2"])
        ks.erev(numbers["reversal_mV"])
        for gate_name, gate in mechanism["gates"].items():
            if gate["current"] != current:
                continue
            state = ks.add_hhstate(gate_name)
            ks.gate(ks.ngate() - 1).power(gate["power"])
            transition = ks.trans(state, state)
            transition.type(0)
            for which, rate in ((0, gate["alpha"]), (1, gate["beta"])):
                transition.set_f(which, KSCHAN_FORMS[rate["form"]],
                                 h.Vector(kschan_parameters(rate)))
        ks.usetable(0)
        for s in where:
            s.insert(channel)
            for index, seg in enumerate(s):
                getattr(seg, channel).gmax = numbers["gbar_S_per_cm2"]
                getattr(seg, channel).e = numbers["reversal_mV"]
                if mechanism["placement"] == "soma" and index != middle:
                    getattr(seg, channel).gmax = 0


def neuron_worker():
    """--neuron-job: one simulation per process (Import3d's sections would otherwise pile up).
    The result goes to a file: Import3d prints its notices on stdout."""
    job = json.loads(sys.stdin.read())
    t, v, info = neuron_simulate(job)
    with open(job["result"], "w") as f:
        json.dump({"t": t, "v": v, "info": info}, f)


def run_neuron(job):
    with tempfile.TemporaryDirectory() as folder:
        job = dict(job, result=os.path.join(folder, "neuron.json"))
        result = subprocess.run([sys.executable, os.path.abspath(__file__), "--neuron-job"],
                                input=json.dumps(job), capture_output=True, text=True)
        if result.returncode != 0 or not os.path.exists(job["result"]):
            sys.exit("compare_neuron: NEURON failed on %s:\n%s" %
                     (job["swc"], (result.stdout + result.stderr)[-3000:]))
        with open(job["result"]) as f:
            out = json.load(f)
    notices = [line for line in result.stdout.splitlines() if line.strip()]
    if notices:  # Import3d's repairs, e.g. a zero-length section removed
        out["info"]["notices"] = notices
    return out["t"], out["v"], out["info"]


# ---------------------------------------------------------------- hinestask side


def segmentation_options(rule, value, frequency, geometry="neuron", nseg_factor=1):
    """hinestask's options for a rule (and for its --geometry, and an nseg factor)."""
    if geometry != "neuron":
        return ["--geometry", geometry] + segmentation_options(rule, value, frequency)
    if rule == "dx":
        return ["--dx", repr(value)] + (["--nseg-factor", str(nseg_factor)]
                                        if nseg_factor > 1 else [])
    if rule == "d_lambda":
        return ["--d-lambda", "%r:%r" % (value, frequency)]
    return []


def hinestask_rates(args):
    """hinestask's --hh-rates: as asked, else the kind NEURON uses (--hh-table)."""
    return args.hh_rates or ("table" if args.hh_table == "on" else "exact")


def run_hinestask(args, swc, rule, value, hh, amp, nseg_factor=1, channels=None, summary=None):
    """Soma voltage trace; with channels (a --channels list) instead of --hh, and summary a dict,
    the JSON summary's placed mechanisms go into summary["mechanisms"]."""
    with tempfile.TemporaryDirectory() as folder:
        probes = os.path.join(folder, "probes.csv")
        summary_path = os.path.join(folder, "run.json")
        half = 0.5 * args.dt
        command = [args.hinestask, "--morph", swc, "--neurons", "1", "--stim-spread", "0",
                   "--dt", repr(args.dt), "--tstop", repr(args.tstop), "--cm", repr(args.cm),
                   "--ra", repr(args.ra), "--gl", repr(args.gl), "--el", repr(args.el),
                   "--stim-amp", repr(amp), "--stim-start", repr(args.delay - half),
                   "--stim-stop", repr(args.delay + args.duration - half)]
        command += ["--channels", channels] if channels else ["--hh", hh]
        command += ["--json", summary_path] if summary is not None else []
        command += ["--hh-rates", hinestask_rates(args), "--probe", "0:0",
                   "--probe-every", repr(args.dt), "--probes", probes,
                   "--quiet"] + segmentation_options(rule, value, args.frequency, args.geometry,
                                                     nseg_factor)
        environment = dict(os.environ)
        environment.setdefault("STARPU_SILENT", "1")
        result = subprocess.run(command, capture_output=True, text=True, env=environment)
        if result.returncode != 0:
            sys.exit("compare_neuron: hinestask failed (%s):\n%s" %
                     (" ".join(command), result.stderr[-3000:]))
        t, v = [], []
        with open(probes) as f:
            for row in csv.DictReader(f):
                t.append(float(row["time_ms"]))
                v.append(float(row["neuron0_compartment0_mV"]))
        if summary is not None:
            with open(summary_path) as f:
                summary["mechanisms"] = json.load(f).get("mechanisms", {})
    return t, v


def hinestask_summary(args, swc, rule, value, nseg_factor=1):
    """Compartment count, and the radius repairs hinestask makes (sample id -> radius)."""
    command = [args.hinestask, "--morph", swc, "--summary", "--ra", repr(args.ra), "--cm",
               repr(args.cm)] + segmentation_options(rule, value, args.frequency, args.geometry,
                                                     nseg_factor)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("compare_neuron: hinestask refused %s:\n%s" % (swc, result.stderr))
    match = re.search(r": (\d+) compartments", result.stdout)
    repairs, all_radii = {}, None
    for line in result.stderr.splitlines():
        m = re.search(r": warning: sample (\S+) has radius 0; using (\S+) um", line)
        if m:
            repairs[m.group(1)] = m.group(2)
        m = re.search(r": warning: all \d+ samples have radius 0; using (\S+) um", line)
        if m:
            all_radii = m.group(1)
    return int(match.group(1)), repairs, all_radii, result.stderr


def file_for_neuron(swc, repairs, all_radii, folder):
    """The SWC file with hinestask's radius repairs, when it made any (else the file itself)."""
    if not repairs and all_radii is None:
        return swc
    repaired = os.path.join(folder, os.path.basename(swc))
    with open(swc, newline="") as source, open(repaired, "w") as target:
        for line in source:
            content = line.split("#", 1)[0]
            fields = content.split()
            if len(fields) == 7 and (all_radii is not None or fields[0] in repairs):
                fields[5] = all_radii if all_radii is not None else repairs[fields[0]]
                target.write(" ".join(fields) + "\n")
            else:
                target.write(line)
    return repaired


# ---------------------------------------------------------------- comparisons


def max_difference(a_t, a_v, b_t, b_v, dt):
    """max |a - b| over the times both recorded (every step)."""
    b_at = {round(t / dt): v for t, v in zip(b_t, b_v)}
    worst, compared = 0.0, 0
    for t, v in zip(a_t, a_v):
        k = round(t / dt)
        if k in b_at:
            d = abs(v - b_at[k])
            worst = d if not (d <= worst) else worst  # NaN wins
            compared += 1
    if compared < 0.9 * len(a_t):
        sys.exit("compare_neuron: the two runs recorded different times")
    return worst


def spike_times(t, v, threshold):
    """Upward threshold crossings, linearly interpolated between samples."""
    times = []
    for i in range(1, len(v)):
        if v[i - 1] < threshold <= v[i]:
            times.append(t[i - 1] + (threshold - v[i - 1]) / (v[i] - v[i - 1]) * (t[i] - t[i - 1]))
    return times


def job_for(args, swc, rule, value, hh, amp, mechanisms=None):
    return {"mechanisms": mechanisms,"swc": swc, "rule": rule, "value": value, "frequency": args.frequency, "ra": args.ra,
            "cm": args.cm, "gl": args.gl, "el": args.el, "hh": hh, "hh_table": args.hh_table == "on",
            "delay": args.delay, "duration": args.duration, "amp": amp, "dt": args.dt,
            "tstop": args.tstop}


def describe_rule(rule, value, frequency):
    if rule == "dx":
        return "d_X %g um" % value
    if rule == "d_lambda":
        return "d_lambda %g at %g Hz" % (value, frequency)
    return "one segment per sample"


def compare_file(args, swc):
    rule, value = args.rule, args.rule_value
    ok = True
    name = os.path.basename(swc)
    with tempfile.TemporaryDirectory() as folder:
        compartments, repairs, all_radii, warnings = hinestask_summary(args, swc, rule, value)
        neuron_swc = file_for_neuron(swc, repairs, all_radii, folder)
        print("%s: %s, hinestask %s%d compartments%s" %
              (name, describe_rule(rule, value, args.frequency),
               "" if args.geometry == "neuron" else "--geometry %s, " % args.geometry, compartments,
               ", NEURON given hinestask's radius repairs" if neuron_swc != swc else ""))
        if warnings.strip() and args.verbose:
            print("  hinestask warnings:\n    " + "\n    ".join(warnings.strip().splitlines()))
        if "passive" in args.checks:
            h_t, h_v = run_hinestask(args, swc, rule, value, "none", args.amp)
            n_t, n_v, info = run_neuron(job_for(args, neuron_swc, rule, value, "none", args.amp))
            if args.verbose and info.get("notices"):
                print("  NEURON's notices:\n    " + "\n    ".join(info["notices"]))
            worst = max_difference(h_t, h_v, n_t, n_v, args.dt)
            passed = worst <= args.passive_tolerance
            ok &= passed
            print("  passive %g nA: NEURON %s, %d sections, %d segments; soma %.4f mV at %g ms; "
                  "max |dV| %.3g mV %s" % (args.amp, info["version"], info["sections"],
                                            info["segments"], n_v[-1], n_t[-1], worst,
                                            "ok" if passed else "FAILED"))
        for hh in [c[3:] for c in args.checks if c.startswith("hh-")]:
            h_t, h_v = run_hinestask(args, swc, rule, value, hh, args.hh_amp)
            n_t, n_v, info = run_neuron(job_for(args, neuron_swc, rule, value, hh, args.hh_amp))
            h_spikes = spike_times(h_t, h_v, args.threshold)
            n_spikes = spike_times(n_t, n_v, args.threshold)
            first = min(len(h_spikes), len(n_spikes), args.spikes)
            shift = max([abs(a - b) for a, b in zip(h_spikes[:first], n_spikes[:first])] or [0])
            passed = len(h_spikes) == len(n_spikes) and shift <= args.spike_tolerance
            if len(n_spikes) < args.spikes:
                print("  hh %s: note: NEURON fires %d spike%s, fewer than the %d compared" %
                      (hh, len(n_spikes), "" if len(n_spikes) == 1 else "s", args.spikes))
            ok &= passed
            worst = max_difference(h_t, h_v, n_t, n_v, args.dt)
            print("  hh %s %g nA (NEURON tables %s, hinestask rates %s): spikes hinestask %d, "
                  "NEURON %d; max |dt| over the first %d %.3g ms; max |dV| %.3g mV %s" %
                  (hh, args.hh_amp, args.hh_table, hinestask_rates(args), len(h_spikes),
                   len(n_spikes), first, shift, worst, "ok" if passed else "FAILED"))
            if args.verbose:
                print("    hinestask spikes (ms): " + " ".join("%.3f" % s for s in h_spikes))
                print("    NEURON spikes (ms):    " + " ".join("%.3f" % s for s in n_spikes))
        if "channels" in args.checks:
            ok &= compare_channels(args, swc, neuron_swc, rule, value)
        if args.refine:
            ok &= refine(args, swc, neuron_swc)
    return ok


def compare_channels(args, swc, neuron_swc, rule, value):
    """--channels: hinestask with the list against NEURON with hh (if placed) and a ChannelBuilder
    channel per other mechanism, built from hinestask's own description (its --json): spike
    counts and times as the hh checks, and the largest voltage difference."""
    summary = {}
    h_t, h_v = run_hinestask(args, swc, rule, value, None, args.hh_amp, channels=args.channels,
                             summary=summary)
    mechanisms = summary["mechanisms"]
    hh = mechanisms["hh"]["placement"] if "hh" in mechanisms else "none"
    n_t, n_v, info = run_neuron(job_for(args, neuron_swc, rule, value, hh, args.hh_amp,
                                        mechanisms))
    h_spikes = spike_times(h_t, h_v, args.threshold)
    n_spikes = spike_times(n_t, n_v, args.threshold)
    first = min(len(h_spikes), len(n_spikes), args.spikes)
    shift = max([abs(a - b) for a, b in zip(h_spikes[:first], n_spikes[:first])] or [0])
    passed = len(h_spikes) == len(n_spikes) and len(n_spikes) > 0 and shift <= args.spike_tolerance
    worst = max_difference(h_t, h_v, n_t, n_v, args.dt)
    print("  channels %s %g nA (NEURON: %s; tables %s, hinestask rates %s): spikes hinestask %d, "
          "NEURON %d; max |dt| over the first %d %.3g ms; max |dV| %.3g mV %s" %
          (args.channels, args.hh_amp,
           ", ".join(("hh" if name == "hh" else "KSChan %s" % name) + " " + m["placement"]
                     for name, m in mechanisms.items()),
           args.hh_table, hinestask_rates(args), len(h_spikes), len(n_spikes), first, shift,
           worst, "ok" if passed else "FAILED"))
    if args.verbose:
        print("    hinestask spikes (ms): " + " ".join("%.3f" % s for s in h_spikes))
        print("    NEURON spikes (ms):    " + " ".join("%.3f" % s for s in n_spikes))
    return passed


def refine(args, swc, neuron_swc):
    """hinestask at d_X --refine-dx with nseg times each --refine factor, against NEURON with
    nseg times --reference-factor (and against NEURON at the same nseg). With the factor a third
    of the reference's among them, also against the Richardson extrapolation of NEURON's two
    finest runs (second order: V + (V - V_coarser) / 8), an estimate of the converged answer."""
    if args.geometry != "neuron":  # the older geometry has no nseg: its --dx resampling
        return refine_dx(args, swc, neuron_swc)
    base = args.refine_dx
    reference_job = dict(job_for(args, neuron_swc, "dx", base, "none", args.amp),
                         nseg_factor=args.reference_factor)
    r_t, r_v, r_info = run_neuron(reference_job)
    print("  refinement, passive %g nA, nested: nseg of d_X %g um times %s; NEURON reference "
          "nseg times %d (%d segments), soma %.4f mV at %g ms" %
          (args.amp, base, ",".join("%d" % f for f in args.refine), args.reference_factor,
           r_info["segments"], r_v[-1], r_t[-1]))
    extrapolated = None
    previous, monotone, rows = math.inf, True, []
    for factor in args.refine:
        compartments = hinestask_summary(args, swc, "dx", base, factor)[0]
        h_t, h_v = run_hinestask(args, swc, "dx", base, "none", args.amp, factor)
        n_t, n_v, info = run_neuron(dict(job_for(args, neuron_swc, "dx", base, "none", args.amp),
                                         nseg_factor=factor))
        if factor * 3 == args.reference_factor:
            extrapolated = [a + (a - b) / 8 for a, b in zip(r_v, n_v)]
        to_reference = max_difference(h_t, h_v, r_t, r_v, args.dt)
        matched = max_difference(h_t, h_v, n_t, n_v, args.dt)
        neuron_to_reference = max_difference(n_t, n_v, r_t, r_v, args.dt)
        monotone &= to_reference < previous
        ratio = previous / to_reference if previous < math.inf and to_reference > 0 else None
        previous = to_reference
        rows.append((factor, h_t, h_v))
        print("    x%-5d %7d compartments: max |dV| to the reference %.4g mV, to NEURON at the same "
              "nseg %.3g mV%s; NEURON's own to the reference %.4g mV" %
              (factor, compartments, to_reference, matched,
               ", %.1f times less" % ratio if ratio else "", neuron_to_reference))
        if args.verbose:  # where the largest difference is, and its sign at the end
            at = max(range(len(h_v)), key=lambda i: abs(h_v[i] - r_v[round(h_t[i] / args.dt)]))
            print("      largest at %.3f ms; at %g ms V - V(reference) = %.3g mV" %
                  (h_t[at], h_t[-1], h_v[-1] - r_v[round(h_t[-1] / args.dt)]))
    if extrapolated is not None:
        print("    to the Richardson extrapolation of NEURON x%d and x%d: %s mV" %
              (args.reference_factor // 3, args.reference_factor,
               ", ".join("x%d %.4g" % (f, max_difference(t, v, r_t, extrapolated, args.dt))
                         for f, t, v in rows)))
    print("  refinement %s" % ("shrinks monotonically: ok" if monotone else "is NOT monotone: FAILED"))
    return monotone


def refine_dx(args, swc, neuron_swc):
    """The older geometry: hinestask at each --refine-dx-list d_X against NEURON at d_X
    --reference-dx."""
    r_t, r_v, r_info = run_neuron(job_for(args, neuron_swc, "dx", args.reference_dx, "none",
                                          args.amp))
    print("  refinement, passive %g nA: NEURON reference d_X %g um (%d segments), soma %.4f mV at "
          "%g ms" % (args.amp, args.reference_dx, r_info["segments"], r_v[-1], r_t[-1]))
    previous, monotone = math.inf, True
    for dx in args.refine_dx_list:
        compartments = hinestask_summary(args, swc, "dx", dx)[0]
        h_t, h_v = run_hinestask(args, swc, "dx", dx, "none", args.amp)
        n_t, n_v, info = run_neuron(job_for(args, neuron_swc, "dx", dx, "none", args.amp))
        to_reference = max_difference(h_t, h_v, r_t, r_v, args.dt)
        matched = max_difference(h_t, h_v, n_t, n_v, args.dt)
        monotone &= to_reference < previous
        previous = to_reference
        print("    d_X %-6g %7d compartments: max |dV| to the reference %.4g mV, to NEURON at the "
              "same d_X %.3g mV" % (dx, compartments, to_reference, matched))
    print("  refinement %s" % ("shrinks monotonically: ok" if monotone else "is NOT monotone: FAILED"))
    return monotone


def timing(args, swc):
    """--timing: hh everywhere on one cell, NEURON (cache_efficient) against hinestask with one
    CPU worker, both on the same one core, alternating, --timing-repeats times; prints the
    medians in ns per compartment-step and the ratio. NEURON's time is its continuerun (after
    finitialize), hinestask's its seconds per step over the steps after the first (JSON)."""
    run = with_defaults(args, ["hh-all"], hh=True)
    compartments, repairs, all_radii, _ = hinestask_summary(args, swc, run.rule, run.rule_value)
    core = str(args.timing_core)
    steps = int(round(run.tstop / run.dt))
    rows = {"neuron": []}
    modes = ["auto", "mono", "multi"]
    for mode in modes:
        rows[mode] = []
    with tempfile.TemporaryDirectory() as folder:
        neuron_swc = file_for_neuron(swc, repairs, all_radii, folder)
        job = job_for(run, neuron_swc, run.rule, run.rule_value, "all", args.hh_amp)
        job["cache_efficient"] = True
        job["hh_table"] = True  # NEURON as users run it: hh's rate tables on (its default)
        for repeat in range(args.timing_repeats):
            os.sched_setaffinity(0, {args.timing_core})  # NEURON's subprocess inherits it
            _, _, info = run_neuron(job)
            os.sched_setaffinity(0, set(range(os.cpu_count())))
            rows["neuron"].append(info["seconds"] / (steps * info["segments"]))
            for mode in modes:
                summary = os.path.join(folder, "run.json")
                half = 0.5 * run.dt
                command = ["taskset", "-c", core, args.hinestask, "--morph", swc, "--neurons", "1",
                           "--stim-spread", "0", "--dt", repr(run.dt), "--tstop", repr(run.tstop),
                           "--cm", repr(run.cm), "--ra", repr(run.ra), "--gl", repr(run.gl),
                           "--el", repr(run.el), "--stim-amp", repr(args.hh_amp),
                           "--stim-start", repr(run.delay - half),
                           "--stim-stop", repr(run.delay + run.duration - half), "--hh", "all",
                           "--hh-rates", hinestask_rates(run), "--quiet", "--force", "--json",
                           summary, "--mode", mode]
                command += segmentation_options(run.rule, run.rule_value, run.frequency,
                                                run.geometry)
                environment = dict(os.environ, STARPU_NCPU="1", STARPU_NCUDA="0",
                                   STARPU_WORKERS_NOBIND="1", STARPU_SILENT="1")
                result = subprocess.run(command, capture_output=True, text=True, env=environment)
                if result.returncode != 0:
                    sys.exit("compare_neuron: hinestask failed (%s):\n%s" %
                             (" ".join(command), result.stderr[-3000:]))
                with open(summary) as f:
                    j = json.load(f)
                rows[mode].append(j["seconds_per_step"] / j["compartments"])
                if mode == "auto":
                    chosen = j.get("mode", "?")
    neuron_ns = statistics.median(rows["neuron"]) * 1e9
    print("%s: hh everywhere, %d hinestask compartments, %d steps, one core (cpu %s), medians of %d"
          % (os.path.basename(swc), compartments, steps, core, args.timing_repeats))
    print("  NEURON %s cache_efficient: %.1f ns per compartment-step (%s)"
          % (info["version"], neuron_ns, ", ".join("%.1f" % (x * 1e9) for x in rows["neuron"])))
    for mode in modes:
        ns = statistics.median(rows[mode]) * 1e9
        print("  hinestask --mode %-5s%s: %.1f ns per compartment-step (%s): %.2fx NEURON"
              % (mode, " (%s)" % chosen if mode == "auto" else "", ns,
                 ", ".join("%.1f" % (x * 1e9) for x in rows[mode]), neuron_ns / ns))
    return True


def with_defaults(args, checks, hh):
    run = argparse.Namespace(**vars(args))
    run.checks = checks
    run.refine = None if hh else args.refine
    run.tstop = args.tstop if args.tstop is not None else (120.0 if hh else 200.0)
    run.delay = args.delay if args.delay is not None else (10.0 if hh else 1.0)
    run.duration = args.duration if args.duration is not None else (100.0 if hh else 1e9)
    return run


def parse_list(text):
    return [float(x) for x in text.split(",") if x]


def parse_factors(text):
    factors = [int(x) for x in text.split(",") if x]
    if not factors or min(factors) < 1:
        raise argparse.ArgumentTypeError("nseg factors are whole numbers of at least 1")
    return factors


def main():
    sys.stdout.reconfigure(line_buffering=True)  # progress shows in a log as it comes
    if len(sys.argv) > 1 and sys.argv[1] == "--neuron-job":
        neuron_worker()
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("swc", nargs="+", help="SWC files")
    parser.add_argument("--hinestask", default=os.path.join(REPO, "build", "hinestask"))
    segmentation = parser.add_mutually_exclusive_group()
    segmentation.add_argument("--dx", type=float, help="d_X rule (um); default one segment per "
                              "sample")
    segmentation.add_argument("--d-lambda", type=float, help="d_lambda rule (fraction)")
    parser.add_argument("--frequency", type=float, default=100.0, help="d_lambda frequency (Hz)")
    parser.add_argument("--cm", type=float, default=1.0)
    parser.add_argument("--ra", type=float, default=100.0)
    parser.add_argument("--gl", type=float, default=1e-4)
    parser.add_argument("--el", type=float, default=-65.0)
    parser.add_argument("--dt", type=float, default=0.025)
    parser.add_argument("--tstop", type=float, help="ms (default 200 passive, 120 with hh)")
    parser.add_argument("--delay", type=float, default=None,
                        help="clamp start, ms (default 1 passive, 10 with hh)")
    parser.add_argument("--duration", type=float, default=None,
                        help="clamp length, ms (default 1e9 passive, 100 with hh)")
    parser.add_argument("--amp", type=float, default=0.1, help="passive clamp (nA)")
    parser.add_argument("--hh-amp", type=float, default=1.0, help="clamp with hh (nA)")
    parser.add_argument("--hh-table", choices=["on", "off"], default="off")
    parser.add_argument("--hh-rates", choices=["table", "exact"], default=None,
                        help="hinestask's rates (default: table with --hh-table on, else exact)")
    parser.add_argument("--checks", default="passive,hh-soma,hh-all",
                        help="comma list of passive, hh-soma, hh-all, channels")
    parser.add_argument("--channels", default=None,
                        help="hinestask's --channels list for the channels check (e.g. "
                        "hh:soma,km:soma): NEURON gets hh and, for every other mechanism, "
                        "a ChannelBuilder (KSChan) channel built from hinestask's description; "
                        "given alone, the checks are that one")
    parser.add_argument("--threshold", type=float, default=0.0, help="spike threshold (mV)")
    parser.add_argument("--spikes", type=int, default=5, help="spike times compared")
    parser.add_argument("--passive-tolerance", type=float, default=0.1, help="mV")
    parser.add_argument("--spike-tolerance", type=float, default=0.1, help="ms")
    parser.add_argument("--refine", type=parse_factors, default=None,
                        help="comma list of nseg factors, coarse to fine (e.g. 1,3,9,27): "
                        "passive convergence under nested refinement of the d_X --refine-dx rule")
    parser.add_argument("--refine-dx", type=float, default=20.0,
                        help="d_X (um) whose nseg the --refine factors multiply (default 20)")
    parser.add_argument("--reference-factor", type=int, default=81,
                        help="NEURON's reference for --refine: nseg of --refine-dx times this "
                        "(default 81)")
    parser.add_argument("--refine-dx-list", type=parse_list, default=[20, 10, 5, 2, 1],
                        help="--geometry cylinders: the --dx values --refine compares (its "
                        "resampling has no nseg to multiply)")
    parser.add_argument("--reference-dx", type=float, default=0.25,
                        help="--geometry cylinders: NEURON's reference d_X for --refine (um)")
    parser.add_argument("--geometry", choices=["neuron", "cylinders"], default="neuron",
                        help="hinestask's --geometry (cylinders: its older rules, which are not "
                        "NEURON's; --dx is then its resampling)")
    parser.add_argument("--timing", action="store_true",
                        help="time hh everywhere on one core: NEURON (cache_efficient) against "
                        "hinestask with one CPU worker (no voltage checks)")
    parser.add_argument("--timing-repeats", type=int, default=3)
    parser.add_argument("--timing-core", type=int, default=0, help="the core both run on")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.timing_repeats < 1:
        parser.error("--timing-repeats must be at least 1")
    if args.timing and args.timing_core not in os.sched_getaffinity(0):
        parser.error("--timing-core %d: not a CPU this process may run on (%s)" %
                     (args.timing_core, ",".join(map(str, sorted(os.sched_getaffinity(0))))))
    checks_given = any(a == "--checks" or a.startswith("--checks=") for a in sys.argv[1:])
    args.checks = [c for c in args.checks.split(",") if c]
    if args.channels and not checks_given:
        args.checks = ["channels"]
    for c in args.checks:
        if c not in ("passive", "hh-soma", "hh-all", "channels"):
            parser.error("unknown check '%s'" % c)
    if "channels" in args.checks and not args.channels:
        parser.error("the channels check needs --channels LIST")
    args.rule, args.rule_value = (("dx", args.dx) if args.dx else
                                  ("d_lambda", args.d_lambda) if args.d_lambda else ("sample", 0))
    if importlib.util.find_spec("neuron") is None:
        print("compare_neuron: NEURON is not importable by %s (apt-get install python3-neuron)" %
              sys.executable, file=sys.stderr)
        return 77
    if not os.access(args.hinestask, os.X_OK):
        parser.error("no hinestask at %s (build it, or give --hinestask)" % args.hinestask)
    ok = True
    passive = [c for c in args.checks if c == "passive"]
    with_hh = [c for c in args.checks if c.startswith("hh-") or c == "channels"]
    if args.timing:
        for swc in args.swc:
            timing(args, swc)
        return 0
    for swc in args.swc:
        # Passive runs and HH runs have different clamps and lengths: one set of defaults each.
        if passive or args.refine:
            ok &= compare_file(with_defaults(args, passive, hh=False), swc)
        if with_hh:
            ok &= compare_file(with_defaults(args, with_hh, hh=True), swc)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
