// Matrix multiply, best at odd sizes: matmul_best_edge for C's thin strips that best's 128x256
// blocks would mostly waste, and matmul_best_copy for operands whose rows are not 16-byte aligned.
// kernels_cu/matmul_best_odd.cu is the CUDA twin.
#include "matmul.clh"

// ---- best's edges -------------------------------------------------------------------------------
// C of 4097^2 is 32x16 whole blocks of 128x256 and a strip one row high and one column wide. Run
// as 33x17 blocks, the strip's 49 blocks each do a whole block's arithmetic for 1/128 or 1/256 of
// it, and they make a fifth wave of blocks on a GPU with 132 compute units where the whole blocks
// need four (3.88). So the host (apps/ladders/matmul_best_plan.cpp, run by
// matmul_best_launch.cpp) may give best only the whole blocks, C's rows [0, Mi) and columns
// [0, Ni), and this kernel the rest: the right strip, rows [0, M) by columns [Ni, N), and the
// bottom strip, rows [Mi, M) by columns [0, Ni).
//
// Each work-group of 256 computes a 32x32 tile of one strip from deep tiles of A and B in local
// memory (EDGE_BK of K at a time), its work-items 2x2 outputs each, like tiled32 with a register
// block, and with the next tiles' global loads issued before the arithmetic on the current ones
// (best's double buffering, in registers). A strip of 4096 is 128 groups, one per compute unit of
// an H100: each waits for its loads once per tile, so the tiles are deep. A strip one row high at
// K = 4096 took 0.108 ms with 32-deep tiles, 0.075 ms with 128-deep ones, against 2.9 ms for
// 4096^3 (docs/design/sgemm.md); the host picks the deepest of 128, 64, 32 and 16 whose
// 260 bytes per step of depth fit the device's local memory.
// The strips are thin, so most of a tile lies outside C: there a work-item whose outputs all lie
// outside loads its share of the tiles (zeros) but skips the arithmetic. In the bottom strip the
// work-items of a warp share rows (u = id / 16 picks them), in the right strip columns, so in a
// strip one row high or one column wide only one warp of eight computes.
// Groups 0 .. right-1 take the right strip's tiles, row by row; the rest the bottom strip's.
// matmul_best_edge builds with EDGE_BK, the depth of its tiles (as deep as the local memory
// allows), which the host always gives (apps/ladders/matmul_best_launch.cpp); a build without it
// holds matmul_best_copy alone.
#ifdef EDGE_BK
#define EDGE_T 32  // tile of C
#define EDGE_NT 256
#define EDGE_L (EDGE_T * EDGE_BK / EDGE_NT) // loads of A (and of B) per work-item per tile

// The global loads of the tiles of A and B at k0 into registers, zeros outside the matrices and
// the strip: A along K and B along N, so neighbouring work-items read neighbouring floats.
void matmul_best_edge_load(__global const float* A, __global const float* B, const int M,
                           const int N, const int K, const int m0, const int n0, const int n_end,
                           const int k0, const int tid, float* pa, float* pb) {
    for (int l = 0; l < EDGE_L; ++l) {
        const int q = tid + l * EDGE_NT;
        const int ar = q / EDGE_BK, ak = q - ar * EDGE_BK;
        const int bk = q / EDGE_T, bc = q - bk * EDGE_T;
        pa[l] = m0 + ar < M && k0 + ak < K ? A[(m0 + ar) * K + k0 + ak] : 0.0f;
        pb[l] = k0 + bk < K && n0 + bc < n_end ? B[(k0 + bk) * N + n0 + bc] : 0.0f;
    }
}

// A, B and C as in matmul_best (C M x Nc, B's rows N >= Nc floats); best took C's rows [0, Mi)
// by columns [0, Ni).
__kernel __attribute__((reqd_work_group_size(EDGE_NT, 1, 1))) void
matmul_best_edge(__global const float* restrict A, __global const float* restrict B,
                 __global float* restrict C, const int M, const int N, const int K, const int Mi,
                 const int Ni, const int Nc) {
    __local float As[EDGE_BK][EDGE_T + 1]; // A's tile, transposed (As[k][row]), padded: no bank
                                           // conflicts where a warp stores a row of A
    __local float Bs[EDGE_BK][EDGE_T];
    const int tid = (int)get_local_id(0);
    const int g = (int)get_group_id(0);
    // The group's tile: right strip, then bottom strip, each in rows of tiles.
    const int right_cols = (Nc - Ni + EDGE_T - 1) / EDGE_T;
    const int right = right_cols * ((M + EDGE_T - 1) / EDGE_T);
    const int bottom = g >= right;
    const int cols_of_strip = bottom ? (Ni + EDGE_T - 1) / EDGE_T : right_cols;
    const int t = bottom ? g - right : g;
    const int m0 = (bottom ? Mi : 0) + (t / cols_of_strip) * EDGE_T;
    const int n0 = (bottom ? 0 : Ni) + (t - (t / cols_of_strip) * cols_of_strip) * EDGE_T;
    const int n_end = bottom ? Ni : Nc; // the strip's columns end here
    // Work-item (u, v) owns rows r, r + 16 and columns c, c + 16 of the tile.
    const int u = tid / 16, v = tid - (tid / 16) * 16;
    const int r = bottom ? u : v, c = bottom ? v : u;
    const int busy = m0 + r < M && n0 + c < n_end;

    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    float pa[EDGE_L], pb[EDGE_L];
    const int tiles = (K + EDGE_BK - 1) / EDGE_BK;
    matmul_best_edge_load(A, B, M, N, K, m0, n0, n_end, 0, tid, pa, pb); // the first tiles
    for (int kt = 0; kt < tiles; ++kt) {
        for (int l = 0; l < EDGE_L; ++l) {
            const int q = tid + l * EDGE_NT;
            const int ar = q / EDGE_BK, ak = q - ar * EDGE_BK;
            const int bk = q / EDGE_T, bc = q - bk * EDGE_T;
            As[ak][ar] = pa[l];
            Bs[bk][bc] = pb[l];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (kt + 1 < tiles) // the next tiles' loads, in flight during the arithmetic
            matmul_best_edge_load(A, B, M, N, K, m0, n0, n_end, (kt + 1) * EDGE_BK, tid, pa, pb);
        if (busy) {
            MATMUL_UNROLL
            for (int k = 0; k < EDGE_BK; ++k) {
                const float a0 = As[k][r], a1 = As[k][r + 16];
                const float b0 = Bs[k][c], b1 = Bs[k][c + 16];
                acc[0][0] += a0 * b0;
                acc[0][1] += a0 * b1;
                acc[1][0] += a1 * b0;
                acc[1][1] += a1 * b1;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const int row = m0 + r + 16 * i, col = n0 + c + 16 * j;
            if (row < M && col < n_end)
                C[row * Nc + col] = acc[i][j];
        }
}
#endif // EDGE_BK

// ---- aligned copies -----------------------------------------------------------------------------
// best loads rows of A and B by 16 bytes only where every row starts 16-byte aligned (K and N
// multiples of 4); otherwise by float (BEST_UNALIGNED): on the H100 in CUDA, 4096x4097x4096 took
// 3.22 ms against 3.13 with B copied (each float load of a warp touches four times the cache
// lines of a 16-byte one). Where the host plans it (BEST_ALIGN), B is copied to Kp x Np and A to
// M x Kp (N and K rounded up to 4, zeros beyond: the extra terms of each dot product are 0 * 0),
// and best and matmul_best_edge read those and write C in place (their Nc: C's N columns, where
// B's rows hold Np floats). The copies are timed with the multiply: at 4097^3 two copies of 67 MB
// each way.
// dst (rows x cols, cols a multiple of 4) = src (src_rows x src_cols), zeros beyond src: each
// work-item writes 4 pieces of 4 floats of a row, each with one 16-byte store, a global size
// apart along the row (their loads issued before the stores); the host launches cols / 16 of
// them along dimension 0. The rows are a grid-stride loop over dimension 1 (CUDA's grid y stops
// at 65535). (An inner grid-stride loop over the columns failed an assertion in PoCL 5's kernel
// compiler.)
__kernel void matmul_best_copy(__global const float* restrict src, __global float* restrict dst,
                               const int rows, const int cols, const int src_rows,
                               const int src_cols) {
    const int j = 4 * (int)get_global_id(0), step = 4 * (int)get_global_size(0);
    for (int i = (int)get_global_id(1); i < rows; i += (int)get_global_size(1)) {
        float4 v[4];
        MATMUL_UNROLL
        for (int p = 0; p < 4; ++p)
            v[p] = matmul_load4(src, i, j + p * step, src_rows, src_cols, (src_cols & 3) == 0);
        MATMUL_UNROLL
        for (int p = 0; p < 4; ++p)
            if (j + p * step < cols)
                *(__global float4*)(dst + (size_t)i * (size_t)cols + j + p * step) = v[p];
    }
}
