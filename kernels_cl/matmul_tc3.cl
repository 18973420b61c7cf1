// Matrix multiply, tc3 ("3xTF32"): float32 accuracy from the TF32 tensor cores. kernels_cl/
// matmul_tf32.cl explains the tensor-core step this one extends; kernels_cu/matmul_tc3.cu is the
// CUDA twin.
//
// Each input x is split where the fragments are read from local memory (no pass of its own over
// memory) into hi = x rounded to TF32 and lo = (x - hi) rounded to TF32: x - hi is exact in
// float, and hi + lo is x within 2^-23 |x|, where TF32 alone is off by up to 2^-11 |x|. Each
// product a b is then ahi bhi + ahi blo + alo bhi (the dropped alo blo is below 2^-22 |a b|):
// three mma.sync per tile, the two small ones first, into a fresh accumulator that a float
// addition adds to C's (matmul_tf32.clh says why). After Ootomo and Yokota, "Recovering single
// precision accuracy from Tensor Cores while surpassing the FP32 theoretical peak performance",
// 2022. The host checks it against float32's bound, not TF32's.
//
// Where it runs: as tf32 (DUET_TF32_PTX on NVIDIA's OpenCL, compute capability 8.0+;
// DUET_TF32_EMULATE in the tests, any device); built with neither, it does nothing and the host
// skips the step.
#include "matmul.clh"
#include "matmul_tf32.clh"
#include "matmul_wgmma.clh"
#include "matmul_tc3_tma.clh"

__kernel __attribute__((reqd_work_group_size(32, TF_WM * TF_WN, 1))) void
matmul_tc3(__global const float* restrict A, __global const float* restrict B,
           __global float* restrict C, const int M, const int N, const int K) {
#if defined(TF_WGMMA) // Hopper, through sm_90a PTX: matmul_wgmma.clh
    __local float smem[WG_SMEM3] __attribute__((aligned(1024)));
    wg_tc3_block(A, B, C, M, N, K, smem);
#elif defined(TF_ON)
    __local float As[2][TF_BM][TF_AS] __attribute__((aligned(16)));
    __local float Bs[2][TF_BK][TF_BS] __attribute__((aligned(16)));
#ifdef DUET_TF32_EMULATE
    __local float scratch[TF_WM * TF_WN * 192];
#else
    __local float* scratch = 0;
#endif
    tf32_block(A, B, C, M, N, K, As, Bs, scratch, 1);
#endif
}

// tc3 on Hopper as CUDA's kernel (matmul_tc3_tma.clh): A and B^T split (matmul_tc3_bt) as tile
// maps, a 128 x 128 block by two warpgroups, on devices whose OpenCL backend takes tile maps
// (nv.sm90a_ptx). Built elsewhere, it does nothing and the host does not run it.
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
matmul_tc3_tma(__global const DuetTileMap* map_a, __global const DuetTileMap* map_bt,
               __global float* restrict C, const int M, const int N, const int K) {
#if defined(TF_TMA)
    __local float smem[T3_SMEM] __attribute__((aligned(1024)));
    __local ulong bars[2 * T3_STAGES] __attribute__((aligned(8)));
    wg_tc3_block_tma(map_a, map_bt, C, M, N, K, smem, bars);
#endif
}
