# matmul_best_stream (this tree's, pieces added in the kernel and by matmul_best_stream_sum) against
# best, the stream kernel of 2d1b1d8 and cuBLAS, timed with CuPy's events: python3 stream.py
# CUBIN_DIR (the cubins of build.sh), on the GPU machine. The schedule's arguments as the host's.
# python3 stream.py CUBIN_DIR NAME... times only NAME.cubin's matmul_best_stream (built with
# BEST_STREAM_INLINE=1) beside best and cuBLAS, at 8192^3 and 5120^3 (or $STREAM_SIZES, as
# 8192x8192x8192,5120x5120x5120). A NAME with a dot is a file: NAME.ptx is compiled by the
# driver's JIT, as NVIDIA's OpenCL compiles the PTX it makes (kept in Duet's program cache).
# STREAM_ONCE=1: one launch of each NAME at the first size, for a profiler (ncu -k ... -c 1).
import os
import sys
import numpy as np, cupy as cp
from cupy_time import run
D, NAMES = sys.argv[1], sys.argv[2:]
best = cp.RawModule(path=f'{D}/matmul_best.cubin').get_function('matmul_best')
if NAMES:
    mine = {n: cp.RawModule(path=f'{D}/{n}' if '.' in n else f'{D}/{n}.cubin').get_function('matmul_best_stream')
            for n in NAMES}
else:
    sold = cp.RawModule(path=f'{D}/stream_old.cubin').get_function('matmul_best_stream')
    n1 = cp.RawModule(path=f'{D}/stream_new1.cubin').get_function('matmul_best_stream')
    m0 = cp.RawModule(path=f'{D}/stream_new0.cubin')
    n0, s0 = m0.get_function('matmul_best_stream'), m0.get_function('matmul_best_stream_sum')
BM, BN, BK, CU = 128, 256, 16, 132
i32 = np.int32
def magic(d):
    l = (d - 1).bit_length()
    m = ((1 << 32) * ((1 << l) - d)) // d + 1
    return i32(np.uint32(m).view(np.int32)), i32(l)
# the magic numbers themselves, on the host
for d in list(range(1, 300)) + [4096, 65535, 100003]:
    mm, l = magic(d); mm = int(np.uint32(np.int32(mm)))
    for x in [0, 1, d - 1, d, d + 1, 2**31 - 1, 12345678, 2**30 + 7]:
        assert ((((x * mm) >> 32) + x) >> int(l)) == x // d, (d, x)
named = [tuple(map(int, x.split('x'))) for x in os.environ.get('STREAM_SIZES', '').split(',') if x]
sizes = named or ([(8192, 8192, 8192), (5120, 5120, 5120)] if NAMES else [
    (4096, 4096, 4096), (8192, 8192, 8192), (4224, 4096, 4096), (4224, 4224, 4224),
    (5120, 5120, 5120), (8448, 8192, 8192), (2500, 2500, 2500)])
for rnd in range(2):
  for (M, N, K) in sizes:
    A = cp.random.rand(M, K, dtype=cp.float32); B = cp.random.rand(K, N, dtype=cp.float32)
    C0 = cp.zeros((M, N), cp.float32); C = cp.zeros((M, N), cp.float32); Cx = cp.empty((M, N), cp.float32)
    tm, tn = -(-M // BM), -(-N // BN); T = tm * tn; kt = -(-K // BK)
    G = min(CU, T); w = T // G; rounds = (max(w, 1) - 1) if T % G else w
    work = (T - rounds * G) * kt; per, extra = work // G, work % G
    W = cp.zeros(2 * G * BM * BN, cp.float32); F = cp.zeros(G, cp.int32)
    ktm, ktl = magic(kt); tnm, tnl = magic(tn)
    new = (A, B, C, i32(M), i32(N), i32(K), i32(N), i32(tm), i32(tn), W, F, i32(rounds), i32(per), i32(extra), i32(kt), ktm, ktl, tnm, tnl)
    fl = 2.0 * M * N * K / 1e9
    def sum0():
        n0((G, 1, 1), (16, 16, 1), new)
        if G > 1: s0((G - 1, 1, 1), (16, 16, 1), (W, C, i32(M), i32(K), i32(N), i32(tn), i32(G), i32(rounds), i32(per), i32(extra)))
    cfg = [('cublas', lambda: cp.matmul(A, B, out=Cx)),
           ('best', lambda: best((tn, tm, 1), (16, 16, 1), (A, B, C0, i32(M), i32(N), i32(K), i32(N))))]
    if NAMES:
        cfg += [(n, (lambda f: lambda: f((G, 1, 1), (16, 16, 1), new))(f)) for n, f in mine.items()]
    else:
        cfg += [('old', lambda: sold((G, 1, 1), (16, 16, 1), (A, B, C, i32(M), i32(N), i32(K), i32(N), i32(tm), i32(tn), W, F))),
                ('new', lambda: n1((G, 1, 1), (16, 16, 1), new)),
                ('new_sum', sum0)]
    if os.environ.get('STREAM_ONCE'):  # one launch of each named kernel, for a profiler
        for name, fn in cfg[2:]:
            fn()
        cp.cuda.runtime.deviceSynchronize()
        sys.exit(0)
    out = []
    for name, fn in cfg:
        C.fill(0)
        t = run(fn)
        err = float(cp.abs(C - C0).max() / cp.abs(C0).max()) if name not in ('cublas', 'best') else 0.0
        out.append(f"{name} {t:.3f} {fl/t:.1f}" + (f" e{err:.0e}" if name not in ('cublas', 'best') else ""))
    print(f"{M}x{N}x{K} T {T} rounds {rounds} per {per}: " + " | ".join(out), flush=True)
