# Variants of best's tile loop (cubins from build.sh NAME=matmul_best.cu:MACRO=VALUE,...), each
# timed with CuPy's events against cuBLAS and checked against the first one named:
#   python3 loop.py CUBIN_DIR NAME [NAME ...] [--sizes 4096,4224x4096x4096] [--rounds 2]
#   python3 loop.py CUBIN_DIR NAME --once MxNxK   (one launch, for a profiler; NAME cublas: cuBLAS's)
# Sizes whose blocks make whole waves of 132 (4224x4096x4096, 8448x8192x8192) give the rate of
# the loop itself; a variant's own BEST_BM/BN (default 128x256) and 16x16 threads are assumed.
import argparse
import numpy as np, cupy as cp
from cupy_time import run

p = argparse.ArgumentParser()
p.add_argument('dir')
p.add_argument('names', nargs='+')
p.add_argument('--sizes', default='4096,4224x4096x4096,8192,8448x8192x8192')
p.add_argument('--rounds', type=int, default=2)
p.add_argument('--once')
a = p.parse_args()
BM, BN = 128, 256
i32 = np.int32
fns = {n: cp.RawModule(path=f'{a.dir}/{n}.cubin').get_function('matmul_best')
       for n in a.names if n != 'cublas'}


def dims(s):
    d = [int(x) for x in s.split('x')]
    return d * 3 if len(d) == 1 else d


def launch(fn, A, B, C, M, N, K):
    fn((-(-N // BN), -(-M // BM), 1), (16, 16, 1), (A, B, C, i32(M), i32(N), i32(K), i32(N)))


if a.once:
    M, N, K = dims(a.once)
    A = cp.random.rand(M, K, dtype=cp.float32); B = cp.random.rand(K, N, dtype=cp.float32)
    C = cp.zeros((M, N), cp.float32)
    if a.names[0] == 'cublas':
        cp.matmul(A, B, out=C)
    else:
        launch(fns[a.names[0]], A, B, C, M, N, K)
    cp.cuda.Device().synchronize()
    raise SystemExit(0)
for rnd in range(a.rounds):
    for s in a.sizes.split(','):
        M, N, K = dims(s)
        A = cp.random.rand(M, K, dtype=cp.float32); B = cp.random.rand(K, N, dtype=cp.float32)
        C0 = cp.zeros((M, N), cp.float32); C = cp.zeros((M, N), cp.float32)
        Cx = cp.empty((M, N), cp.float32)
        fl = 2.0 * M * N * K / 1e9
        out = [f"cublas {run(lambda: cp.matmul(A, B, out=Cx)):.3f}"]
        for i, (n, fn) in enumerate(fns.items()):
            dst = C0 if i == 0 else C
            dst.fill(0)
            t = run(lambda: launch(fn, A, B, dst, M, N, K))
            err = 0.0 if i == 0 else float(cp.abs(C - C0).max() / cp.abs(C0).max())
            out.append(f"{n} {t:.3f} {fl / t:.0f}" + ("" if err < 1e-5 else f" ERR{err:.1e}"))
        print(f"round {rnd} {M}x{N}x{K}: " + " | ".join(out), flush=True)
