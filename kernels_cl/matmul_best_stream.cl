// Matrix multiply, best over the device's compute units (stream-K): the same blocks of C as
// matmul_best (matmul_best.clh), scheduled so that no compute unit idles in a last, partial wave.
//
// A launch of best over C is waves of groups, one group per compute unit at a time with the
// default 128x256 block (its registers allow no more). 4096^2 is 512 blocks, 3.88 waves of an
// H100's 132: the last wave leaves 16 units idle, 3% of the run; 4224 x 4096, 528 blocks, runs in
// the same time (docs/design/sgemm.md). Here the host launches one group per compute unit
// (`groups`, at most the number of tiles), and each group:
//  - takes whole tiles, one per round (tile r * groups + g), while every group has one: all but
//    the last round and a half, so that neighbouring tiles still run side by side;
//  - then an equal share of what is left counted in K's tiles (BK deep): of its tiles x kt
//    iterations, `per` each and one more for the first `extra` groups (the host's numbers). Each
//    share is at least kt iterations (the rest is at least `groups` tiles), so a tile of C is cut
//    at most once, between two neighbouring groups g and g + 1: g computes its first K tiles (its
//    "head", the end of g's share), g + 1 the rest (the start of its share).
// Each of the two writes its piece to W (two slots per group: 2g its first piece, 2g + 1 its
// last). Then, by BEST_STREAM_INLINE (set by the host):
//  - 1: each counts itself with an atomic add (flags[g] for groups g and g + 1). The second to
//    count reads both pieces back, adds them and writes the tile of C (and sets the count back to
//    0 for the next launch). No group ever waits for another, so nothing depends on groups
//    running at the same time. The other's piece must be in memory before its count is: the
//    writer fences between its stores and the count, the reader after it and reads with volatile
//    loads (not from a cache of its own compute unit). OpenCL 1.2's mem_fence does not promise
//    that order between groups; PTX's membar.gl does, which NVIDIA's compiler takes, so the host
//    sets 1 where kernels take PTX (CUDA, NVIDIA's OpenCL).
//  - 0: matmul_best_stream_sum, launched next, adds the pairs of pieces into C: a launch more
//    (its pieces read back), ordered by the queue on every device.
// A sum of two is the same either way round: C is the same bits by both, whoever came second.
// Nothing here divides by a value known only at run time (matmul_best_div says why): in CUDA on
// the H100 the whole tiles run at best's speed, the shared rest at 0.92 of it; NVIDIA's OpenCL
// builds a slower loop (0.91), so the host's plan weighs each (apps/ladders/matmul_best_plan.cpp,
// docs/design/sgemm.md).
// C's unaligned rows go out through local memory in slices (matmul_best_write): in a loop
// unrolled here, rolled in matmul_best, where ptxas schedules each kernel's loop of tiles well
// (the static stall counts of bench/cubin_loop.py: rolled here, 2497 cycles a tile, 58 of them
// stalls of 4 against 2336 and 6).
#define BEST_SLICES_ROLLED 0
// NVIDIA's compiler (its device profile sets BEST_STREAM_ORDER=4): a step's multiply-adds with
// the last row first (BEST_ORDER 4, matmul_best.clh) where no block is clamped, as in CUDA: on the
// H100 5120^3 5.59 ms against 5.80 row by row, 8192^3 22.70 against 23.56 (its waves: 21.79),
// orders 1-3 between (docs/design/sgemm.md). Clamped blocks keep row by row (unmeasured).
#if !defined(BEST_ORDER) && defined(BEST_STREAM_ORDER) && !BEST_CLAMP
#define BEST_ORDER BEST_STREAM_ORDER
#endif
#include "matmul_best.clh"

#ifndef BEST_STREAM_INLINE
#define BEST_STREAM_INLINE 0
#endif
#if DUET_PTX_ASM // NVIDIA's compiler (matmul.clh): the fence for the whole device
#define BEST_DEVICE_FENCE() __asm__ __volatile__("membar.gl;" ::: "memory")
#else
#define BEST_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
// NVIDIA's compiler computes what the loop over blocks derives from the ids and from the
// divisions' shifts (C's and W's addresses for the write after each block, the shifts masked to
// 31) once, before that loop, and keeps it in registers through best's loop of tiles. There
// ptxas, out of registers, spilled, gave the accumulators registers in the banks of their
// operands (1614 clashes, bench/cubin_loop.py) and issued the next tile's global loads late in
// the tile, so that their latency showed: on the H100 8192^3 took 22.70 ms against CUDA's 21.37.
// Passed through an empty asm statement after each block (BEST_FRESH; it emits no instruction),
// those values are computed there anew: no spill, 453 clashes, 22.16 ms. Its loads still come
// 250 instructions before their stores into local memory, against 820 in CUDA's loop, which two
// more registers held through it move as late (docs/design/sgemm.md). Without its
// checked loop (BEST_ALL_INSIDE, matmul_best.clh) it runs 8192^3 in 21.69 ms.
// Other compilers (no DUET_PTX_ASM): nothing to do.
#if DUET_PTX_ASM
#define BEST_FRESH(x) __asm__ __volatile__("" : "+r"(x))
#else
#define BEST_FRESH(x)
#endif

// W's slot s: a group's piece of one tile of C, float4 e of work-item tid at (s * TM*TN/4 + e) *
// NT + tid, so that neighbouring work-items store and load neighbouring 16 bytes.
size_t matmul_best_slot(const int s, const int e, const int tid) {
    return ((size_t)s * (BEST_TM * BEST_TN / 4) + (size_t)e) * BEST_NT + (size_t)tid;
}

// x / d for 0 <= x < 2^31 by a multiply and a shift: d's multiplier m (as int) and shift l from
// the host (best_divisor, apps/ladders/matmul_best_plan.cpp). The compilers divide by a value known
// only at run time through the float unit's reciprocal, and on the H100 the tile's coordinates
// computed so, with the addresses that follow from them, left best's loop 7% slower than
// coordinates from the group's id; by a multiply its speed stays (docs/design/sgemm.md).
int matmul_best_div(const int x, const int m, const int l) {
    int shift = l;
    BEST_FRESH(shift);
    return (int)((mul_hi((uint)x, (uint)m) + (uint)x) >> shift);
}

// Group g's share of the pieces after the rounds' whole tiles: K's tiles [*begin, *end), `per` of
// them and one more for each of the first `extra` groups (the host keeps tiles x kt under 2^31).
void matmul_best_share(const int groups, const int kt, const int rounds, const int per,
                       const int extra, const int g, int* begin, int* end) {
    *begin = rounds * groups * kt + g * per + min(g, extra);
    *end = *begin + per + (g < extra ? 1 : 0);
}

// C's block at (m0, n0) = the pieces in W's slots s and t, float4 by float4, by volatile loads
// (a piece may come from another group of this launch). Not unrolled over the rows: unrolled, the
// CUDA twin's adds left ptxas scheduling the tiles' loop apart (docs/design/sgemm.md).
void matmul_best_add_write(__global const float* W, const int s, const int t, const int tid,
                           __global float* restrict C, const int M, const int Nc, const int m0,
                           const int n0, const int rbase, const int cbase) {
    const volatile __global float4* piece = (const volatile __global float4*)W;
#pragma unroll 1
    for (int i = 0; i < BEST_TM; ++i) {
        const int row = m0 + (i / 4) * BEST_RSTEP + rbase + i % 4;
        for (int q = 0; q < BEST_TN / 4; ++q) {
            const float4 a = piece[matmul_best_slot(s, i * (BEST_TN / 4) + q, tid)];
            const float4 b = piece[matmul_best_slot(t, i * (BEST_TN / 4) + q, tid)];
            matmul_store4(C, row, n0 + q * BEST_CSTEP + cbase, M, Nc, (Nc & 3) == 0, a + b);
        }
    }
}

// C = A * B as matmul_best, over tiles_m x tiles_n blocks of C; W holds 2 x groups blocks of
// floats, flags `groups` ints, zero before the first launch (each launch leaves them so).
__kernel __attribute__((reqd_work_group_size(BEST_TX, BEST_TY, 1))) void
matmul_best_stream(__global const float* restrict A, __global const float* restrict B,
                   __global float* restrict C, const int M, const int N, const int K,
                   const int Nc, const int tiles_m, const int tiles_n, __global float* W,
                   volatile __global int* flags, const int rounds, const int per, const int extra,
                   const int kts, const int kt_m, const int kt_l, const int tn_m,
                   const int tn_l) {
    __local float As[2][BEST_BK][BEST_BM + BEST_PAD] __attribute__((aligned(16)));
    __local float Bs[2][BEST_BK][BEST_BN] __attribute__((aligned(16)));
    const int tid = (int)get_local_id(1) * BEST_TX + (int)get_local_id(0);
    int rbase, cbase;
    matmul_best_bases((int)get_local_id(0), (int)get_local_id(1), &rbase, &cbase);
    const int kt = (K + BEST_BK - 1) / BEST_BK, tiles = tiles_m * tiles_n;
    const int groups = min((int)get_num_groups(0), tiles), g = (int)get_group_id(0);
    // The host launches no more groups than tiles, and counts K in this build's tiles: were it to
    // count otherwise, C is left unwritten, which the run's check reports.
    if (g >= groups || kts != kt)
        return;
    int it, end;
    matmul_best_share(groups, kt, rounds, per, extra, g, &it, &end);
    float acc[BEST_TM][BEST_TN];
    // One loop, whole tiles and then pieces, calls matmul_best_block once: with a loop for each,
    // the CUDA twin spilled registers on the H100.
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
        const int tile_m = matmul_best_div(tile, tn_m, tn_l); // (tile - q * d, not %: matmul_reg.cl)
        const int m0 = tile_m * BEST_BM, n0 = (tile - tile_m * tiles_n) * BEST_BN;
        matmul_best_block(A, B, M, N, K, m0, n0, k0, k1 - k0, tid, rbase, cbase, As, Bs, acc);
        int wtid = tid, wrb = rbase, wcb = cbase, wg = g; // for what follows: anew (BEST_FRESH)
        BEST_FRESH(wtid);
        BEST_FRESH(wrb);
        BEST_FRESH(wcb);
        BEST_FRESH(wg);
        const int piece = k0 > 0 || k1 < kt; // a tile shared with a neighbouring group
        const int head = k0 == 0;            // its first tiles of K: shared with group g + 1
        if (piece) // (vstore4: Oclgrind takes a float4 store built of floats for uninitialised)
            for (int i = 0; i < BEST_TM; ++i)
                for (int q = 0; q < BEST_TN / 4; ++q)
                    vstore4((float4)(acc[i][q * 4 + 0], acc[i][q * 4 + 1], acc[i][q * 4 + 2],
                                     acc[i][q * 4 + 3]),
                            matmul_best_slot(2 * wg + head, i * (BEST_TN / 4) + q, wtid), W);
        if (!piece)
            matmul_best_write(C, M, Nc, m0, n0, wrb, wcb, acc, &Bs[0][0][0], wtid);
#if BEST_STREAM_INLINE
        const int pair = head ? wg : wg - 1; // the count of the tile
        if (piece)
            BEST_DEVICE_FENCE(); // the piece in memory before the count says so
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        // Whether it came second, told the group through the tiles' local memory (free after
        // matmul_best_block's last barrier; the tiles' 48 KiB leave no room for a variable).
        if (piece && wtid == 0) {
            const int second = atomic_add(&flags[pair], 1) == 1;
            BEST_DEVICE_FENCE();
            As[0][0][0] = second ? 1.0f : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (piece && As[0][0][0] != 0.0f) { // both pieces, ours read back, added into C
            if (wtid == 0)
                atomic_xchg(&flags[pair], 0); // for the next launch
            matmul_best_add_write(W, 2 * wg + head, head ? 2 * wg + 2 : 2 * wg - 1, wtid, C, M,
                                  Nc, m0, n0, wrb, wcb);
        }
        barrier(CLK_LOCAL_MEM_FENCE); // the flag read before the next piece's tiles
#else
        (void)flags;
#endif
    }
}

// After matmul_best_stream with BEST_STREAM_INLINE 0 (over `groups` groups): group g adds the
// pieces of groups g and g + 1 into C where their shares meet inside a tile.
__kernel __attribute__((reqd_work_group_size(BEST_TX, BEST_TY, 1))) void
matmul_best_stream_sum(__global const float* restrict W, __global float* restrict C, const int M,
                       const int K, const int Nc, const int tiles_n, const int groups,
                       const int rounds, const int per, const int extra) {
    const int tid = (int)get_local_id(1) * BEST_TX + (int)get_local_id(0);
    int rbase, cbase;
    matmul_best_bases((int)get_local_id(0), (int)get_local_id(1), &rbase, &cbase);
    const int kt = (K + BEST_BK - 1) / BEST_BK, g = (int)get_group_id(0);
    int begin, end;
    matmul_best_share(groups, kt, rounds, per, extra, g, &begin, &end);
    const int tile = end / kt;
    if (g + 1 >= groups || end - tile * kt == 0) // the share ends at a tile's end: no piece
        return;
    const int tile_m = tile / tiles_n;
    const int m0 = tile_m * BEST_BM, n0 = (tile - tile_m * tiles_n) * BEST_BN;
    matmul_best_add_write(W, 2 * g + 1, 2 * g + 2, tid, C, M, Nc, m0, n0, rbase, cbase);
}
