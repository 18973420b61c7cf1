#!/usr/bin/env python3
"""The summary of bench/gpu_round.sh: reads the JSON files of one round's directory, prints text.

  round_summary.py DIR
"""
import glob
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def results(path):
    d = load(path)
    return d.get("results", []) if isinstance(d, dict) else []


def gflops(r):
    ms = (r.get("kernel_ms") or {}).get("median")
    return r.get("gflops") or (2.0 * eval_size(r["size"]) / ms / 1e6 if ms else None)


def eval_size(label):
    n = 1
    for p in label.split("x"):
        n *= int(p)
    return n


def status(r):
    return r.get("status") or ("pass" if r.get("pass") else "FAIL")


def main():
    d = sys.argv[1]
    ref = load(os.path.join(d, "reference_tf32.json")) or {}
    print("# issue #15 round: %s" % (ref.get("device", "")))
    print("\n## 1. tf32 step against cuBLAS with TF32 (torch allow_tf32), GFLOP/s")
    for n in (4096, 8192):
        c = ref.get("tf32_%d" % n)
        if c:
            print("cuBLAS TF32 %d: %.0f GFLOP/s, max error %.2e of sum|a*b| (64 rows vs float64)"
                  % (n, c["gflops"], c["max_error_of_abs_sum"]))
    for path in sorted(glob.glob(os.path.join(d, "tf32_*.json"))):
        if "_cfg" in path:
            continue
        for r in results(path):
            g = gflops(r) if not r.get("skipped") else None
            c = ref.get("tf32_%s" % r["size"].split("x")[0], {})
            ratio = " = %.3f x cuBLAS TF32" % (g / c["gflops"]) if g and c.get("gflops") else ""
            print("%-10s %-16s %-6s %s%s" % (r.get("device_id"), r.get("size"), status(r),
                                            "%.0f GFLOP/s" % g if g else "-", ratio))
            if r.get("note"):
                print("    note: %s" % r["note"])
    print("\ntf32 tile configurations (CUDA, 8192^3):")
    for path in sorted(glob.glob(os.path.join(d, "tf32_cfg*.json"))):
        cfg = open(path[:-5] + ".cfg").read().strip() if os.path.exists(path[:-5] + ".cfg") else "?"
        for r in results(path):
            g = gflops(r)
            print("  %-40s %-6s %s" % (cfg, status(r), "%.0f GFLOP/s" % g if g else "-"))

    print("\n## 2. sgemm best against cuBLAS FP32 (alternating rounds)")
    s = load(os.path.join(d, "sgemm_rounds.json"))
    if s:
        for n, v in s.get("cublas", {}).items():
            print("cuBLAS %s: %s GFLOP/s" % (n, " ".join("%.0f" % g for g in v)))
        for e in s.get("summary", []):
            print("%-8s %-10s %5s  %-24s median ratio %s" % (
                e["config"], e["device"], e["n"], " ".join("%.0f" % g for g in e["gflops"]),
                "-" if e["median_ratio"] is None else "%.3f" % e["median_ratio"]))
    else:
        print("(no sgemm_rounds.json)")

    print("\n## 3. OpenCL / CUDA per step (kernel ms medians; > 1: OpenCL slower)")
    for app in ("matmul", "reduction", "conv5x5"):
        cu = {(r["variant"], r["size"]): r for r in results(os.path.join(d, "ladder_%s_cuda0.json" % app))}
        cl_paths = [p for p in glob.glob(os.path.join(d, "ladder_%s_opencl*.json" % app))]
        cl = {(r["variant"], r["size"]): r for p in cl_paths for r in results(p)}
        print("%s:" % app)
        for key in list(cu) + [k for k in cl if k not in cu]:
            a, b = cu.get(key), cl.get(key)
            ams = (a or {}).get("kernel_ms", {}).get("median") if a and not a.get("skipped") else None
            bms = (b or {}).get("kernel_ms", {}).get("median") if b and not b.get("skipped") else None
            ratio = "%.2f" % (bms / ams) if ams and bms else "-"
            flag = "" if ratio == "-" or float(ratio) <= 1.10 else "   <-- over 1.10"
            print("  %-22s %-16s cuda %-10s opencl %-10s ratio %s%s" % (
                key[0], key[1], "%.4f" % ams if ams else status(a) if a else "-",
                "%.4f" % bms if bms else status(b) if b else "-", ratio, flag))
    print("\nOpenCL without this round's parity changes (same device, same sizes):")
    for name, what in (("ablate_matmul_nounroll", "no unroll hints (DUET_NO_NV_UNROLL)"),
                       ("ablate_reduction_cas", "compare-and-swap float atomic")):
        for r in results(os.path.join(d, name + ".json")):
            ms = (r.get("kernel_ms") or {}).get("median")
            print("  %-22s %-16s %-40s %s" % (r.get("variant"), r.get("size"), what,
                                              "%.4f ms" % ms if ms else status(r)))
    print("\n## 4. warm start (bench/warm_start.py; its report follows)")


if __name__ == "__main__":
    main()
