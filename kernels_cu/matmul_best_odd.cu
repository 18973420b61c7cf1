// Matrix multiply, best at odd sizes: matmul_best_edge (C's thin strips) and matmul_best_copy
// (aligned copies). The CUDA twin of kernels_cl/matmul_best_odd.cl, whose comments explain them.
#include "matmul.cuh"

// matmul_best_edge builds with EDGE_BK, the depth of its tiles (as deep as the local memory
// allows), which the host always gives (apps/ladders/matmul_best_launch.cpp); a build without it
// holds matmul_best_copy alone.
#ifdef EDGE_BK
#define EDGE_T 32  // tile of C
#define EDGE_NT 256
#define EDGE_L (EDGE_T * EDGE_BK / EDGE_NT) // loads of A (and of B) per thread per tile

// The tiles of A and B at k0 into registers, zeros outside the matrices and the strip.
__device__ __forceinline__ void matmul_best_edge_load(const float* A, const float* B, int M, int N,
                                                      int K, int m0, int n0, int n_end, int k0,
                                                      int tid, float* pa, float* pb) {
#pragma unroll
    for (int l = 0; l < EDGE_L; ++l) {
        const int q = tid + l * EDGE_NT;
        const int ar = q / EDGE_BK, ak = q % EDGE_BK;
        const int bk = q / EDGE_T, bc = q % EDGE_T;
        pa[l] = m0 + ar < M && k0 + ak < K ? A[(m0 + ar) * K + k0 + ak] : 0.0f;
        pb[l] = k0 + bk < K && n0 + bc < n_end ? B[(k0 + bk) * N + n0 + bc] : 0.0f;
    }
}

extern "C" __global__ void __launch_bounds__(EDGE_NT)
    matmul_best_edge(const float* __restrict__ A, const float* __restrict__ B,
                     float* __restrict__ C, int M, int N, int K, int Mi, int Ni,
                     int Nc) {
    __shared__ float As[EDGE_BK][EDGE_T + 1]; // A's tile transposed, padded
    __shared__ float Bs[EDGE_BK][EDGE_T];
    const int tid = threadIdx.x;
    const int g = blockIdx.x;
    const int right_cols = (Nc - Ni + EDGE_T - 1) / EDGE_T;
    const int right = right_cols * ((M + EDGE_T - 1) / EDGE_T);
    const bool bottom = g >= right;
    const int cols_of_strip = bottom ? (Ni + EDGE_T - 1) / EDGE_T : right_cols;
    const int t = bottom ? g - right : g;
    const int m0 = (bottom ? Mi : 0) + (t / cols_of_strip) * EDGE_T;
    const int n0 = (bottom ? 0 : Ni) + (t % cols_of_strip) * EDGE_T;
    const int n_end = bottom ? Ni : Nc;
    const int u = tid / 16, v = tid % 16;
    const int r = bottom ? u : v, c = bottom ? v : u;
    const bool busy = m0 + r < M && n0 + c < n_end;

    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    float pa[EDGE_L], pb[EDGE_L];
    const int tiles = (K + EDGE_BK - 1) / EDGE_BK;
    matmul_best_edge_load(A, B, M, N, K, m0, n0, n_end, 0, tid, pa, pb);
    for (int kt = 0; kt < tiles; ++kt) {
#pragma unroll
        for (int l = 0; l < EDGE_L; ++l) {
            const int q = tid + l * EDGE_NT;
            As[q % EDGE_BK][q / EDGE_BK] = pa[l];
            Bs[q / EDGE_T][q % EDGE_T] = pb[l];
        }
        __syncthreads();
        if (kt + 1 < tiles)
            matmul_best_edge_load(A, B, M, N, K, m0, n0, n_end, (kt + 1) * EDGE_BK, tid, pa, pb);
        if (busy) {
#pragma unroll
            for (int k = 0; k < EDGE_BK; ++k) {
                const float a0 = As[k][r], a1 = As[k][r + 16];
                const float b0 = Bs[k][c], b1 = Bs[k][c + 16];
                acc[0][0] += a0 * b0;
                acc[0][1] += a0 * b1;
                acc[1][0] += a1 * b0;
                acc[1][1] += a1 * b1;
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            const int row = m0 + r + 16 * i, col = n0 + c + 16 * j;
            if (row < M && col < n_end)
                C[row * Nc + col] = acc[i][j];
        }
}
#endif // EDGE_BK

// dst (rows x cols, cols a multiple of 4) = src (src_rows x src_cols), zeros beyond src: 4 pieces
// of 4 floats a thread, a grid apart along the row (the host launches cols / 16 threads in x).
extern "C" __global__ void matmul_best_copy(const float* __restrict__ src, float* __restrict__ dst,
                                            int rows, int cols, int src_rows, int src_cols) {
    const int j = 4 * (blockIdx.x * blockDim.x + threadIdx.x), step = 4 * gridDim.x * blockDim.x;
    for (int i = blockIdx.y; i < rows; i += gridDim.y) {
        float4 v[4];
#pragma unroll
        for (int p = 0; p < 4; ++p)
            v[p] = matmul_load4(src, i, j + p * step, src_rows, src_cols, (src_cols & 3) == 0);
#pragma unroll
        for (int p = 0; p < 4; ++p)
            if (j + p * step < cols)
                *reinterpret_cast<float4*>(dst + size_t(i) * size_t(cols) + j + p * step) = v[p];
    }
}
