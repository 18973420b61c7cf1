// A persistent grid's share of C's tiles (matmul_tf32_wgmma.cu): a few blocks (the host launches
// one a multiprocessor) each walk many tiles, and the tiles of an unfinished last wave are split
// along K over all the blocks ("stream-K"), their partial sums added by the block that holds each
// tile's last tiles of K.
//
// Of C's T tiles (nx x ny, in wg_tile_origin's order) and G blocks: the first T - T % G are whole,
// block b taking b, b + G, b + 2 G, ... (a wave at a time, as one block a tile would be
// scheduled); the last R = T % G tiles' R kt tiles of K (kt a tile of C) are cut into G
// contiguous runs of the same length (to one tile of K), block b's [R kt b / G, R kt (b + 1) / G)
// counting tile after tile. So every block ends at the same time, where a last wave of R < G
// whole tiles would leave G - R multiprocessors idle for a tile's time (at 8192^3 with 256 x 128
// tiles: 2048 tiles on 132 SMs, 15.5 waves taking 16 tiles' time). A block's run is walked last
// tile first: its part of that tile's head (k from 0, or from the middle where the run lies
// inside one tile) is a partial sum, written to the block's slot of the workspace `part`, and
// flags[b] is set; the part of its first tile that ends that tile's K is the tile's: that block
// waits for the flags of the blocks before it that hold the rest, adds their slots (latest block
// first: a fixed order, the same bits every run) and stores C. Waits only go to lower-numbered
// blocks, which write their partial sums before waiting on anyone, so the chain ends (the GPU
// starts blocks in order; with one block a multiprocessor they all run at once). The owner
// clears each flag it took, for the next launch. Where the split would give each block fewer
// than 8 tiles of K (small K), every tile is whole.
#pragma once

struct WgSched {
    int nx, ny, kt; // C's tiles along x and y; tiles of K in a tile of C
    int whole;      // tiles done whole (a multiple of gridDim.x)
    int iters;      // tiles of K of the split last tiles (0: none)
    int t;          // this block's next whole tile
    int start, it;  // this block's split tiles of K left: [start, it), walked from the end
};

// Where block b's run of the split tiles of K begins (b = gridDim.x: where the last one ends).
__device__ __forceinline__ int wg_run_start(const WgSched& w, int b) {
    return static_cast<int>(static_cast<long long>(w.iters) * b / gridDim.x);
}

__device__ __forceinline__ WgSched wg_sched(int M, int N, int Kp, int bm, int bn, int bk) {
    WgSched w;
    w.nx = (N + bn - 1) / bn;
    w.ny = (M + bm - 1) / bm;
    w.kt = (Kp + bk - 1) / bk;
    const int G = gridDim.x, rest = (w.nx * w.ny) % G;
    const long long iters = static_cast<long long>(rest) * w.kt;
    const bool split = iters >= 8ll * G && iters < (1ll << 30);
    w.whole = w.nx * w.ny - (split ? rest : 0);
    w.iters = split ? static_cast<int>(iters) : 0;
    w.t = blockIdx.x;
    w.start = wg_run_start(w, blockIdx.x);
    w.it = wg_run_start(w, blockIdx.x + 1);
    return w;
}

// The next tile of C this block works on, and its tiles of K [k0, k1); false when none is left.
__device__ __forceinline__ bool wg_next(WgSched& w, int& tile, int& k0, int& k1) {
    if (w.t < w.whole) {
        tile = w.t;
        k0 = 0;
        k1 = w.kt;
        w.t += gridDim.x;
        return true;
    }
    if (w.it <= w.start)
        return false;
    const int rel = (w.it - 1) / w.kt, first = rel * w.kt;
    k0 = max(w.start, first) - first;
    k1 = w.it - first;
    tile = w.whole + rel;
    w.it = first + k0;
    return true;
}

// The two consumer warpgroups (256 threads) meet; the producer's warpgroup takes no part.
__device__ __forceinline__ void wg_consumers_sync() {
    asm volatile("bar.sync 1, 256;" ::: "memory");
}

// A partial sum (N accumulators of each of the 256 consumer threads, ct = 0 .. 255) into this
// block's slot of the workspace, then its flag set (release: the slot before the flag).
template <int N>
__device__ __forceinline__ void wg_put_partial(const float* d, float* part, int* flags, int ct) {
    float* p = part + static_cast<size_t>(blockIdx.x) * (N * 256) + ct;
#pragma unroll
    for (int i = 0; i < N; ++i)
        __stcg(p + i * 256, d[i]);
    __threadfence();
    wg_consumers_sync();
    if (ct == 0)
        asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flags + blockIdx.x), "r"(1)
                     : "memory");
}

// The owner of the split tile whose tiles of K begin at `first` (counted over the split ones):
// adds the partial sums of the blocks before it whose runs hold that tile's earlier tiles of K.
template <int N>
__device__ __forceinline__ void wg_add_partials(float* d, const WgSched& w, int first,
                                                const float* part, int* flags, int ct) {
    for (int c = static_cast<int>(blockIdx.x) - 1; c >= 0 && wg_run_start(w, c + 1) > first;
         --c) {
        if (wg_run_start(w, c) == wg_run_start(w, c + 1))
            continue; // an empty run (no partial sum)
        if (ct == 0) {
            int ready;
            do
                asm volatile("ld.acquire.gpu.global.b32 %0, [%1];"
                             : "=r"(ready)
                             : "l"(flags + c)
                             : "memory");
            while (!ready);
            flags[c] = 0;
        }
        wg_consumers_sync();
        const float* p = part + static_cast<size_t>(c) * (N * 256) + ct;
#pragma unroll
        for (int i = 0; i < N; ++i)
            d[i] += __ldcg(p + i * 256);
    }
}
