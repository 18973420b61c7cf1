#!/usr/bin/env python3
"""One line per ladder step from a `runapp --format json` file: app, variant, size, status,
throughput, the step's speed-up over the previous step that ran (so a ladder out of teaching
order shows a figure below 1), and its speed-up over the native CPU reference of the run (x_cpu,
runapp compare's "x CPU"; device "native" rows are that reference). Usage: ladder_table.py FILE.json"""
import json
import sys


def rate(r):
    ms = (r.get("kernel_ms") or {}).get("median") or 0
    if ms <= 0:
        return 0.0
    for key, unit in (("gflops", "GFLOP/s"), ("mpixels", "Mpx/s"), ("effective_gbs", "GB/s")):
        if r.get(key):
            return r[key], unit
    return 0.0


def main(path):
    doc = json.load(open(path))
    rows = doc["results"] if isinstance(doc, dict) else doc
    prev = {}
    for r in rows:
        status = r.get("status") or ("skipped" if r.get("skipped") else ("pass" if r.get("pass") else "FAIL"))
        rt = rate(r)
        key = (r["app"], r["device_id"], r.get("size"))
        step = ""
        if rt and key in prev:
            step = "%.2fx" % (rt[0] / prev[key])
        if rt:
            prev[key] = rt[0]
        fig = "%.1f %s" % rt if rt else "-"
        xc = "%.2fx" % r["x_cpu"] if r.get("x_cpu") else "-"
        print("%-10s %-14s %-16s %-8s %16s %7s %8s  %s" % (r["app"], r["variant"], r.get("size", ""), status,
                                                          fig, step, xc, (r.get("note") or "")[:110]))


if __name__ == "__main__":
    main(sys.argv[1])
