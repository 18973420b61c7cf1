#!/usr/bin/env bash
# Cold against warm program cache at runapp start-up (issue "Performance": a warm cache makes a
# second runapp start at least 10x faster to first launch than a cold build; reported here, not
# asserted). Per device, RUNS times: an empty DUET_CACHE_DIR, then
#   runapp run matmul --variant best --size 64 --reps 1 --warmup 0 --format json --device D
# twice in that directory: the first run builds (cold), the second finds the program (warm).
# Reported, cold and warm (medians) and cold/warm: the build_ms of runapp's JSON, the time from
# starting the process to its first kernel launch (from the timestamped DUET_LOG_LEVEL=debug
# lines: the first cudaLaunchKernel / clEnqueueNDRangeKernel), and the whole process's wall time.
#
#   bench/cache_startup.sh [--runapp PATH] [--devices D1,D2] [--runs N] [--json]
#                          [--vendor-caches pair|isolate|keep] [--kernel-dir DIR]
#
# --runapp         the runapp to time (default: $RUNAPP, else $DUET_BUILD/bin/runapp, else
#                  build/bin/runapp of this tree)
# --devices        devices as runapp names them (default: every device of runapp list)
# --runs           cold/warm pairs per device (default 5)
# --vendor-caches  the drivers' own compiler caches (POCL_CACHE_DIR; CUDA_CACHE_PATH, which also
#                  holds NVIDIA's OpenCL's machine code for the PTX it calls a binary):
#                  pair (default): empty for each cold run, and the warm run after it finds what
#                  the cold run left there, as a user's second start does;
#                  isolate: empty for every process, so that only Duet's cache differs;
#                  keep: left as they are
# --kernel-dir     sets DUET_KERNEL_DIR to a source tree holding kernels_cl/ and kernels_cu/ (this
#                  repository): on CUDA, Duet's kernels are otherwise the fatbin embedded at build
#                  time and never go through the program cache (cold = warm, a cache hit both
#                  times); with the tree's sources they are compiled by NVRTC and cached
# Exit code: 0, or 3 when a device gave no result (its error is printed).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNAPP_PATH=${RUNAPP:-}
if [ -z "$RUNAPP_PATH" ]; then
    if [ -n "${DUET_BUILD:-}" ]; then RUNAPP_PATH=$DUET_BUILD/bin/runapp; else RUNAPP_PATH=$ROOT/build/bin/runapp; fi
fi
DEVICES="" RUNS=5 JSON=0 VENDOR=pair KERNEL_DIR=""
while [ $# -gt 0 ]; do
    case $1 in
        --runapp) RUNAPP_PATH=$2; shift 2 ;;
        --devices|--device) DEVICES=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --json) JSON=1; shift ;;
        --vendor-caches) VENDOR=$2; shift 2 ;;
        --kernel-dir) KERNEL_DIR=$2; shift 2 ;;
        -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "cache_startup.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
[ -x "$RUNAPP_PATH" ] || { echo "cache_startup.sh: no runapp at $RUNAPP_PATH (use --runapp)" >&2; exit 2; }
case $VENDOR in pair|isolate|keep) ;; *) echo "cache_startup.sh: --vendor-caches pair|isolate|keep" >&2; exit 2 ;; esac
case $RUNS in ''|*[!0-9]*|0) echo "cache_startup.sh: --runs needs a positive integer" >&2; exit 2 ;; esac

export RUNAPP_PATH DEVICES RUNS JSON VENDOR KERNEL_DIR
exec python3 - <<'PY'
import datetime, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

runapp = os.environ["RUNAPP_PATH"]
runs = int(os.environ["RUNS"])
as_json = os.environ["JSON"] == "1"
vendor_mode = os.environ["VENDOR"]
kernel_dir = os.environ["KERNEL_DIR"]

def listed_devices():
    env = dict(os.environ)
    env["DUET_CACHE_DIR"] = ""
    out = subprocess.run([runapp, "list", "--format", "json"], env=env, capture_output=True,
                         text=True, check=True).stdout
    return [d["id"] for d in json.loads(out)["devices"]]

devices = [d for d in os.environ["DEVICES"].split(",") if d] or listed_devices()
if not devices:
    sys.exit("cache_startup.sh: runapp list shows no devices")

work = tempfile.mkdtemp(prefix="duet-cache-startup-")

LAUNCH = re.compile(r"^\[duet debug (\d\d):(\d\d):(\d\d)\.(\d\d\d)\] .*(cudaLaunchKernel\(|clEnqueueNDRangeKernel\()")

def first_launch_ms(stderr, t0):
    # The log's time of day (local time, ms) of the first launch, less the start of the process.
    for line in stderr.splitlines():
        m = LAUNCH.match(line)
        if m:
            day = datetime.datetime.fromtimestamp(t0).replace(hour=int(m[1]), minute=int(m[2]),
                                                              second=int(m[3]),
                                                              microsecond=int(m[4]) * 1000)
            t = day.timestamp()
            if t < t0 - 60:  # past midnight
                t += 86400
            return max(0.0, (t - t0) * 1e3)
    return None

def run_once(device, cache_dir, tag, vendor_tag):
    env = dict(os.environ)
    env["DUET_CACHE_DIR"] = cache_dir
    env["DUET_LOG_LEVEL"] = "debug"
    if kernel_dir:
        env["DUET_KERNEL_DIR"] = kernel_dir
    if vendor_mode != "keep":
        vendor = os.path.join(work, "vendor-" + vendor_tag)
        if vendor_mode == "isolate" or tag.startswith(("cold", "prime")):
            shutil.rmtree(vendor, ignore_errors=True)
        os.makedirs(os.path.join(vendor, "pocl"), exist_ok=True)
        os.makedirs(os.path.join(vendor, "cuda"), exist_ok=True)
        env["POCL_CACHE_DIR"] = os.path.join(vendor, "pocl")
        env["CUDA_CACHE_PATH"] = os.path.join(vendor, "cuda")
    cmd = [runapp, "run", "matmul", "--variant", "best", "--size", "64", "--reps", "1",
           "--warmup", "0", "--format", "json", "--device", device]
    t0_wall = time.time()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall_ms = (time.perf_counter() - t0) * 1e3
    r = {"wall_ms": wall_ms, "exit": p.returncode}
    launch = first_launch_ms(p.stderr, t0_wall)
    if launch is not None:
        r["first_launch_ms"] = launch
    try:
        res = json.loads(p.stdout)["results"][0]
        r.update(build_ms=res["build_ms"], cache_hit=res["cache_hit"], passed=res.get("pass"))
        if res.get("skipped"):
            r["error"] = "skipped: " + res.get("note", "")
    except (ValueError, KeyError, IndexError):
        r["error"] = (p.stderr.strip() or p.stdout.strip())[-400:] or "no JSON output"
    if "first_launch_ms" not in r and "error" not in r:
        r["error"] = "no timestamped launch in the debug log"
    if p.returncode != 0 and "error" not in r:
        r["error"] = "exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])
    return r

report = {"benchmark": "cache_startup", "runapp": runapp, "runs": runs,
          "command": "runapp run matmul --variant best --size 64 --reps 1 --warmup 0 "
                     "--format json --device D",
          "vendor_caches": {"pair": "fresh for each cold run, kept for the warm run after it",
                            "isolate": "empty for every process",
                            "keep": "kept"}[vendor_mode],
          "kernel_dir": kernel_dir or None, "target_ratio": 10, "devices": []}
try:
    # One untimed run first, cache off, so that the first timed process does not also pay for
    # loading the binaries and libraries from disk.
    run_once(devices[0], "", "prime", "prime")
    for dev in devices:
        cold, warm = [], []
        for i in range(runs):
            cache = os.path.join(work, "cache")
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)
            cold.append(run_once(dev, cache, "cold%d" % i, "pair%d" % i))
            warm.append(run_once(dev, cache, "warm%d" % i, "pair%d" % i if vendor_mode == "pair" else "w%d" % i))
        entry = {"device": dev, "cold": cold, "warm": warm}
        errors = [r["error"] for r in cold + warm if "error" in r]
        if errors:
            entry["error"] = errors[0]
        ok_c = [r for r in cold if "error" not in r]
        ok_w = [r for r in warm if "error" not in r]
        if ok_c and ok_w:
            med = lambda rs, k: statistics.median(r[k] for r in rs)
            s = {"cold_build_ms": med(ok_c, "build_ms"), "warm_build_ms": med(ok_w, "build_ms"),
                 "cold_wall_ms": med(ok_c, "wall_ms"), "warm_wall_ms": med(ok_w, "wall_ms"),
                 "cold_first_launch_ms": med(ok_c, "first_launch_ms"),
                 "warm_first_launch_ms": med(ok_w, "first_launch_ms"),
                 "cold_cache_hits": sum(1 for r in ok_c if r["cache_hit"]),
                 "warm_cache_hits": sum(1 for r in ok_w if r["cache_hit"])}
            s["build_ratio"] = s["cold_build_ms"] / s["warm_build_ms"] if s["warm_build_ms"] > 0 else None
            s["wall_ratio"] = s["cold_wall_ms"] / s["warm_wall_ms"] if s["warm_wall_ms"] > 0 else None
            s["first_launch_ratio"] = (s["cold_first_launch_ms"] / s["warm_first_launch_ms"]
                                       if s["warm_first_launch_ms"] > 0 else None)
            entry["median"] = s
        report["devices"].append(entry)
finally:
    shutil.rmtree(work, ignore_errors=True)

status = 0 if all("median" in e for e in report["devices"]) else 3
if as_json:
    print(json.dumps(report, indent=2))
    sys.exit(status)

print("Program cache at start-up: %s" % report["command"])
print("median of %d cold/warm pairs; cold = empty DUET_CACHE_DIR, warm = the same directory "
      "again; vendor caches %s%s" % (runs, report["vendor_caches"],
                                     "; DUET_KERNEL_DIR=" + kernel_dir if kernel_dir else ""))
print()
fmt = "%-12s %22s %7s %22s %7s %22s %7s  %s"
print(fmt % ("device", "build ms cold/warm", "ratio", "first launch ms", "ratio",
             "process wall ms", "ratio", "cache hits cold/warm"))
ratio = lambda v: "-" if v is None else "%.1fx" % v
pair = lambda s, k, f: (f % s["cold_" + k]) + " / " + (f % s["warm_" + k])
for e in report["devices"]:
    s = e.get("median")
    if s:
        print(fmt % (e["device"], pair(s, "build_ms", "%.1f"), ratio(s["build_ratio"]),
                     pair(s, "first_launch_ms", "%.0f"), ratio(s["first_launch_ratio"]),
                     pair(s, "wall_ms", "%.0f"), ratio(s["wall_ratio"]),
                     "%d/%d of %d" % (s["cold_cache_hits"], s["warm_cache_hits"], runs)))
    else:
        print("%-12s no result" % e["device"])
    if "error" in e:
        print("  error: %s" % e["error"].replace("\n", " ")[:300])
print()
print("target: a warm start at least 10x faster to first launch than a cold one")
sys.exit(status)
PY
