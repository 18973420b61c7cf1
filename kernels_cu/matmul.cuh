// The matmul ladder's CUDA files (matmul_naive.cu ... matmul_best.cu) are the same ladder as
// kernels_cl/, kernel for kernel and step for step, in files of the same names; the comments
// there (and kernels_cl/matmul.clh) explain each step, the ones here only what differs in CUDA.
// Dimension x walks the columns of C, y the rows; every kernel works for any M, N, K >= 1, loads
// zeros outside the matrices, and lets every thread reach every __syncthreads().
#pragma once
#include "duet_cuda.cuh"

// ---- shared by the register-blocked kernels ---------------------------------------------------
// p[row][col .. col+3], zeros outside; one aligned 16-byte load when `vec` (see matmul.clh).
__device__ __forceinline__ float4 matmul_load4(const float* p, int row, int col, int rows, int cols,
                                               int vec) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row < rows) {
        const int i = row * cols + col;
        if (vec) {
            if (col < cols)
                v = *reinterpret_cast<const float4*>(p + i);
        } else {
            if (col < cols)
                v.x = p[i];
            if (col + 1 < cols)
                v.y = p[i + 1];
            if (col + 2 < cols)
                v.z = p[i + 2];
            if (col + 3 < cols)
                v.w = p[i + 3];
        }
    }
    return v;
}

// Stores p[row][col .. col+3], dropping what lies outside; one 16-byte store when `vec`.
__device__ __forceinline__ void matmul_store4(float* p, int row, int col, int rows, int cols,
                                              int vec, float4 v) {
    if (row < rows) {
        const int i = row * cols + col;
        if (vec) {
            if (col < cols)
                *reinterpret_cast<float4*>(p + i) = v;
        } else {
            if (col < cols)
                p[i] = v.x;
            if (col + 1 < cols)
                p[i + 1] = v.y;
            if (col + 2 < cols)
                p[i + 2] = v.z;
            if (col + 3 < cols)
                p[i + 3] = v.w;
        }
    }
}
