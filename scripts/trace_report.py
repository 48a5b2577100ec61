#!/usr/bin/python3
"""Summarise a StarPU FxT trace converted by `hinestask --trace DIR`, and draw its Gantt chart.

Usage: scripts/trace_report.py DIR [--png OUT.png] [--title TEXT] [--until-last-task]

Reads DIR/tasks.rec (one record per task, times in ms), and, when present, DIR/activity.data
(worker names) and DIR/paje.trace (workers' memory nodes and the data transfers between memory
nodes). Prints, on stdout:
  - per worker: tasks, busy time and idle share over the run's span (first task start to last
    task end);
  - per codelet (the task's perfmodel symbol, or its name without numbers): count and
    mean/min/max/total duration in ms, split per kind of worker when several kinds ran it;
  - bytes moved between memory nodes (paje.trace fetch/prefetch links), or why there are none.
With --png, also draws a Gantt chart into OUT.png: one row per worker, one colour per codelet
(with a legend), the application threads' submitting and waiting, and the data transfers on one
row per destination memory node; the image grows with the number of rows. Its title is --title,
or the trace folder's name (never its path) and what the trace says about the run: tasks,
workers by kind, memory nodes, transfers (StarPU's trace does not record the scheduler).
With --until-last-task the chart's time axis ends at the last task's end: the data coming home
after it (the run's final checks, seconds for a large batch) would otherwise squeeze the steps
into a sliver; the summary still counts those transfers.

The summary needs only the Python 3 standard library; --png needs matplotlib, which Debian's
python3-matplotlib provides to /usr/bin/python3 (hence the #! line).
Exit status: 0 success, 1 unreadable or empty trace, or no chart drawn (matplotlib missing,
OUT.png not writable), 2 bad usage.
"""

import argparse
import math
import os
import re
import shlex
import signal
import sys

LINK_KINDS = {"F": "fetch", "PF": "prefetch", "IF": "idle fetch"}
# Application-thread states (paje.trace "US"): submitting work, or blocked waiting for tasks.
APP_GROUPS = {"Bu": "submitting", "Su": "submitting", "Sc": "submitting",
              "Th": "submitting", "W": "waiting", "WA": "waiting"}


def read_rec(path):
    """Records of a recutils file: a list of dicts (first value wins for a repeated field)."""
    records, current, last = [], {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip():
                if current:
                    records.append(current)
                current, last = {}, None
                continue
            if line.startswith("#"):
                continue
            if line.startswith("+") and last is not None:  # recutils continuation line
                current[last] += "\n" + line[1:].lstrip()
                continue
            key, sep, value = line.partition(":")
            if not sep:
                continue
            key = key.strip()
            last = key
            current.setdefault(key, value.strip())
    if current:
        records.append(current)
    return records


def codelet_of(record):
    """The perfmodel symbol, else the task name without its numbers ("step interleaved neurons
    0-319" -> "step interleaved neurons")."""
    model = record.get("Model", "").strip()
    if model:
        return model
    words = [w for w in record.get("Name", "").split() if not re.search(r"\d", w)]
    return " ".join(words) or record.get("Name", "?")


def load_tasks(path):
    tasks = []
    for r in read_rec(path):
        name = r.get("Name", "")
        if name.startswith("_starpu_") or "StartTime" not in r or "EndTime" not in r:
            continue
        try:
            start, end = float(r["StartTime"]), float(r["EndTime"])
            worker = int(r.get("WorkerId", "-1"))
        except ValueError:
            continue
        tasks.append({
            "name": name,
            "codelet": codelet_of(r),
            "start": start,
            "end": end,
            "submit": float(r["SubmitTime"]) if "SubmitTime" in r else start,
            "worker": worker,
            "node": r.get("MemoryNode", "?"),
            "job": r.get("JobId", "?"),
        })
    tasks.sort(key=lambda t: (t["start"], t["worker"]))
    return tasks


def worker_names_from_activity(path):
    """activity.data starts with lines 'name<TAB>ID<TAB>NAME' ("CPU 0", "CUDA 0")."""
    names = {}
    if not os.path.exists(path):
        return names
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("name"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[1].strip().isdigit():
                names[int(parts[1])] = parts[2].strip()
    return names


def trailing_number(alias):
    m = re.search(r"(\d+)$", alias)
    return int(m.group(1)) if m else None


def read_paje(path):
    """Workers (id -> container name, memory node), memory nodes, and the data transfers
    (PajeStartLink/PajeEndLink pairs of type F, PF or IF, matched by key; the link's value is
    its size in bytes)."""
    info = {"workers": {}, "transfers": [], "state_values": set(), "app": [], "colours": {},
            "ok": False}
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return info
    defs = {}  # event id -> (event name, [field names])
    current = None
    containers = {}  # alias -> (type, parent, name)
    starts = {}  # key -> (time, kind, src node, size)
    link_types = set()
    app_stacks = {}  # application thread -> stack of (start, state)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("%"):
                words = line[1:].split()
                if not words:
                    continue
                if words[0] == "EventDef" and len(words) >= 3:
                    current = [words[1], []]
                    defs[words[2]] = current
                elif words[0] == "EndEventDef":
                    current = None
                elif current is not None:
                    current[1].append(words[0])
                continue
            head = line.split(None, 1)
            if not head or head[0] not in defs:
                continue
            event, fields = defs[head[0]]
            if event not in ("PajeCreateContainer", "PajeStartLink", "PajeEndLink",
                             "PajeDefineLinkType", "PajeSetState", "PajePushState",
                             "PajePopState", "PajeDefineEntityValue"):
                continue
            if event == "PajeDefineEntityValue":
                # Task names as worker states, with the codelet's colour ("R G B", 0-255 or 0-1).
                parts = [x.strip().strip('"') for x in line.rstrip("\n").split("\t")]
                rec = dict(zip(fields, parts[1:]))
                if rec.get("Type") == "WS" and "Color" in rec:
                    try:
                        rgb = [float(x) for x in rec["Color"].split()]
                    except ValueError:
                        continue
                    if len(rgb) == 3:
                        scale = 255.0 if max(rgb) > 1.0 else 1.0
                        info["colours"][rec.get("Name", "")] = "#" + "".join(
                            f"{min(255, max(0, round(255 * x / scale))):02x}" for x in rgb)
                continue
            if event in ("PajePushState", "PajePopState"):
                # The application threads' states (building, submitting, waiting for tasks):
                # keep the outermost one of each nesting.
                parts = line.rstrip("\n").split("\t")
                rec = dict(zip(fields, parts[1:]))
                if rec.get("Type") != "US":
                    continue
                thread = rec.get("Container", "")
                stack = app_stacks.setdefault(thread, [])
                try:
                    time = float(rec["Time"])
                except (KeyError, ValueError):
                    continue
                if event == "PajePushState":
                    stack.append((time, rec.get("Value", "").strip().strip('"')))
                elif stack:
                    start, value = stack.pop()
                    if not stack:
                        info["app"].append({"thread": thread, "start": start, "end": time,
                                            "state": value})
                continue
            if event == "PajeSetState":
                parts = line.rstrip("\n").split("\t")
                if len(parts) > 4 and "Value" in fields:
                    value = parts[1 + fields.index("Value")].strip().strip('"')
                    if len(fields) > 4:  # the task states carry Size, Params, Footprint, ...
                        info["state_values"].add(value)
                continue
            try:
                parts = shlex.split(line) if '"' in line else line.split()
            except ValueError:
                parts = line.split()
            rec = dict(zip(fields, parts[1:]))
            if event == "PajeDefineLinkType":
                # Alias Type StartContainerType EndContainerType Name: data links join memory
                # managers ("Mm"); work stealing (WSL) joins workers.
                if rec.get("StartContainerType") == "Mm" and rec.get("EndContainerType") == "Mm":
                    link_types.add(rec.get("Alias"))
            elif event == "PajeCreateContainer":
                containers[rec.get("Alias", "")] = (rec.get("Type"), rec.get("Container"),
                                                    rec.get("Name", ""))
            elif event == "PajeStartLink":
                kind = rec.get("Type")
                if kind in LINK_KINDS or kind in link_types:
                    try:
                        starts[rec["Key"]] = (float(rec["Time"]), kind,
                                              trailing_number(rec["StartContainer"]),
                                              int(rec["Value"]))
                    except (KeyError, ValueError):
                        pass
            elif event == "PajeEndLink":
                key = rec.get("Key")
                if key in starts:
                    t0, kind, src, size = starts.pop(key)
                    try:
                        t1 = float(rec["Time"])
                        size = int(rec.get("Value", size))
                    except ValueError:
                        t1 = t0
                    info["transfers"].append({"start": t0, "end": t1, "kind": kind, "src": src,
                                              "dst": trailing_number(rec.get("EndContainer", "")),
                                              "bytes": size})
    for alias, (ctype, parent, name) in containers.items():
        if ctype != "W":
            continue
        wid = trailing_number(alias)
        node = None
        thread = containers.get(parent)
        if thread and thread[1] in containers and containers[thread[1]][0] == "Mn":
            node = trailing_number(thread[1])
        if wid is not None:
            info["workers"][wid] = {"name": name, "node": node}
    info["unmatched_links"] = len(starts)
    info["ok"] = True
    return info


def worker_kind(name):
    upper = name.upper()
    for kind in ("CUDA", "OPENCL", "MIC", "MPI"):
        if kind in upper:
            return kind
    return "CPU"


def union_length(intervals):
    total, cur_start, cur_end = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_end is None or s > cur_end:
            if cur_end is not None:
                total += cur_end - cur_start
            cur_start, cur_end = s, e
        else:
            cur_end = max(cur_end, e)
    if cur_end is not None:
        total += cur_end - cur_start
    return total


def human_bytes(n):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1000.0
    return f"{n} B"


def node_label(node, workers):
    names = sorted((w["name"] for w in workers.values() if w["node"] == node))
    if not names:
        return f"node {node}"
    if all(worker_kind(n) == "CPU" for n in names):
        return f"node {node} (RAM)"
    if len(names) > 2:  # several workers per GPU (STARPU_NWORKER_PER_CUDA): say how many
        return f"node {node} ({names[0]} and {len(names) - 1} more workers)"
    return f"node {node} ({', '.join(names)})"


def summarise(directory, tasks, names, paje, out):
    t0 = min(t["start"] for t in tasks)
    t1 = max(t["end"] for t in tasks)
    span = t1 - t0
    workers = sorted(set(names) | {t["worker"] for t in tasks})
    p = lambda s="": print(s, file=out)

    p(f"trace {directory}: {len(tasks)} tasks on {len(workers)} workers, "
      f"span {span:.3f} ms (first task start to last task end)")
    p()
    p(f"{'worker':<24} {'tasks':>7} {'busy ms':>11} {'idle %':>7}")
    total_busy = 0.0
    for w in workers:
        mine = [(t["start"], t["end"]) for t in tasks if t["worker"] == w]
        busy = union_length(mine)
        total_busy += busy
        label = names.get(w, f"worker {w}")
        node = paje["workers"].get(w, {}).get("node")
        if node is not None:
            label += f" [node {node}]"
        idle = 100.0 * (1.0 - busy / span) if span > 0 else 0.0
        p(f"{label:<24} {len(mine):>7} {busy:>11.3f} {idle:>7.1f}")
    if workers and span > 0:
        idle_all = 100.0 * (1.0 - total_busy / (span * len(workers)))
        p(f"{'all workers':<24} {len(tasks):>7} {total_busy:>11.3f} {idle_all:>7.1f}")
    p()

    codelets = {}
    for t in tasks:
        codelets.setdefault(t["codelet"], []).append(t)
    p(f"{'codelet':<24} {'count':>7} {'mean ms':>10} {'min ms':>10} {'max ms':>10} "
      f"{'total ms':>11}")

    def row(label, group):
        d = [t["end"] - t["start"] for t in group]
        p(f"{label:<24} {len(d):>7} {sum(d) / len(d):>10.4f} {min(d):>10.4f} {max(d):>10.4f} "
          f"{sum(d):>11.3f}")

    for codelet in sorted(codelets, key=lambda c: min(t["start"] for t in codelets[c])):
        group = codelets[codelet]
        row(codelet, group)
        kinds = {}
        for t in group:
            kinds.setdefault(worker_kind(names.get(t["worker"], "CPU")), []).append(t)
        if len(kinds) > 1:
            for kind in sorted(kinds):
                row(f"  on {kind}", kinds[kind])
    p()

    if not paje["ok"]:
        p("data transfers: not derivable (no paje.trace in the trace folder)")
        return
    transfers = paje["transfers"]
    if not transfers:
        nodes = {w["node"] for w in paje["workers"].values() if w["node"] is not None}
        why = ("every worker shares memory node 0, so no data moved" if len(nodes) <= 1
               else "the data stayed where it was")
        p(f"data transfers: none in paje.trace ({why})")
        return
    pairs = {}
    for c in transfers:
        key = (c["src"], c["dst"], c["kind"])
        agg = pairs.setdefault(key, [0, 0, []])
        agg[0] += 1
        agg[1] += c["bytes"]
        agg[2].append((c["start"], c["end"]))
    p("data transfers between memory nodes (paje.trace links):")
    total_bytes = 0
    for (src, dst, kind), (count, size, spans) in sorted(pairs.items(),
                                                         key=lambda kv: (kv[0][0], kv[0][1])):
        total_bytes += size
        busy = union_length(spans)
        rate = f", {size / busy / 1e6:.2f} GB/s while busy" if busy > 0 else ""
        label = f"{node_label(src, paje['workers'])} -> {node_label(dst, paje['workers'])}"
        what = LINK_KINDS.get(kind, kind) + ("es" if count != 1 else "")
        p(f"  {label}: {count} {what}, {human_bytes(size)} "
          f"in {busy:.3f} ms{rate}")
    p(f"  total: {len(transfers)} transfers, {human_bytes(total_bytes)}")
    # Write-backs between steps: anything leaving a GPU for RAM before the last task ended (reads
    # at the end of a run, after the last task, are expected).
    back = [c for c in transfers
            if c["dst"] is not None and c["src"] is not None and c["dst"] == 0 and c["src"] != 0]
    during = [c for c in back if c["start"] < t1]
    p(f"  GPU -> RAM while tasks ran (before the last task ended): {len(during)} transfers, "
      f"{human_bytes(sum(c['bytes'] for c in during))}; after: {len(back) - len(during)} "
      f"transfers, {human_bytes(sum(c['bytes'] for c in back if c['start'] >= t1))}")
    if paje.get("unmatched_links"):
        p(f"  ({paje['unmatched_links']} transfers started without a matching end)")


def app_intervals(tasks, paje):
    """Application-thread intervals from the first task submission to the last task end."""
    origin = min(t["submit"] for t in tasks)
    end = max(t["end"] for t in tasks)
    out = []
    for a in paje["app"]:
        group = APP_GROUPS.get(a["state"])
        if group and a["end"] > origin and a["start"] < end:
            out.append(dict(a, group=group, start=max(a["start"], origin),
                            end=min(a["end"], end)))
    return out


def summarise_app(tasks, paje, out):
    intervals = app_intervals(tasks, paje)
    if not intervals:
        return
    origin = min(t["submit"] for t in tasks)
    window = max(t["end"] for t in tasks) - origin
    print(file=out)
    print(f"application threads, first submission to last task end ({window:.3f} ms):",
          file=out)
    for thread in sorted({a["thread"] for a in intervals}):
        mine = [a for a in intervals if a["thread"] == thread]
        parts = []
        for group in ("submitting", "waiting"):
            d = union_length([(a["start"], a["end"]) for a in mine if a["group"] == group])
            parts.append(f"{group} {d:.3f} ms ({100 * d / window:.1f}%)" if window > 0 else "")
        print(f"  {thread}: " + ", ".join(parts), file=out)


PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39"]
TRANSFER_COLOURS = {"F": "#555555", "PF": "#999999", "IF": "#cccccc"}


def describe_run(directory, tasks, names, paje):
    """The chart's default title: the trace folder's own name (not its path: that belongs to
    the machine that drew the chart) and what the trace says about the run: tasks, workers by
    kind, memory nodes, data transfers. StarPU's trace does not record the scheduler; name it in
    the folder (as the reference traces do) or pass --title."""
    folder = os.path.basename(os.path.normpath(os.path.abspath(directory)))
    workers = sorted(set(names) | {t["worker"] for t in tasks})
    kinds = {}
    for w in workers:
        kind = worker_kind(names.get(w, "CPU"))
        kinds[kind] = kinds.get(kind, 0) + 1
    by_kind = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    codelets = ", ".join(dict.fromkeys(t["codelet"] for t in tasks))
    # Memory nodes: the workers' and those data moved between (main RAM has no worker when
    # only CUDA workers run).
    nodes = {w["node"] for w in paje["workers"].values()}
    nodes |= {c[end] for c in paje["transfers"] for end in ("src", "dst")}
    nodes.discard(None)
    where = f"; {len(nodes)} memory node{'s' if len(nodes) != 1 else ''}" if nodes else ""
    moved = f", {len(paje['transfers'])} data transfers" if paje["transfers"] else ""
    return (f"StarPU trace {folder}\n{len(tasks)} tasks ({codelets}) on {len(workers)} "
            f"workers ({by_kind}){where}{moved}")


def render_gantt(tasks, names, paje, png, title, until_last_task=False):
    """Draws the Gantt chart into PNG with matplotlib: one row per worker, application thread
    and destination memory node, one colour per codelet; the figure grows with the rows so that
    every row keeps a readable height."""
    try:
        import matplotlib
        matplotlib.use("Agg")  # a file only: no display needed
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"trace_report: matplotlib not found for {sys.executable} (Debian: apt-get "
              "install python3-matplotlib; run this script as /usr/bin/python3)",
              file=sys.stderr)
        return 1
    origin = min(t["submit"] for t in tasks)
    last = max(t["end"] for t in tasks)
    transfers = paje["transfers"]
    if transfers:
        origin = min(origin, min(c["start"] for c in transfers))
        if not until_last_task:
            last = max(last, max(c["end"] for c in transfers))
    app = app_intervals(tasks, paje)

    # Rows from the top: workers, application threads, transfers per destination memory node.
    workers = sorted(set(names) | {t["worker"] for t in tasks})
    threads = sorted({a["thread"] for a in app})
    dst_nodes = sorted({c["dst"] for c in transfers}, key=lambda n: (n is None, n))
    rows = [(("w", w), names.get(w, f"worker {w}")) for w in workers]
    rows += [(("t", t), f"app thread {t}") for t in threads]
    rows += [(("n", n), f"to {node_label(n, paje['workers'])}") for n in dst_nodes]
    y_of = {key: i for i, (key, _) in enumerate(rows)}

    codelets, colours = [], {}
    for t in tasks:
        if t["codelet"] not in codelets:
            codelets.append(t["codelet"])
            colours[t["codelet"]] = paje["colours"].get(t["name"])
    # The codelets' own colours (as ViTE shows them) when the trace gives distinct ones.
    if None in colours.values() or len(set(colours.values())) < len(codelets):
        colours = {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(codelets)}

    # (legend label, colour, bar height, [(start, end, row key)]) per series, in legend order.
    series = [(c, colours[c], 0.8, [(t["start"], t["end"], ("w", t["worker"]))
                                    for t in tasks if t["codelet"] == c]) for c in codelets]
    series += [("app: submitting", "#b8860b", 0.8,
                [(a["start"], a["end"], ("t", a["thread"])) for a in app
                 if a["group"] == "submitting"]),
               ("app: waiting", "#c8c8e0", 0.4,
                [(a["start"], a["end"], ("t", a["thread"])) for a in app
                 if a["group"] == "waiting"])]
    series += [(f"data {LINK_KINDS.get(kind, kind)}", TRANSFER_COLOURS.get(kind, "#777777"), 0.8,
                [(c["start"], c["end"], ("n", c["dst"])) for c in transfers
                 if c["kind"] == kind])
               for kind in sorted({c["kind"] for c in transfers})]
    series = [s for s in series if s[3]]

    # 28 px per row (or per legend entry, when they are more) and room for title and time axis.
    height = max(360, 170 + 28 * max(len(rows), len(series)))
    fig, ax = plt.subplots(figsize=(15, height / 100), dpi=100, layout="constrained")
    for i in range(0, len(rows), 2):  # every other row shaded, to follow a row across
        ax.axhspan(i - 0.5, i + 0.5, color="#f3f3f3", zorder=0)
    for label, colour, bar, items in series:
        # A border of the bar's colour keeps the shortest tasks visible as one-pixel lines.
        ax.barh([y_of[key] for _, _, key in items], [end - start for start, end, _ in items],
                left=[start - origin for start, _, _ in items], height=bar, color=colour,
                edgecolor=colour, linewidth=0.6, label=label, zorder=2)
    ax.set_yticks(range(len(rows)), [label for _, label in rows])
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first worker on top
    ax.set_xlim(0, max(last - origin, 1e-6) * 1.01)
    ax.set_xlabel("time since the first task submission (ms)")
    ax.grid(True, axis="x", color="#d0d0d0", linewidth=0.8, zorder=1)
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title, fontsize=12)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    try:
        fig.savefig(png)
    except OSError as e:
        print(f"trace_report: cannot write {png}: {e.strerror}", file=sys.stderr)
        return 1
    finally:
        plt.close(fig)
    print(f"gantt chart: {png} ({len(tasks)} tasks, {len(transfers)} transfers, "
          f"{len(rows)} rows)")
    return 0


def milliseconds(text):
    """--from's value: a finite number of ms, not negative (argparse reports anything else)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of ms (0 or more)")
    return value


def window_from(tasks, paje, from_ms):
    """The tasks, transfers and application-thread states that start FROM_MS ms or more after
    the first task submission (paje is cut in place); prints what the window keeps, if anything."""
    cut = min(t["submit"] for t in tasks) + from_ms
    kept = [t for t in tasks if t["start"] >= cut]
    if not kept:
        return kept
    print(f"window: from {from_ms:g} ms after the first task submission (--from): "
          f"{len(kept)} of {len(tasks)} tasks, "
          f"{sum(c['start'] >= cut for c in paje['transfers'])} of "
          f"{len(paje['transfers'])} transfers")
    paje["transfers"] = [c for c in paje["transfers"] if c["start"] >= cut]
    paje["app"] = [dict(a, start=max(a["start"], cut)) for a in paje["app"] if a["end"] > cut]
    return kept


def main(argv=None):
    if hasattr(signal, "SIGPIPE"):  # `trace_report.py DIR | head` ends quietly
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = argparse.ArgumentParser(
        description="Summarise a StarPU trace folder written by `hinestask --trace DIR`.")
    parser.add_argument("dir", help="trace folder (holds tasks.rec, paje.trace, ...)")
    parser.add_argument("--png", metavar="OUT.png", help="also draw a Gantt chart into OUT.png")
    parser.add_argument("--title", help="title of the Gantt chart (default: the folder's name "
                        "and the run's tasks, workers and memory nodes)")
    parser.add_argument("--until-last-task", action="store_true",
                        help="end the chart's time axis at the last task's end (transfers after "
                        "it are left out of the chart, not of the summary)")
    parser.add_argument("--from", dest="from_ms", type=milliseconds, metavar="MS",
                        help="report and chart only what starts MS ms or more after the first "
                        "task submission (say, the steps after a run's set-up: the share's "
                        "probe and the batch's building come first)")
    args = parser.parse_args(argv)

    tasks_path = os.path.join(args.dir, "tasks.rec")
    if not os.path.exists(tasks_path):
        print(f"trace_report: {tasks_path} not found (record with `hinestask --trace DIR`)",
              file=sys.stderr)
        return 1
    tasks = load_tasks(tasks_path)
    if not tasks:
        print(f"trace_report: no executed task in {tasks_path}", file=sys.stderr)
        return 1
    paje = read_paje(os.path.join(args.dir, "paje.trace"))
    names = worker_names_from_activity(os.path.join(args.dir, "activity.data"))
    for wid, w in paje["workers"].items():
        names.setdefault(wid, w["name"])
    if args.from_ms is not None:
        tasks = window_from(tasks, paje, args.from_ms)
        if not tasks:
            print(f"trace_report: no task starts {args.from_ms:g} ms or more after the first "
                  "submission", file=sys.stderr)
            return 1
    summarise(args.dir, tasks, names, paje, sys.stdout)
    summarise_app(tasks, paje, sys.stdout)
    if args.png:
        return render_gantt(tasks, names, paje, args.png,
                            args.title or describe_run(args.dir, tasks, names, paje),
                            args.until_last_task)
    return 0


if __name__ == "__main__":
    sys.exit(main())
