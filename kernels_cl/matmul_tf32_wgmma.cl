// What the tile-map kernels of matmul's tensor-core steps (matmul_tf32_tma in matmul_tf32.cl,
// matmul_tc3_tma in matmul_tc3.cl) read first, where their operands' rows are not a multiple of
// 16 bytes apart; kernels_cu/matmul_tf32_wgmma.cu holds its CUDA twin.

// A matrix with rows padded to Kp floats, for matmul_tf32_tma's tile maps (rows a multiple of 16
// bytes apart): Ap[m][k] = A[m][k], zero for k >= K (kernels_cu/matmul_tf32_wgmma.cu's twin).
__kernel void matmul_tf32_pad(__global const float* restrict A, __global float* restrict Ap,
                              const int M, const int K, const int Kp) {
    const int k = (int)get_global_id(0);
    if (k < Kp)
        for (int m = (int)get_group_id(1); m < M; m += (int)get_num_groups(1))
            Ap[m * Kp + k] = k < K ? A[m * K + k] : 0.0f;
}
