#!/usr/bin/env python3
"""Where the main job's time goes: `runapp compare` timed as a whole, and per app and device the
wall time of its rows against the kernel time they measured.

    python3 bench/compare_wall.py RUNAPP [--cold] [--runs N] [--out FILE.json] [-- compare args]

Each run is `RUNAPP compare --format json --quiet ARGS`; --cold gives each run an empty program
cache of its own (DUET_CACHE_DIR), otherwise the first run warms the cache and is not counted.
With --cold the drivers' own caches (PoCL's kernel cache, NVIDIA's compute cache) are cold only
for the first run on a fresh machine: run 2 of --cold --runs 2 is Duet's cache alone cold.
Prints a Markdown table per run: rows, wall seconds, kernel seconds (the median kernel time times
the timed and warm-up runs), the host's share, and the run's whole wall time beside the rows'.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run_once(runapp, args, cache_dir):
    env = dict(os.environ, DUET_CACHE_DIR=cache_dir)
    t0 = time.monotonic()
    p = subprocess.run([runapp, "compare", "--format", "json", "--quiet", *args], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-4000:])
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"runapp compare exited {p.returncode} with no JSON")
    return wall, doc, p.returncode


def warmups(median_ms, warmup):
    """runapp's default warm-up stops after a run of 20 ms or more (--warmup not given)."""
    return min(warmup, 1) if median_ms >= 20 else warmup


def summarize(doc, reps, warmup):
    groups = {}
    for r in doc["results"]:
        key = (r["app"], r["device_id"])
        g = groups.setdefault(key, {"rows": 0, "pass": 0, "wall_s": 0.0, "kernel_s": 0.0})
        g["rows"] += 1
        g["pass"] += r.get("status") == "pass"
        g["wall_s"] += r.get("wall_ms", 0) / 1e3
        runs = r.get("kernel_ms", {}).get("runs", 0) or 0
        median = r.get("kernel_ms", {}).get("median", 0)
        g["kernel_s"] += median * (runs + warmups(median, warmup)) / 1e3
    return groups


def overheads(doc, warmup):
    """Per row: the host's time (wall less the kernel's runs and less the problem's set-up, which
    the first row of a problem on a device makes for all of them and which is reported on its own)
    against the target, twice the device time plus 100 ms."""
    rows = []
    for r in doc["results"]:
        if r.get("backend") == "native" or r.get("skipped"):
            continue
        k = r.get("kernel_ms", {})
        device_ms = k.get("median", 0) * ((k.get("runs", 0) or 0) + warmups(k.get("median", 0), warmup))
        parts = r.get("wall_parts_ms", {})
        setup_ms = parts.get("setup", 0)
        host_ms = r.get("wall_ms", 0) - setup_ms - device_ms
        rows.append({"app": r["app"], "variant": r["variant"], "device": r["device_id"],
                     "size": r.get("size"), "wall_ms": r.get("wall_ms", 0), "setup_ms": setup_ms,
                     "parts": parts, "device_ms": device_ms, "host_ms": host_ms,
                     "within": host_ms <= 2 * device_ms + 100, "build_ms": r.get("build_ms", 0),
                     "provenance": r.get("provenance")})
    return rows


def table(wall, groups, code):
    rows_wall = sum(g["wall_s"] for g in groups.values())
    kern = sum(g["kernel_s"] for g in groups.values())
    out = [f"whole run: {wall:.1f} s wall (exit {code}); rows {rows_wall:.1f} s, "
           f"kernels {kern:.2f} s, rest (start-up, native reference, output) {wall - rows_wall:.1f} s",
           "", "| app | device | rows (pass) | wall s | kernel s | host share |",
           "|---|---|---|---|---|---|"]
    for (app, dev), g in sorted(groups.items()):
        share = 1 - g["kernel_s"] / g["wall_s"] if g["wall_s"] > 0 else 0
        out.append(f"| {app} | {dev} | {g['rows']} ({g['pass']}) | {g['wall_s']:.2f} | "
                   f"{g['kernel_s']:.3f} | {share:.0%} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("runapp")
    ap.add_argument("--cold", action="store_true")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--warmup", type=int, default=2, help="the warm-up runs of each row")
    ap.add_argument("args", nargs="*")
    a, extra = ap.parse_known_args()  # compare's own options pass through
    a.args += [x for x in extra if x != "--"]
    record = {"command": f"runapp compare {' '.join(a.args)}", "cold": a.cold, "runs": []}
    with tempfile.TemporaryDirectory() as tmp:
        if not a.cold:  # one untimed run fills the cache
            run_once(a.runapp, a.args, os.path.join(tmp, "warm"))
        for i in range(a.runs):
            cache = os.path.join(tmp, f"cold{i}" if a.cold else "warm")
            wall, doc, code = run_once(a.runapp, a.args, cache)
            groups = summarize(doc, None, a.warmup)
            what = "warm cache" if not a.cold else (
                "cold: Duet's program cache and the drivers' own caches" if i == 0 else
                "cold Duet program cache; the drivers' own caches (PoCL's, NVIDIA's) warm from run 1")
            print(f"### run {i + 1}: {what}\n")
            print(table(wall, groups, code) + "\n")
            rows = overheads(doc, a.warmup)
            over = [x for x in rows if not x["within"]]
            print(f"rows whose host time is over 2x device time + 100 ms: {len(over)} of {len(rows)}")
            for x in sorted(over, key=lambda x: -x["host_ms"])[:20]:
                parts = ", ".join(f"{k} {v:.0f}" for k, v in x["parts"].items() if k != "setup")
                print(f"  {x['app']} {x['variant']} on {x['device']} at {x['size']}: host "
                      f"{x['host_ms']:.0f} ms, device {x['device_ms']:.1f} ms, build {x['build_ms']:.0f} ms "
                      f"({x['provenance']}); wall parts ms: {parts}")
            poison = sum(x["parts"].get("poison", 0) for x in rows) / 1e3
            print(f"outputs poisoned again and probed between timed runs (outside the timed spans): "
                  f"{poison:.2f} s of the whole run's {wall:.1f} s ({poison / wall:.1%})")
            setups = [x for x in rows if x["setup_ms"] > 0]
            print(f"problem set-up (inputs, references, first upload), made once per problem and "
                  f"device: {sum(x['setup_ms'] for x in setups) / 1e3:.1f} s in {len(setups)} rows")
            for x in sorted(setups, key=lambda x: -x["setup_ms"])[:12]:
                print(f"  {x['app']} at {x['size']} on {x['device']}: {x['setup_ms']:.0f} ms")
            print()
            record["runs"].append({"wall_s": wall, "exit": code, "groups": [
                {"app": k[0], "device": k[1], **v} for k, v in sorted(groups.items())],
                "rows": rows})
    if a.out:
        with open(a.out, "w") as f:
            json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
