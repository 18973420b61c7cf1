// Matrix multiply, step 3 of the ladder (wpt2): the CUDA twin of
// kernels_cl/matmul_wpt2.cl, whose comments explain the step.
#include "matmul.cuh"

// ---- 3. wpt2: two outputs per thread ----------------------------------------------------------
#ifndef WPT2_TS
#error "WPT2_TS is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#define WPT2_HALF (WPT2_TS / 2)
#if WPT2_TS % 2 != 0
#error "WPT2_TS must be even"
#endif

extern "C" __global__ void matmul_wpt2(const float* A, const float* B, float* C, int M, int N,
                                       int K) {
    __shared__ float As[WPT2_TS][WPT2_TS];
    __shared__ float Bs[WPT2_TS][WPT2_TS];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * WPT2_TS + tx;
    const int row0 = blockIdx.y * WPT2_TS + ty;
    const int row1 = row0 + WPT2_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += WPT2_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + WPT2_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + WPT2_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bs[ty][tx] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bs[ty + WPT2_HALF][tx] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < WPT2_TS; ++k) {
            const float b = Bs[k][tx];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + WPT2_HALF][k] * b;
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
