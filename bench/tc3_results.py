#!/usr/bin/env python3
"""A results file (results/*.json, bench/results_pages.py's format) from one run of
bench/gpu_tc3_det.sh: the last round's rows of every step, size and device, each noted with
every round's figure and its ratio to cuBLAS FP32 and TF32 of the same run, and cuBLAS's own
rows as the references.

    python3 bench/tc3_results.py OUT_DIR DEVICE_CLASS MACHINE CPUS DRIVER > results/NAME.json

OUT_DIR: the script's $OUT (runs.jsonl, cublas.json); DEVICE_CLASS: the results page
("nvidia-h200"); MACHINE: the lent machine's name; CPUS: its cores; DRIVER: the NVIDIA driver
(its log's nvidia-smi line).
"""
import json
import pathlib
import sys
import time

COMMAND = ("OUT=... PARTS=matmul bash bench/gpu_tc3_det.sh (runapp run matmul --variant "
           "tc3,tf32,best: --verify full at 1000x700x300, 1001x999x37, 129x65x257 on cuda:0 "
           "and the NVIDIA OpenCL device, then --size 4096|8192 --verify sample --reps 10, two "
           "alternating rounds; python3 bench/tc3_cublas.py 4096 8192); "
           "python3 bench/tc3_results.py")


def speed_rows(path):
    """{(device, size, step): [rows by round]} of the rows labelled 'speedN ...'."""
    out = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        if r.get("label", "").startswith("speed"):
            out.setdefault((r["device_id"], r["size"], r["variant"]), []).append(r)
    return out


def references(cublas):
    out = []
    for key, what in (("fp32", "cuBLAS FP32 (TF32 off)"), ("tf32", "cuBLAS TF32")):
        for n in (4096, 8192):
            c = cublas.get(f"{key}_{n}")
            if c:
                out.append({"app": "matmul", "size": f"{n}x{n}x{n}", "gflops": c["tflops"] * 1e3,
                            "what": f"{what}, torch {cublas.get('torch')}, same session; error "
                                    f"vs FP64 max {c['err_max']:.2e} mean {c['err_mean']:.2e}"})
    return out


def main():
    out_dir, device_class, machine = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    cpus, driver = int(sys.argv[4]), sys.argv[5]
    cublas = json.loads((out_dir / "cublas.json").read_text())
    rows, devices = [], {}
    for (dev, size, step), by_round in speed_rows(out_dir / "runs.jsonl").items():
        last = dict(by_round[-1])
        n = size.split("x")[0]
        figures = " / ".join(f"{(r.get('gflops') or 0) / 1e3:.1f}" for r in by_round)
        ratios = [f"x cuBLAS {k.upper()} {last['gflops'] / (cublas[f'{k}_{n}']['tflops'] * 1e3):.2f}"
                  for k in ("fp32", "tf32") if last.get("gflops") and f"{k}_{n}" in cublas]
        last["note"] = (f"last of {len(by_round)} alternating rounds ({figures} TFLOP/s); " +
                        ", ".join(ratios) + (f"; {last['note']}" if last.get("note") else ""))
        last.pop("label", None)
        rows.append(last)
        devices[dev] = {"id": dev, "name": last.get("device"), "backend": last.get("backend"),
                        "driver": driver, "type": "GPU"}
    doc = {"schema": "duet-results", "schema_version": 1,
           "time": time.strftime("%Y-%m-%d", time.gmtime((out_dir / "runs.jsonl").stat().st_mtime)),
           "command": COMMAND, "machine": {"host": machine, "cpu": f"{cpus}-core VM", "cpus": cpus},
           "devices": list(devices.values()), "results": rows, "device_class": device_class,
           "title": "matmul best, tf32 and tc3 on CUDA and NVIDIA's OpenCL beside cuBLAS",
           "source": "docs/design/tc3.md", "references": references(cublas)}
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
