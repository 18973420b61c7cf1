// Matrix multiply, step 7 of the ladder (tf32): the CUDA twin of kernels_cl/matmul_tf32.cl,
// whose comments explain the step. What differs here: the tiles go from global to shared memory
// by cp.async (the copy engine writes shared memory directly, no registers on the way), in
// TF_STAGES buffers, so the loads of the next tiles are in flight while the tensor cores work on
// this one; and the tile loads of aligned matrices zero-fill what lies outside the matrix
// (cp.async's source size) instead of branching.
// Tensor cores: compute capability 8.0 and newer (mma.sync .tf32, cp.async); older GPUs build
// an empty kernel, which the host never launches there (apps/matmul.cpp skips the step).
#include "matmul_tf32.cuh"

extern "C" __global__ void __launch_bounds__(TF_NT, TF_MINB)
    matmul_tf32(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                int M, int N, int K) {
#ifdef TF_HAVE_MMA
    tf32_block<false>(A, B, C, M, N, K);
#endif
}
