#!/usr/bin/env python3
"""cuBLAS beside matmul's tc3 step and reduction's det_f32 (docs/design/tc3.md).

On the GPU machine, through PyTorch: cuBLAS FP32 (TF32 off) and TF32 sgemm times at each size
(median of device-event timings after warm-up), the error of cuBLAS FP32 and TF32 against an
FP64 product of sampled rows, measured as matmul's tc3 note measures its own (|c - ref| /
sum_k |a b|, max and mean), on inputs uniform in [-1, 1) as Duet's; and a device copy's
bandwidth (bytes read + written) at 2^28 floats, the reference of det_f32's speed.
Arguments: sizes (default 4096 8192). Prints one JSON object.
"""
import json
import sys

from reference import timed  # bench/reference.py: device events, median after warm-up


def errors(c, a, b, rows):
    """max and mean of |c - ref| / sum|a b| over the sampled rows (FP64 reference)."""
    import torch
    a64, b64 = a[rows].double(), b.double()
    ref = a64 @ b64
    scale = a64.abs() @ b64.abs()
    e = (c[rows].double() - ref).abs() / scale
    return float(e.max()), float(e.mean())


def main():
    import torch
    sizes = [int(s) for s in sys.argv[1:]] or [4096, 8192]
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    g = torch.Generator(device="cuda").manual_seed(7)
    for n in sizes:
        a = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        b = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
        rows = torch.randperm(n, device="cuda", generator=g)[:64]
        for mode in ("fp32", "tf32"):
            torch.backends.cuda.matmul.allow_tf32 = mode == "tf32"
            c = a @ b
            ms = timed(lambda: torch.matmul(a, b, out=c), reps=10)
            c = a @ b
            emax, emean = errors(c, a, b, rows)
            out[f"{mode}_{n}"] = {"ms": ms, "tflops": 2 * n**3 / ms / 1e9, "err_max": emax,
                                  "err_mean": emean}
        torch.backends.cuda.matmul.allow_tf32 = False
        del a, b, c
    x = torch.rand(1 << 28, device="cuda")
    y = torch.empty_like(x)
    ms = timed(lambda: y.copy_(x), reps=10)
    out["copy_2^28"] = {"ms": ms, "gbs": 2 * 4 * (1 << 28) / ms / 1e6}
    ms = timed(lambda: torch.sum(x), reps=10)
    out["torch_sum_2^28"] = {"ms": ms, "gbs": 4 * (1 << 28) / ms / 1e6}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
