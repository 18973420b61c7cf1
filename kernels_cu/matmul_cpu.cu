// matmul shaped for a CPU (the twin of kernels_cl/matmul_cpu.cl, whose comments explain it): K
// in blocks of CPU_KC, B's panel of each block copied into shared memory as CPU_GN micro-panels
// of CPU_KC x CPU_NR, each thread one block of CPU_MR x CPU_NR outputs of C in registers over all
// of K. Same arguments, blocks of C and launch as the OpenCL kernel: grid
// (ceil(N / (CPU_GN * CPU_NR)), ceil(M / (CPU_GM * CPU_MR))), block (CPU_GM, CPU_GN). One
// difference: the step record's textbook CPU_KC of 256 makes a 64 KiB panel, over CUDA's 48 KiB
// of static shared memory, so a CUDA device runs its next shape, 128; the sums are the same (k
// ascending, one fused multiply-add after the other). Correct on a GPU, and slow there.
#include "duet_cuda.cuh"

// The step record's macros, as in the OpenCL kernel (no defaults: the record is their source).
#ifndef CPU_VW
#error "CPU_VW is set by the host from the step record (apps/framework/cpu_steps.cpp)"
#endif
#ifndef CPU_MR
#error "CPU_MR is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef CPU_GN
#error "CPU_GN is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef CPU_GM
#error "CPU_GM is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef CPU_KC
#error "CPU_KC is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#define CPU_NR (2 * CPU_VW)
#define CPU_NC (CPU_GN * CPU_NR)
#define CPU_MC (CPU_GM * CPU_MR)
#define CPU_ITEMS (CPU_GN * CPU_GM)

extern "C" __global__ void __launch_bounds__(CPU_ITEMS)
    matmul_cpu(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
    __shared__ float panel[CPU_GN * CPU_KC * CPU_NR];
    const int sm = threadIdx.x, sn = threadIdx.y; // the sm-th block down, the sn-th across
    const int item = sm + sn * CPU_GM;
    const int jg = blockIdx.x * CPU_NC;
    const int i0 = blockIdx.y * CPU_MC + sm * CPU_MR, j0 = jg + sn * CPU_NR;
    float acc[CPU_MR][CPU_NR];
#pragma unroll
    for (int r = 0; r < CPU_MR; ++r)
#pragma unroll
        for (int c = 0; c < CPU_NR; ++c)
            acc[r][c] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += CPU_KC) {
        const int kc = min(CPU_KC, K - k0);
        for (int s = 0; s < CPU_GN; ++s) {
            const int col = jg + s * CPU_NR;
            for (int kk = item; kk < kc; kk += CPU_ITEMS)
                for (int c = 0; c < CPU_NR; ++c)
                    panel[(s * CPU_KC + kk) * CPU_NR + c] =
                        col + c < N ? B[(size_t)(k0 + kk) * N + col + c] : 0.0f;
        }
        __syncthreads();
        const float* b = panel + sn * CPU_KC * CPU_NR;
        for (int k = 0; k < kc; ++k) {
#pragma unroll
            for (int r = 0; r < CPU_MR; ++r) {
                const float a = A[(size_t)min(i0 + r, M - 1) * K + k0 + k];
#pragma unroll
                for (int c = 0; c < CPU_NR; ++c)
                    acc[r][c] = fmaf(a, b[k * CPU_NR + c], acc[r][c]);
            }
        }
        __syncthreads(); // the panel is read before the next copy overwrites it
    }
#pragma unroll
    for (int r = 0; r < CPU_MR; ++r)
#pragma unroll
        for (int c = 0; c < CPU_NR; ++c)
            if (i0 + r < M && j0 + c < N)
                C[(size_t)(i0 + r) * N + j0 + c] = acc[r][c];
}
