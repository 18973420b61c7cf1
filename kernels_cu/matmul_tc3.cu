// Matrix multiply, tc3 ("3xTF32"): float32 accuracy from the TF32 tensor cores, the CUDA twin of
// kernels_cl/matmul_tc3.cl. Each input x is split, where the fragments are read from shared
// memory (no pass of its own over memory), into hi = x rounded to TF32 and lo = (x - hi) rounded
// to TF32; hi + lo is x within 2^-23 |x|, where TF32 alone is off by up to 2^-11 |x|. Each
// product a b is then ahi bhi + ahi blo + alo bhi (the dropped alo blo is below 2^-22 |a b|),
// three mma.sync, the two small ones first, into a fresh accumulator that a float addition adds
// to C's (matmul_tf32.cuh says why). After Ootomo and Yokota, "Recovering single precision
// accuracy from Tensor Cores while surpassing the FP32 theoretical peak performance", 2022.
// The block loop is tf32's (matmul_tf32.cuh), with twice the fragments in registers: one block
// per multiprocessor's share of registers (launch bounds, 1).
// On compute capability 9.0 the host runs matmul_tc3_wgmma where that kernel exists; this one
// elsewhere on 8.0+.
#include "matmul_tf32.cuh"

extern "C" __global__ void __launch_bounds__(TF_NT, 1)
    matmul_tc3(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
               int M, int N, int K) {
#ifdef TF_HAVE_MMA
    tf32_block<true>(A, B, C, M, N, K);
#endif
}
