// Matrix multiply, step 6 of the ladder (best): what its kernels share, the tiles' loads, stores
// and arithmetic, one block of C over a range of K's tiles, and the write of a block into C
// (matmul_best_write.cuh, included at the end). The CUDA twin of kernels_cl/matmul_best.clh, whose
// comments explain the step. matmul_best.cu is the kernel over C's blocks (and over a split of K),
// matmul_best_stream.cu the one over the device's multiprocessors (stream-K).
#pragma once
#include "matmul.cuh"

// ---- 6. best: double-buffered tiles, 8x16 register blocks, 16-byte shared reads ----------------
#ifndef BEST_BM
#error "BEST_BM is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef BEST_BN
#error "BEST_BN is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef BEST_BK // 16 through CUDA and NVIDIA's OpenCL on Hopper, 8 elsewhere (the device profile's)
#error "BEST_BK is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef BEST_TM
#error "BEST_TM is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef BEST_TN
#error "BEST_TN is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef BEST_MINB // blocks per SM the registers must leave room for: 8x8 blocks fit two
#define BEST_MINB (BEST_TM * BEST_TN <= 64 ? 2 : 1)
#endif
#ifndef BEST_SPLIT // 1: K split over the launch's third dimension (set by the host when it splits)
#define BEST_SPLIT 0
#endif
#ifndef BEST_ORDER // the order of a step's multiply-adds (matmul_best_tile): 1 or 4 below
#define BEST_ORDER 1
#endif
// The n-th row of a step's multiply-adds: 1 row by row, every other row backwards (serpentine),
// 4 the last row first. The orders the host builds (matmul_best_stream.cu chooses 4 over
// unclamped blocks); kernels_cl/matmul_best.clh has OpenCL's (0, 3 and 4).
#if BEST_ORDER == 4
#define BEST_ROW_AT(n) (BEST_TM - 1 - (n))
#elif BEST_ORDER == 1
#define BEST_ROW_AT(n) (n)
#else
#error "best: BEST_ORDER is 1 or 4 in CUDA"
#endif
#define BEST_SERPENTINE (BEST_ORDER >= 1 && BEST_ORDER <= 3)
#ifndef BEST_BSWAP // B's pairs of columns swapped in shared memory (kernels_cl/matmul_best.clh):
#define BEST_BSWAP 0 // in CUDA 6% slower in waves and 9% spread on the H100
#endif
#ifndef BEST_UNALIGNED // set by the host: 1 where A's rows are not 16-byte aligned, 2 where B's
#define BEST_UNALIGNED 0 // are not, 3 both: unchecked loads by float there
#endif
#ifndef BEST_CLAMP // 1 (set by the host): groups at C's edges load clamped rows and columns
#define BEST_CLAMP 0
#endif
#if BEST_CLAMP && !(BEST_UNALIGNED & 2) // row m of A, and 4 columns from n of B, clamped
#define BEST_CLAMPED 1
#define BEST_ROW(m, M) min(m, (M) - 1)
#define BEST_C4(n, N) min(n, (N) - 4)
#else
#define BEST_CLAMPED 0
#define BEST_ROW(m, M) (m)
#define BEST_C4(n, N) (n)
#endif
#define BEST_TX (BEST_BN / BEST_TN)
#define BEST_TY (BEST_BM / BEST_TM)
#define BEST_NT (BEST_TX * BEST_TY)
// Warp tiles (kernels_cl/matmul_best.cl): a warp's 64x64 tile of C as 8x4 threads (W = 4), as
// on NVIDIA's OpenCL. On the H100 W = 4 and 8 run alike in waves (2.795 against 2.800 ms at
// 4096^3), but matmul_best_stream runs 8192^3 1.3% faster with 4 (21.59 against 21.87 ms); 16 is
// 0.5% faster in waves and 3% slower spread (docs/design/sgemm.md). NVRTC's code for this
// file runs 3% faster there than nvcc's, same source and toolkit (docs/design/sgemm.md).
#ifndef BEST_WTX // warp tiles, W threads of a warp along N (0: pieces spread over the block)
#define BEST_WTX 4
#endif
#if BEST_WTX && 32 % BEST_WTX != 0
#error "best: BEST_WTX divides 32"
#endif
// The warp's tile of C, and whether the block holds whole ones (else the block-wide layout).
#define BEST_WM (BEST_TM * (32 / (BEST_WTX ? BEST_WTX : 1)))
#define BEST_WN (BEST_TN * BEST_WTX)
#define BEST_WARPS (BEST_WTX && BEST_BM % BEST_WM == 0 && BEST_BN % BEST_WN == 0)
#if BEST_WARPS
#define BEST_RSTEP (4 * (32 / BEST_WTX))
#define BEST_CSTEP (4 * BEST_WTX)
#else
#define BEST_RSTEP (4 * BEST_TY)
#define BEST_CSTEP (4 * BEST_TX)
#endif
// Floats of padding per row of A's transposed tile, where 48 KiB leave room.
#define BEST_PAD (8 * BEST_BK * (BEST_BM + 4 + BEST_BN) <= 49152 ? 4 : 0)
#define BEST_LA (BEST_BM * BEST_BK / (4 * BEST_NT))
#define BEST_LB (BEST_BK * BEST_BN / (4 * BEST_NT))
#if BEST_TM % 4 != 0 || BEST_TN % 4 != 0 || BEST_BM % BEST_TM != 0 || BEST_BN % BEST_TN != 0 ||    \
    BEST_BK % 4 != 0 || BEST_PAD % 4 != 0 || BEST_LA < 1 || BEST_LB < 1 ||                         \
    BEST_LA * 4 * BEST_NT != BEST_BM * BEST_BK || BEST_LB * 4 * BEST_NT != BEST_BK * BEST_BN
#error "best: 4 | TM, TN, BK, PAD; TM | BM; TN | BN; each tile whole float4 loads per work-item"
#endif

// Four floats from p by float, for rows not 16-byte aligned (OpenCL's vload4).
__device__ __forceinline__ float4 matmul_best_floats4(const float* p) {
    return make_float4(p[0], p[1], p[2], p[3]);
}

// v with its pairs swapped where BEST_BSWAP (B's tile in shared memory), else v.
__device__ __forceinline__ float4 matmul_best_bswap(float4 v) {
    return BEST_BSWAP ? make_float4(v.y, v.x, v.w, v.z) : v;
}

// Four floats of A from p, all inside it: one 16-byte load, or four where A's rows are not
// 16-byte aligned (BEST_UNALIGNED & 1); and whether A's rows allow the unchecked loads.
__device__ __forceinline__ float4 matmul_best_lda(const float* p) {
#if BEST_UNALIGNED & 1
    return matmul_best_floats4(p);
#else
    return *reinterpret_cast<const float4*>(p);
#endif
}
#if BEST_UNALIGNED & 1
#define BEST_A_READY(a_vec) 1
#else
#define BEST_A_READY(a_vec) (a_vec)
#endif
#if BEST_UNALIGNED & 2
#define BEST_B_READY(b_vec) 1
#else
#define BEST_B_READY(b_vec) (b_vec)
#endif

// Four floats of `row` (n floats) from column c on, unchecked (kernels_cl/matmul_best.cl).
__device__ __forceinline__ float4 matmul_best_ldb(const float* row, int c, int n) {
    (void)n; // (BEST_C4 ignores it without BEST_CLAMP)
#if BEST_UNALIGNED & 2
    return matmul_best_floats4(row + c);
#else
    return *reinterpret_cast<const float4*>(row + BEST_C4(c, n));
#endif
}

__device__ __forceinline__ void matmul_best_load(const float* A, const float* B, int M, int N,
                                                 int K, int m0, int n0, int k0, int tid, int a_vec,
                                                 int b_vec, bool inside, float4* pa, float4* pb) {
#pragma unroll
    for (int l = 0; l < BEST_LA; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BK / 4), c = (q - r * (BEST_BK / 4)) * 4;
        pa[l] = inside ? matmul_best_lda(A + BEST_ROW(m0 + r, M) * K + k0 + c)
                       : matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
    }
#pragma unroll
    for (int l = 0; l < BEST_LB; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BN / 4), c = (q - r * (BEST_BN / 4)) * 4;
        pb[l] = inside ? matmul_best_ldb(B + (k0 + r) * N, n0 + c, N)
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
        *reinterpret_cast<float4*>(&Bs[r][c]) = matmul_best_bswap(pb[l]);
    }
}

// acc += the product of one pair of tiles: per k, TM values of A's column and TN of B's row by
// 16-byte reads, then TM x TN multiply-adds in BEST_ORDER: in order 1, the serpentine, row by row
// with every other row backwards (the row's last value of B then serves the next row's first
// multiply-add too). The order is only a hint to ptxas, which schedules the adds itself, but it
// changes how it allocates their registers. An FFMA whose two sources not held in the operand
// reuse cache lie in the same register bank waits a cycle (ncu: "dispatch stall"). Counted in the
// cubins (bench/cubin_loop.py), best's 2048 multiply-adds per tile have 443 such FFMAs row by row
// and 397 in order 1; on the H100 that runs 4096^3 2.4% faster (2.728 against 2.795 ms), 4097^3
// 4.5%, and the stream kernel over clamped blocks (W = 8) 8191^3 3% faster. The counts guide but
// do not decide (orders 2 and 3 ran best 4% and 1% slower than 1), and a loop's schedule counts
// too: the stream kernel over unclamped blocks (W = 4) ran 1.5-3% slower in every serpentine and
// 1.1% faster in order 4 (matmul_best_stream.cu). NVIDIA's OpenCL compiler makes other PTX of the
// same source: order 1 ran it 14% slower (1577 clashes), 3 0.5-0.7% faster
// (docs/design/sgemm.md).
__device__ __forceinline__ void matmul_best_tile(const float (*As)[BEST_BM + BEST_PAD],
                                                 const float (*Bs)[BEST_BN], int rbase, int cbase,
                                                 float (*acc)[BEST_TN]) {
#pragma unroll
    for (int k = 0; k < BEST_BK; ++k) {
        float a[BEST_TM], b[BEST_TN];
#pragma unroll
        for (int g = 0; g < BEST_TM / 4; ++g) {
            const float4 v = *reinterpret_cast<const float4*>(&As[k][g * BEST_RSTEP + rbase]);
            a[g * 4 + 0] = v.x;
            a[g * 4 + 1] = v.y;
            a[g * 4 + 2] = v.z;
            a[g * 4 + 3] = v.w;
        }
#pragma unroll
        for (int g = 0; g < BEST_TN / 4; ++g) {
            const float4 v = matmul_best_bswap(
                *reinterpret_cast<const float4*>(&Bs[k][g * BEST_CSTEP + cbase]));
            b[g * 4 + 0] = v.x;
            b[g * 4 + 1] = v.y;
            b[g * 4 + 2] = v.z;
            b[g * 4 + 3] = v.w;
        }
#pragma unroll
        for (int n = 0; n < BEST_TM; ++n)
#pragma unroll
            for (int jj = 0; jj < BEST_TN; ++jj) {
                const int i = BEST_ROW_AT(n);
                const int j = BEST_SERPENTINE && (n & 1) ? BEST_TN - 1 - jj : jj;
                acc[i][j] += a[i] * b[j];
            }
    }
}


// The first row and column in its block's tile of C of thread (tx, ty) (matmul_best.clh).
__device__ __forceinline__ void matmul_best_bases(int tx, int ty, int* rbase, int* cbase) {
#if BEST_WARPS
    const int tid = ty * BEST_TX + tx, lane = tid & 31, warp = tid >> 5;
    *rbase = (warp / (BEST_BN / BEST_WN)) * BEST_WM + (lane / BEST_WTX) * 4;
    *cbase = (warp % (BEST_BN / BEST_WN)) * BEST_WN + (lane % BEST_WTX) * 4;
#else
    *rbase = ty * 4;
    *cbase = tx * 4;
#endif
}

// acc = the block of C at (m0, n0) over K's tiles [t0, t0 + tiles), with the two copies of the
// tiles in As and Bs; every thread of the block calls it alike (kernels_cl/matmul_best.clh).
__device__ __forceinline__ void matmul_best_block(const float* __restrict__ A,
                                                  const float* __restrict__ B, int M, int N, int K,
                                                  int m0, int n0, int t0, int tiles, int tid,
                                                  int rbase, int cbase,
                                                  float (*As)[BEST_BK][BEST_BM + BEST_PAD],
                                                  float (*Bs)[BEST_BK][BEST_BN],
                                                  float (*acc)[BEST_TN]) {
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    // In a block inside C, every load is inside A and B except in the last tile of K when BK
    // does not divide it: those tiles load without checks, by float4 where rows are aligned. With
    // BEST_CLAMP every block is "inside" (kernels_cl/matmul_best.clh).
    const bool inside = BEST_CLAMPED ? BEST_A_READY(a_vec) && b_vec && N >= 4
                                     : (BEST_A_READY(a_vec) && BEST_B_READY(b_vec)) &&
                                           m0 + BEST_BM <= M && n0 + BEST_BN <= N;
    const int full_tiles = K / BEST_BK;
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
    int t = 0;
    // The hot loop: while the next tile is whole and inside A and B (a block inside C, all but
    // the last one or two tiles), loads without checks and no branch but the loop's own. (With
    // the checks' branches at the top of every tile, 4% of the H100's warp samples waited for
    // instructions at their targets: docs/design/sgemm.md.)
    if (inside)
        for (const int hot = min(tiles, full_tiles - t0) - 1; t < hot; ++t) {
            const int cur = t & 1;
            matmul_best_load(A, B, M, N, K, m0, n0, (t0 + t + 1) * BEST_BK, tid, a_vec, b_vec,
                             true, pa, pb);
            matmul_best_tile(As[cur], Bs[cur], rbase, cbase, acc);
            matmul_best_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
            __syncthreads();
        }
    for (; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles)
            matmul_best_load(A, B, M, N, K, m0, n0, (t0 + t + 1) * BEST_BK, tid, a_vec, b_vec,
                             inside && t0 + t + 1 < full_tiles, pa, pb);
        matmul_best_tile(As[cur], Bs[cur], rbase, cbase, acc);
        if (t + 1 < tiles)
            matmul_best_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
        __syncthreads();
    }
}

#include "matmul_best_write.cuh"
