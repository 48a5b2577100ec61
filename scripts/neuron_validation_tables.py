#!/usr/bin/env python3
"""Markdown tables from scripts/validate_neuron.sh logs (the tables of VALIDATION.md), so that
no number is copied by hand.
Usage: scripts/neuron_validation_tables.py LOG [LOG...] [--cylinders LOG]...
A later LOG's rows replace an earlier one's for the same cell and check (a rerun); the
--cylinders logs (GEOMETRY=cylinders) give the table of the older geometry, merged the same way."""
import re
import sys


def parse(path):
    cells, cell, hh_key = {}, None, None
    for line in open(path):
        m = re.match(r"== (\S+)", line)
        if m:
            cell = cells.setdefault(m.group(1), {"refine": [], "hh": {}})
            hh_key = None
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
            cell["reference_segments"] = int(m.group(2))
        m = re.search(r"d_X (\S+) +(\d+) compartments: max \|dV\| to the reference (\S+) mV, to "
                      r"NEURON at the same d_X (\S+) mV", line)
        if m:
            cell["refine"].append((float(m.group(1)), int(m.group(2)), float(m.group(3)),
                                   float(m.group(4))))
        m = re.search(r"refinement (shrinks monotonically|is NOT monotone)", line)
        if m:
            cell["monotone"] = m.group(1).startswith("shrinks")
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
        print("| %s | %d | %d / %d | %.4f | %s |" % (name, c["compartments"], c["sections"],
                                                   c["segments"], c["soma"], g(c["passive"])))


def refine_table(cells):
    dxs = [r[0] for r in next(iter(cells.values()))["refine"]]
    print("| cell | NEURON reference segments | " +
          " | ".join("d_X %g" % d for d in dxs) + " | monotone | worst matched |")
    print("|---|---:|" + "---:|" * len(dxs) + "---|---:|")
    for name, c in cells.items():
        print("| %s | %d | %s | %s | %s |" % (
            name, c["reference_segments"], " | ".join(g(r[2], 3) for r in c["refine"]),
            "yes" if c.get("monotone") else "**no**", g(max(r[3] for r in c["refine"]))))


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


def merge(logs):
    cells = {}
    for log in logs:
        for name, cell in parse(log).items():
            into = cells.setdefault(name, {"refine": [], "hh": {}})
            for key, value in cell.items():
                if key == "hh":
                    into["hh"].update(value)
                elif key != "refine" or value:
                    into[key] = value
    return dict(sorted(cells.items(), key=lambda item: item[0].lower()))


def main():
    arguments = sys.argv[1:]
    cylinders = []
    while "--cylinders" in arguments:
        at = arguments.index("--cylinders")
        cylinders.append(arguments[at + 1])
        del arguments[at:at + 2]
    cells = merge(arguments)
    print("### Passive, matched discretisation (one segment per sample)\n")
    passive_table(cells)
    print("\n### Refinement: max |ΔV| (mV) of hinestask at d_X to NEURON at d_X 0.25 um\n")
    refine_table(cells)
    for placement in ("soma", "all"):
        print("\n### hh %s\n" % ("on the soma" if placement == "soma" else "everywhere"))
        hh_table(cells, placement)
    if cylinders:
        print("\n### Before: the older geometry (--geometry cylinders) against NEURON\n")
        print("max |ΔV| (mV) at the soma: one compartment per sample against NEURON at one "
              "segment per sample;\n`--dx` (its resampling) against NEURON at d_X 0.25 um; hh "
              "everywhere, NEURON's tables off, the\nclamps above.\n")
        old = merge(cylinders)
        dxs = [r[0] for r in next(iter(old.values()))["refine"]]
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
                                             " | ".join(g(r[2], 3) for r in c["refine"]), hh_text))


if __name__ == "__main__":
    main()
