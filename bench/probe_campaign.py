#!/usr/bin/env python3
"""The hostile-input probe campaign against built binaries: every class of docs/design/security.md
with concrete inputs, each probe bounded by a timeout and a memory cap, one runapp at a time.

    python3 bench/probe_campaign.py [--build build] [--output FILE] [--quick] [--only CLASS,...]

Classes: plugins (DUET_BACKEND_PATH: a foreign plugin's constructor writes a marker that must
never appear), results (hostile files for `report`, `report --html`, CSV: peak RSS within 20x the
input plus a fixed base, bounded output), kernels (hostile DUET_KERNEL_DIR trees, `runapp compile`
on their files), cli (random command lines), locals (the reduction on PoCL at every local size),
wrongpass (a wrong entry, a dropped input, guard-zone writes: must FAIL), limits (Range extremes
through the API, an empty LD_LIBRARY_PATH element with truncated libraries in the current
directory, sizes that must fail early), mpi (one rank hangs: the others' rows are kept).

Prints a table (probes and findings per class) and the findings; writes every probe's record as
JSON to --output (default BUILD/probe-campaign/findings.json). Exit 0 with no findings, 1 with.
778 probes in 3 to 6 minutes on a 2-core machine (a warm program cache); --quick 173 in about 2.
Runs one runapp at a time; the probes that give files to another user (uid 65534) run as root only.
"""
import argparse
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_run import Runner  # noqa: E402
import probe_classes  # noqa: E402

CLASSES = ["plugins", "results", "kernels", "cli", "locals", "wrongpass", "limits", "mpi"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="the build directory (bin/runapp)")
    ap.add_argument("--output", help="the findings JSON (default BUILD/probe-campaign/findings.json)")
    ap.add_argument("--quick", action="store_true", help="fewer and smaller probes (CI size)")
    ap.add_argument("--only", default="", help="comma-separated classes: " + ",".join(CLASSES))
    ap.add_argument("--seed", type=int, default=38, help="the command-line fuzz's seed")
    ap.add_argument("--verbose", action="store_true", help="one line per probe, not only findings")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    runapp = os.path.join(build, "bin", "runapp")
    if not os.access(runapp, os.X_OK):
        sys.exit(f"probe_campaign: no {runapp}: build it first (cmake --build {args.build})")
    output = os.path.abspath(args.output or os.path.join(build, "probe-campaign", "findings.json"))
    if os.path.basename(os.path.dirname(output)) == "results":
        sys.exit("probe_campaign: results/*.json is for duet-results documents; write elsewhere")
    only = [c for c in args.only.split(",") if c] or CLASSES
    for c in only:
        if c not in CLASSES:
            sys.exit(f"probe_campaign: unknown class {c!r}; classes: {', '.join(CLASSES)}")
    work = os.path.join(build, "probe-campaign", "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.chmod(work, 0o755)
    cache = os.path.join(build, "probe-campaign", "cache")
    os.makedirs(cache, exist_ok=True)
    os.chmod(cache, 0o700)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("DUET_") and k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}
    env.update(DUET_CACHE_DIR=cache, LC_ALL="C.UTF-8")
    runner = Runner(work, env, args.verbose)
    ctx = probe_classes.Context(runner=runner, runapp=runapp, build=build, work=work,
                                source=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                quick=args.quick, seed=args.seed)
    started = time.time()
    for c in only:
        t = time.monotonic()
        before = len(runner.records)
        print(f"== {c}", flush=True)
        getattr(probe_classes, "probe_" + c)(ctx)
        print(f"   {len(runner.records) - before} probes in {time.monotonic() - t:.0f} s",
              flush=True)
    summary = {}
    for rec in runner.records:
        s = summary.setdefault(rec["class"], {"probes": 0, "findings": 0, "known": 0})
        s["probes"] += 1
        s["findings"] += bool(rec["problems"])
        s["known"] += "known" in rec
    print(f"\n{'class':<10} {'probes':>7} {'findings':>9} {'known':>6}")
    for c, s in summary.items():
        print(f"{c:<10} {s['probes']:>7} {s['findings']:>9} {s['known']:>6}")
    total = sum(s["findings"] for s in summary.values())
    known = sum(s["known"] for s in summary.values())
    print(f"{'all':<10} {len(runner.records):>7} {total:>9} {known:>6}   "
          f"({time.time() - started:.0f} s)")
    for rec in runner.records:
        if rec["problems"]:
            print(f"- [{rec['class']}] {rec['name']}: {'; '.join(rec['problems'])}\n"
                  f"    {rec['command'][:300]}")
        elif "known" in rec:
            print(f"- known limit [{rec['class']}] {rec['name']}: "
                  f"{'; '.join(rec['known_problems'])} ({rec['known']})")
    os.makedirs(os.path.dirname(output), exist_ok=True)
    with open(output, "w") as f:
        json.dump({"campaign": "duet hostile-input probes", "runapp": runapp, "quick": args.quick,
                   "seed": args.seed, "seconds": round(time.time() - started), "summary": summary,
                   "probes": runner.records}, f, indent=1)
    print(f"records written to {output}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
