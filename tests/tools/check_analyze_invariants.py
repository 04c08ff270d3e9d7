#!/usr/bin/env python3
"""check_analyze_invariants.py DFSCOPE TRACE... - the invariants of `dfscope analyze`'s default
numbers (docs/ANALYZE.md, Semantics), checked on the JSON of every view at several granularities.

Each TRACE is a file or a directory analysed as one run; `gen:ARGS` generates one with
`dfscope gen ARGS` first. For every trace and granularity:
  - labels: the layer keys of the default mode name their aggregation (process_time_s...), none of
    DFAnalyzer's keys (time_s, u_time_s...) appears, the flat-view columns are distinct;
  - sums: a layer's per-row time_sum and count_sum add up to its summary value in every view;
  - one number per quantity: process_time_s and count are the same in every view but file_name
    (which holds only events with a file name) and at every granularity;
  - u <= time: u_process_time_s <= busy_process_time_s <= process_time_s, u_count <= count, and per
    row u_L_time_exact <= L_time_sum;
  - wall time: a layer's wall_time_s (the union over processes) is the same in every view and at
    every granularity, <= the job's span, <= busy and <= process_time_s; per bin L_wall_time <= the
    bin width and <= L_time_sum, and the bins' wall times add up to wall_time_s; busy (each
    process's union, summed) <= the job's span times the threads, and per bin u_L_time_exact <= the
    bin width times the threads there;
  - overlap, not start: per bin, L_time_sum <= the bin width times the threads there times
    NESTING (a thread's events of one layer nest at most that deep in these traces: DLIO's data
    loader calls nest two deep). Counting an event wholly in its start bin breaks this by 20x to
    500x on the DLIO traces.
Exit 0 when every check holds, 1 with the failures listed otherwise. Standard library only.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

VIEWS = ["time_range", "proc_name", "file_name", "host_name", "proc_id", "thread_id"]
GRANULARITIES = ["1", "0.25", "7"]
NESTING = 2
REL = 1e-9
COMPAT_KEYS = {"time_s", "u_time_s", "u_base_s", "time_sum_s", "ops_per_s", "bandwidth_bps", "overhead_s"}
EXACT_KEYS = {"display", "process_time_s", "count", "size_bytes", "ops_per_process_s", "bytes_per_process_s",
              "num_files", "num_processes", "u_process_time_s", "u_count", "u_size_bytes",
              "busy_process_time_s", "overlap_time_pct", "overhead_process_s", "wall_time_s"}

OLD_NAMES = {"process_time_s": "time_s", "u_process_time_s": "u_time_s", "busy_process_time_s": "u_base_s"}

failures = []


def val(layer, key):
    """A layer's value, under its older name when the key is missing (a build before the
    default's labels), so that such a build fails the checks instead of stopping them."""
    return layer[key] if key in layer else layer.get(OLD_NAMES.get(key, key))


def fail(where, what):
    failures.append(f"{where}: {what}")


def close(a, b, scale=None):
    scale = max(abs(a), abs(b), 1e-9) if scale is None else scale
    return abs(a - b) <= REL * scale + 1e-9


def le(a, b):
    return a <= b + REL * max(abs(b), 1.0) + 1e-9


def analyze(dfscope, trace, gran):
    out = subprocess.run([dfscope, "analyze", "--views", ",".join(VIEWS), "--granularity", gran,
                          "--format", "json", trace], capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        fail(f"{trace} @{gran}", f"exit {out.returncode}: {out.stderr.strip()}")
        return None
    return json.loads(out.stdout)


def col(view, name):
    cols = view["columns"]
    return cols.index(name) if name in cols else None


def column_sum(view, name):
    i = col(view, name)
    return None if i is None else sum(r[i] or 0 for r in view["rows"])


def check_labels(where, doc, view):
    if doc["analysis"]["semantics"] != "exact":
        fail(where, f"semantics {doc['analysis']['semantics']}")
    if len(set(view["columns"])) != len(view["columns"]):
        fail(where, "two flat-view columns share a name")
    for name, layer in view["summary"]["layers"].items():
        keys = set(layer)
        if keys & COMPAT_KEYS:
            fail(where, f"{name}: DFAnalyzer's keys {sorted(keys & COMPAT_KEYS)} in the default mode")
        if keys - EXACT_KEYS:
            fail(where, f"{name}: undocumented keys {sorted(keys - EXACT_KEYS)}")
    for c in view["columns"]:
        if c.startswith("u_") and c.endswith(("_time_proc_max", "_time_sum")):
            fail(where, f"column {c}: DFAnalyzer's per-row u_ in the default mode")


def check_sums(where, view):
    for name, layer in view["summary"]["layers"].items():
        for column, key in ((f"{name}_time_sum", "process_time_s"), (f"{name}_count_sum", "count")):
            s = column_sum(view, column)
            if s is not None and not close(s, val(layer, key)):
                fail(where, f"{name}: rows' {column} add up to {s}, summary {key} is {val(layer, key)}")


def check_u(where, doc, view):
    threads = doc["raw_stats"]["unique_proc_name_count"]
    span = doc["raw_stats"]["job_time_s"]
    for name, layer in view["summary"]["layers"].items():
        u, busy, t = (val(layer, k) for k in ("u_process_time_s", "busy_process_time_s", "process_time_s"))
        if u is not None and not (le(u, busy) and le(busy, t)):
            fail(where, f"{name}: u {u} <= busy {busy} <= time {t} broken")
        if busy is not None and not le(busy, span * threads):
            fail(where, f"{name}: busy {busy} > span {span} x {threads} threads")
        if layer["u_count"] is not None and layer["u_count"] > layer["count"]:
            fail(where, f"{name}: u_count {layer['u_count']} > count {layer['count']}")
        iu, it = col(view, f"u_{name}_time_exact"), col(view, f"{name}_time_sum")
        for r in view["rows"] if iu is not None else []:
            if r[iu] is not None and not le(r[iu], r[it] or 0):
                fail(where, f"{name}: row {r[0]}: u_time_exact {r[iu]} > time_sum {r[it]}")


def check_wall(where, doc, view):
    span = doc["raw_stats"]["job_time_s"]
    for name, layer in view["summary"]["layers"].items():
        wall = layer.get("wall_time_s", "missing")
        if where.endswith("file_name"):  # only events with a file name: no wall time of the layer
            if wall is not None:
                fail(where, f"{name}: wall_time_s {wall} in the file_name view")
            continue
        if wall is None or wall == "missing":
            fail(where, f"{name}: no wall_time_s")
            continue
        if not le(wall, span):
            fail(where, f"{name}: wall {wall} > job span {span}")
        if not le(wall, layer["process_time_s"]):
            fail(where, f"{name}: wall {wall} > process-s {layer['process_time_s']}")
        busy = layer.get("busy_process_time_s")
        if busy is not None and not le(wall, busy):
            fail(where, f"{name}: wall {wall} > busy {busy}")


def check_bins(where, doc, view):
    g = doc["analysis"]["granularity_s"]
    for name, layer in view["summary"]["layers"].items():
        it, ip = col(view, f"{name}_time_sum"), col(view, f"{name}_proc_name_nunique")
        iu, iw = col(view, f"u_{name}_time_exact"), col(view, f"{name}_wall_time")
        if iw is None:
            fail(where, f"{name}: no {name}_wall_time column")
        elif layer.get("wall_time_s") is not None and not close(column_sum(view, f"{name}_wall_time"),
                                                                layer["wall_time_s"]):
            fail(where, f"{name}: bins' wall add up to {column_sum(view, f'{name}_wall_time')}, "
                        f"summary wall_time_s is {layer['wall_time_s']}")
        for r in view["rows"]:
            if iw is not None and r[iw] is not None and not (le(r[iw], g) and le(r[iw], r[it] or 0)):
                fail(where, f"{name}: bin {r[0]}: wall {r[iw]} > width {g} s or time_sum {r[it]}")
            if r[it] is None:
                continue
            threads = r[ip] or 0
            if not le(r[it], g * threads * NESTING):
                fail(where, f"{name}: bin {r[0]}: time_sum {r[it]} > {g} s x {threads} threads x {NESTING}")
            if iu is not None and r[iu] is not None and not le(r[iu], g * threads):
                fail(where, f"{name}: bin {r[0]}: u_time_exact {r[iu]} > {g} s x {threads} threads")


def check_trace(dfscope, trace):
    reference = {}  # layer -> (process_time_s, count), the same in every view and granularity
    for gran in GRANULARITIES:
        doc = analyze(dfscope, trace, gran)
        if doc is None:
            continue
        for vname, view in doc["views"].items():
            where = f"{os.path.basename(trace.rstrip('/'))} @{gran}s {vname}"
            check_labels(where, doc, view)
            check_sums(where, view)
            check_u(where, doc, view)
            check_wall(where, doc, view)
            if vname == "time_range":
                check_bins(where, doc, view)
            if vname == "file_name":
                continue
            for name, layer in view["summary"]["layers"].items():
                got = (val(layer, "process_time_s"), layer["count"], layer.get("wall_time_s") or 0)
                want = reference.setdefault(name, got)
                if got[1] != want[1] or not close(got[0], want[0]) or not close(got[2], want[2]):
                    fail(where, f"{name}: (time, count, wall) {got}, elsewhere {want}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dfscope = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for n, trace in enumerate(sys.argv[2:]):
            if trace.startswith("gen:"):
                out = os.path.join(tmp, f"gen{n}")
                subprocess.run([dfscope, "gen", "-o", out, "-q"] + trace[4:].split(), check=True)
                trace = out
            check_trace(dfscope, trace)
    for f in failures[:40]:
        print("FAIL:", f)
    print(f"check_analyze_invariants: {len(sys.argv) - 2} traces, {len(failures)} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
