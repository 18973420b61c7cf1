#!/usr/bin/env python3
"""Builds and runs each OpenCL kernel of each app alone on one OpenCL device, one process per
kernel, so a kernel that crashes the OpenCL compiler (an assertion inside the driver) is named.
Usage: pocl_split_check.py RUNAPP DEVICE [APP...]"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = {"vecadd": "1001", "matmul": "37x53x29", "conv5x5": "37x53", "reduction": "1000"}


def kernel_spans(text):
    """(name, start, end) of every __kernel function definition."""
    spans = []
    for m in re.finditer(r"__kernel\b[^{;]*?void\s+(\w+)\s*\(", text):
        depth, i = 0, text.index("{", m.end())
        while True:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        spans.append((m.group(1), m.start(), i))
    return spans


def main():
    runapp, device = sys.argv[1], sys.argv[2]
    apps = sys.argv[3:] or list(SIZES)
    for app in apps:
        src = open(os.path.join(ROOT, "kernels_cl", app + ".cl")).read()
        spans = kernel_spans(src)
        listing = subprocess.run([runapp, "run", app, "--variant", "?"], capture_output=True, text=True).stderr
        variants = listing.split("its variants are: ")[1].split("\n")[0].split(", ")
        for v in variants:  # the whole file, one variant per process
            out = subprocess.run([runapp, "run", app, "--device", device, "--size", SIZES[app], "--reps", "1",
                                  "--warmup", "0", "--quiet", "--variant", v], capture_output=True, text=True,
                                 env=dict(os.environ, DUET_CACHE_DIR=""), timeout=300)
            tail = (out.stderr.strip().splitlines() or [""])[-1][:160]
            print(f"{app:9} variant {v:20} exit {out.returncode:4} {tail if out.returncode else ''}", flush=True)
        for name, _, _ in spans:
            text, last = "", 0
            for other, a, b in spans:
                text += src[last:a] + (src[a:b] if other == name else "")
                last = b
            text += src[last:]
            d = tempfile.mkdtemp()
            os.makedirs(os.path.join(d, "kernels_cl"))
            for f in os.listdir(os.path.join(ROOT, "kernels_cl")):
                shutil.copy(os.path.join(ROOT, "kernels_cl", f), os.path.join(d, "kernels_cl"))
            open(os.path.join(d, "kernels_cl", app + ".cl"), "w").write(text)
            env = dict(os.environ, DUET_KERNEL_DIR=d, DUET_CACHE_DIR="")
            # Only this kernel is in the file: the variants using another stop at once (not found).
            for v in variants:
                out = subprocess.run([runapp, "run", app, "--device", device, "--size", SIZES[app], "--reps", "1",
                                      "--warmup", "0", "--quiet", "--variant", v], env=env,
                                     capture_output=True, text=True, timeout=300)
                if "no OpenCL kernel named" in out.stderr or "there is no kernel" in out.stderr:
                    continue
                tail = (out.stderr.strip().splitlines() or [""])[-1][:160]
                print(f"{app:9} kernel {name:28} alone, variant {v}: exit {out.returncode:4} {tail if out.returncode else ''}", flush=True)
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
