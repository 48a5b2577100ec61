#!/usr/bin/env python3
"""Markdown tables from scripts/validate_neuron.sh logs (the tables of VALIDATION.md), so that
no number is copied by hand.
Usage: scripts/neuron_validation_tables.py LOG [LOG...] [--cylinders LOG]... [--verify LOG]
A later LOG's rows replace an earlier one's for the same cell and check (a rerun); the
--cylinders logs (GEOMETRY=cylinders) give the table of the older geometry, merged the same way.
Refinement: the nested ladder (compare_neuron.py --refine with nseg factors) and, where a log
has it, the earlier ladder of d_X values, each in its own table."""
import re
import sys


def parse(path):
    cells, cell, hh_key = {}, None, None
    for line in open(path):
        m = re.match(r"== (\S+)", line)
        if m:
            cell = cells.setdefault(m.group(1), {"refine": [], "refine_dx": [], "hh": {}})
            hh_key = None
            nested = False
            continue
        if cell is None:
            continue
        m = re.match(r"\S+: .*, hinestask (?:--geometry \S+, )?(\d+) compartments", line)
        if m and "compartments" not in cell:
            cell["compartments"] = int(m.group(1))
        m = re.search(r"passive .*?(\d+) sections, (\d+) segments; soma (\S+) mV .*max \|dV\| (\S+) mV",
                      line)
        if m:
            cell.update(sections=int(m.group(1)), segments=int(m.group(2)),
                        soma=float(m.group(3)), passive=float(m.group(4)))
        m = re.search(r"NEURON reference d_X (\S+) um \((\d+) segments\)", line)
        if m:
            cell["reference_segments_dx"] = int(m.group(2))
            nested = False
        m = re.search(r"nested: nseg of d_X (\S+) um .*NEURON reference nseg times (\d+) \((\d+) "
                      r"segments\)", line)
        if m:
            cell.update(base_dx=float(m.group(1)), reference_factor=int(m.group(2)),
                        reference_segments=int(m.group(3)))
            nested = True
        m = re.search(r"d_X (\S+) +(\d+) compartments: max \|dV\| to the reference (\S+) mV, to "
                      r"NEURON at the same d_X (\S+) mV", line)
        if m:
            cell["refine_dx"].append((float(m.group(1)), int(m.group(2)), float(m.group(3)),
                                      float(m.group(4))))
        m = re.search(r"x(\d+) +(\d+) compartments: max \|dV\| to the reference (\S+) mV, to NEURON "
                      r"at the same nseg (\S+) mV.*NEURON's own to the reference (\S+) mV", line)
        if m:
            cell["refine"].append((int(m.group(1)), int(m.group(2)), float(m.group(3)),
                                   float(m.group(4)), float(m.group(5))))
        m = re.search(r"to the Richardson extrapolation of NEURON x\d+ and x\d+: (.*) mV", line)
        if m:
            cell["richardson"] = [float(x.split()[1]) for x in m.group(1).split(",")]
        m = re.search(r"refinement (shrinks monotonically|is NOT monotone)", line)
        if m:
            cell["monotone" if nested else "monotone_dx"] = m.group(1).startswith("shrinks")
        m = re.search(r"hh (soma|all) (\S+) nA \(NEURON tables (on|off)"
                      r"(?:, hinestask rates \w+)?\): spikes hinestask (\d+), "
                      r"NEURON (\d+); max \|dt\| over the first (\d+) (\S+) ms; max \|dV\| (\S+) mV",
                      line)
        if m:
            hh_key = (m.group(1), m.group(3))
            cell["hh"][hh_key] = {"amp": float(m.group(2)), "h": int(m.group(4)),
                                  "n": int(m.group(5)), "first": int(m.group(6)),
                                  "dt": float(m.group(7)), "dv": float(m.group(8))}
        m = re.match(r"\s+hinestask spikes \(ms\):(.*)", line)
        if m and hh_key:
            cell["hh"][hh_key]["h_times"] = [float(x) for x in m.group(1).split()]
        m = re.match(r"\s+NEURON spikes \(ms\):(.*)", line)
        if m and hh_key:
            cell["hh"][hh_key]["n_times"] = [float(x) for x in m.group(1).split()]
    return cells


def g(x, digits=2):
    return "%.*g" % (digits, x)


def passive_table(cells):
    print("| cell | hinestask compartments | NEURON sections / segments | soma at 200 ms (mV) "
          "| max \\|ΔV\\| (mV) |")
    print("|---|---:|---:|---:|---:|")
    for name, c in cells.items():
        if "sections" not in c:
            continue
        print("| %s | %d | %d / %d | %.4f | %s |" % (name, c["compartments"], c["sections"],
                                                   c["segments"], c["soma"], g(c["passive"])))


def refine_table(cells):
    """The nested ladder: hinestask at nseg times K against NEURON at the reference factor."""
    with_rows = [c for c in cells.values() if c["refine"]]
    if not with_rows:
        return
    factors = [r[0] for r in with_rows[0]["refine"]]
    print("| cell | hinestask compartments x%d | NEURON reference segments | " % factors[0] +
          " | ".join("x%d" % f for f in factors) + " | reduction per level | monotone "
          "| NEURON's own, x%d | worst matched | x%d to Richardson |" % (factors[-1], factors[-1]))
    print("|---|---:|---:|" + "---:|" * len(factors) + "---|---|---:|---:|---:|")
    for name, c in cells.items():
        rows = c["refine"]
        if not rows:
            continue
        reductions = [a[2] / b[2] for a, b in zip(rows, rows[1:]) if b[2] > 0]
        print("| %s | %d | %d | %s | %s | %s | %s | %s | %s |" % (
            name, rows[0][1], c["reference_segments"], " | ".join(g(r[2], 3) for r in rows),
            ", ".join("%.1f" % x for x in reductions),
            "yes" if c.get("monotone") else "**no**", g(rows[-1][4], 3),
            g(max(r[3] for r in rows)), g(c["richardson"][-1], 3) if "richardson" in c else "-"))


def refine_dx_table(cells):
    """The earlier ladder of d_X values (not nested) against NEURON at d_X 0.25 um."""
    with_rows = [c for c in cells.values() if c["refine_dx"]]
    if not with_rows:
        return
    dxs = [r[0] for r in with_rows[0]["refine_dx"]]
    print("| cell | NEURON reference segments | " +
          " | ".join("d_X %g" % d for d in dxs) + " | monotone | worst matched |")
    print("|---|---:|" + "---:|" * len(dxs) + "---|---:|")
    for name, c in cells.items():
        if not c["refine_dx"]:
            continue
        print("| %s | %d | %s | %s | %s |" % (
            name, c["reference_segments_dx"], " | ".join(g(r[2], 3) for r in c["refine_dx"]),
            "yes" if c.get("monotone_dx") else "**no**", g(max(r[3] for r in c["refine_dx"]))))


def hh_table(cells, placement):
    print("| cell | clamp (nA) | spikes hinestask / NEURON | max \\|Δt\\| first 5, tables off (ms) "
          "| max \\|ΔV\\| tables off (mV) | spikes, tables on | max \\|Δt\\| first 5, tables on (ms) "
          "| max \\|Δt\\| all spikes, tables on (ms) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, c in cells.items():
        off, on = c["hh"].get((placement, "off")), c["hh"].get((placement, "on"))
        if not off or not on:
            continue
        all_on = max([abs(a - b) for a, b in zip(on.get("h_times", []), on.get("n_times", []))]
                     or [0])
        print("| %s | %g | %d / %d | %s | %s | %d / %d | %s | %s |" % (
            name, off["amp"], off["h"], off["n"], g(off["dt"]), g(off["dv"]), on["h"], on["n"],
            g(on["dt"]), g(all_on)))


def verify_table(path):
    """--verify on every cell (scripts/verify_neuron_geometry.sh): the worst backward error and
    difference to the sequential reference of each cell over mono and multi."""
    runs = {}
    pattern = re.compile(r"(passive|hh-all) (\S+) (mono|multi) (per-sample|--dx 1) verify: .*backward "
                         r"error (\S+) \(sequential solver (\S+), bound \S+\); max relative error "
                         r"(\S+) against .*kappa <= (\S+)\): (ok|FAILED)")
    for line in open(path):
        m = pattern.match(line)
        if m:
            channels, cell, mode, segments = m.group(1, 2, 3, 4)
            runs.setdefault(cell, []).append({
                "channels": channels, "mode": mode, "segments": segments,
                "backward": float(m.group(5)), "sequential": float(m.group(6)),
                "difference": float(m.group(7)), "kappa": float(m.group(8)),
                "ok": m.group(9) == "ok"})
    print("| cell | backward error, passive | backward error, hh | sequential solver's own "
          "| difference, passive, per sample | passive, d_X 1 | hh, per sample | hh, d_X 1 "
          "| kappa bound, per sample / d_X 1 | all ok |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    every = []
    for cell in sorted(runs, key=str.lower):
        r = runs[cell]
        every += r

        def worst(key, **match):
            values = [x[key] for x in r if all(x[k] == v for k, v in match.items())]
            return g(max(values)) if values else "-"
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |" % (
            cell, worst("backward", channels="passive"), worst("backward", channels="hh-all"),
            worst("sequential"), worst("difference", channels="passive", segments="per-sample"),
            worst("difference", channels="passive", segments="--dx 1"),
            worst("difference", channels="hh-all", segments="per-sample"),
            worst("difference", channels="hh-all", segments="--dx 1"),
            worst("kappa", segments="per-sample"), worst("kappa", segments="--dx 1"),
            "yes" if all(x["ok"] for x in r) else "**no**"))
    if every:
        print("\n%d runs: backward error at most %s (the sequential solver's own at most %s), "
              "difference to the sequential reference at most %s; %d of them ok" % (
                  len(every), g(max(x["backward"] for x in every)),
                  g(max(x["sequential"] for x in every)),
                  g(max(x["difference"] for x in every)), sum(x["ok"] for x in every)))


def merge(logs):
    cells = {}
    for log in logs:
        for name, cell in parse(log).items():
            into = cells.setdefault(name, {"refine": [], "refine_dx": [], "hh": {}})
            for key, value in cell.items():
                if key == "hh":
                    into["hh"].update(value)
                elif key not in ("refine", "refine_dx") or value:
                    into[key] = value
    return dict(sorted(cells.items(), key=lambda item: item[0].lower()))


def main():
    arguments = sys.argv[1:]
    cylinders, verify = [], []
    while "--cylinders" in arguments:
        at = arguments.index("--cylinders")
        cylinders.append(arguments[at + 1])
        del arguments[at:at + 2]
    while "--verify" in arguments:
        at = arguments.index("--verify")
        verify.append(arguments[at + 1])
        del arguments[at:at + 2]
    cells = merge(arguments)
    print("### Passive, matched discretisation (one segment per sample)\n")
    passive_table(cells)
    print("\n### Refinement, nested: max |ΔV| (mV) of hinestask at d_X 20 um with nseg times K to "
          "NEURON at nseg times 81\n")
    refine_table(cells)
    print("\n### Refinement, d_X ladder (not nested): max |ΔV| (mV) of hinestask at d_X to NEURON "
          "at d_X 0.25 um\n")
    refine_dx_table(cells)
    for placement in ("soma", "all"):
        print("\n### hh %s\n" % ("on the soma" if placement == "soma" else "everywhere"))
        hh_table(cells, placement)
    if cylinders:
        print("\n### Before: the older geometry (--geometry cylinders) against NEURON\n")
        print("max |ΔV| (mV) at the soma: one compartment per sample against NEURON at one "
              "segment per sample;\n`--dx` (its resampling) against NEURON at d_X 0.25 um; hh "
              "everywhere, NEURON's tables off, the\nclamps above.\n")
        old = merge(cylinders)
        dxs = [r[0] for r in next(iter(old.values()))["refine_dx"]]
        print("| cell | one compartment per sample | " + " | ".join("--dx %g" % d for d in dxs) +
              " | hh everywhere: spikes / max \\|Δt\\| first 5 (ms) / all spikes |")
        print("|---|---:|" + "---:|" * len(dxs) + "---:|")
        for name, c in old.items():
            if "passive" not in c:
                continue
            hh = c["hh"].get(("all", "off"))
            hh_text = "-"
            if hh:
                all_dt = max([abs(a - b) for a, b in zip(hh.get("h_times", []),
                                                         hh.get("n_times", []))] or [0])
                hh_text = "%d / %d, %s, %s" % (hh["h"], hh["n"], g(hh["dt"]), g(all_dt))
            print("| %s | %s | %s | %s |" % (name, g(c["passive"]),
                                             " | ".join(g(r[2], 3) for r in c["refine_dx"]),
                                             hh_text))

    for log in verify:
        print("\n### --verify, NEURON geometry, all cells\n")
        verify_table(log)

if __name__ == "__main__":
    main()
