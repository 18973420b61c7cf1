// Matrix multiply, step 2 of the ladder: tiled16 and tiled32. kernels_cl/matmul.clh says what
// every step keeps; kernels_cu/matmul_tiled.cu is the CUDA twin.
#include "matmul.clh"

// ---- 2. tiled16, tiled32 ----------------------------------------------------------------------
// A TS x TS work-group computes a TS x TS block of C. It walks K one TS-wide tile at a time: each
// work-item loads one element of A's tile and one of B's into local memory (a zero where the tile
// hangs over the edge of the matrix, so the sums need no special case), the group waits at a
// barrier, then every work-item reads TS values of each tile from local memory. Each global
// element is now read M/TS or N/TS times instead of M or N times.
// The body is shared by the two sizes; each kernel declares its own local arrays.
// On a device whose work-groups are smaller than TS x TS (apps/ladder_shapes.cpp picks the shape),
// the group is TS x TS/RPI work-items and each computes RPI rows of the tile, TS/RPI rows apart,
// loading RPI elements of each tile; RPI = 1 is the textbook kernel. The tile and RPI are macros
// (T16_TS/T16_RPI, T32_TS/T32_RPI), 16/32 and 1 in the textbook shape. They come from the step
// records (apps/ladders/matmul_steps.cpp), each kernel with its own: a build with T16_TS has
// tiled16, with T32_TS tiled32.
#if !defined(T16_TS) && !defined(T32_TS)
#error "T16_TS and T16_RPI (tiled16) or T32_TS and T32_RPI (tiled32) are set by the host from the step records (apps/ladders/matmul_steps.cpp)"
#endif
#if defined(T16_TS) && !defined(T16_RPI)
#error "tiled16: T16_RPI is set by the host from the step record (apps/ladders/matmul_steps.cpp), with T16_TS"
#endif
#if defined(T16_TS) && defined(T16_RPI)
#if T16_TS % T16_RPI != 0
#error "tiled16: T16_RPI must divide T16_TS"
#endif
#endif
#if defined(T32_TS) && !defined(T32_RPI)
#error "tiled32: T32_RPI is set by the host from the step record (apps/ladders/matmul_steps.cpp), with T32_TS"
#endif
#if defined(T32_TS) && defined(T32_RPI)
#if T32_TS % T32_RPI != 0
#error "tiled32: T32_RPI must divide T32_TS"
#endif
#endif
void matmul_tiled_body(__global const float* A, __global const float* B, __global float* C,
                       const int M, const int N, const int K, __local float* As, __local float* Bs,
                       const int TS, const int RPI, float* acc) {
    const int NY = TS / RPI; // work-items along dimension 1
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int col = (int)get_group_id(0) * TS + tx;
    const int row0 = (int)get_group_id(1) * TS + ty; // rows row0, row0 + NY, ...
    MATMUL_UNROLL
    for (int i = 0; i < RPI; ++i)
        acc[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        const int ka = k0 + tx; // column of A this work-item loads
        MATMUL_UNROLL
        for (int i = 0; i < RPI; ++i) {
            const int r = ty + i * NY;   // row of the tiles
            const int row = row0 + i * NY; // row of A loaded
            const int kb = k0 + r;         // row of B loaded
            As[r * TS + tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
            Bs[r * TS + tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) {
            const float b = Bs[k * TS + tx];
            MATMUL_UNROLL
            for (int i = 0; i < RPI; ++i)
                acc[i] += As[(ty + i * NY) * TS + k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE); // the tiles are overwritten next round
    }
    MATMUL_UNROLL
    for (int i = 0; i < RPI; ++i)
        if (row0 + i * NY < M && col < N)
            C[(row0 + i * NY) * N + col] = acc[i];
}

#ifdef T16_TS
__kernel void matmul_tiled16(__global const float* A, __global const float* B, __global float* C,
                             const int M, const int N, const int K) {
    __local float As[T16_TS * T16_TS];
    __local float Bs[T16_TS * T16_TS];
    float acc[T16_RPI];
    matmul_tiled_body(A, B, C, M, N, K, As, Bs, T16_TS, T16_RPI, acc);
}
#endif

#ifdef T32_TS
__kernel void matmul_tiled32(__global const float* A, __global const float* B, __global float* C,
                             const int M, const int N, const int K) {
    __local float As[T32_TS * T32_TS];
    __local float Bs[T32_TS * T32_TS];
    float acc[T32_RPI];
    matmul_tiled_body(A, B, C, M, N, K, As, Bs, T32_TS, T32_RPI, acc);
}
#endif
