// matmul shaped for a CPU: C = A * B (row-major, A M x K, B K x N), each work-item one block of
// CPU_MR rows x 2 * CPU_VW columns of C held in registers while the whole of K runs (2 * CPU_MR
// vector accumulators: 12 of the 16 AVX2 or 32 AVX-512 registers at the defaults), one row of B
// loaded as two vectors per k and each A value broadcast: the shape of a BLAS micro-kernel,
// without packing. No local memory, no barrier. A work-group is a column of such blocks
// (local 1 x L): its work-items run one after another on one core and share the K x 2*CPU_VW
// panel of B from that core's cache. CPU_VW is the device's preferred float width (the host
// passes it); CPU_MR the rows (6 unless defined). Arguments as every matmul kernel:
//     (A, B, C, M, N, K), global size (ceil(N / (2 CPU_VW)), ceil(M / CPU_MR)) rounded to local.
// Blocks on the right or bottom edge take a scalar path with bounds checks. Correct on any device
// (slow on a GPU). Twin: kernels_cu/matmul_cpu.cu.

#include "cpu_vector.clh"
#ifndef CPU_MR
#define CPU_MR 6
#endif
#if CPU_MR < 1 || CPU_MR > 8
#error "CPU_MR: 1 to 8 rows"
#endif
#define CPU_NR (2 * CPU_VW)

__kernel void matmul_cpu(__global const float* restrict A, __global const float* restrict B,
                         __global float* restrict C, const int M, const int N, const int K) {
    const int j0 = (int)get_global_id(0) * CPU_NR;
    const int i0 = (int)get_global_id(1) * CPU_MR;
    if (i0 >= M || j0 >= N)
        return;
    if (i0 + CPU_MR <= M && j0 + CPU_NR <= N) {
        VT lo[CPU_MR], hi[CPU_MR];
#pragma unroll
        for (int r = 0; r < CPU_MR; ++r)
            lo[r] = hi[r] = (VT)(0.0f);
        __global const float* a = A + (size_t)i0 * K;
        __global const float* b = B + j0;
        for (int k = 0; k < K; ++k, b += N) {
            const VT b0 = VLOAD(0, b), b1 = VLOAD(0, b + CPU_VW);
#pragma unroll
            for (int r = 0; r < CPU_MR; ++r) {
                const VT av = (VT)(a[r * K + k]);
                lo[r] = mad(av, b0, lo[r]);
                hi[r] = mad(av, b1, hi[r]);
            }
        }
#pragma unroll
        for (int r = 0; r < CPU_MR; ++r) {
            VSTORE(lo[r], 0, C + (size_t)(i0 + r) * N + j0);
            VSTORE(hi[r], 0, C + (size_t)(i0 + r) * N + j0 + CPU_VW);
        }
        return;
    }
    // The edge: the rows and columns that exist, one dot product at a time.
    for (int i = i0; i < min(M, i0 + CPU_MR); ++i)
        for (int j = j0; j < min(N, j0 + CPU_NR); ++j) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k)
                s = mad(A[(size_t)i * K + k], B[(size_t)k * N + j], s);
            C[(size_t)i * N + j] = s;
        }
}
