# best's block code with the tiles of C taken in other ways (order.cu), timed with CuPy's events
# against best and cuBLAS: python3 order.py CUBIN_DIR (the cubins of build.sh), on the GPU machine.
import sys
import numpy as np, cupy as cp
from cupy_time import run
D = sys.argv[1]
best = cp.RawModule(path=f'{D}/matmul_best.cubin').get_function('matmul_best')
om = cp.RawModule(path=f'{D}/order.cubin')
lin = om.get_function('k_lin1d')
BM, BN = 128, 256
i32 = np.int32
for rnd in range(2):
  for (M, N, K) in [(4096, 4096, 4096), (8192, 8192, 8192), (4224, 4096, 4096), (8448, 8192, 8192)]:
    A = cp.random.rand(M, K, dtype=cp.float32); B = cp.random.rand(K, N, dtype=cp.float32)
    C0 = cp.zeros((M, N), cp.float32); C = cp.zeros((M, N), cp.float32); Cx = cp.empty((M, N), cp.float32)
    tm, tn = -(-M // BM), -(-N // BN); T = tm * tn
    base = (A, B, C, i32(M), i32(N), i32(K), i32(N), i32(tm), i32(tn))
    fl = 2.0 * M * N * K / 1e9
    cfg = [('cublas', lambda: cp.matmul(A, B, out=Cx)),
           ('best', lambda: best((tn, tm, 1), (16, 16, 1), (A, B, C0, i32(M), i32(N), i32(K), i32(N)))),
           ('lin1d', lambda: lin((T, 1, 1), (16, 16, 1), base)),
           ('lin2d', lambda: om.get_function('k_lin2d')((tn, tm, 1), (16, 16, 1), base)),
           ('col', lambda: om.get_function('k_col')((tm, tn, 1), (16, 16, 1), base)),
           ('swz8_1d', lambda: om.get_function('k_swz8_1d')((T, 1, 1), (16, 16, 1), base))]
    for G in (4, 8, 16):
        cfg.append((f'swz{G}', (lambda G: lambda: om.get_function(f'k_swz{G}')((tn, tm, 1), (16, 16, 1), base))(G)))
    for G in (2, 4, 8, 16):
        cfg.append((f'swz{G}b', (lambda G: lambda: om.get_function(f'k_swz{G}b')((G * tn, -(-tm // G), 1), (16, 16, 1), base))(G)))
    out = []
    for name, fn in cfg:
        C.fill(0)
        t = run(fn)
        err = float(cp.abs(C - C0).max()) if name not in ('cublas', 'best') else 0.0
        out.append(f"{name} {t:.3f} {fl/t:.1f}" + ("" if err == 0 else f" ERR{err:.1e}"))
    print(f"{M}x{N}x{K}: " + " | ".join(out), flush=True)
