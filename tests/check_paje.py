#!/usr/bin/env python3
"""Checks a `hinestask --trace DIR` folder against what traces/README.md promises of its tasks:

- every task of tasks.rec (StarPU's own `_starpu_*` tasks aside) is named after its codelet
  (Name == Model), and the codelets are exactly the ones expected;
- paje.trace defines one worker state (type WS) per codelet, named after it, in the codelet's
  colour (the `.color` of HINES_DECLARE_CODELET in codelets/*.c), as a Paje colour (0 to 1);
- pj_dump (PajeNG's reader, given as --pj-dump) shows each task as a state of that name: as many
  states per codelet as tasks.rec has tasks of it.

Usage: check_paje.py DIR SOURCE_DIR CODELET... [--pj-dump DUMP_FILE]
Prints one line per finding; exits 1 if anything is wrong. Python 3 standard library only.
"""
import glob
import os
import re
import sys


def read_rec(path):
    records, current = [], {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if current:
                    records.append(current)
                current = {}
                continue
            key, _, value = line.partition(": ")
            current[key] = value
    if current:
        records.append(current)
    return records


def codelet_colours(source_dir):
    """symbol -> (r, g, b) in 0..1, from HINES_DECLARE_CODELET(NAME, ..., 0xRRGGBB)."""
    colours = {}
    for path in glob.glob(os.path.join(source_dir, "codelets", "*.c")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for name, rgb in re.findall(r"HINES_DECLARE_CODELET\((\w+),[^;]*?0x([0-9a-fA-F]{6})\)",
                                    text, re.S):
            value = int(rgb, 16)
            colours[name] = tuple(((value >> shift) & 0xFF) / 255 for shift in (16, 8, 0))
    return colours


def main(argv):
    dump = None
    if "--pj-dump" in argv:
        i = argv.index("--pj-dump")
        dump = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 3:
        print(__doc__)
        return 2
    directory, source_dir, expected = argv[0], argv[1], argv[2:]
    problems = []
    colours = codelet_colours(source_dir)
    for codelet in expected:
        if codelet not in colours:
            problems.append(f"codelet {codelet}: no HINES_DECLARE_CODELET colour in codelets/*.c")

    tasks = {}
    for r in read_rec(os.path.join(directory, "tasks.rec")):
        name = r.get("Name", "")
        if not name or name.startswith("_starpu_") or "StartTime" not in r:
            continue
        if name != r.get("Model", ""):
            problems.append(f"task {r.get('JobId', '?')} is named '{name}', its codelet "
                            f"'{r.get('Model', '')}'")
        tasks[name] = tasks.get(name, 0) + 1
    if sorted(tasks) != sorted(expected):
        problems.append(f"tasks.rec has tasks of {sorted(tasks)}, expected {sorted(expected)}")
    print(f"tasks.rec: {', '.join(f'{n} {c}' for n, c in sorted(tasks.items()))}")

    # PajeDefineEntityValue lines: the event id comes from the header.
    define_id, states = None, {}
    with open(os.path.join(directory, "paje.trace"), encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("%"):
                words = line[1:].split()
                if len(words) >= 3 and words[0] == "EventDef" and \
                        words[1] == "PajeDefineEntityValue":
                    define_id = words[2]
                continue
            if define_id is None or not line.startswith(define_id):
                continue
            m = re.match(r'(\S+)\s+(\S+)\s+(\S+)\s+(\S+|"[^"]*")\s+"([^"]*)"', line)
            if not m or m.group(1) != define_id or m.group(3) != "WS":
                continue
            alias, name, colour = m.group(2), m.group(4).strip('"'), m.group(5)
            if name in colours or name in expected:
                states.setdefault(name, []).append((alias, colour))
    for codelet in expected:
        defined = states.get(codelet, [])
        if len(defined) != 1:
            problems.append(f"paje.trace defines {len(defined)} worker states named {codelet}, "
                            "expected 1")
            continue
        alias, colour = defined[0]
        try:
            rgb = tuple(float(x) for x in colour.split())
        except ValueError:
            rgb = ()
        want = colours.get(codelet)
        if len(rgb) != 3 or any(not 0 <= x <= 1 for x in rgb):
            problems.append(f"state {codelet}: colour '{colour}' is not three numbers in 0..1")
        elif want and any(abs(a - b) > 0.5 / 255 for a, b in zip(rgb, want)):
            problems.append(f"state {codelet}: colour '{colour}', the codelet's is "
                            f"{' '.join(f'{x:.6f}' for x in want)}")
        else:
            print(f"paje.trace: state {codelet} (alias {alias}) in colour {colour}")
    for name in states:
        if name not in expected:
            problems.append(f"paje.trace defines a worker state '{name}' for no expected codelet")

    if dump:
        counts = {}
        with open(dump, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields = [x.strip() for x in line.split(",")]
                if len(fields) >= 8 and fields[0] == "State" and fields[7] in tasks:
                    counts[fields[7]] = counts.get(fields[7], 0) + 1
        for codelet in expected:
            # StarPU sets a state at a task's start and again, with its details, at its end:
            # every task gives one or two states, never none.
            got, want = counts.get(codelet, 0), tasks.get(codelet, 0)
            if not want <= got <= 2 * want:
                problems.append(f"pj_dump shows {got} states {codelet} for {want} tasks")
            else:
                print(f"pj_dump: {got} states {codelet} for {want} tasks")

    for p in problems:
        print(f"PROBLEM: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
