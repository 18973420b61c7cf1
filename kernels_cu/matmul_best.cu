// Matrix multiply, step 6 of the ladder (best, matmul_split_sum): the CUDA twin of
// kernels_cl/matmul_best.cl, whose comments explain the step.
#define BEST_SLICES_ROLLED 1 // C's unaligned rows in a rolled loop (matmul_best_write.cuh)
#include "matmul_best.cuh"

extern "C" __global__ void __launch_bounds__(BEST_NT, BEST_MINB)
    matmul_best(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K, int Nc) {
    __shared__ __align__(16) float As[2][BEST_BK][BEST_BM + BEST_PAD];
    __shared__ __align__(16) float Bs[2][BEST_BK][BEST_BN];
    const int tid = threadIdx.y * BEST_TX + threadIdx.x;
    int rbase, cbase;
    matmul_best_bases(threadIdx.x, threadIdx.y, &rbase, &cbase);
    const int m0 = blockIdx.y * BEST_BM;
    const int n0 = blockIdx.x * BEST_BN;
#if BEST_SPLIT
    // Split K: block z takes its share of the K tiles and writes its partial product to the
    // z-th M x Nc slice of C, which matmul_split_sum then adds up. (A build of its own: the
    // offsets cost the unsplit kernel 6% on the H100.)
    const int all_tiles = (K + BEST_BK - 1) / BEST_BK;
    const int share = (all_tiles + gridDim.z - 1) / gridDim.z;
    const int t0 = blockIdx.z * share;
    const int tiles = max(0, min(all_tiles, t0 + share) - t0);
    C += size_t(blockIdx.z) * size_t(M) * size_t(Nc);
#else
    const int t0 = 0;
    const int tiles = (K + BEST_BK - 1) / BEST_BK;
#endif
    float acc[BEST_TM][BEST_TN];
    matmul_best_block(A, B, M, N, K, m0, n0, t0, tiles, tid, rbase, cbase, As, Bs, acc);
    matmul_best_write(C, M, Nc, m0, n0, rbase, cbase, acc, &Bs[0][0][0], tid);
}

// The sum of `splits` partial products of split-K `best`: C[i] = P[i] + P[count + i] + ...
extern "C" __global__ void matmul_split_sum(const float* __restrict__ P, float* __restrict__ C,
                                            int count, int splits) {
    const int i = duet_global_id(0);
    if (i < count) {
        float s = 0.0f;
        for (int z = 0; z < splits; ++z)
            s += P[size_t(z) * size_t(count) + i];
        C[i] = s;
    }
}
