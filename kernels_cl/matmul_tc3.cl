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
// skips the step. On Hopper through sm_90a PTX (matmul_tc3_wgmma.clh) its B argument is B^T
// split by matmul_tc3_bt first, which the host runs when the build took that path.
#include "matmul.clh"
#include "matmul_tf32.clh"
#include "matmul_wgmma.clh"
#include "matmul_tc3_wgmma.clh"

__kernel __attribute__((reqd_work_group_size(32, TF_WM * TF_WN, 1))) void
matmul_tc3(__global const float* restrict A, __global const float* restrict B,
           __global float* restrict C, const int M, const int N, const int K) {
#if defined(TF_WGMMA) // Hopper, through sm_90a PTX: matmul_wgmma.clh
    __local float smem[WG_SMEM] __attribute__((aligned(1024)));
#if defined(WG3_DEFER)
    wg3_block_defer(A, B, C, M, N, K, smem);
#else
    wg3_block(A, B, C, M, N, K, smem);
#endif
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

// TF32(x), rounded to nearest (ties away from zero) in integer operations; inf and NaN as
// they are.
float tc3_tf32(const float x) {
    const uint u = as_uint(x);
    return as_float((u & 0x7f800000u) == 0x7f800000u ? u : (u + 0x1000u) & 0xffffe000u);
}

// B^T split, from B (K x N), for matmul_tc3's wgmma path (kernels_cu/matmul_tc3_wgmma.cu's
// twin, the same arguments): rows n < Np of Bt hold hi = TF32(B[k][n]), rows Np + n lo =
// TF32(B[k][n] - hi), each Kp floats, zero for n >= N or k >= K. 32 x 32 tiles through local
// memory (rows padded by one float), 32 x 8 work-items, 4 rows each; the range covers Np
// columns and Kp rows.
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
matmul_tc3_bt(__global const float* restrict B, __global float* restrict Bt, const int K,
              const int N, const int Kp, const int Np) {
    __local float tile[32][33];
    const int n0 = (int)get_group_id(0) * 32, k0 = (int)get_group_id(1) * 32;
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    for (int i = 0; i < 32; i += 8) {
        const int k = k0 + ty + i, n = n0 + tx;
        tile[ty + i][tx] = k < K && n < N ? B[(size_t)k * N + n] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 32; i += 8) {
        const int n = n0 + ty + i, k = k0 + tx;
        if (n < Np && k < Kp) {
            const float x = tile[tx][ty + i], hi = tc3_tf32(x);
            Bt[(size_t)n * Kp + k] = hi;
            Bt[(size_t)(Np + n) * Kp + k] = tc3_tf32(x - hi);
        }
    }
}
