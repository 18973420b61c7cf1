// matmul shaped for a CPU: C = A * B (row-major, A M x K, B K x N) in the loops of a BLAS
// (Goto's): K in blocks of CPU_KC, B's panel of each block packed into local memory, a register
// micro-kernel over it.
//
// Each work-item owns one block of CPU_MR rows x CPU_NR = 2 * CPU_VW columns of C, held in
// registers (2 * CPU_MR vectors: 12 of the 16 AVX2 or 32 AVX-512 registers at the defaults) over
// all of K: per k, one row of its B micro-panel loaded as two vectors, each of its CPU_MR values
// of A broadcast, 2 * CPU_MR fused multiply-adds (CPU_FMA, cpu_vector.clh: fma() where the
// device has it in hardware; PoCL compiles mad() as a multiply and an add). A work-group is
// CPU_GM x CPU_GN such blocks: CPU_GM * CPU_MR rows by CPU_GN * CPU_NR columns of C. For each
// block of K its items copy B's CPU_KC x (CPU_GN * CPU_NR) panel into local memory, as CPU_GN
// micro-panels of CPU_KC x CPU_NR, each contiguous (16 KiB at the defaults with AVX2); a barrier;
// each item runs its micro-kernel over its micro-panel; a barrier before the next copy. Two
// barriers per block of K, none in the inner loop; the accumulators live across them (PoCL keeps
// them in its per-item context between the regions: 12 loads and stores per block of K).
//
// Why: on a CPU (PoCL) a work-group's items run one after another on one core, dimension 0
// innermost, so consecutive items go down the rows: they share a micro-panel of B, which stays in
// L1, and read the group's rows of A (96 x CPU_KC floats) from L2. B read in place, as the
// previous version of this step did, is CPU_KC lines N floats apart: at N = 1024 or 2048 they
// all fall into the same few cache sets (a 4 or 8 KiB stride), so the panel never stays in
// cache, and each k touches a new page; packed, it is one contiguous stream. A is read in place:
// its rows are streams that the prefetchers follow, and packing it too (transposed, or as padded
// rows) measured 10-20% slower on the 2-core AMD EPYC (the copy costs more than it saves).
// The defaults as measured there (PoCL 3.1, single-thread runs on a shared machine, +-15% noise):
// CPU_KC 128 or 512, 8, 10 or 32 rows of blocks per group, 2 or 8 micro-panels were no faster.
//
// CPU_VW is the device's preferred float width (the host passes it); CPU_MR (6), CPU_GN (4),
// CPU_GM (16), CPU_KC (256) are defines (the host passes a smaller CPU_KC, then CPU_GM, where a
// device's local memory or work-group limit needs them). Arguments as every matmul kernel:
//     (A, B, C, M, N, K), global size (ceil(N / (CPU_GN * CPU_NR)) * CPU_GM,
//     ceil(M / (CPU_GM * CPU_MR)) * CPU_GN), local size (CPU_GM, CPU_GN): the groups' ids
//     index C's blocks (x across, y down), the items' ids their blocks (x down, y across).
// Any size: B's columns past N are packed as zeros, A's rows past M read row M - 1, and only the
// rows and columns of C that exist are written. Correct on any device (slow on a GPU). Twin:
// kernels_cu/matmul_cpu.cu.

#include "cpu_vector.clh"
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
#if CPU_MR < 1 || CPU_MR > 8
#error "CPU_MR: 1 to 8 rows"
#endif
#if CPU_GN < 1 || CPU_GM < 1 || CPU_KC < 1
#error "CPU_GN, CPU_GM and CPU_KC must be positive"
#endif
#define CPU_NR (2 * CPU_VW)
#define CPU_NC (CPU_GN * CPU_NR)
#define CPU_MC (CPU_GM * CPU_MR)
#define CPU_ITEMS (CPU_GN * CPU_GM)

// vec_type_hint: the kernel is vectorised by hand (Intel's CPU compiler otherwise packs work-items
// into SIMD lanes over the vectors already there: 2x slower there).
__kernel __attribute__((reqd_work_group_size(CPU_GM, CPU_GN, 1))) __attribute__((vec_type_hint(VT))) void
matmul_cpu(__global const float* restrict A, __global const float* restrict B,
           __global float* restrict C, const int M, const int N, const int K) {
    // B's panel of one block of K: CPU_GN micro-panels, each CPU_KC rows of two vectors.
    __local VT panel[CPU_GN * CPU_KC * 2];
    // Work-item (sm, sn): the sm-th block down, the sn-th across. PoCL runs dimension 0
    // innermost, so consecutive items go down the rows.
    const int sm = (int)get_local_id(0), sn = (int)get_local_id(1);
    const int item = sm + sn * CPU_GM;
    const int jg = (int)get_group_id(0) * CPU_NC;     // the group's first column
    const int i0 = (int)get_group_id(1) * CPU_MC + sm * CPU_MR, j0 = jg + sn * CPU_NR;
    VT lo[CPU_MR], hi[CPU_MR];
#pragma unroll
    for (int r = 0; r < CPU_MR; ++r)
        lo[r] = hi[r] = (VT)(0.0f);
    for (int k0 = 0; k0 < K; k0 += CPU_KC) {
        const int kc = min(CPU_KC, K - k0);
        // The copy: micro-panel s, row kk from B's row k0 + kk; columns past N as zeros.
        for (int s = 0; s < CPU_GN; ++s) {
            const int col = jg + s * CPU_NR;
            for (int kk = item; kk < kc; kk += CPU_ITEMS) {
                __global const float* src = B + (size_t)(k0 + kk) * N + col;
                __local VT* dst = panel + (s * CPU_KC + kk) * 2;
                if (col + CPU_NR <= N) {
                    dst[0] = VLOAD(0, src);
                    dst[1] = VLOAD(0, src + CPU_VW);
                } else {
                    float v[CPU_NR];
                    for (int c = 0; c < CPU_NR; ++c)
                        v[c] = col + c < N ? src[c] : 0.0f;
                    dst[0] = VLOAD(0, v);
                    dst[1] = VLOAD(0, v + CPU_VW);
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // The micro-kernel: CPU_MR rows of A (past M: row M - 1, never stored) against the
        // micro-panel, kc steps of 2 * CPU_MR fused multiply-adds.
        __local const VT* b = panel + sn * CPU_KC * 2;
        __global const float* a[CPU_MR];
#pragma unroll
        for (int r = 0; r < CPU_MR; ++r)
            a[r] = A + (size_t)min(i0 + r, M - 1) * K + k0;
        for (int k = 0; k < kc; ++k) {
            const VT b0 = b[2 * k], b1 = b[2 * k + 1];
#pragma unroll
            for (int r = 0; r < CPU_MR; ++r) {
                const VT av = (VT)(a[r][k]);
                lo[r] = CPU_FMA(av, b0, lo[r]);
                hi[r] = CPU_FMA(av, b1, hi[r]);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE); // the panel is read before the next copy overwrites it
    }
    if (i0 + CPU_MR <= M && j0 + CPU_NR <= N) {
#pragma unroll
        for (int r = 0; r < CPU_MR; ++r) {
            VSTORE(lo[r], 0, C + (size_t)(i0 + r) * N + j0);
            VSTORE(hi[r], 0, C + (size_t)(i0 + r) * N + j0 + CPU_VW);
        }
        return;
    }
    // The edge: the rows and columns of the block that exist (the loop over r unrolled, so that
    // the accumulators stay registers).
#pragma unroll
    for (int r = 0; r < CPU_MR; ++r)
        if (i0 + r < M) {
            float v[CPU_NR];
            VSTORE(lo[r], 0, v);
            VSTORE(hi[r], 0, v + CPU_VW);
            for (int c = 0; c < CPU_NR && j0 + c < N; ++c)
                C[(size_t)(i0 + r) * N + j0 + c] = v[c];
        }
}
