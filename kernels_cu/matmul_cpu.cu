// matmul shaped for a CPU (the twin of kernels_cl/matmul_cpu.cl): each thread one block of
// CPU_MR x CPU_NR outputs of C accumulated in registers over the whole of K, B read along its rows,
// A broadcast; no shared memory, no barrier. Same arguments and global size (in blocks) as the
// OpenCL kernel at its defaults (CPU_VW 8: 6 x 16 blocks). Correct on a GPU, and slow there.
#include "duet_cuda.cuh"

// The defaults of the OpenCL kernel, and the same defines when NVRTC builds it with --define.
#ifndef CPU_VW
#define CPU_VW 8
#endif
#ifndef CPU_MR
#define CPU_MR 6
#endif
#define CPU_NR (2 * CPU_VW)

extern "C" __global__ void matmul_cpu(const float* __restrict__ A, const float* __restrict__ B,
                                      float* __restrict__ C, int M, int N, int K) {
    const int j0 = (blockIdx.x * blockDim.x + threadIdx.x) * CPU_NR;
    const int i0 = (blockIdx.y * blockDim.y + threadIdx.y) * CPU_MR;
    if (i0 >= M || j0 >= N)
        return;
    const int rows = min(CPU_MR, M - i0), cols = min(CPU_NR, N - j0);
    float acc[CPU_MR][CPU_NR];
#pragma unroll
    for (int r = 0; r < CPU_MR; ++r)
#pragma unroll
        for (int c = 0; c < CPU_NR; ++c)
            acc[r][c] = 0.0f;
    for (int k = 0; k < K; ++k) {
        float b[CPU_NR];
#pragma unroll
        for (int c = 0; c < CPU_NR; ++c)
            b[c] = c < cols ? B[(size_t)k * N + j0 + c] : 0.0f;
#pragma unroll
        for (int r = 0; r < CPU_MR; ++r) {
            const float a = r < rows ? A[(size_t)(i0 + r) * K + k] : 0.0f;
#pragma unroll
            for (int c = 0; c < CPU_NR; ++c)
                acc[r][c] = fmaf(a, b[c], acc[r][c]);
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            C[(size_t)(i0 + r) * N + j0 + c] = acc[r][c];
}
