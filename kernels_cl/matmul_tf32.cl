// Matrix multiply, step 7 of the ladder: tf32, on the tensor cores. kernels_cl/matmul.clh says
// what every step keeps; kernels_cu/matmul_tf32.cu is the CUDA twin.
#include "matmul.clh"

// ---- 7. tf32: tensor cores through mma.sync -----------------------------------------------------
// The steps before do one multiply-add per instruction per work-item. NVIDIA's tensor cores (from
// compute capability 8.0) do a whole 16x8x8 block product per instruction and warp: D += A B with
// A 16x8 and B 8x8, each of the warp's 32 threads holding a fixed "fragment" of A, B and D in its
// registers. The inputs are TF32: float's 8-bit exponent with a 10-bit mantissa (float has 23),
// so every input is rounded to 11 significant bits (unit roundoff 2^-11 instead of 2^-24); the
// products are exact and the sums float. This is not a float32 matmul: the host checks it
// against a bound for TF32 and says so (apps/matmul.cpp).
//
// The block (TF_BM x TF_BN of C) is shared by TF_WM x TF_WN warps, each computing a TF_BM/TF_WM x
// TF_BN/TF_WN piece as (TF_MT x TF_NT8) tiles of 16x8; tiles TF_BK deep of A and B go through
// local memory, double-buffered as in `best` (the next tile's global loads in registers while
// the tensor cores work on this one). Per 8-deep step a warp reads its A fragments (4 values
// per thread per 16-row tile) and B fragments (2 per 8-column tile) from local memory and issues
// TF_MT * TF_NT8 mma instructions, each reusing the fragments of the others in its row/column.
//
// The fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8", .tf32), for the thread of lane l,
// g = l / 4 and t = l % 4:
//   A (16x8, row-major): a0 = A[g][t], a1 = A[g+8][t], a2 = A[g][t+4], a3 = A[g+8][t+4]
//   B (8x8):             b0 = B[t][g], b1 = B[t+4][g]
//   C, D (16x8):         c0 = C[g][2t], c1 = C[g][2t+1], c2 = C[g+8][2t], c3 = C[g+8][2t+1]
// Local memory is laid out for those reads: A's tile row-major with rows TF_BK + 4 floats apart,
// B's with rows TF_BN + 8 apart, so that the 32 threads of a fragment read hit 32 different banks.
//
// This needs the warp (the only step that does): it is built with DUET_TF32_PTX, which the host
// defines on NVIDIA's OpenCL for GPUs of compute capability 8.0 and newer (NVIDIA's compiler
// takes PTX in `asm`), and with DUET_TF32_EMULATE for the tests: there each mma is done by the
// work-group through local memory, fragment by fragment as the PTX ISA defines them, which checks
// this kernel's index arithmetic on any OpenCL device (slowly). Built with neither, the kernel
// does nothing and the host does not run it (the step is skipped with the reason).
#ifndef TF_BM
#define TF_BM 128
#endif
#ifndef TF_BN
#define TF_BN 128
#endif
#ifndef TF_BK
#define TF_BK 16
#endif
#ifndef TF_WM // warps along M; the work-group is 32 x (TF_WM * TF_WN): a warp per row
#define TF_WM 2
#endif
#ifndef TF_WN
#define TF_WN 4
#endif
#define TF_NT (32 * TF_WM * TF_WN)
#define TF_WTM (TF_BM / TF_WM) // rows of C per warp
#define TF_WTN (TF_BN / TF_WN)
#define TF_MT (TF_WTM / 16)    // 16-row tiles per warp
#define TF_NT8 (TF_WTN / 8)    // 8-column tiles per warp
#define TF_AS (TF_BK + 4)      // A's row stride in local memory (floats)
#define TF_BS (TF_BN + 8)      // B's row stride
#define TF_LA (TF_BM * TF_BK / (4 * TF_NT)) // float4 loads of A per work-item per tile
#define TF_LB (TF_BK * TF_BN / (4 * TF_NT))
#if TF_BM % (16 * TF_WM) != 0 || TF_BN % (8 * TF_WN) != 0 || TF_BK % 8 != 0 || TF_LA < 1 ||       \
    TF_LB < 1 || TF_LA * 4 * TF_NT != TF_BM * TF_BK || TF_LB * 4 * TF_NT != TF_BK * TF_BN ||       \
    2 * (TF_BM * TF_AS + TF_BK * TF_BS) * 4 > 49152
#error "tf32: 16*WM | BM, 8*WN | BN, 8 | BK, whole float4 loads per work-item, tiles in 48 KiB"
#endif
#if defined(DUET_TF32_PTX) || defined(DUET_TF32_EMULATE)
#define TF_ON 1
#endif
#if defined(cl_nv_pragma_unroll) // NVIDIA's compiler: unroll as the CUDA file does (see best)
#define TF_UNROLLED _Pragma("unroll")
#else
#define TF_UNROLLED
#endif

#if defined(DUET_TF32_PTX)
// x rounded to TF32, to nearest, ties away from zero (cvt.rna; the tensor core would otherwise
// drop the low 13 bits).
uint tf32_round(const float x) {
    uint r;
    __asm__("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}
// A macro on the accumulators themselves, not a function taking their address: an address
// taken keeps acc[][][] in memory (the stack) instead of registers.
#define TF_MMA(d, a, b, scratch)                                                                   \
    __asm__ __volatile__("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "                     \
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"        \
                         : "+f"((d)[0]), "+f"((d)[1]), "+f"((d)[2]), "+f"((d)[3])                 \
                         : "r"((a)[0]), "r"((a)[1]), "r"((a)[2]), "r"((a)[3]), "r"((b)[0]),       \
                           "r"((b)[1]))
#elif defined(DUET_TF32_EMULATE)
// The same rounding on the bits: add half of the last kept place to the magnitude, cut.
uint tf32_round(const float x) {
    const uint u = as_uint(x);
    return (u & 0x7f800000u) == 0x7f800000u ? u : (u + 0x1000u) & 0xffffe000u;
}
// The mma of one warp, by the whole work-group (every work-item calls it the same number of
// times): each thread puts its fragments where the PTX ISA says they belong in the warp's 16x8
// A and 8x8 B, then computes its own four entries of D. `scratch`: 192 floats per warp.
#define TF_MMA(d, a, b, scratch) tf32_mma_emulated(d, a, b, scratch)
void tf32_mma_emulated(float* d, const uint* a, const uint* b, __local float* scratch) {
    const int lane = (int)get_local_id(0), warp = (int)get_local_id(1);
    const int g = lane >> 2, t = lane & 3;
    __local float* sa = scratch + warp * 192; // A[16][8]
    __local float* sb = sa + 128;             // B[8][8]
    sa[g * 8 + t] = as_float(a[0]);
    sa[(g + 8) * 8 + t] = as_float(a[1]);
    sa[g * 8 + t + 4] = as_float(a[2]);
    sa[(g + 8) * 8 + t + 4] = as_float(a[3]);
    sb[t * 8 + g] = as_float(b[0]);
    sb[(t + 4) * 8 + g] = as_float(b[1]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < 4; ++e) {
        const int row = g + (e >> 1) * 8, col = 2 * t + (e & 1);
        float s = d[e];
        for (int k = 0; k < 8; ++k)
            s += sa[row * 8 + k] * sb[k * 8 + col];
        d[e] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#ifdef TF_ON
// Global loads of the tile at k0 into registers (matmul_load4: zeros outside the matrices).
void tf32_load(__global const float* A, __global const float* B, const int M, const int N,
               const int K, const int m0, const int n0, const int k0, const int tid,
               const int a_vec, const int b_vec, float4* pa, float4* pb) {
    TF_UNROLLED
    for (int l = 0; l < TF_LA; ++l) {
        const int q = tid + l * TF_NT;
        const int r = q / (TF_BK / 4), c = (q - r * (TF_BK / 4)) * 4;
        pa[l] = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
    }
    TF_UNROLLED
    for (int l = 0; l < TF_LB; ++l) {
        const int q = tid + l * TF_NT;
        const int r = q / (TF_BN / 4), c = (q - r * (TF_BN / 4)) * 4;
        pb[l] = matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
    }
}

// The registers of tf32_load into one copy of the tiles (both row-major, 16-byte stores).
void tf32_store(__local float (*As)[TF_AS], __local float (*Bs)[TF_BS], const int tid,
                const float4* pa, const float4* pb) {
    TF_UNROLLED
    for (int l = 0; l < TF_LA; ++l) {
        const int q = tid + l * TF_NT;
        const int r = q / (TF_BK / 4), c = (q - r * (TF_BK / 4)) * 4;
        *(__local float4*)&As[r][c] = pa[l];
    }
    TF_UNROLLED
    for (int l = 0; l < TF_LB; ++l) {
        const int q = tid + l * TF_NT;
        const int r = q / (TF_BN / 4), c = (q - r * (TF_BN / 4)) * 4;
        *(__local float4*)&Bs[r][c] = pb[l];
    }
}
#endif

__kernel __attribute__((reqd_work_group_size(32, TF_WM * TF_WN, 1))) void
matmul_tf32(__global const float* restrict A, __global const float* restrict B,
            __global float* restrict C, const int M, const int N, const int K) {
#ifdef TF_ON
    __local float As[2][TF_BM][TF_AS] __attribute__((aligned(16)));
    __local float Bs[2][TF_BK][TF_BS] __attribute__((aligned(16)));
#ifdef DUET_TF32_EMULATE
    __local float scratch[TF_WM * TF_WN * 192];
#else
    __local float* scratch = 0;
#endif
    const int lane = (int)get_local_id(0);
    const int warp = (int)get_local_id(1);
    const int tid = warp * 32 + lane;
    const int g = lane >> 2, t = lane & 3; // the fragments' g and t
    const int wm = (warp / TF_WN) * TF_WTM, wn = (warp - (warp / TF_WN) * TF_WN) * TF_WTN;
    const int m0 = (int)get_group_id(1) * TF_BM;
    const int n0 = (int)get_group_id(0) * TF_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    const int tiles = (K + TF_BK - 1) / TF_BK;
    float acc[TF_MT][TF_NT8][4];
    TF_UNROLLED
    for (int i = 0; i < TF_MT; ++i)
        TF_UNROLLED
        for (int j = 0; j < TF_NT8; ++j)
            TF_UNROLLED
            for (int e = 0; e < 4; ++e)
                acc[i][j][e] = 0.0f;
    float4 pa[TF_LA], pb[TF_LB];

    tf32_load(A, B, M, N, K, m0, n0, 0, tid, a_vec, b_vec, pa, pb);
    tf32_store(As[0], Bs[0], tid, pa, pb);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int tt = 0; tt < tiles; ++tt) {
        const int cur = tt & 1;
        if (tt + 1 < tiles) // the same for the whole group
            tf32_load(A, B, M, N, K, m0, n0, (tt + 1) * TF_BK, tid, a_vec, b_vec, pa, pb);
        TF_UNROLLED
        for (int kk = 0; kk < TF_BK; kk += 8) {
            uint a[TF_MT][4], b[TF_NT8][2];
            TF_UNROLLED
            for (int i = 0; i < TF_MT; ++i) {
                const int r = wm + i * 16 + g;
                a[i][0] = tf32_round(As[cur][r][kk + t]);
                a[i][1] = tf32_round(As[cur][r + 8][kk + t]);
                a[i][2] = tf32_round(As[cur][r][kk + t + 4]);
                a[i][3] = tf32_round(As[cur][r + 8][kk + t + 4]);
            }
            TF_UNROLLED
            for (int j = 0; j < TF_NT8; ++j) {
                const int c = wn + j * 8 + g;
                b[j][0] = tf32_round(Bs[cur][kk + t][c]);
                b[j][1] = tf32_round(Bs[cur][kk + t + 4][c]);
            }
            TF_UNROLLED
            for (int i = 0; i < TF_MT; ++i)
                TF_UNROLLED
                for (int j = 0; j < TF_NT8; ++j)
                    TF_MMA(acc[i][j], a[i], b[j], scratch);
        }
        if (tt + 1 < tiles)
            tf32_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    // C: acc[i][j][0..1] are row g, columns 2t and 2t+1 of the 16x8 tile; [2..3] row g+8.
    const int pair = (N & 1) == 0;
    TF_UNROLLED
    for (int i = 0; i < TF_MT; ++i)
        TF_UNROLLED
        for (int h = 0; h < 2; ++h) {
            const int row = m0 + wm + i * 16 + g + h * 8;
            TF_UNROLLED
            for (int j = 0; j < TF_NT8; ++j) {
                const int col = n0 + wn + j * 8 + 2 * t;
                if (row < M) {
                    if (pair && col + 1 < N) {
                        *(__global float2*)(C + row * N + col) =
                            (float2)(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                    } else {
                        if (col < N)
                            C[row * N + col] = acc[i][j][2 * h];
                        if (col + 1 < N)
                            C[row * N + col + 1] = acc[i][j][2 * h + 1];
                    }
                }
            }
        }
#endif
}
