#!/usr/bin/env python3
"""Warm start against the driver's floor (issue #15, item 4), per device.

The floor: bench/warm_floor_opencl or warm_floor_cuda, a process that only creates a context and
loads vecadd's prebuilt program (the OpenCL binary it wrote in a first, cold run; CUDA's embedded
fatbin). Against it: `runapp run vecadd --variant naive` with a warm cache (one priming run first),
with DUET_LOG_LEVEL=debug, whose timestamped lines say where its time goes. Each is run RUNS
times; medians in ms from the start of the process (time of day of the log lines, ms resolution,
against the time the process was started):

  warm_start.py --runapp PATH --bin DIR [--devices cuda:0,opencl:1] [--runs 7] [--icd-only DIR]

--icd-only DIR: also time both with OCL_ICD_VENDORS=DIR (only NVIDIA's ICD), which shows what
loading the machine's other ICDs costs every OpenCL program. Prints a text report; --json FILE
writes the figures too.
"""
import argparse
import datetime
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

LINE = re.compile(r"^\[duet debug (\d\d):(\d\d):(\d\d)\.(\d\d\d)\] (.*)$")


def since_start(stderr, t0):
    """(ms since t0, message) for each debug line; the log's clock is the local time of day."""
    day = datetime.datetime.fromtimestamp(t0)
    midnight = day.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
    out = []
    for line in stderr.splitlines():
        m = LINE.match(line)
        if m:
            h, mi, s, ms = map(int, m.groups()[:4])
            out.append(((midnight + h * 3600 + mi * 60 + s + ms / 1000.0 - t0) * 1000.0, m.group(5)))
    return out


def key_of(msg):
    # "clGetDeviceIDs(NVIDIA CUDA)" -> "clGetDeviceIDs"; "cuda: cudaGetDeviceCount(&count) -> ..."
    msg = msg[6:] if msg.startswith("cuda: ") else msg
    return re.split(r"[\s(]", msg, 1)[0]


# Where the time goes: from the start of the process to the first line of each stage.
STAGES = [
    ("plugin loading", ("dlopen",)),
    ("ICD loading and platform enumeration", ("clGetPlatformIDs", "cudaRuntimeGetVersion", "cudaDriverGetVersion", "cudaGetDeviceCount")),
    ("device queries", ("clGetDeviceIDs", "cudaGetDeviceProperties", "cudaSetDevice")),
    ("cache lookup and program load", ("clCreateProgramWithBinary", "clBuildProgram", "kernel")),
    ("context", ("clCreateContext", "cudaFree", "cudaStreamCreate", "cudaStreamCreateWithFlags")),
    ("first launch", ("clEnqueueNDRangeKernel", "cudaLaunchKernel")),
]


def run(cmd, env):
    t0 = time.time()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    wall = (time.time() - t0) * 1000.0
    return p, t0, wall


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def floor_runs(args, dev, platform, env, tmp):
    if dev.startswith("cuda"):
        exe = os.path.join(args.bin, "warm_floor_cuda")
        cmd = [exe, os.path.join(args.bin, "vecadd.fatbin"), dev.split(":")[1]]
    else:
        exe = os.path.join(args.bin, "warm_floor_opencl")
        binary = os.path.join(tmp, "vecadd-%s.bin" % dev.replace(":", ""))
        cmd = [exe, platform, binary, os.path.join(args.root, "kernels_cl", "vecadd.cl")]
        if not os.path.exists(binary):
            p, _, _ = run(cmd, env)  # the cold run writes the binary
            if p.returncode:
                return {"error": p.stderr.strip()[-300:]}
    if not os.path.exists(exe):
        return {"error": "no %s (build with -DDUET_BENCH=ON)" % exe}
    walls, inner = [], []
    for _ in range(args.runs):
        p, _, wall = run(cmd, env)
        if p.returncode:
            return {"error": p.stderr.strip()[-300:]}
        walls.append(wall)
        inner.append(json.loads(p.stdout))
    keys = [k for k in inner[0] if k.endswith("_ms")]
    return {"wall_ms": med(walls), "steps_ms": {k: med([i[k] for i in inner]) for k in keys},
            "runs": len(walls)}


def runapp_runs(args, dev, env, tmp):
    env = dict(env, DUET_CACHE_DIR=os.path.join(tmp, "cache-" + dev.replace(":", "")),
               DUET_LOG_LEVEL="debug")
    cmd = [args.runapp, "run", "vecadd", "--variant", "naive", "--device", dev, "--size", "1024",
           "--reps", "1", "--warmup", "0", "--quiet"]  # the table a user sees: --format json
    # would add the provenance, whose device list opens every backend (about 190 ms here)
    p, _, _ = run(cmd, env)  # priming: fills the cache
    if p.returncode:
        return {"error": p.stderr.strip()[-300:]}
    walls, firsts, stage_times, timelines = [], [], {s: [] for s, _ in STAGES}, []
    for _ in range(args.runs):
        p, t0, wall = run(cmd, env)
        if p.returncode:
            return {"error": p.stderr.strip()[-300:]}
        walls.append(wall)
        lines = since_start(p.stderr, t0)
        seen = {}
        for ms, msg in lines:
            seen.setdefault(key_of(msg), ms)
        timelines.append(seen)
        for stage, keys in STAGES:
            times = [seen[k] for k in keys if k in seen]
            stage_times[stage].append(min(times) if times else None)
        launch = [seen[k] for k in ("clEnqueueNDRangeKernel", "cudaLaunchKernel") if k in seen]
        firsts.append(min(launch) if launch else None)
    order = sorted({k for t in timelines for k in t}, key=lambda k: med([t.get(k) for t in timelines]))
    return {"wall_ms": med(walls), "first_launch_ms": med(firsts),
            "stage_start_ms": {s: med(v) for s, v in stage_times.items()},
            "timeline_ms": {k: med([t.get(k) for t in timelines]) for k in order[:40]},
            "runs": len(walls)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runapp", required=True)
    ap.add_argument("--bin", required=True, help="directory of warm_floor_* and vecadd.fatbin")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--devices", default="")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--icd-only", default="")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    env = dict(os.environ)
    listing = json.loads(subprocess.run([args.runapp, "list", "--format", "json"], env=dict(env, DUET_CACHE_DIR=""),
                                        capture_output=True, text=True).stdout)["devices"]
    platforms = {d["id"]: d.get("platform", "") for d in listing}
    devices = [d for d in args.devices.split(",") if d] or list(platforms)
    tmp = tempfile.mkdtemp(prefix="duet-warm-")
    report = {}
    variants = [("all ICDs", env)]
    if args.icd_only:
        variants.append(("only " + args.icd_only, dict(env, OCL_ICD_VENDORS=args.icd_only)))
    for dev in devices:
        for label, e in variants:
            if label != "all ICDs" and not dev.startswith("opencl"):
                continue
            if label != "all ICDs":
                # the device's index may differ with fewer ICDs: NVIDIA's alone is opencl:0
                d = "opencl:0"
            else:
                d = dev
            plat = platforms.get(dev, "")
            report[dev + " (" + label + ")"] = {"floor": floor_runs(args, d, plat.split()[0] if plat else "", e, tmp),
                                                "runapp": runapp_runs(args, d, e, tmp)}
    for name, r in report.items():
        f, a = r["floor"], r["runapp"]
        print("== %s" % name)
        if "error" in f:
            print("  floor: error: %s" % f["error"])
        else:
            print("  floor (context + prebuilt vecadd, nothing else): process %.1f ms; inside: %s"
                  % (f["wall_ms"], ", ".join("%s %.1f" % (k[:-3], v) for k, v in f["steps_ms"].items())))
        if "error" in a:
            print("  runapp: error: %s" % a["error"])
            continue
        print("  runapp run vecadd, warm cache: process %.1f ms, first launch at %s ms"
              % (a["wall_ms"], "%.1f" % a["first_launch_ms"] if a["first_launch_ms"] is not None else "?"))
        if "error" not in f and a["first_launch_ms"]:
            print("  ratio: first launch / floor process = %.2f; runapp process / floor process = %.2f"
                  % (a["first_launch_ms"] / f["wall_ms"], a["wall_ms"] / f["wall_ms"]))
        print("  stages (first log line of each, ms from process start):")
        for s, v in a["stage_start_ms"].items():
            print("    %-40s %s" % (s, "%.1f" % v if v is not None else "-"))
        print("  timeline (first occurrence of each logged call, ms):")
        for k, v in a["timeline_ms"].items():
            print("    %-40s %s" % (k, "%.1f" % v if v is not None else "-"))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=1)


if __name__ == "__main__":
    main()
