// The mma.sync kernels of matmul's tensor-core steps, tf32 (matmul_tf32.cu) and tc3
// (matmul_tc3.cu): one block loop, whose fragments are either TF32 roundings of the inputs or,
// for tc3, each input split into a TF32 high part and a TF32 remainder. kernels_cl/matmul_tf32.cl
// explains the fragments; the files say what differs.
#pragma once
#include "matmul.cuh"

#ifndef TF_BM
#error "TF_BM is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef TF_BN
#error "TF_BN is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef TF_BK
#error "TF_BK is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef TF_WM // warps along M; TF_WM x TF_WN warps per block
#error "TF_WM is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef TF_WN
#error "TF_WN is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#ifndef TF_STAGES
#error "TF_STAGES is set by the host from the step record (apps/ladders/matmul_steps.cpp)"
#endif
#define TF_NT (32 * TF_WM * TF_WN)
#define TF_WTM (TF_BM / TF_WM) // rows of C per warp
#define TF_WTN (TF_BN / TF_WN)
#define TF_MT (TF_WTM / 16)    // m16 tiles per warp
#define TF_NT8 (TF_WTN / 8)    // n8 tiles per warp
#define TF_AS (TF_BK + 4)      // A's row stride in shared memory (floats): no bank conflicts
#define TF_BS (TF_BN + 8)      // B's row stride
#define TF_LA (TF_BM * TF_BK / (4 * TF_NT)) // 16-byte chunks of A per thread per tile
#define TF_LB (TF_BK * TF_BN / (4 * TF_NT))
#ifndef TF_MINB
#define TF_MINB (TF_MT * TF_NT8 <= 16 ? 2 : 1)
#endif
#if TF_BM % (16 * TF_WM) != 0 || TF_BN % (8 * TF_WN) != 0 || TF_BK % 8 != 0 || TF_STAGES < 2 ||  \
    TF_LA < 1 || TF_LB < 1 || TF_LA * 4 * TF_NT != TF_BM * TF_BK ||                                \
    TF_LB * 4 * TF_NT != TF_BK * TF_BN ||                                                          \
    TF_STAGES * (TF_BM * TF_AS + TF_BK * TF_BS) * 4 > 49152
#error "tf32: 16*WM | BM, 8*WN | BN, 8 | BK, whole 16-byte chunks per thread, tiles in 48 KiB"
#endif

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define TF_HAVE_MMA 1
#endif

#ifdef TF_HAVE_MMA
// x rounded to TF32 (10-bit mantissa), to nearest, ties away from zero; the tensor core would
// otherwise drop the low 13 bits (round toward zero, twice the error).
__device__ __forceinline__ unsigned tf32_round(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

// d += a * b for one 16x8x8 tile held by the warp's 32 threads (fragments: kernels_cl/
// matmul_tf32.cl).
__device__ __forceinline__ void tf32_mma(float* d, const unsigned* a, const unsigned* b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// 16 bytes from global to shared memory, of which the first `bytes` are read and the rest
// zero-filled (0: all zeros, `src` not read).
__device__ __forceinline__ void tf32_copy16(float* dst, const float* src, int bytes) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(bytes));
}

// Starts the copies of the tile at k0 into one buffer. With aligned rows (vec) every chunk is
// 4 floats wholly inside or outside its row: cp.async, zero-filled outside. Otherwise each float
// is loaded and checked on its own, and stored directly (those loads are not asynchronous).
__device__ __forceinline__ void tf32_load(const float* A, const float* B, int M, int N, int K,
                                          int m0, int n0, int k0, int tid, bool vec,
                                          float (*As)[TF_AS], float (*Bs)[TF_BS]) {
#pragma unroll
    for (int l = 0; l < TF_LA; ++l) {
        const int q = tid + l * TF_NT;
        const int r = q / (TF_BK / 4), c = (q - r * (TF_BK / 4)) * 4;
        if (vec) {
            const bool in = m0 + r < M && k0 + c < K;
            tf32_copy16(&As[r][c], in ? A + (m0 + r) * K + k0 + c : A, in ? 16 : 0);
        } else {
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, 0);
            As[r][c + 0] = v.x;
            As[r][c + 1] = v.y;
            As[r][c + 2] = v.z;
            As[r][c + 3] = v.w;
        }
    }
#pragma unroll
    for (int l = 0; l < TF_LB; ++l) {
        const int q = tid + l * TF_NT;
        const int r = q / (TF_BN / 4), c = (q - r * (TF_BN / 4)) * 4;
        if (vec) {
            const bool in = k0 + r < K && n0 + c < N;
            tf32_copy16(&Bs[r][c], in ? B + (k0 + r) * N + n0 + c : B, in ? 16 : 0);
        } else {
            const float4 v = matmul_load4(B, k0 + r, n0 + c, K, N, 0);
            Bs[r][c + 0] = v.x;
            Bs[r][c + 1] = v.y;
            Bs[r][c + 2] = v.z;
            Bs[r][c + 3] = v.w;
        }
    }
    asm volatile("cp.async.commit_group;");
}

// x as TF32: hi = x rounded; with Split, lo = the rest (x - hi, exact in float) rounded too, so
// that hi + lo is x within 2^-23 |x| (0 otherwise, unused).
template <bool Split>
__device__ __forceinline__ void tf32_split(float x, unsigned& hi, unsigned& lo) {
    hi = tf32_round(x);
    lo = Split ? tf32_round(__fsub_rn(x, __uint_as_float(hi))) : 0u;
}

// The block of C of one thread block: the kernel matmul_tf32 (Split false: TF32 products) or
// matmul_tc3 (Split true: three TF32 products per product, float accuracy).
template <bool Split>
__device__ __forceinline__ void tf32_block(const float* __restrict__ A,
                                           const float* __restrict__ B, float* __restrict__ C,
                                           int M, int N, int K) {
    __shared__ __align__(16) float As[TF_STAGES][TF_BM][TF_AS];
    __shared__ __align__(16) float Bs[TF_STAGES][TF_BK][TF_BS];
    const int lane = threadIdx.x; // blocks are 32 x (TF_WM * TF_WN): a warp per y
    const int warp = threadIdx.y;
    const int tid = warp * 32 + lane;
    const int g = lane >> 2, t = lane & 3; // the fragments' groupID and threadID_in_group
    const int wm = (warp / TF_WN) * TF_WTM, wn = (warp - (warp / TF_WN) * TF_WN) * TF_WTN;
    const int m0 = blockIdx.y * TF_BM;
    const int n0 = blockIdx.x * TF_BN;
    const bool vec = (K & 3) == 0 && (N & 3) == 0;
    const int tiles = (K + TF_BK - 1) / TF_BK;
    float acc[TF_MT][TF_NT8][4];
#pragma unroll
    for (int i = 0; i < TF_MT; ++i)
#pragma unroll
        for (int j = 0; j < TF_NT8; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = 0.0f;

    // The first STAGES-1 tiles in flight (an empty group where there is no tile, so that the
    // count of groups, and the wait below, are the same in every round).
#pragma unroll
    for (int s = 0; s < TF_STAGES - 1; ++s) {
        if (s < tiles)
            tf32_load(A, B, M, N, K, m0, n0, s * TF_BK, tid, vec, As[s], Bs[s]);
        else
            asm volatile("cp.async.commit_group;");
    }
    for (int tt = 0; tt < tiles; ++tt) {
        // Tile tt has landed (at most STAGES-2 younger groups still pending), for every thread
        // after the barrier, which also says that every warp is done with tile tt-1, whose
        // buffer the next load reuses.
        asm volatile("cp.async.wait_group %0;" ::"n"(TF_STAGES - 2));
        __syncthreads();
        const int next = tt + TF_STAGES - 1;
        if (next < tiles)
            tf32_load(A, B, M, N, K, m0, n0, next * TF_BK, tid, vec, As[next % TF_STAGES],
                      Bs[next % TF_STAGES]);
        else
            asm volatile("cp.async.commit_group;");
        const int cur = tt % TF_STAGES;
#pragma unroll
        for (int kk = 0; kk < TF_BK; kk += 8) {
            // Each value x as its TF32 rounding (hi) and, with Split, the TF32 rounding of the
            // rest x - hi (lo; exact in float): matmul_tc3.cu.
            unsigned a[TF_MT][4], b[TF_NT8][2], al[TF_MT][4], bl[TF_NT8][2];
#pragma unroll
            for (int i = 0; i < TF_MT; ++i) {
                const int r = wm + i * 16 + g;
                tf32_split<Split>(As[cur][r][kk + t], a[i][0], al[i][0]);
                tf32_split<Split>(As[cur][r + 8][kk + t], a[i][1], al[i][1]);
                tf32_split<Split>(As[cur][r][kk + t + 4], a[i][2], al[i][2]);
                tf32_split<Split>(As[cur][r + 8][kk + t + 4], a[i][3], al[i][3]);
            }
#pragma unroll
            for (int j = 0; j < TF_NT8; ++j) {
                const int c = wn + j * 8 + g;
                tf32_split<Split>(Bs[cur][kk + t][c], b[j][0], bl[j][0]);
                tf32_split<Split>(Bs[cur][kk + t + 4][c], b[j][1], bl[j][1]);
            }
            // With Split: the small products first (lo*hi, hi*lo), then hi*hi, into a fresh
            // accumulator added to acc by a float addition: the tensor cores' own additions
            // are not rounded to nearest (their error grows with the sum they add to), so they
            // only ever add these 24 products, and acc's long sum is rounded as float's.
#pragma unroll
            for (int i = 0; i < TF_MT; ++i)
#pragma unroll
                for (int j = 0; j < TF_NT8; ++j) {
                    if (Split) {
                        float p[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                        tf32_mma(p, al[i], b[j]);
                        tf32_mma(p, a[i], bl[j]);
                        tf32_mma(p, a[i], b[j]);
#pragma unroll
                        for (int e = 0; e < 4; ++e)
                            acc[i][j][e] = __fadd_rn(acc[i][j][e], p[e]);
                    } else {
                        tf32_mma(acc[i][j], a[i], b[j]);
                    }
                }
        }
    }
    asm volatile("cp.async.wait_group 0;");
    // C: acc[i][j][0..1] are row g, columns 2t and 2t+1 of the 16x8 tile; [2..3] row g+8.
    const bool pair = (N & 1) == 0;
#pragma unroll
    for (int i = 0; i < TF_MT; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int row = m0 + wm + i * 16 + g + h * 8;
#pragma unroll
            for (int j = 0; j < TF_NT8; ++j) {
                const int col = n0 + wn + j * 8 + 2 * t;
                if (row < M) {
                    if (pair && col + 1 < N)
                        *reinterpret_cast<float2*>(C + row * N + col) =
                            make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                    else {
                        if (col < N)
                            C[row * N + col] = acc[i][j][2 * h];
                        if (col + 1 < N)
                            C[row * N + col + 1] = acc[i][j][2 * h + 1];
                    }
                }
            }
        }
}
#endif
