// Matrix multiply, step 2 of the ladder (tiled16, tiled32): the CUDA twin of
// kernels_cl/matmul_tiled.cl, whose comments explain the step.
#include "matmul.cuh"

// ---- 2. tiled16, tiled32 ----------------------------------------------------------------------
// TS is a template parameter here (a plain argument in OpenCL C, folded after inlining there).
// On a device whose blocks are smaller than TS x TS the block is TS x TS/RPI threads, each
// computing RPI rows of the tile, TS/RPI apart (apps/ladder_shapes.cpp; RPI = 1 is the textbook
// kernel). The tile and RPI are macros, T16_TS/T16_RPI and T32_TS/T32_RPI, as in OpenCL.
// The tile macros come from the step records (apps/ladders/matmul_steps.cpp), each kernel with
// its own: a build with T16_TS has tiled16, with T32_TS tiled32.
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
template <int TS, int RPI>
__device__ __forceinline__ void matmul_tiled_body(const float* A, const float* B, float* C, int M,
                                                  int N, int K, float* As, float* Bs) {
    constexpr int NY = TS / RPI; // threads along y
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * TS + tx;
    const int row0 = blockIdx.y * TS + ty; // rows row0, row0 + NY, ...
    float acc[RPI];
#pragma unroll
    for (int i = 0; i < RPI; ++i)
        acc[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        const int ka = k0 + tx;
#pragma unroll
        for (int i = 0; i < RPI; ++i) {
            const int r = ty + i * NY;
            const int row = row0 + i * NY;
            const int kb = k0 + r;
            As[r * TS + tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
            Bs[r * TS + tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TS; ++k) {
            const float b = Bs[k * TS + tx];
#pragma unroll
            for (int i = 0; i < RPI; ++i)
                acc[i] += As[(ty + i * NY) * TS + k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < RPI; ++i)
        if (row0 + i * NY < M && col < N)
            C[(row0 + i * NY) * N + col] = acc[i];
}

#ifdef T16_TS
extern "C" __global__ void matmul_tiled16(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
    __shared__ float As[T16_TS * T16_TS];
    __shared__ float Bs[T16_TS * T16_TS];
    matmul_tiled_body<T16_TS, T16_RPI>(A, B, C, M, N, K, As, Bs);
}
#endif

#ifdef T32_TS
extern "C" __global__ void matmul_tiled32(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
    __shared__ float As[T32_TS * T32_TS];
    __shared__ float Bs[T32_TS * T32_TS];
    matmul_tiled_body<T32_TS, T32_RPI>(A, B, C, M, N, K, As, Bs);
}
#endif
