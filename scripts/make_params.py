#!/usr/bin/env python3
"""Writes a --params file (a parameter sweep, one CSV row per neuron) of random values.

  scripts/make_params.py FILE --neurons N [--columns gnabar,gkbar,stim_amp] [--seed S]

Each column's values are uniform in the range below (about NEURON's hh and hinestask's
defaults, wide enough that some cells fire and some do not); they are written in Python's
shortest round-trip form, so the same numbers typed as options (--gnabar 0.1234...) are the
same doubles. Python 3 standard library only.
"""
import argparse
import random

RANGES = {
    "cm": (0.8, 1.2),  # uF/cm2
    "ra": (60.0, 150.0),  # Ohm cm
    "gl": (5e-5, 2e-4),  # S/cm2
    "el": (-70.0, -60.0),  # mV
    "gnabar": (0.06, 0.18),  # S/cm2
    "gkbar": (0.02, 0.05),  # S/cm2
    "gl_hh": (1e-4, 5e-4),  # S/cm2
    "el_hh": (-60.0, -50.0),  # mV
    "stim_amp": (0.0, 1.0),  # nA
    "stim_start": (0.0, 5.0),  # ms
    "stim_stop": (20.0, 1e9),  # ms
    "hh.ena": (45.0, 55.0),  # mV
    "hh.ek": (-85.0, -70.0),  # mV
    "km.gbar": (0.0, 0.01),  # S/cm2
    "km.ek": (-95.0, -85.0),  # mV
    "ih.gbar": (0.0, 0.002),  # S/cm2
    "ih.ehcn": (-50.0, -30.0),  # mV
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--neurons", type=int, required=True, help="rows, one per neuron")
    parser.add_argument("--columns", default="gnabar,gkbar,stim_amp",
                        help="comma-separated, any of " + ", ".join(RANGES))
    parser.add_argument("--seed", type=int, default=18)
    a = parser.parse_args()
    columns = a.columns.split(",")
    for c in columns:
        if c not in RANGES:
            parser.error("unknown column %r (known: %s)" % (c, ", ".join(RANGES)))
    r = random.Random(a.seed)
    with open(a.file, "w") as out:
        out.write(",".join(columns) + "\n")
        for _ in range(a.neurons):
            out.write(",".join(repr(r.uniform(*RANGES[c])) for c in columns) + "\n")


if __name__ == "__main__":
    main()
