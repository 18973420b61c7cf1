// Matrix multiply, best over the device's multiprocessors (stream-K): the CUDA twin of
// kernels_cl/matmul_best_stream.cl, whose comments explain it.
#define BEST_SLICES_ROLLED 0 // C's unaligned rows in an unrolled loop, as kernels_cl/matmul_best_stream.cl
// The order of a step's multiply-adds (matmul_best.cuh): over clamped blocks the serpentine (1),
// with which ptxas schedules this kernel's loop well there (2342 stall cycles, 3 of 4; row by row
// 2473 and 51); over unclamped ones the last row first (4): 8192^3 on the H100 21.45 ms against
// 21.68 row by row and 22.29, 21.93 and 22.13 in orders 1-3 (docs/design/sgemm.md).
#ifndef BEST_ORDER
#define BEST_ORDER (BEST_CLAMP ? 1 : 4)
#endif
#include "matmul_best.cuh"

#ifndef BEST_STREAM_INLINE // 1 (the host's default here): the pieces added in matmul_best_stream
#define BEST_STREAM_INLINE 0
#endif

// W's slot s: a block's piece of one tile of C, float4 e of thread tid at (s * TM*TN/4 + e) *
// NT + tid, so that a warp's 32 stores and loads are neighbours.
__device__ __forceinline__ float4* matmul_best_slot(float* W, int s, int e, int tid) {
    return reinterpret_cast<float4*>(W) +
           (size_t(s) * (BEST_TM * BEST_TN / 4) + size_t(e)) * BEST_NT + tid;
}

// x / d for 0 <= x < 2^31, d's multiplier m and shift l from the host (kernels_cl/matmul_best_stream.cl).
__device__ __forceinline__ int matmul_best_div(int x, int m, int l) {
    return int((__umulhi(unsigned(x), unsigned(m)) + unsigned(x)) >> l);
}

// Block g's share of the pieces after the rounds' whole tiles: K's tiles [*begin, *end), `per` of
// them and one more for each of the first `extra` blocks.
__device__ __forceinline__ void matmul_best_share(int groups, int kt, int rounds, int per,
                                                  int extra, int g, int* begin, int* end) {
    *begin = rounds * groups * kt + g * per + min(g, extra);
    *end = *begin + per + (g < extra ? 1 : 0);
}

// C's block at (m0, n0) = the pieces in W's slots s and t, float4 by float4, read from L2
// (__ldcg: not this SM's L1, which another block's stores do not reach). Not unrolled over the
// rows: unrolled, ptxas scheduled best's loop apart (docs/design/sgemm.md).
__device__ __forceinline__ void matmul_best_add_write(float* W, int s, int t, int tid,
                                                      float* __restrict__ C, int M, int Nc,
                                                      int m0, int n0, int rbase, int cbase) {
#pragma unroll 1
    for (int i = 0; i < BEST_TM; ++i) {
        const int row = m0 + (i / 4) * BEST_RSTEP + rbase + i % 4;
#pragma unroll
        for (int q = 0; q < BEST_TN / 4; ++q) {
            const float4 a = __ldcg(matmul_best_slot(W, s, i * (BEST_TN / 4) + q, tid));
            const float4 b = __ldcg(matmul_best_slot(W, t, i * (BEST_TN / 4) + q, tid));
            matmul_store4(C, row, n0 + q * BEST_CSTEP + cbase, M, Nc, (Nc & 3) == 0,
                          make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w));
        }
    }
}

extern "C" __global__ void __launch_bounds__(BEST_NT, BEST_MINB)
    matmul_best_stream(const float* __restrict__ A, const float* __restrict__ B,
                       float* __restrict__ C, int M, int N, int K, int Nc, int tiles_m,
                       int tiles_n, float* W, int* flags, int rounds, int per, int extra, int kts,
                       int kt_m, int kt_l, int tn_m, int tn_l) {
    __shared__ __align__(16) float As[2][BEST_BK][BEST_BM + BEST_PAD];
    __shared__ __align__(16) float Bs[2][BEST_BK][BEST_BN];
    const int tid = threadIdx.y * BEST_TX + threadIdx.x;
    int rbase, cbase;
    matmul_best_bases(threadIdx.x, threadIdx.y, &rbase, &cbase);
    const int kt = (K + BEST_BK - 1) / BEST_BK, tiles = tiles_m * tiles_n;
    const int groups = min(int(gridDim.x), tiles), g = blockIdx.x;
    // The host launches no more groups than tiles, and counts K in this build's tiles: were it to
    // count otherwise, C is left unwritten, which the run's check reports.
    if (g >= groups || kts != kt)
        return;
    int it, end;
    matmul_best_share(groups, kt, rounds, per, extra, g, &it, &end);
    float acc[BEST_TM][BEST_TN];
    // One loop, whole tiles and then pieces, calls matmul_best_block once: with a loop for each,
    // ptxas spilled registers for sm_90.
    for (int round = 0;;) {
        int tile, k0, k1;
        if (round < rounds) {
            tile = round++ * groups + g;
            k0 = 0;
            k1 = kt;
        } else if (it < end) {
            tile = matmul_best_div(it, kt_m, kt_l);
            k0 = it - tile * kt;
            k1 = min(kt, k0 + (end - it));
            it += k1 - k0;
        } else {
            break;
        }
        const int tile_m = matmul_best_div(tile, tn_m, tn_l);
        const int m0 = tile_m * BEST_BM, n0 = (tile - tile_m * tiles_n) * BEST_BN;
        matmul_best_block(A, B, M, N, K, m0, n0, k0, k1 - k0, tid, rbase, cbase, As, Bs, acc);
        const bool piece = k0 > 0 || k1 < kt; // a tile shared with a neighbouring block
        const bool head = k0 == 0;            // its first tiles of K: shared with block g + 1
        if (piece)
#pragma unroll
            for (int i = 0; i < BEST_TM; ++i)
#pragma unroll
                for (int q = 0; q < BEST_TN / 4; ++q)
                    *matmul_best_slot(W, 2 * g + head, i * (BEST_TN / 4) + q, tid) =
                        make_float4(acc[i][q * 4 + 0], acc[i][q * 4 + 1], acc[i][q * 4 + 2],
                                    acc[i][q * 4 + 3]);
        if (!piece)
            matmul_best_write(C, M, Nc, m0, n0, rbase, cbase, acc, &Bs[0][0][0], tid);
#if BEST_STREAM_INLINE
        const int pair = head ? g : g - 1; // the count of the tile
        if (piece)
            __threadfence(); // the piece in memory before the count says so
        __syncthreads();
        bool second = false; // whether it came second, for the whole block
        if (piece && tid == 0) {
            second = atomicAdd(&flags[pair], 1) == 1;
            __threadfence();
        }
        if (__syncthreads_or(second)) { // both pieces, ours read back, added into C
            if (tid == 0)
                flags[pair] = 0; // for the next launch
            matmul_best_add_write(W, 2 * g + head, head ? 2 * g + 2 : 2 * g - 1, tid, C, M, Nc,
                                  m0, n0, rbase, cbase);
        }
#else
        (void)flags;
#endif
    }
}

// After matmul_best_stream with BEST_STREAM_INLINE 0 (over `groups` blocks): block g adds the
// pieces of blocks g and g + 1 into C where their shares meet inside a tile.
extern "C" __global__ void __launch_bounds__(BEST_NT)
    matmul_best_stream_sum(float* __restrict__ W, float* __restrict__ C, int M, int K, int Nc,
                           int tiles_n, int groups, int rounds, int per, int extra) {
    const int tid = threadIdx.y * BEST_TX + threadIdx.x;
    int rbase, cbase;
    matmul_best_bases(threadIdx.x, threadIdx.y, &rbase, &cbase);
    const int kt = (K + BEST_BK - 1) / BEST_BK, g = blockIdx.x;
    int begin, end;
    matmul_best_share(groups, kt, rounds, per, extra, g, &begin, &end);
    const int tile = end / kt;
    if (g + 1 >= groups || end - tile * kt == 0) // the share ends at a tile's end: no piece
        return;
    const int tile_m = tile / tiles_n;
    const int m0 = tile_m * BEST_BM, n0 = (tile - tile_m * tiles_n) * BEST_BN;
    matmul_best_add_write(W, 2 * g + 1, 2 * g + 2, tid, C, M, Nc, m0, n0, rbase, cbase);
}
