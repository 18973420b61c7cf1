#!/usr/bin/env python3
"""Reference timings for docs/results/nvidia-h100.md, from the libraries on the GPU machine.

Each figure is the median of device-event timings after warm-up, float32, TF32 off:
copy and add (PyTorch), sum (PyTorch and CuPy/CUB), sgemm (cuBLAS through torch.matmul),
5x5 convolution (cuDNN through torch.nn.functional.conv2d); tf32 is cuBLAS with TF32 on
(torch.backends.cuda.matmul.allow_tf32), the reference of matmul's tf32 step, with its error
against a float64 product of a sample of rows. Prints one JSON object.
Arguments, optional: which of copy, vecadd, sum, sgemm, conv, tf32 to time (default: all but tf32),
and --sizes LIST for sgemm's sizes (n or MxNxK, default 4096,8192; keys sgemm_n, sgemm_MxNxK).
"""
import json
import statistics
import sys


def timed(fn, reps=20, warmup=3):
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


GROUPS = ("copy", "vecadd", "sum", "sgemm", "conv", "tf32")


def sgemm_dims(text):
    """'4096' -> (4096, 4096, 4096); '4095x4097x4099' -> (M, N, K)."""
    parts = text.lower().split("x")
    if len(parts) not in (1, 3) or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ValueError("size '%s' is neither n nor MxNxK (positive integers)" % text)
    d = tuple(int(p) for p in parts)
    return d * 3 if len(d) == 1 else d


def sgemm_label(d):
    """A size's name in keys and tables: n for n x n x n, else MxNxK (sgemm_dims' inverse)."""
    return str(d[0]) if d[0] == d[1] == d[2] else "x".join(map(str, d))


def main():
    args = sys.argv[1:]
    sgemm_sizes = [(4096,) * 3, (8192,) * 3]
    if "--sizes" in args:
        i = args.index("--sizes")
        if i + 1 >= len(args):
            sys.exit("reference.py: --sizes needs a list, e.g. --sizes 4096,4095x4097x4099")
        try:
            sgemm_sizes = [sgemm_dims(t) for t in args[i + 1].split(",")]
        except ValueError as e:
            sys.exit("reference.py: --sizes: %s" % e)
        del args[i:i + 2]
    want = args or [g for g in GROUPS if g != "tf32"]
    for w in want:
        if w not in GROUPS:
            sys.exit("reference.py: unknown '%s'; choose from %s" % (w, ", ".join(GROUPS)))
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    n = 1 << 28
    if {"copy", "vecadd", "sum"} & set(want):
        a = torch.rand(n, device="cuda")
        b = torch.rand(n, device="cuda")
        c = torch.empty_like(a)
        if "copy" in want:
            ms = timed(lambda: c.copy_(a))
            out["copy_2^28"] = {"ms": ms, "gbs": 2 * 4 * n / ms / 1e6}
        if "vecadd" in want:
            ms = timed(lambda: torch.add(a, b, out=c))
            out["vecadd_2^28"] = {"ms": ms, "gbs": 3 * 4 * n / ms / 1e6}
        if "sum" in want:
            ms = timed(lambda: a.sum())
            out["sum_2^28_torch"] = {"ms": ms, "gbs": 4 * n / ms / 1e6}
            try:
                import cupy
                ca = cupy.asarray(a)
                ms = timed(lambda: ca.sum())
                out["sum_2^28_cupy"] = {"ms": ms, "gbs": 4 * n / ms / 1e6}
            except Exception as e:  # CuPy missing or broken: say so, do not invent a number
                out["sum_2^28_cupy"] = {"error": str(e)}
        del a, b, c
    if "sgemm" in want:
        for m, n, k in sgemm_sizes:
            # Duet's inputs: uniform in [-1, 1), as the tf32 reference's below. (On these cuBLAS
            # ran 4096^3 at 50.8-51.6 TFLOP/s on the H100, as on [0, 1) at 50.9-51.6 in the same
            # rounds: docs/design/sgemm.md.)
            x = torch.rand(m, k, device="cuda") * 2 - 1
            y = torch.rand(k, n, device="cuda") * 2 - 1
            ms = timed(lambda: torch.matmul(x, y), reps=10)
            out[f"sgemm_{sgemm_label((m, n, k))}"] = {"ms": ms, "gflops": 2 * m * n * k / ms / 1e6}
            del x, y
    if "tf32" in want:
        torch.backends.cuda.matmul.allow_tf32 = True
        for s in (4096, 8192):
            # Duet's inputs: uniform in [-1, 1)
            x = torch.rand(s, s, device="cuda") * 2 - 1
            y = torch.rand(s, s, device="cuda") * 2 - 1
            ms = timed(lambda: torch.matmul(x, y), reps=10)
            z = torch.matmul(x, y)
            rows = torch.arange(0, s, s // 64, device="cuda")
            exact = torch.matmul(x[rows].double(), y.double())
            abs_sum = torch.matmul(x[rows].double().abs(), y.double().abs())
            err = ((z[rows].double() - exact).abs() / abs_sum).max().item()
            out[f"tf32_{s}"] = {"ms": ms, "gflops": 2 * s**3 / ms / 1e6,
                                "max_error_of_abs_sum": err}
            del x, y, z, exact, abs_sum
        torch.backends.cuda.matmul.allow_tf32 = False
    if "conv" in want:
        img = torch.rand(1, 1, 8192, 8192, device="cuda")
        w = torch.rand(1, 1, 5, 5, device="cuda")
        ms = timed(lambda: torch.nn.functional.conv2d(img, w, padding=2), reps=10)
        out["conv5x5_8192"] = {"ms": ms, "mpixels": 8192 * 8192 / ms / 1e3}
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
