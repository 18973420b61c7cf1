#!/usr/bin/env python3
"""Duet / native for the real programs bench/gpu_ports.sh ran (raw outputs in RAW_DIR): per
BabelStream kernel (backend, precision) the ratio of bandwidths from the best time (upstream's
MB/s column) and from the average time, and per reduction (type, kernel) the ratio of the
sample's throughput (its average over 100 whole reductions); each round's and the median.
A run that failed its own check (exit status, or the sample's "Test passed") is marked FAIL.

    ports_summary.py RAW_DIR OUT.json
"""
import csv
import json
import os
import re
import statistics
import sys


def read(raw, name):
    with open(os.path.join(raw, name + ".txt"), errors="replace") as f:
        text = f.read()
    with open(os.path.join(raw, name + ".rc")) as f:
        rc = int(f.read().strip() or 1)
    return text, rc


def stream_rows(text):
    """BabelStream's --csv rows: {function: (best_s, avg_s)}."""
    lines = [l for l in text.splitlines() if l.count(",") == 7]
    rows = {}
    for r in csv.DictReader(lines):
        try:
            rows[r["function"]] = (float(r["min_runtime"]), float(r["avg_runtime"]))
        except (KeyError, ValueError):
            pass
    return rows


def reduce_row(text):
    m = re.search(r"Throughput = ([0-9.]+) GB/s", text)
    return float(m.group(1)) if m else None, "Test passed" in text


def pairs(names, prefix):
    """(key, round, native run, Duet run) for each run of `prefix` that has both."""
    for n in names:
        if n.startswith(prefix) and "-native-" in n:
            key, r = n.rsplit("-native-", 1)
            if key + "-duet-" + r in names:
                yield key, r, n, key + "-duet-" + r


def main(raw, out_json):
    names = sorted(f[:-4] for f in os.listdir(raw) if f.endswith(".txt"))
    rounds = sorted({int(n.rsplit("-", 1)[1]) for n in names if n.rsplit("-", 1)[1].isdigit()})
    result = {"stream": {}, "reduction": {}, "failed": []}
    for key, r, n, d in pairs(names, "stream-"):
        (nt, nrc), (dt, drc) = read(raw, n), read(raw, d)
        if nrc or drc:
            result["failed"] += [x for x, rc in ((n, nrc), (d, drc)) if rc]
        nat, duet = stream_rows(nt), stream_rows(dt)
        for fn in nat:
            if fn in duet:
                e = result["stream"].setdefault(key[len("stream-"):] + " " + fn, {"best": {}, "avg": {}})
                e["best"][r] = nat[fn][0] / duet[fn][0]
                e["avg"][r] = nat[fn][1] / duet[fn][1]
    for key, r, n, d in pairs(names, "reduce-"):
        (nt, nrc), (dt, drc) = read(raw, n), read(raw, d)
        (ng, nok), (dg, dok) = reduce_row(nt), reduce_row(dt)
        for x, rc, ok in ((n, nrc, nok), (d, drc, dok)):
            if rc or not ok:
                result["failed"].append(x)
        if ng and dg:
            result["reduction"].setdefault(key[len("reduce-"):], {})[r] = dg / ng
    print("Duet / native (1.00 = the native program's speed; >= 0.99 is issue 51's bound)")
    print(f"{'BabelStream':28} {'median best':>12} {'median avg':>11}  rounds (best)")
    for k, e in sorted(result["stream"].items()):
        e["median_best"] = statistics.median(e["best"].values())
        e["median_avg"] = statistics.median(e["avg"].values())
        per = " ".join(f"{e['best'][r]:.3f}" for r in sorted(e["best"]))
        print(f"{k:28} {e['median_best']:12.3f} {e['median_avg']:11.3f}  {per}")
    print(f"\n{'reduction (type-kernel)':28} {'median':>12}  rounds")
    for k, e in sorted(result["reduction"].items(), key=lambda kv: (kv[0].split("-")[0], int(kv[0].split("-")[1]))):
        med = statistics.median(e.values())
        per = " ".join(f"{e[r]:.3f}" for r in sorted(e))
        print(f"{k:28} {med:12.3f}  {per}")
        result["reduction"][k] = {"rounds": e, "median": med}
    meds = [e["median"] for e in result["reduction"].values()]
    if meds:
        print(f"{'all pairs':28} {statistics.median(meds):12.3f}  (median of medians; min {min(meds):.3f})")
    print("\nfailed their own checks: " + (", ".join(result["failed"]) or "none"))
    result["rounds"] = rounds
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    return 1 if result["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
