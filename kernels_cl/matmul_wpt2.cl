// Matrix multiply, step 3 of the ladder: wpt2. kernels_cl/matmul.clh says what every
// step keeps; kernels_cu/matmul_wpt2.cu is the CUDA twin.
#include "matmul.clh"

// ---- 3. wpt2: two outputs per work-item -------------------------------------------------------
// A WPT2_TS x WPT2_TS block of C is computed by WPT2_TS x WPT2_TS/2 work-items, each owning two
// outputs WPT2_TS/2 rows apart. The value read from B's tile is used twice, so there are fewer
// local-memory reads per multiply-add, and half as many work-items share the same loads.
#ifndef WPT2_TS
#error "WPT2_TS is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#define WPT2_HALF (WPT2_TS / 2)
#if WPT2_TS % 2 != 0
#error "WPT2_TS must be even"
#endif

__kernel void matmul_wpt2(__global const float* A, __global const float* B, __global float* C,
                          const int M, const int N, const int K) {
    __local float As[WPT2_TS][WPT2_TS];
    __local float Bs[WPT2_TS][WPT2_TS];
    const int tx = (int)get_local_id(0); // 0 .. WPT2_TS-1
    const int ty = (int)get_local_id(1); // 0 .. WPT2_HALF-1
    const int col = (int)get_group_id(0) * WPT2_TS + tx;
    const int row0 = (int)get_group_id(1) * WPT2_TS + ty;
    const int row1 = row0 + WPT2_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += WPT2_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + WPT2_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + WPT2_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bs[ty][tx] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bs[ty + WPT2_HALF][tx] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < WPT2_TS; ++k) {
            const float b = Bs[k][tx];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + WPT2_HALF][k] * b;
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
