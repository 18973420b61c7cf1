// Matrix multiply, step 1 of the ladder: naive. kernels_cl/matmul.clh says what every
// step keeps; kernels_cu/matmul_naive.cu is the CUDA twin.
#include "matmul.clh"

// ---- 1. naive ---------------------------------------------------------------------------------
// One output per work-item, straight from global memory: every work-item reads a row of A and a
// column of B, so each element of A and B is read N or M times. The host honours --local, which
// shows coalescing (128x1: neighbours read neighbouring B elements; 1x128: neighbours read A
// elements K floats apart) and occupancy (8x8, 16x16, 32x32). No barrier, so an early exit is fine.
__kernel void matmul_naive(__global const float* A, __global const float* B, __global float* C,
                           const int M, const int N, const int K) {
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
