#!/usr/bin/env python3
"""Reads the JSON files bench/gpu_perf.sh wrote and prints the table of docs/results/nvidia-h100.md:
our figure (best variant per app, per backend), the reference, and the ratio."""
import glob
import json
import os
import statistics
import sys


def load(path):
    """The JSON in `path`, or None when it is missing or unreadable."""
    try:
        with open(path) as f:
            return json.load(f)
    except Exception:
        return None


def load_lines(path):
    """The JSON objects of a JSON-lines file (as many as could be read; none if missing)."""
    rows = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    rows.append(json.loads(line))
    except Exception:
        pass
    return rows


def main(out):
    ref = load(os.path.join(out, "reference.json")) or {}
    clblast = {r["n"]: r["gflops"] for r in load_lines(os.path.join(out, "clblast.jsonl"))}
    rows = []
    by_backend = {}  # (app, size, variant) -> {backend: figure}: OpenCL against CUDA below
    for path in sorted(glob.glob(os.path.join(out, "perf_*.json"))):
        if "bandwidth" in path:
            continue
        data = load(path)
        if not data:
            rows.append((os.path.basename(path), "no data", "", "", ""))
            continue
        best = {}
        for r in data["results"]:
            key = (r["app"], r["size"], r["backend"])
            metric = r.get("gflops") or r.get("effective_gbs") or 0
            if not r["pass"]:
                continue
            by_backend.setdefault((r["app"], r["size"], r["variant"]), {})[r["backend"]] = metric
            if key not in best or metric > best[key][0]:
                best[key] = (metric, r)
        for (app, size, backend), (metric, r) in sorted(best.items()):
            unit = "GFLOP/s" if "gflops" in r else "GB/s"
            refs = []
            if app == "vecadd" and "vecadd_2^28" in ref:
                refs.append(("torch.add", ref["vecadd_2^28"]["gbs"]))
            if app == "reduction" and "sum_2^28_torch" in ref:
                refs.append(("torch.sum", ref["sum_2^28_torch"]["gbs"]))
                if "gbs" in ref.get("sum_2^28_cupy", {}):
                    refs.append(("cupy.sum", ref["sum_2^28_cupy"]["gbs"]))
            if app == "matmul":
                n = int(size.split("x")[0])
                if f"sgemm_{n}" in ref:
                    refs.append(("cuBLAS", ref[f"sgemm_{n}"]["gflops"]))
                if n in clblast:
                    refs.append(("CLBlast", clblast[n]))
            if app == "conv5x5":
                if "copy_2^28" in ref:
                    refs.append(("copy bw", ref["copy_2^28"]["gbs"]))
                if "conv5x5_8192" in ref:
                    refs.append(("cuDNN ms", ref["conv5x5_8192"]["ms"]))
            for name, value in refs or [("-", 0)]:
                if name == "cuDNN ms":
                    ratio = value / r["kernel_ms"]["median"] if r["kernel_ms"]["median"] else 0
                    rows.append((f"{app} {size}", f"{backend} {r['variant']}", f"{r['kernel_ms']['median']:.3f} ms",
                                 f"{name} {value:.3f} ms", f"{ratio:.1f}x faster"))
                else:
                    rows.append((f"{app} {size}", f"{backend} {r['variant']}", f"{metric:.1f} {unit}",
                                 f"{name} {value:.1f}", f"{metric / value:.2f}" if value else "-"))
    # The same algorithm through both backends on one GPU: OpenCL's figure over CUDA's.
    for (app, size, variant), m in sorted(by_backend.items()):
        if "cuda" in m and "opencl" in m and m["cuda"] and variant in ("best", "vec4", "grid_stride_f32", "shuffle_f32"):
            rows.append((f"{app} {size}", f"opencl/cuda {variant}", f"{m['opencl']:.1f}",
                         f"cuda {m['cuda']:.1f}", f"{m['opencl'] / m['cuda']:.2f} (target 0.90-1.11)"))
    rounds = load(os.path.join(out, "sgemm_rounds.json"))
    if rounds:
        for e in rounds["summary"]:
            if e["median_ratio"] is not None:
                size = f"{e['n']}^3" if isinstance(e["n"], int) else str(e["n"])
                rows.append((f"matmul {size}, {len(e['ratios'])} alternating rounds",
                             f"{e['config']} best", " ".join("%.0f" % g for g in e["gflops"]) + " GFLOP/s",
                             "cuBLAS " + " ".join("%.0f" % g for g in rounds["cublas"][str(e["n"])]),
                             f"median {e['median_ratio']:.3f}"))
    odd = load(os.path.join(out, "sgemm_odd.json"))  # sgemm_rounds.py --odd
    if odd:
        for e in odd["summary"]:
            if e.get("of_square") is not None and str(e["n"]) != e.get("square"):
                rows.append((f"matmul {e['n']}, against {e['square']}^3", f"{e['config']} best",
                             "%.0f GFLOP/s" % statistics.median(e["gflops"]),
                             "cuBLAS %.2f of its square" % odd["cublas_of_square"].get(str(e["n"]), float("nan")),
                             f"{e['of_square']:.3f} of the square (target >= 0.90)"))
    launch = load(os.path.join(out, "launch.json"))
    if launch:
        for d in launch["devices"]:
            meth = d.get("methods", {})
            same = "raw_event" if "raw_event" in meth else None
            if same and "duet" in meth:
                rows.append(("launch, queue with timing", d["id"], f"{meth['duet']['median_us']:.2f} us",
                             f"raw, same work {meth[same]['median_us']:.2f} us",
                             f"{meth['duet']['median_us'] - meth[same]['median_us']:+.2f} us (target <= 1)"))
            if "duet_untimed" in meth and "raw_no_event" in meth:
                rows.append(("launch, queue without timing", d["id"],
                             f"{meth['duet_untimed']['median_us']:.2f} us",
                             f"raw, no event {meth['raw_no_event']['median_us']:.2f} us",
                             f"{meth['duet_untimed']['median_us'] - meth['raw_no_event']['median_us']:+.2f} us (target <= 1)"))
    startup = load(os.path.join(out, "startup.json"))
    if startup:
        for d in startup["devices"]:
            m = d.get("median")
            if m and m.get("first_launch_ratio"):
                rows.append(("start to first launch, warm cache", d["device"],
                             f"{m['warm_first_launch_ms']:.0f} ms", f"cold {m['cold_first_launch_ms']:.0f} ms",
                             f"{m['first_launch_ratio']:.1f}x faster (target >= 10)"))
    print("| work | ours (backend, variant) | our figure | reference | ratio |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/duet-out")
