// The write of C's block from a thread's sums (matmul_best_write), for matmul_best.cuh: at its
// end, after the tiles and loops (kernels_cu/matmul_best.cu and matmul_best_stream.cu call it).
// The block of C at (m0, n0) from acc into C (M x Nc), what lies inside C; through S (Bs after
// the last tile) in slices of rows where C's rows are not 16-byte aligned
// (kernels_cl/matmul_best_write.clh).
#ifndef BEST_ROWS_OUT // 1 (set by the host where Nc % 4 != 0): C's rows out through S
#define BEST_ROWS_OUT 0
#endif
// The slices' loop kept rolled (1) or unrolled (0), defined by the kernel file: ptxas schedules
// best's loop well with the first (matmul_best.cu), matmul_best_stream's with the second.
#ifndef BEST_SLICES_ROLLED
#error "BEST_SLICES_ROLLED must be defined by the kernel file (matmul_best.cu, matmul_best_stream.cu)"
#endif
#define BEST_SLICE (2 * BEST_BK) // rows of C's block per slice through S
__device__ __forceinline__ void matmul_best_write(float* __restrict__ C, int M, int Nc, int m0,
                                                  int n0, int rbase, int cbase,
                                                  float (*acc)[BEST_TN], float* S, int tid) {
    (void)S; // used where BEST_ROWS_OUT
    (void)tid;
#if BEST_ROWS_OUT
    if ((Nc & 3) == 0)
#endif
    {
#pragma unroll
        for (int i = 0; i < BEST_TM; ++i) {
            const int row = m0 + (i / 4) * BEST_RSTEP + rbase + i % 4;
#pragma unroll
            for (int g = 0; g < BEST_TN / 4; ++g) {
                const int col = n0 + g * BEST_CSTEP + cbase;
                const float4 v = make_float4(acc[i][g * 4 + 0], acc[i][g * 4 + 1],
                                             acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
                matmul_store4(C, row, col, M, Nc, (Nc & 3) == 0, v);
            }
        }
        return;
    }
#if BEST_ROWS_OUT
#if BEST_SLICES_ROLLED
#pragma unroll 1
#else
#pragma unroll
#endif
    for (int s0 = 0; s0 < BEST_BM; s0 += BEST_SLICE) {
        if (s0 > 0)
            __syncthreads(); // the slice before read out of S
#pragma unroll
        for (int i = 0; i < BEST_TM; ++i) {
            const int r = (i / 4) * BEST_RSTEP + rbase + i % 4 - s0; // its row in the slice
            if (r >= 0 && r < BEST_SLICE)
#pragma unroll
                for (int g = 0; g < BEST_TN / 4; ++g)
                    *reinterpret_cast<float4*>(S + r * BEST_BN + g * BEST_CSTEP + cbase) =
                        make_float4(acc[i][g * 4 + 0], acc[i][g * 4 + 1], acc[i][g * 4 + 2],
                                    acc[i][g * 4 + 3]);
        }
        __syncthreads();
        for (int q = tid; q < BEST_SLICE * BEST_BN; q += BEST_NT) {
            const int r = q / BEST_BN, row = m0 + s0 + r, col = n0 + q - r * BEST_BN;
            if (s0 + r < BEST_BM && row < M && col < Nc)
                C[row * Nc + col] = S[q];
        }
    }
    __syncthreads(); // S free for the block's next tiles
#endif
}
