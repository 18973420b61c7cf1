#!/usr/bin/env python3
"""The table of bench/gpu_tc3_det.sh: runapp's rows (runs.jsonl) beside cuBLAS (cublas.json).

Arguments: runs.jsonl cublas.json. Prints the checks, det_f32's bits per backend and its speed
against the device copy, and each matmul step's TFLOP/s and its ratio to cuBLAS FP32 and TF32.
"""
import json
import re
import sys


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    try:
        cublas = json.load(open(sys.argv[2]))
    except (OSError, ValueError):
        cublas = {}
    print("== checks")
    for r in rows:
        if r["label"].startswith(("check", "det")):
            note = r.get("note", "")
            m = re.search(r"(float32-accurate.*|TF32, not float32.*|sum .*?repeated runs)", note)
            print("%-34s %-8s %-7s %s err %.3g (tol %.3g) %s" % (
                r["label"], r["variant"], r.get("status"), r.get("size"),
                r.get("max_error", 0) or 0, r.get("tolerance", 0) or 0, m.group(1) if m else ""))
    print("== det_f32 bits at 2^28 per backend")
    bits = {}
    for r in rows:
        if r["variant"] == "det_f32":
            m = re.search(r"bits (0x[0-9a-f]{8})", r.get("note", ""))
            bits.setdefault(r["size"], set()).add(m.group(1) if m else "none")
            if r["label"].endswith("2^28"):
                copy = cublas.get("copy_2^28", {}).get("gbs")
                gbs = r.get("effective_gbs") or 0
                print("%-28s %s  %.0f GB/s%s" % (r["label"], m.group(1) if m else "-", gbs,
                      "  = %.3f of the copy's %.0f GB/s" % (gbs / copy, copy) if copy else ""))
    for size, b in sorted(bits.items()):
        print("size %-10s %s" % (size, "same bits on every run and backend" if len(b) == 1
                                 else "DIFFERENT bits: %s" % sorted(b)))
    print("== speed (TFLOP/s; x cuBLAS FP32 / TF32 of the same size)")
    for k, v in sorted(cublas.items()):
        if isinstance(v, dict) and "tflops" in v:
            print("cuBLAS %-10s %7.1f TFLOP/s  err max %.2e mean %.2e" % (
                k, v["tflops"], v["err_max"], v["err_mean"]))
    for r in rows:
        if r["label"].startswith("speed") and r.get("gflops"):
            n = r["size"].split("x")[0]
            tf = r["gflops"] / 1000
            fp32 = cublas.get("fp32_%s" % n, {}).get("tflops")
            tf32 = cublas.get("tf32_%s" % n, {}).get("tflops")
            m = re.search(r"max ([0-9.e+-]+), mean ([0-9.e+-]+)", r.get("note", ""))
            print("%-22s %-6s %-7s %7.1f  x%.2f / x%.2f  %s" % (
                r["label"], r["variant"], r.get("status"), tf, tf / fp32 if fp32 else 0,
                tf / tf32 if tf32 else 0, "err max %s mean %s" % m.groups() if m else ""))


if __name__ == "__main__":
    main()
