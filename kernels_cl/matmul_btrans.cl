// Matrix multiply, step 4 of the ladder: btrans. kernels_cl/matmul.clh says what every
// step keeps; kernels_cu/matmul_btrans.cu is the CUDA twin.
#include "matmul.clh"

// ---- 4. btrans: B's tile stored transposed, padded ---------------------------------------------
// As wpt2, but B's tile is stored transposed, Bt[column][k], so the inner loop walks both tiles
// along k with the same constant stride (the compiler folds the k offsets into the instructions
// instead of adding a row stride per step). Transposed, the work-items of a group would write
// (and read) a column of Bt whose elements lie WPT2_TS floats apart, all in the same local-memory
// bank; one float of padding per row (WPT2_TS + 1) spreads them over every bank.
#ifndef BT_TS
#error "BT_TS is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#define BT_HALF (BT_TS / 2)
#if BT_TS % 2 != 0
#error "BT_TS must be even"
#endif

__kernel void matmul_btrans(__global const float* A, __global const float* B, __global float* C,
                            const int M, const int N, const int K) {
    __local float As[BT_TS][BT_TS];
    __local float Bt[BT_TS][BT_TS + 1]; // Bt[n][k]: transposed, +1 against bank conflicts
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int col = (int)get_group_id(0) * BT_TS + tx;
    const int row0 = (int)get_group_id(1) * BT_TS + ty;
    const int row1 = row0 + BT_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BT_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + BT_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + BT_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bt[tx][ty] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bt[tx][ty + BT_HALF] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < BT_TS; ++k) {
            const float b = Bt[tx][k];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + BT_HALF][k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (col < N) {
        if (row0 < M)
            C[row0 * N + col] = acc0;
        if (row1 < M)
            C[row1 * N + col] = acc1;
    }
}
