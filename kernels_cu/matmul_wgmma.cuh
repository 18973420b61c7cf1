// What Hopper's wgmma kernels of matmul share (matmul_tf32_wgmma.cu, matmul_tc3_wgmma.cu): the
// tile map parameter, the block order, the shared-memory matrix descriptor of the 128-byte
// swizzled K-major tiles, the mbarriers, the tile copy engine's copy, the store of a consumer's
// accumulators and the fallback of other architectures. matmul_tf32_wgmma.cu explains them.
#pragma once
#include "matmul.cuh"

// A duet::tile_map parameter: CUDA's CUtensorMap, opaque (128 bytes, aligned as cuda.h has it).
struct alignas(128) DuetTileMap {
    unsigned long long bits[16];
};

// The first row m0 and column n0 of this block's bm x bn of C: grid x walks the column tiles, y
// the row tiles, and consecutive blocks are regrouped by `group` row tiles (block b takes row
// tile (b % (group * nx)) % group + its group's first) so that a wave shares panels of A and B
// in L2. With `pair` 2 (a cluster of two blocks along x), the order walks pairs of column tiles
// and the pair's blocks take its two halves: grid x is even there.
__device__ __forceinline__ void wg_block_origin(int bm, int bn, int group, int& m0, int& n0,
                                                int pair = 1) {
    const int nx = gridDim.x / pair, ny = gridDim.y;
    const int b = blockIdx.y * nx + blockIdx.x / pair;
    const int grp = b / (group * nx), first = grp * group;
    const int rows = min(ny - first, group);
    const int within = b - grp * group * nx;
    m0 = (first + within % rows) * bm;
    n0 = ((within / rows) * pair + blockIdx.x % pair) * bn;
}

// Stores a consumer warpgroup's 64 x (8 NJ) of C at (row0, n0) from wgmma's accumulator layout:
// d[4 j + e] is row g (e < 2) or g + 8 of warp w's 16, column 8 j + 2 t + (e & 1); pairs as one
// float2 where N is even.
template <int NJ>
__device__ __forceinline__ void wg_store(const float* d, float* __restrict__ C, int M, int N,
                                         int row0, int n0, int tid) {
    const int warp = (tid >> 5) & 3, lane = tid & 31, g = lane >> 2, t = lane & 3;
    const bool pair = (N & 1) == 0;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        const int row = row0 + warp * 16 + g + h * 8;
        if (row >= M)
            continue;
#pragma unroll
        for (int j = 0; j < NJ; ++j) {
            const int col = n0 + 8 * j + 2 * t;
            const float x = d[4 * j + 2 * h], y = d[4 * j + 2 * h + 1];
            if (pair && col + 1 < N) {
                *reinterpret_cast<float2*>(C + (size_t)row * N + col) = make_float2(x, y);
            } else {
                if (col < N)
                    C[(size_t)row * N + col] = x;
                if (col + 1 < N)
                    C[(size_t)row * N + col + 1] = y;
            }
        }
    }
}

// Built for another architecture (a build whose DUET_CUDA_ARCHS lacks 90): wgmma does not exist
// there. The host launches these kernels on compute capability 9.0 only, where a fatbin without
// sm_90a code would run this: plain float dot products, correct and slow. B's element (k, n)
// lies at B[n * n_step + k * k_step] (plus B_lo's there, tc3's remainder, where given).
__device__ __forceinline__ void wg_fallback(const float* __restrict__ A,
                                            const float* __restrict__ B,
                                            const float* __restrict__ B_lo, float* __restrict__ C,
                                            int M, int N, int K, int m0, int n0, int bm, int bn,
                                            int tid, int threads, int n_step, int k_step) {
    for (int i = tid; i < bm * bn; i += threads) {
        const int row = m0 + i / bn, col = n0 + i % bn;
        if (row < M && col < N) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) {
                const size_t at = (size_t)col * n_step + (size_t)k * k_step;
                s += A[(size_t)row * K + k] * (B_lo ? B[at] + B_lo[at] : B[at]);
            }
            C[(size_t)row * N + col] = s;
        }
    }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_HAVE_WGMMA 1

__device__ __forceinline__ unsigned long long wg_desc(unsigned addr) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) |
           ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wg_bar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void wg_bar_arrive(unsigned bar) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}" ::"r"(bar)
                 : "memory");
}
// Arrives and arms the barrier's phase with `bytes` of copies to come.
__device__ __forceinline__ void wg_bar_expect(unsigned bar, unsigned bytes) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}"
                 ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void wg_bar_wait(unsigned bar, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
// The stages' mbarriers, set up by the block's first thread before anyone uses them: "full"
// (the producer's arrive, plus the copies' bytes) and "empty" (`releases` arrivals: every
// consumer thread's, or each consumer warp's once per block of the cluster).
__device__ __forceinline__ void wg_bars_init(unsigned full, unsigned empty, int stages, int tid,
                                             unsigned releases = 256) {
    if (tid == 0) {
        for (int s = 0; s < stages; ++s) {
            wg_bar_init(full + 8 * s, 1);
            wg_bar_init(empty + 8 * s, releases);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
}
// Every thread of the cluster's blocks: none goes on before all have arrived (the barriers are
// set up before a peer copies or arrives into them; no block exits while a peer may still
// arrive on its barriers).
__device__ __forceinline__ void wg_cluster_sync() {
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
__device__ __forceinline__ unsigned wg_cluster_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
// Arrives on the mbarrier at the same offset as `bar` in the cluster's block `rank`, with the
// default semantics (release at the block's scope: the arriving warp only read the stage). A
// release at the cluster's scope costs a third of tf32's speed at 8192^3 on an H200.
__device__ __forceinline__ void wg_bar_arrive_in(unsigned bar, unsigned rank) {
    asm volatile("{\n.reg .b32 at;\nmapa.shared::cluster.u32 at, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [at];\n}" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}
// The producer: for each tile u of K, waits for the consumers' release of its stage (tile u -
// stages), arms "full" with the stage's bytes and lets copy(u, stage address, full barrier)
// start the stage's tile copies. A whole warp may run it, its `leader` alone arming and copying
// (the warp stays together until the block's end).
template <class Copy>
__device__ __forceinline__ void wg_produce(int tiles, int stages, unsigned base,
                                           unsigned stage_bytes, unsigned full, unsigned empty,
                                           Copy copy, bool leader = true) {
    for (int u = 0; u < tiles; ++u) {
        const int s = u % stages;
        if (u >= stages)
            wg_bar_wait(empty + 8 * s, ((u / stages) - 1) & 1);
        if (leader) {
            wg_bar_expect(full + 8 * s, stage_bytes);
            copy(u, base + s * stage_bytes, full + 8 * s);
        }
    }
}
// The box at column x, row y of `map` into shared memory at dst, counted on `bar`.
__device__ __forceinline__ void wg_tile_copy(unsigned dst, const DuetTileMap* map, int x, int y,
                                             unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}
// The same box into shared memory at dst of every block of the cluster in `mask`, counted on
// each one's mbarrier at bar's offset.
__device__ __forceinline__ void wg_tile_multicast(unsigned dst, const DuetTileMap* map, int x,
                                                  int y, unsigned bar, unsigned short mask) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(dst),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar),
                 "h"(mask)
                 : "memory");
}
#endif
