// Matrix multiply, step 1 of the ladder (naive): the CUDA twin of
// kernels_cl/matmul_naive.cl, whose comments explain the step.
#include "matmul.cuh"

// ---- 1. naive ---------------------------------------------------------------------------------
extern "C" __global__ void matmul_naive(const float* A, const float* B, float* C, int M, int N,
                                        int K) {
    const int col = duet_global_id(0);
    const int row = duet_global_id(1);
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}
