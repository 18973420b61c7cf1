// What matmul_tc3_tma (matmul_tc3.cl) reads B through: B^T split into TF32 hi and lo, written
// first; kernels_cu/matmul_tc3_wgmma.cu holds its CUDA twin.

#include "matmul_bt.clh"

// TF32(x), rounded to nearest (ties away from zero): 13 low mantissa bits dropped (as CUDA's).
float t3_tf32(const float x) {
    return as_float((as_uint(x) + 0x1000u) & 0xFFFFE000u);
}

// B^T split, from B (K x N), for matmul_tc3_tma (kernels_cu/matmul_tc3_wgmma.cu's twin): rows
// n < Np of Bt hold hi = TF32(B[k][n]), rows Np + n lo = TF32(B[k][n] - hi), each Kp
// floats, zero for n >= N or k >= K. 32 x 32 tiles through local memory, read along B's rows and
// written along B^T's, by work-groups of 32 x 8 over Np / 32 x ceil(Kp / 32) tiles.
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
matmul_tc3_bt(__global const float* restrict B, __global float* restrict Bt, const int K,
              const int N, const int Kp, const int Np) {
    __local float tile[32][33];
    const int2 at = bt_tile(B, tile, K, N);
    for (int i = 0; i < 32; i += 8) {
        const int n = at.x + i, k = at.y;
        if (n < Np && k < Kp) {
            const float x = tile[get_local_id(0)][get_local_id(1) + i], hi = t3_tf32(x);
            Bt[n * Kp + k] = hi;
            Bt[(Np + n) * Kp + k] = t3_tf32(x - hi);
        }
    }
}
