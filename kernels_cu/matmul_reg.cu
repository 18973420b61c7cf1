// Matrix multiply, step 5 of the ladder (reg4x4, reg8x8): the CUDA twin of
// kernels_cl/matmul_reg.cl, whose comments explain the step.
#include "matmul.cuh"

// Each kernel builds with its step record's macros (apps/ladders/matmul_steps.cpp): R4_BM, R4_BN
// and R4_BK for reg4x4, R8_* for reg8x8; a build with neither is a mistake.
#if !defined(R4_BM) && !defined(R8_BM)
#error "R4_BM, R4_BN and R4_BK (reg4x4) or R8_BM, R8_BN and R8_BK (reg8x8) are set by the host from the step records (apps/ladders/matmul_steps.cpp)"
#endif

// ---- 5. reg4x4, reg8x8: register blocking -----------------------------------------------------
// __launch_bounds__ plays the part of OpenCL's reqd_work_group_size.
#ifdef R4_BM // reg4x4's build (the step record's macros)
#ifndef R4_BN
#error "reg4x4: R4_BN is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R4_BM"
#endif
#ifndef R4_BK
#error "reg4x4: R4_BK is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R4_BM"
#endif
#define R4_TM 4
#define R4_TN 4
#define R4_TX (R4_BN / R4_TN)
#define R4_TY (R4_BM / R4_TM)
#define R4_NT (R4_TX * R4_TY)
#if R4_BM % R4_TM != 0 || R4_BN % R4_TN != 0 || R4_BK % 4 != 0 || R4_BN % 4 != 0 ||                \
    (R4_BM * R4_BK) % (4 * R4_NT) != 0 || (R4_BK * R4_BN) % (4 * R4_NT) != 0
#error "reg4x4: TM | BM, TN | BN, 4 | BK, each tile whole float4 loads per work-item"
#endif

extern "C" __global__ void __launch_bounds__(R4_NT)
    matmul_reg4x4(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[R4_BK][R4_BM]; // transposed: As[k][m]
    __shared__ float Bs[R4_BK][R4_BN];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * R4_TX + tx;
    const int m0 = blockIdx.y * R4_BM;
    const int n0 = blockIdx.x * R4_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    float acc[R4_TM][R4_TN];
#pragma unroll
    for (int i = 0; i < R4_TM; ++i)
#pragma unroll
        for (int j = 0; j < R4_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R4_BK) {
#pragma unroll
        for (int l = 0; l < R4_BM * R4_BK / (4 * R4_NT); ++l) {
            const int q = tid + l * R4_NT;
            const int r = q / (R4_BK / 4), c = (q - r * (R4_BK / 4)) * 4;
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < R4_BK * R4_BN / (4 * R4_NT); ++l) {
            const int q = tid + l * R4_NT;
            const int r = q / (R4_BN / 4), c = (q - r * (R4_BN / 4)) * 4;
            const float4 v = matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
            Bs[r][c + 0] = v.x;
            Bs[r][c + 1] = v.y;
            Bs[r][c + 2] = v.z;
            Bs[r][c + 3] = v.w;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < R4_BK; ++k) {
            float a[R4_TM], b[R4_TN];
#pragma unroll
            for (int i = 0; i < R4_TM; ++i)
                a[i] = As[k][ty * R4_TM + i];
#pragma unroll
            for (int j = 0; j < R4_TN; ++j)
                b[j] = Bs[k][tx * R4_TN + j];
#pragma unroll
            for (int i = 0; i < R4_TM; ++i)
#pragma unroll
                for (int j = 0; j < R4_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < R4_TM; ++i) {
        const int row = m0 + ty * R4_TM + i;
#pragma unroll
        for (int j = 0; j < R4_TN; ++j) {
            const int col = n0 + tx * R4_TN + j;
            if (row < M && col < N)
                C[row * N + col] = acc[i][j];
        }
    }
}
#endif // R4_BM

#ifdef R8_BM // reg8x8's build (the step record's macros)
#ifndef R8_BN
#error "reg8x8: R8_BN is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R8_BM"
#endif
#ifndef R8_BK
#error "reg8x8: R8_BK is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R8_BM"
#endif
#define R8_TM 8
#define R8_TN 8
#define R8_TX (R8_BN / R8_TN)
#define R8_TY (R8_BM / R8_TM)
#define R8_NT (R8_TX * R8_TY)
#if R8_BM % R8_TM != 0 || R8_BN % R8_TN != 0 || R8_BK % 4 != 0 || R8_BN % 4 != 0 ||                \
    (R8_BM * R8_BK) % (4 * R8_NT) != 0 || (R8_BK * R8_BN) % (4 * R8_NT) != 0
#error "reg8x8: TM | BM, TN | BN, 4 | BK, each tile whole float4 loads per work-item"
#endif

extern "C" __global__ void __launch_bounds__(R8_NT)
    matmul_reg8x8(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[R8_BK][R8_BM]; // transposed: As[k][m]
    __shared__ float Bs[R8_BK][R8_BN];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * R8_TX + tx;
    const int m0 = blockIdx.y * R8_BM;
    const int n0 = blockIdx.x * R8_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    float acc[R8_TM][R8_TN];
#pragma unroll
    for (int i = 0; i < R8_TM; ++i)
#pragma unroll
        for (int j = 0; j < R8_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R8_BK) {
#pragma unroll
        for (int l = 0; l < R8_BM * R8_BK / (4 * R8_NT); ++l) {
            const int q = tid + l * R8_NT;
            const int r = q / (R8_BK / 4), c = (q - r * (R8_BK / 4)) * 4;
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < R8_BK * R8_BN / (4 * R8_NT); ++l) {
            const int q = tid + l * R8_NT;
            const int r = q / (R8_BN / 4), c = (q - r * (R8_BN / 4)) * 4;
            const float4 v = matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
            Bs[r][c + 0] = v.x;
            Bs[r][c + 1] = v.y;
            Bs[r][c + 2] = v.z;
            Bs[r][c + 3] = v.w;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < R8_BK; ++k) {
            float a[R8_TM], b[R8_TN];
#pragma unroll
            for (int i = 0; i < R8_TM; ++i)
                a[i] = As[k][ty * R8_TM + i];
#pragma unroll
            for (int j = 0; j < R8_TN; ++j)
                b[j] = Bs[k][tx * R8_TN + j];
#pragma unroll
            for (int i = 0; i < R8_TM; ++i)
#pragma unroll
                for (int j = 0; j < R8_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < R8_TM; ++i) {
        const int row = m0 + ty * R8_TM + i;
#pragma unroll
        for (int j = 0; j < R8_TN; ++j) {
            const int col = n0 + tx * R8_TN + j;
            if (row < M && col < N)
                C[row * N + col] = acc[i][j];
        }
    }
}
#endif // R8_BM
