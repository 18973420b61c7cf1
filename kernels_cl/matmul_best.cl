// Matrix multiply, step 6 of the ladder: best, and matmul_split_sum (its split-K sum). The step
// itself, its tiles and its loops, is in matmul_best.clh; kernels_cu/matmul_best.cu is the CUDA
// twin.
// NVIDIA's compiler (its device profile sets BEST_WAVES_ORDER=3): a step's multiply-adds by pairs
// of rows, serpentine (matmul_best.clh), where no block is clamped: 4096^3 0.7% and 8192^3 0.5%
// faster on the H100; 4097^3 (clamped) 1.7% slower, so there row by row. The stream kernel takes
// its own order (matmul_best_stream.cl).
#if !defined(BEST_ORDER) && defined(BEST_WAVES_ORDER) && !BEST_CLAMP
#define BEST_ORDER BEST_WAVES_ORDER
#endif
#define BEST_SLICES_ROLLED 1 // C's unaligned rows in a rolled loop (matmul_best_write.clh)
#include "matmul_best.clh"

// C = A * B, A M x K, B K x N, C M x Nc with rows of Nc floats, Nc <= N: the host passes N > Nc
// where it copied B to rows of whole 16 bytes (BEST_ALIGN), and C is still written in place.
__kernel __attribute__((reqd_work_group_size(BEST_TX, BEST_TY, 1))) void
matmul_best(__global const float* restrict A, __global const float* restrict B,
            __global float* restrict C, const int M, const int N, const int K, const int Nc) {
    __local float As[2][BEST_BK][BEST_BM + BEST_PAD] __attribute__((aligned(16)));
    __local float Bs[2][BEST_BK][BEST_BN] __attribute__((aligned(16)));
    const int tid = (int)get_local_id(1) * BEST_TX + (int)get_local_id(0);
    int rbase, cbase;
    matmul_best_bases((int)get_local_id(0), (int)get_local_id(1), &rbase, &cbase);
    const int m0 = (int)get_group_id(1) * BEST_BM;
    const int n0 = (int)get_group_id(0) * BEST_BN;
#if BEST_SPLIT
    // Split K: group z (dimension 2) takes its share of the K tiles and writes its partial
    // product to the z-th M x Nc slice of C; matmul_split_sum adds them. (A build of its own, as
    // in the CUDA file, where the offsets cost the unsplit kernel 6%.)
    const int all_tiles = (K + BEST_BK - 1) / BEST_BK;
    const int share = (all_tiles + (int)get_num_groups(2) - 1) / (int)get_num_groups(2);
    const int t0 = (int)get_group_id(2) * share;
    const int tiles = max(0, min(all_tiles, t0 + share) - t0);
    C += (size_t)get_group_id(2) * (size_t)M * (size_t)Nc;
#else
    const int t0 = 0;
    const int tiles = (K + BEST_BK - 1) / BEST_BK;
#endif
    float acc[BEST_TM][BEST_TN];
    matmul_best_block(A, B, M, N, K, m0, n0, t0, tiles, tid, rbase, cbase, As, Bs, acc);
    matmul_best_write(C, M, Nc, m0, n0, rbase, cbase, acc, &Bs[0][0][0], tid);
}

// The sum of `splits` partial products of split-K `best`: C[i] = P[i] + P[count + i] + ...
__kernel void matmul_split_sum(__global const float* restrict P, __global float* restrict C,
                               const int count, const int splits) {
    const int i = (int)get_global_id(0);
    if (i < count) {
        float s = 0.0f;
        for (int z = 0; z < splits; ++z)
            s += P[(size_t)z * (size_t)count + i];
        C[i] = s;
    }
}
