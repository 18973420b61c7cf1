// best's block code with the tile of C chosen from the launch in other ways than best's 2-D id
// (docs/design/sgemm.md): by a division, by shifts, in other orders. Built by
// build.sh, timed by order.py. Not a kernel of Duet's: an experiment, kept to be rerun.
#define BEST_SLICES_ROLLED 1 // as matmul_best.cu
#include "matmul_best.cuh"
#define BODY                                                                                       \
    __shared__ __align__(16) float As[2][BEST_BK][BEST_BM + BEST_PAD];                             \
    __shared__ __align__(16) float Bs[2][BEST_BK][BEST_BN];                                        \
    const int tid = threadIdx.y * BEST_TX + threadIdx.x;                                           \
    int rbase, cbase;                                                                              \
    matmul_best_bases(threadIdx.x, threadIdx.y, &rbase, &cbase);                                   \
    const int tiles = (K + BEST_BK - 1) / BEST_BK;                                                 \
    float acc[BEST_TM][BEST_TN];                                                                   \
    matmul_best_block(A, B, M, N, K, m0, n0, 0, tiles, tid, rbase, cbase, As, Bs, acc);            \
    matmul_best_write(C, M, Nc, m0, n0, rbase, cbase, acc);
#define ARGS                                                                                       \
    const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C, int M, int N, \
        int K, int Nc, int tm, int tn
extern "C" __global__ void __launch_bounds__(BEST_NT, 1) k_lin1d(ARGS) {
    const int tile = blockIdx.x, tile_m = tile / tn;
    const int m0 = tile_m * BEST_BM, n0 = (tile - tile_m * tn) * BEST_BN;
    BODY
}
extern "C" __global__ void __launch_bounds__(BEST_NT, 1) k_lin2d(ARGS) {
    const int tile = blockIdx.y * gridDim.x + blockIdx.x, tile_m = tile / tn;
    const int m0 = tile_m * BEST_BM, n0 = (tile - tile_m * tn) * BEST_BN;
    BODY
}
extern "C" __global__ void __launch_bounds__(BEST_NT, 1) k_col(ARGS) {
    const int m0 = blockIdx.x * BEST_BM, n0 = blockIdx.y * BEST_BN;
    BODY
}
template <int G> __device__ __forceinline__ void swz(int L, int tm, int tn, int* m, int* n) {
    const int group = L / (G * tn), idx = L - group * (G * tn);
    const int rows = min(G, tm - group * G);
    const int r = idx / rows;
    *n = r;
    *m = group * G + (idx - r * rows);
}
// 2D launch made 1-D, then G rows of tiles go down before the next column, by division
#define SWZ(G)                                                                                     \
    extern "C" __global__ void __launch_bounds__(BEST_NT, 1) k_swz##G(ARGS) {                      \
        int tm_, tn_;                                                                              \
        swz<G>(blockIdx.y * gridDim.x + blockIdx.x, tm, tn, &tm_, &tn_);                           \
        const int m0 = tm_ * BEST_BM, n0 = tn_ * BEST_BN;                                          \
        BODY                                                                                       \
    }
SWZ(4)
SWZ(8)
SWZ(16)
// 1D launch with swizzle 8
extern "C" __global__ void __launch_bounds__(BEST_NT, 1) k_swz8_1d(ARGS) {
    int tm_, tn_;
    swz<8>(blockIdx.x, tm, tn, &tm_, &tn_);
    const int m0 = tm_ * BEST_BM, n0 = tn_ * BEST_BN;
    BODY
}
// 2D launch (G * tn, ceil(tm / G)): G rows of tiles go down before the next column, shifts only
#define SWZB(G)                                                                                    \
    extern "C" __global__ void __launch_bounds__(BEST_NT, 1) k_swz##G##b(ARGS) {                   \
        const int mt = blockIdx.y * G + (blockIdx.x & (G - 1)), nt = blockIdx.x / G;               \
        if (mt >= tm)                                                                              \
            return;                                                                                \
        const int m0 = mt * BEST_BM, n0 = nt * BEST_BN;                                            \
        BODY                                                                                       \
    }
SWZB(2)
SWZB(4)
SWZB(8)
SWZB(16)
