// Matrix multiply, tc3 ("3xTF32") on Hopper (compute capability 9.0, built as sm_90a): float32
// accuracy from wgmma's TF32 products. kernels_cu/matmul_tc3.cu says what tc3 computes;
// kernels_cu/matmul_tf32_wgmma.cu how this pipeline works (the tile copy engine, mbarriers,
// wgmma from 128-byte swizzled shared memory); this file what differs.
//
// Where each input is split (no pass of its own over memory):
// - B in the pass that transposes it: wgmma reads its B operand from shared memory only, K-major,
//   and B^T's hi and lo must both be there, so matmul_tc3_bt first writes B^T as two matrices
//   of Np = N rounded up to the block's 128 columns, one under the other: hi = TF32(b) and lo =
//   TF32(b - hi), in the timed work. The producer warpgroup's one thread copies A's tile and
//   both of B's into each stage, as tf32's does. (An earlier build split B in shared memory, the
//   producer warpgroup between the copy and the consumers: docs/design/tc3.md. tf32's own
//   kernel swaps the operands instead, B from registers, and needs no transpose; here the
//   register operand is A's, split in registers.)
// - A in registers: each consumer thread reads its wgmma A fragment (mma.sync's m16n8k8 layout,
//   one per warp and 8 of K) from the swizzled stage with ld.shared and splits each value x into
//   hi = TF32(x) and lo = TF32(x - hi) in registers; wgmma takes A from registers.
// Per 8 of K, a consumer issues wgmma(lo_A, hi_B), wgmma(hi_A, lo_B), wgmma(hi_A, hi_B) for 64
// rows; those 12 of a stage go into a fresh set of accumulators, added to the block's own by
// float additions once they are done (t3_stage says why); the two consumers take turns on the
// tensor cores.
//
// The block: 256 x 128 of C. Each consumer warpgroup has 128 rows, as two halves of 64
// (m64n128k8) one after the other through the same fresh accumulators: 128 + 64 accumulators
// and 32 fragment registers a thread, which setmaxnreg's 240 holds (the producer keeps 24). A
// stage of A (32 KiB), B (16) and B's remainder (16) is 64 KiB: 3 stages. Against a 128 x 128
// block, each stage of B, hi and lo, serves twice the rows.
#include "matmul_wgmma.cuh"

#define T3_BM 256
#define T3_BN 128
#define T3_BK 32
#define T3_STAGES 3
#ifndef T3_GROUP // row tiles per group of the block order
#define T3_GROUP 16
#endif
#define T3_THREADS 384
#define T3_A_BYTES (T3_BM * T3_BK * 4)
#define T3_B_BYTES (T3_BN * T3_BK * 4)
#define T3_STAGE_BYTES (T3_A_BYTES + 2 * T3_B_BYTES) // A, B's hi and B's lo

// TF32(x), rounded to nearest (ties away from zero) in integer operations, for every
// architecture (cvt.rna.tf32.f32 needs 8.0): 13 low mantissa bits dropped.
__device__ __forceinline__ float t3_tf32(float x) {
    return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xFFFFE000u);
}

// B^T split, from B (K x N): rows n < Np of Bt hold hi = TF32(B[k][n]), rows Np + n lo =
// TF32(B[k][n] - hi), each Kp floats, zero for n >= N or k >= K. 32 x 32 tiles through shared
// memory (rows padded by one float: no bank conflicts), 32 x 8 threads, 4 rows each; the grid
// covers Np columns.
extern "C" __global__ void matmul_tc3_bt(const float* __restrict__ B, float* __restrict__ Bt,
                                         int K, int N, int Kp, int Np) {
    __shared__ float tile[32][33];
    const int n0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int i = 0; i < 32; i += 8) {
        const int k = k0 + ty + i, n = n0 + tx;
        tile[ty + i][tx] = k < K && n < N ? B[(size_t)k * N + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 32; i += 8) {
        const int n = n0 + ty + i, k = k0 + tx;
        if (n < Np && k < Kp) {
            const float x = tile[tx][ty + i], hi = t3_tf32(x);
            Bt[(size_t)n * Kp + k] = hi;
            Bt[(size_t)(Np + n) * Kp + k] = t3_tf32(__fsub_rn(x, hi));
        }
    }
}

#ifdef WG_HAVE_WGMMA
__device__ __forceinline__ unsigned t3_round(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

// d (64 x 128 of C per warpgroup) = A-slice (64 x 8, from registers: a[0..3] as mma.sync's
// m16n8k8 A fragment, warp w holding rows 16 w .. 16 w + 15) * B-slice (8 x 128, shared memory)
// + d where `add` (else d's old values are ignored: scale-d false).
__device__ __forceinline__ void t3_mma(float* d, const unsigned* a, unsigned long long db,
                                       int add) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "{%64, %65, %66, %67}, %68, p, 1, 1;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(add));
}

__device__ __forceinline__ float t3_lds(unsigned addr) {
    float v;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr));
    return v;
}

// A's fragments of one stage for this thread, split: hi[kk][i] and lo[kk][i] for the 4 slices
// of 8 of K. The consumer's 64 rows start at sa; element (r, k) of the 128-byte swizzled tile
// lies at r * 128 + ((k / 4) ^ (r % 8)) * 16 + (k % 4) * 4.
__device__ __forceinline__ void t3_frags(unsigned sa, int warp, int g, int t, unsigned (&hi)[4][4],
                                         unsigned (&lo)[4][4]) {
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int r = warp * 16 + g + (i & 1) * 8, k = kk * 8 + t + (i >> 1) * 4;
            const float x =
                t3_lds(sa + r * 128 + (((k >> 2) ^ (r & 7)) << 4) + ((k & 3) << 2));
            hi[kk][i] = t3_round(x);
            lo[kk][i] = t3_round(__fsub_rn(x, __uint_as_float(hi[kk][i])));
        }
}

// One stage u of a consumer: wait for it; for each half of its rows, split A's fragments into
// (hi, lo), issue their 12 wgmmas into the fresh accumulators p (the first with scale-d false),
// wait for them and add p to d's half with float additions; release the stage after the last.
// The tensor cores' own additions are not rounded to nearest, and their error grows with the sum
// they add to: they only ever add one stage's 96 products here, and d's long sum is rounded as
// float's (kernels_cu/matmul_tc3.cu). Each wait leaves the tensor cores to the other consumer
// warpgroup meanwhile.
__device__ __forceinline__ void t3_stage(float* d, float* p, int u, unsigned base, unsigned full,
                                         unsigned empty, int cw, int warp, int g, int t) {
    const int s = u % T3_STAGES;
    wg_bar_wait(full + 8 * s, (u / T3_STAGES) & 1);
    const unsigned st = base + s * T3_STAGE_BYTES;
    const unsigned sb = st + T3_A_BYTES, sl = sb + T3_B_BYTES;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
        unsigned hi[4][4], lo[4][4];
        t3_frags(st + (cw * 2 + h) * (64 * 128), warp, g, t, hi, lo);
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            t3_mma(p, lo[kk], wg_desc(sb + kk * 32), kk > 0);
            t3_mma(p, hi[kk], wg_desc(sl + kk * 32), 1);
            t3_mma(p, hi[kk], wg_desc(sb + kk * 32), 1);
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        if (h == 1)
            wg_bar_arrive(empty + 8 * s);
#pragma unroll
        for (int i = 0; i < 64; ++i)
            d[64 * h + i] = __fadd_rn(d[64 * h + i], p[i]);
    }
}
#endif

// C = A * B from tile maps over A (M x Kp, boxes of 256 rows) and B^T split (2 Np x Kp, from
// matmul_tc3_bt; Np = 128 gridDim.x; boxes of 128 rows), the same arguments as
// matmul_tf32_wgmma. Blocks of 32 x 12 threads; grid x walks the 128-column tiles of C, y the
// 256-row tiles, regrouped by T3_GROUP row tiles.
extern "C" __global__ void __launch_bounds__(T3_THREADS, 1)
    matmul_tc3_wgmma(const __grid_constant__ DuetTileMap map_a,
                     const __grid_constant__ DuetTileMap map_b, const float* __restrict__ A,
                     const float* __restrict__ Bt, float* __restrict__ C, int M, int N, int K,
                     int Kp) {
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const int Np = gridDim.x * T3_BN; // where B's remainder starts in Bt
    int m0, n0;
    wg_block_origin(T3_BM, T3_BN, T3_GROUP, m0, n0);
#ifdef WG_HAVE_WGMMA
    __shared__ __align__(8) unsigned long long bars[2 * T3_STAGES];
    const unsigned full = static_cast<unsigned>(__cvta_generic_to_shared(bars));
    const unsigned empty = full + 8 * T3_STAGES;
    const unsigned raw = static_cast<unsigned>(__cvta_generic_to_shared(duet_dynamic_smem));
    const unsigned base = (raw + 1023u) & ~1023u;
    const int wg = tid >> 7;
    const int tiles = (Kp + T3_BK - 1) / T3_BK;
    wg_bars_init(full, empty, T3_STAGES, tid);
    if (wg == 0) { // the producer: one thread's copies; its registers go to the consumers
        asm volatile("setmaxnreg.dec.sync.aligned.u32 24;");
        if (tid == 0)
            wg_produce(tiles, T3_STAGES, base, T3_STAGE_BYTES, full, empty,
                       [&](int u, unsigned st, unsigned bar) {
                           wg_tile_copy(st, &map_a, u * T3_BK, m0, bar);
                           wg_tile_copy(st + T3_A_BYTES, &map_b, u * T3_BK, n0, bar);
                           wg_tile_copy(st + T3_A_BYTES + T3_B_BYTES, &map_b, u * T3_BK, Np + n0,
                                        bar);
                       });
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
    const int cw = wg - 1; // consumer: rows 128 cw .. 128 cw + 127 of the block
    const int warp = (tid >> 5) & 3, lane = tid & 31, g = lane >> 2, t = lane & 3;
    float d[128], p[64];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        d[i] = 0.0f;
#pragma unroll
    for (int i = 0; i < 64; ++i)
        p[i] = 0.0f;
    for (int u = 0; u < tiles; ++u)
        t3_stage(d, p, u, base, full, empty, cw, warp, g, t);

#pragma unroll
    for (int h = 0; h < 2; ++h)
        wg_store<T3_BN / 8>(d + 64 * h, C, M, N, m0 + (cw * 2 + h) * 64, n0, tid);
#else
    wg_fallback(A, Bt, Bt + (size_t)Np * Kp, C, M, N, K, m0, n0, T3_BM, T3_BN, tid, T3_THREADS,
                Kp, 1);
#endif
}
