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
#include "matmul_tf32.clh"
#include "matmul_wgmma.clh"
#include "matmul_wgmma_tma.clh"
#include "matmul_bt.clh"

__kernel __attribute__((reqd_work_group_size(32, TF_WM * TF_WN, 1))) void
matmul_tf32(__global const float* restrict A, __global const float* restrict B,
            __global float* restrict C, const int M, const int N, const int K) {
#if defined(TF_WGMMA) // Hopper, through sm_90a PTX: matmul_wgmma.clh; B is B^T (matmul_tf32_bt)
    __local float smem[WG_SMEM] __attribute__((aligned(1024)));
    wg_tf32_block(A, B, C, M, N, K, smem);
#elif defined(TF_ON)
    __local float As[2][TF_BM][TF_AS] __attribute__((aligned(16)));
    __local float Bs[2][TF_BK][TF_BS] __attribute__((aligned(16)));
#ifdef DUET_TF32_EMULATE
    __local float scratch[TF_WM * TF_WN * 192];
#else
    __local float* scratch = 0;
#endif
    tf32_block(A, B, C, M, N, K, As, Bs, scratch, 0);
#endif
}

// tf32 on Hopper as CUDA's kernel (matmul_wgmma_tma.clh): A and B as tile maps, a 256 x 128
// block by two warpgroups, on devices whose OpenCL backend takes tile maps (nv.sm90a_ptx). Built
// elsewhere, it does nothing and the host does not run it.
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
matmul_tf32_tma(__global const DuetTileMap* map_a, __global const DuetTileMap* map_b,
                __global float* restrict C, const int M, const int N, const int K) {
#if defined(TF_TMA)
    __local float smem[WT_SMEM] __attribute__((aligned(1024)));
    __local ulong bars[2 * WT_STAGES] __attribute__((aligned(8)));
    wg_tf32_block_tma(map_a, map_b, C, M, N, K, smem, bars);
#endif
}

// B^T (N x K, rows of K floats) from B (K x N), for matmul_tf32's wgmma build, which takes B^T in
// B's place (wgmma reads TF32 operands from local memory only as rows of K): 32 x 32 tiles
// through local memory, read along B's rows and written along B^T's (coalesced both ways), by
// work-groups of 32 x 8 over ceil(N / 32) x ceil(K / 32) tiles.
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
matmul_tf32_bt(__global const float* restrict B, __global float* restrict Bt, const int K,
               const int N) {
    __local float tile[32][33];
    const int2 at = bt_tile(B, tile, K, N);
    for (int i = 0; i < 32; i += 8)
        if (at.x + i < N && at.y < K)
            Bt[(at.x + i) * K + at.y] = tile[get_local_id(0)][get_local_id(1) + i];
}
