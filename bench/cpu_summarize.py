#!/usr/bin/env python3
"""Reads the JSON files bench/cpu_perf.sh wrote and prints the table of docs/results/cpu.md:
Duet through PoCL, the reference on the same CPU, and the ratio (ours / reference, higher is better).

References: for matmul the native row of the same run (`runapp run --reference`: OpenBLAS sgemm
through runapp, or its blocked loop), else bench/openblas_sgemm; for the memory-bound apps
(vecadd, reduction, conv5x5) the host's native multi-threaded copy of the same bytes
(native_copy_gbs of the run), else `runapp bandwidth`'s device->device copy on the PoCL device
(bytes read + written, like the apps' effective GB/s). The native rows themselves are listed too.
Rows: every variant run of matmul and reduction; for vecadd and conv5x5 the fastest variant,
`best` and `cpu` (where not the fastest); --all lists every variant. Standard library only.

usage: cpu_summarize.py OUT_DIR [--all]"""
import glob
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from summarize import load, load_lines  # noqa: E402  (the GPU table's readers)

ORDER = ["vecadd", "reduction", "matmul", "conv5x5"]
ALL_VARIANTS = {"matmul", "reduction"}  # the others: fastest (and `best`)


def fmt(x, digits=3):
    """A figure with about `digits` significant digits, no exponent."""
    if x is None or not math.isfinite(x):
        return "-"
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(x)))))
    return f"{x:.{decimals}f}"


def short_pocl(version):
    """'OpenCL 3.0 PoCL 3.1+debian  Linux, ..., LLVM 15.0.6, ...' -> 'PoCL 3.1+debian, LLVM 15.0.6'."""
    pocl = re.search(r"PoCL (\S+)", version)
    llvm = re.search(r"LLVM ([0-9.]+)", version)
    if not pocl:
        return version
    return f"PoCL {pocl.group(1)}" + (f", LLVM {llvm.group(1)}" if llvm else "")


def size_label(app, size):
    parts = size.split("x")
    if app == "matmul" and len(parts) == 3 and len(set(parts)) == 1:
        return f"{parts[0]}³"
    if app == "conv5x5" and len(parts) == 2 and parts[0] == parts[1]:
        return f"{parts[0]}²"
    if len(parts) == 1 and size.isdigit():
        n = int(size)
        if n > 0 and n & (n - 1) == 0:
            return f"2^{n.bit_length() - 1}"
    return size


def main(out, show_all):
    meta = load(os.path.join(out, "meta.json")) or {}
    steps = {}
    try:
        for line in open(os.path.join(out, "steps.txt")):
            name, rc = line.split()
            steps[name] = int(rc)
    except Exception:
        pass

    copy_gbs = None
    for path in sorted(glob.glob(os.path.join(out, "bandwidth_*.json"))):
        for r in (load(path) or {}).get("results", []):
            if r.get("transfer") == "device->device":
                copy_gbs = r["gbs"]
    blas = {r["n"]: r for r in load_lines(os.path.join(out, "openblas.jsonl"))}

    device = pocl = ""
    rows = []
    for app in ORDER:
        for path in sorted(glob.glob(os.path.join(out, f"perf_{app}_*.json"))):
            name = os.path.basename(path)[:-5]
            data = load(path)
            if not data or not data.get("results"):
                rc = steps.get(name)
                rows.append((app, "-", "no data" + (f" (exit {rc})" if rc else ""), "", ""))
                continue
            for d in data.get("devices", []):
                device = device or d.get("name", "")
                pocl = pocl or d.get("platform_version", "")
            by_size = {}
            for r in data["results"]:
                by_size.setdefault(r["size"], []).append(r)
            for size, results in by_size.items():
                label = f"{app} {size_label(app, size)}"
                native = next((r for r in results if r.get("backend") == "native"
                               and r.get("pass")), None)
                results = [r for r in results if r.get("backend") != "native"] + (
                    [r for r in results if r.get("backend") == "native"])
                good = [r for r in results if r.get("pass") and not r.get("skipped")]
                for r in results:
                    if not r.get("pass") and not r.get("skipped"):
                        rows.append((label, r["variant"], "FAIL (wrong result)", "", ""))
                if not good:
                    continue
                metric = "gflops" if app == "matmul" else "effective_gbs"
                fastest = max(good, key=lambda r: r.get(metric) or 0)
                if show_all or app in ALL_VARIANTS:
                    shown = good
                else:
                    shown = [fastest] + [r for r in good if r is not fastest and (
                        r["variant"] in ("best", "cpu") or r.get("backend") == "native")]
                for r in shown:
                    ms = r["kernel_ms"]["median"]
                    tag = r["variant"]
                    if not (show_all or app in ALL_VARIANTS) and r is fastest and len(good) > 1:
                        tag += f", fastest of {len(good)}"
                    if r.get("backend") == "native":
                        tag = f"native: {r.get('device', '')}"
                    if app == "matmul":
                        ours = f"{fmt(r['gflops'])} GFLOP/s ({fmt(ms)} ms)"
                        n = int(size.split("x")[0])
                        ref = blas.get(n)
                        if native and native.get("gflops"):
                            refs = f"native {fmt(native['gflops'])} GFLOP/s ({fmt(native['kernel_ms']['median'])} ms)"
                            ratio = f"{r['gflops'] / native['gflops']:.2f}"
                        elif ref:
                            refs = f"OpenBLAS {fmt(ref['gflops'])} GFLOP/s ({fmt(ref['ms_median'])} ms)"
                            ratio = f"{r['gflops'] / ref['gflops']:.2f}" if ref["gflops"] else "-"
                        else:
                            refs, ratio = "OpenBLAS: no data", "-"
                    else:
                        ours = f"{fmt(r['effective_gbs'])} GB/s ({fmt(ms)} ms)"
                        if r.get("native_copy_gbs"):
                            refs = f"native copy {fmt(r['native_copy_gbs'])} GB/s"
                            ratio = f"{r['effective_gbs'] / r['native_copy_gbs']:.2f}"
                        elif copy_gbs:
                            refs = f"copy {fmt(copy_gbs)} GB/s"
                            ratio = f"{r['effective_gbs'] / copy_gbs:.2f}"
                        else:
                            refs, ratio = "copy: no data", "-"
                    rows.append((label, tag, ours, refs, ratio))

    threads = meta.get("openblas_num_threads") or next((str(r["threads"]) for r in blas.values()), "?")
    print(f"Duet on {device or meta.get('device', '?')} ({short_pocl(pocl) or 'PoCL ?'}), "
          f"{meta.get('date', '?')}; CPU {meta.get('cpu_model', '?')}, {meta.get('nproc', '?')} CPUs; "
          f"OpenBLAS {meta.get('openblas_version', '?')}, OPENBLAS_NUM_THREADS={threads}; "
          f"medians of {meta.get('reps', '?')} runs")
    print()
    print("| work | variant | Duet on PoCL (or native) | reference (same CPU) | ratio |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print("Duet: kernel time from OpenCL profiling events; GB/s count bytes read + written (reduction: "
          "read). native: runapp's native CPU reference rows (host clock, median; OpenBLAS sgemm for "
          "matmul), checked like the device rows. native copy: the host's multi-threaded streaming "
          "copy of the same bytes (read + written), the ceiling for the memory-bound apps; copy: "
          "`runapp bandwidth` device->device on the PoCL device where the run has no native copy.")
    for path in sorted(glob.glob(os.path.join(out, "bandwidth_*.json"))):
        res = (load(path) or {}).get("results", [])
        if res:
            print()
            print("| copies, GB/s | " + " | ".join(r["transfer"] for r in res) + " |")
            print("|---|" + "---|" * len(res))
            print(f"| {res[0].get('device_id', '')} ({fmt(res[0]['bytes'] / 2**20)} MiB) | "
                  + " | ".join(fmt(r["gbs"]) for r in res) + " |")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--all"]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    main(args[0], "--all" in sys.argv[1:])
