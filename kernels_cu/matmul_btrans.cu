// Matrix multiply, step 4 of the ladder (btrans): the CUDA twin of
// kernels_cl/matmul_btrans.cl, whose comments explain the step.
#include "matmul.cuh"

// ---- 4. btrans: B's tile stored transposed, padded ---------------------------------------------
#ifndef BT_TS
#error "BT_TS is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#define BT_HALF (BT_TS / 2)
#if BT_TS % 2 != 0
#error "BT_TS must be even"
#endif

extern "C" __global__ void matmul_btrans(const float* A, const float* B, float* C, int M, int N,
                                         int K) {
    __shared__ float As[BT_TS][BT_TS];
    __shared__ float Bt[BT_TS][BT_TS + 1]; // Bt[n][k]: transposed, +1 against bank conflicts
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * BT_TS + tx;
    const int row0 = blockIdx.y * BT_TS + ty;
    const int row1 = row0 + BT_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BT_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + BT_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + BT_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bt[tx][ty] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bt[tx][ty + BT_HALF] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < BT_TS; ++k) {
            const float b = Bt[tx][k];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + BT_HALF][k] * b;
        }
        __syncthreads();
    }
    if (col < N) {
        if (row0 < M)
            C[row0 * N + col] = acc0;
        if (row1 < M)
            C[row1 * N + col] = acc1;
    }
}
