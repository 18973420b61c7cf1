// Matrix multiply C = A * B, float32, row-major: A is M x K, B is K x N, C is M x N.
// The same ladder as kernels_cl/matmul.cl, kernel for kernel and step for step; the comments
// there explain each step, the ones here only what differs in CUDA. Dimension x walks the
// columns of C, y the rows; every kernel works for any M, N, K >= 1, loads zeros outside the
// matrices, and lets every thread reach every __syncthreads().
#include "duet_cuda.cuh"

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

// ---- 2. tiled16, tiled32 ----------------------------------------------------------------------
// TS is a template parameter here (a plain argument in OpenCL C, folded after inlining there).
// On a device whose blocks are smaller than TS x TS the block is TS x TS/RPI threads, each
// computing RPI rows of the tile, TS/RPI apart (apps/ladder_shapes.cpp; RPI = 1 is the textbook
// kernel). The tile and RPI are macros, T16_TS/T16_RPI and T32_TS/T32_RPI, as in OpenCL.
#ifndef T16_TS
#define T16_TS 16
#endif
#ifndef T16_RPI
#define T16_RPI 1
#endif
#ifndef T32_TS
#define T32_TS 32
#endif
#ifndef T32_RPI
#define T32_RPI 1
#endif
#if T16_TS % T16_RPI != 0 || T32_TS % T32_RPI != 0
#error "tiled: RPI must divide TS"
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

extern "C" __global__ void matmul_tiled16(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
    __shared__ float As[T16_TS * T16_TS];
    __shared__ float Bs[T16_TS * T16_TS];
    matmul_tiled_body<T16_TS, T16_RPI>(A, B, C, M, N, K, As, Bs);
}

extern "C" __global__ void matmul_tiled32(const float* A, const float* B, float* C, int M, int N,
                                          int K) {
    __shared__ float As[T32_TS * T32_TS];
    __shared__ float Bs[T32_TS * T32_TS];
    matmul_tiled_body<T32_TS, T32_RPI>(A, B, C, M, N, K, As, Bs);
}

// ---- 3. wpt2: two outputs per thread ----------------------------------------------------------
#ifndef WPT2_TS
#define WPT2_TS 32
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

// ---- 4. btrans: B's tile stored transposed, padded ---------------------------------------------
#ifndef BT_TS
#define BT_TS 32
#endif
#define BT_HALF (BT_TS / 2)
#if BT_TS % 2 != 0
#error "BT_TS must be even"
#endif

extern "C" __global__ void matmul_btrans(const float* A, const float* B, float* C, int M, int N,
                                         int K) {
    __shared__ float As[BT_TS][BT_TS];
    __shared__ float Bt[BT_TS][BT_TS + 1]; // Bt[n][k]: transposed, +1 against bank conflicts
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * BT_TS + tx;
    const int row0 = blockIdx.y * BT_TS + ty;
    const int row1 = row0 + BT_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BT_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + BT_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + BT_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bt[tx][ty] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bt[tx][ty + BT_HALF] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < BT_TS; ++k) {
            const float b = Bt[tx][k];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + BT_HALF][k] * b;
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

// ---- shared by the register-blocked kernels ---------------------------------------------------
// p[row][col .. col+3], zeros outside; one aligned 16-byte load when `vec` (see matmul.cl).
__device__ __forceinline__ float4 matmul_load4(const float* p, int row, int col, int rows, int cols,
                                               int vec) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row < rows) {
        const int i = row * cols + col;
        if (vec) {
            if (col < cols)
                v = *reinterpret_cast<const float4*>(p + i);
        } else {
            if (col < cols)
                v.x = p[i];
            if (col + 1 < cols)
                v.y = p[i + 1];
            if (col + 2 < cols)
                v.z = p[i + 2];
            if (col + 3 < cols)
                v.w = p[i + 3];
        }
    }
    return v;
}

// Stores p[row][col .. col+3], dropping what lies outside; one 16-byte store when `vec`.
__device__ __forceinline__ void matmul_store4(float* p, int row, int col, int rows, int cols,
                                              int vec, float4 v) {
    if (row < rows) {
        const int i = row * cols + col;
        if (vec) {
            if (col < cols)
                *reinterpret_cast<float4*>(p + i) = v;
        } else {
            if (col < cols)
                p[i] = v.x;
            if (col + 1 < cols)
                p[i + 1] = v.y;
            if (col + 2 < cols)
                p[i + 2] = v.z;
            if (col + 3 < cols)
                p[i + 3] = v.w;
        }
    }
}

// ---- 5. reg4x4, reg8x8: register blocking -----------------------------------------------------
// __launch_bounds__ plays the part of OpenCL's reqd_work_group_size.
#ifndef R4_BM
#define R4_BM 64
#endif
#ifndef R4_BN
#define R4_BN 64
#endif
#ifndef R4_BK
#define R4_BK 16
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

#ifndef R8_BM
#define R8_BM 128
#endif
#ifndef R8_BN
#define R8_BN 128
#endif
#ifndef R8_BK
#define R8_BK 8
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

// ---- 6. best: double-buffered tiles, 8x16 register blocks, 16-byte shared reads ----------------
#ifndef BEST_BM
#define BEST_BM 128
#endif
#ifndef BEST_BN
#define BEST_BN 256
#endif
#ifndef BEST_BK // 16 here, 8 in the OpenCL file: each the faster on the H100 (docs/PERFORMANCE.md)
#define BEST_BK 16
#endif
#ifndef BEST_TM
#define BEST_TM 8
#endif
#ifndef BEST_TN
#define BEST_TN 16
#endif
#ifndef BEST_MINB // blocks per SM the registers must leave room for: 8x8 blocks fit two
#define BEST_MINB (BEST_TM * BEST_TN <= 64 ? 2 : 1)
#endif
#ifndef BEST_SPLIT // 1: K split over the launch's third dimension (set by the host when it splits)
#define BEST_SPLIT 0
#endif
#ifndef BEST_FAST // blocks wholly inside aligned matrices load without bounds checks
#define BEST_FAST 1
#endif
#define BEST_TX (BEST_BN / BEST_TN)
#define BEST_TY (BEST_BM / BEST_TM)
#define BEST_NT (BEST_TX * BEST_TY)
#ifndef BEST_PAD // floats of padding per row of A's transposed tile, where 48 KiB leave room
#define BEST_PAD (8 * BEST_BK * (BEST_BM + 4 + BEST_BN) <= 49152 ? 4 : 0)
#endif
#define BEST_LA (BEST_BM * BEST_BK / (4 * BEST_NT))
#define BEST_LB (BEST_BK * BEST_BN / (4 * BEST_NT))
#if BEST_TM % 4 != 0 || BEST_TN % 4 != 0 || BEST_BM % BEST_TM != 0 || BEST_BN % BEST_TN != 0 ||    \
    BEST_BK % 4 != 0 || BEST_PAD % 4 != 0 || BEST_LA < 1 || BEST_LB < 1 ||                         \
    BEST_LA * 4 * BEST_NT != BEST_BM * BEST_BK || BEST_LB * 4 * BEST_NT != BEST_BK * BEST_BN
#error "best: 4 | TM, TN, BK, PAD; TM | BM; TN | BN; each tile whole float4 loads per work-item"
#endif

__device__ __forceinline__ void matmul_best_load(const float* A, const float* B, int M, int N,
                                                 int K, int m0, int n0, int k0, int tid, int a_vec,
                                                 int b_vec, bool inside, float4* pa, float4* pb) {
#pragma unroll
    for (int l = 0; l < BEST_LA; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BK / 4), c = (q - r * (BEST_BK / 4)) * 4;
        pa[l] = BEST_FAST && inside ? *reinterpret_cast<const float4*>(A + (m0 + r) * K + k0 + c)
                                    : matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
    }
#pragma unroll
    for (int l = 0; l < BEST_LB; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BN / 4), c = (q - r * (BEST_BN / 4)) * 4;
        pb[l] = BEST_FAST && inside ? *reinterpret_cast<const float4*>(B + (k0 + r) * N + n0 + c)
                                    : matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
    }
}

__device__ __forceinline__ void matmul_best_store(float (*As)[BEST_BM + BEST_PAD],
                                                  float (*Bs)[BEST_BN], int tid, const float4* pa,
                                                  const float4* pb) {
#pragma unroll
    for (int l = 0; l < BEST_LA; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BK / 4), c = (q - r * (BEST_BK / 4)) * 4;
        As[c + 0][r] = pa[l].x;
        As[c + 1][r] = pa[l].y;
        As[c + 2][r] = pa[l].z;
        As[c + 3][r] = pa[l].w;
    }
#pragma unroll
    for (int l = 0; l < BEST_LB; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BN / 4), c = (q - r * (BEST_BN / 4)) * 4;
        *reinterpret_cast<float4*>(&Bs[r][c]) = pb[l];
    }
}

extern "C" __global__ void __launch_bounds__(BEST_NT, BEST_MINB)
    matmul_best(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
    __shared__ __align__(16) float As[2][BEST_BK][BEST_BM + BEST_PAD];
    __shared__ __align__(16) float Bs[2][BEST_BK][BEST_BN];
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * BEST_TX + tx;
    const int m0 = blockIdx.y * BEST_BM;
    const int n0 = blockIdx.x * BEST_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    // In a block inside C with 16-byte aligned rows, every load is inside A and B and aligned,
    // except in the last tile of K when BK does not divide it: those tiles load without checks.
    const bool inside = a_vec && b_vec && m0 + BEST_BM <= M && n0 + BEST_BN <= N;
    const int full_tiles = K / BEST_BK;
#if BEST_SPLIT
    // Split K: block z takes its share of the K tiles and writes its partial product to the
    // z-th M x N slice of C, which matmul_split_sum then adds up. (A build of its own: the
    // offsets cost the unsplit kernel 6% on the H100.)
    const int all_tiles = (K + BEST_BK - 1) / BEST_BK;
    const int share = (all_tiles + gridDim.z - 1) / gridDim.z;
    const int t0 = blockIdx.z * share;
    const int tiles = max(0, min(all_tiles, t0 + share) - t0);
    C += size_t(blockIdx.z) * size_t(M) * size_t(N);
#else
    const int t0 = 0;
    const int tiles = (K + BEST_BK - 1) / BEST_BK;
#endif
    float acc[BEST_TM][BEST_TN];
#pragma unroll
    for (int i = 0; i < BEST_TM; ++i)
#pragma unroll
        for (int j = 0; j < BEST_TN; ++j)
            acc[i][j] = 0.0f;
    float4 pa[BEST_LA], pb[BEST_LB];

    matmul_best_load(A, B, M, N, K, m0, n0, t0 * BEST_BK, tid, a_vec, b_vec,
                     inside && t0 < full_tiles, pa, pb);
    matmul_best_store(As[0], Bs[0], tid, pa, pb);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles)
            matmul_best_load(A, B, M, N, K, m0, n0, (t0 + t + 1) * BEST_BK, tid, a_vec, b_vec,
                             inside && t0 + t + 1 < full_tiles, pa, pb);
#pragma unroll
        for (int k = 0; k < BEST_BK; ++k) {
            float a[BEST_TM], b[BEST_TN];
#pragma unroll
            for (int g = 0; g < BEST_TM / 4; ++g) {
                const float4 v =
                    *reinterpret_cast<const float4*>(&As[cur][k][g * 4 * BEST_TY + ty * 4]);
                a[g * 4 + 0] = v.x;
                a[g * 4 + 1] = v.y;
                a[g * 4 + 2] = v.z;
                a[g * 4 + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < BEST_TN / 4; ++g) {
                const float4 v =
                    *reinterpret_cast<const float4*>(&Bs[cur][k][g * 4 * BEST_TX + tx * 4]);
                b[g * 4 + 0] = v.x;
                b[g * 4 + 1] = v.y;
                b[g * 4 + 2] = v.z;
                b[g * 4 + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < BEST_TM; ++i)
#pragma unroll
                for (int j = 0; j < BEST_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        if (t + 1 < tiles)
            matmul_best_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < BEST_TM; ++i) {
        const int row = m0 + (i / 4) * 4 * BEST_TY + ty * 4 + i % 4;
#pragma unroll
        for (int g = 0; g < BEST_TN / 4; ++g) {
            const int col = n0 + g * 4 * BEST_TX + tx * 4;
            const float4 v = make_float4(acc[i][g * 4 + 0], acc[i][g * 4 + 1], acc[i][g * 4 + 2],
                                         acc[i][g * 4 + 3]);
            matmul_store4(C, row, col, M, N, b_vec, v);
        }
    }
}

// The sum of `splits` partial products of split-K `best`: C[i] = P[i] + P[count + i] + ...
extern "C" __global__ void matmul_split_sum(const float* __restrict__ P, float* __restrict__ C,
                                            int count, int splits) {
    const int i = duet_global_id(0);
    if (i < count) {
        float s = 0.0f;
        for (int z = 0; z < splits; ++z)
            s += P[size_t(z) * size_t(count) + i];
        C[i] = s;
    }
}
