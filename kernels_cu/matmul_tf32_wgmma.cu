// Matrix multiply, step 7 of the ladder (tf32), on Hopper (compute capability 9.0, built as
// sm_90a): the tensor cores' warpgroup instruction wgmma, which reads its B operand straight
// from shared memory through a 64-bit matrix descriptor and its A operand from shared memory or
// registers, fed by the tile copy engine (TMA), instead of mma.sync's register fragments
// (kernels_cu/matmul_tf32.cu, which every other GPU runs). apps/ladders/matmul.cpp launches it
// on CUDA devices of compute capability 9.0 only.
//
// The operands: for TF32, wgmma takes its operands from shared memory "K-major" only (each row of
// its A, M x K, and each column of its B, K x N, contiguous along K; the transpose bits exist for
// f16/bf16 alone). Our A is K-major as it lies (row-major); our B is not. So the kernel computes
// C^T = B^T A^T: wgmma's B operand is A (K x 256 of C's rows, K-major as it lies) and its A
// operand is B^T, 64 of C's columns by 8 of K, which wgmma also takes from registers, where any
// layout will do: each consumer thread reads its fragment from B's tile as it lies (rows of K,
// 32 columns a box) with ld.shared. No pass transposes B (an earlier build wrote B^T first, in
// the timed work: 381-383 TFLOP/s at 8192^3 on an H200 against 391-393 now). Where K % 4 != 0
// (A) or N % 4 != 0 (B), matmul_tf32_pad first writes the matrix with rows of a multiple of 4
// floats (the copy engine needs rows 16 bytes apart); the host counts that in the timed work.
//
// The copies: two tile maps (duet::tile_map, CUDA's CUtensorMap), one over A (boxes of 256 rows
// x 32 floats of K) and one over B (boxes of 32 rows of K x 32 floats of N, four per stage),
// which the copy engine writes into shared memory with the 128-byte swizzle that wgmma's
// descriptors read, zeros outside the matrices (so partial tiles need no code). One thread
// issues a stage's copies; an mbarrier per stage ("full") counts their bytes in and releases the
// stage to the consumers.
//
// Numerics: wgmma reads the fp32 bits and uses them as TF32, dropping the 13 low mantissa bits
// (truncation, relative error below 2^-10 per input, twice the rounding of matmul_tf32.cu's
// cvt.rna), from registers as from shared memory; the host's bound is derived for truncation
// (tf32_entry_bound).
//
// The block: 256 rows x 128 columns of C, three warpgroups (384 threads, 32 x 12 in the launch).
// Warpgroup 0 is the producer: its first warp waits for a stage to be free ("empty" mbarrier),
// all its lanes together, and its first thread arms "full" with the stage's 48 KiB and starts
// its copies. Warpgroups 1 and 2 consume: each 64 columns x 256 rows of C (C^T's 64 x 256) with
// one m64n256k8 instruction per 8 of K (128 float accumulators a thread); each waits on "full",
// reads its fragments, issues the stage's 4 wgmmas, waits for them (ptxas serializes wgmmas
// whose register inputs are written while others are in flight) and releases the stage to
// "empty"; the other consumer's wgmmas keep the tensor cores busy meanwhile. No block-wide
// barrier in the loop: the two consumers and the copies run out of step, which is what keeps the
// tensor pipe busy (docs/design/ladders.md: 93% busy for cuBLAS's kernel, 73% for a cp.async
// kernel with a barrier per tile). The producer gives up registers (setmaxnreg) to the
// consumers.
//
// The pair: blocks run in clusters of two along x (__cluster_dims__; the host rounds grid x up to
// even), which share A's 256 rows and take neighbouring column tiles, a 256 x 256 super-tile in
// the block order. A's tile u is copied once for both, by block u % 2's producer, multicast into
// both blocks' shared memory and counted on both blocks' "full"; each block copies its own B. So
// a stage is refilled only when both blocks' consumers have released it: each consumer warp
// arrives on "empty" in both blocks (mapa; 16 arrivals a phase). A block reads 32 KiB from L2 a
// stage instead of 48: 402-410 TFLOP/s at 8192^3 on an H200 against 397 for lone blocks. The
// remote arrivals use the default release semantics (the block's scope: the warps only read the
// stage); a release at the cluster's scope costs a third of the speed (268 TFLOP/s).
//
// Shared memory layout (what the copy engine's 128-byte swizzle writes): row r of a box (128
// bytes: 8 chunks of 16 bytes) keeps chunk c at position c ^ (r % 8); 8 rows form a 1024-byte
// atom, the boxes are 1024-byte aligned. The descriptor (A's tile, K-major): start address >> 4
// (bits 0-13), leading byte offset (16-29, unused by swizzled K-major layouts: 1), stride byte
// offset 1024 >> 4 between atoms of 8 rows (32-45), base offset 0 (49-51), swizzle mode 1 = 128
// bytes (62-63). The k-th slice of 8 (32 bytes) starts 32 k bytes further.
#include "matmul_wgmma.cuh"

#define WG_BM 256
#define WG_BN 128
#define WG_BK 32
#define WG_STAGES 4
#ifndef WG_GROUP // row tiles per group of the block order
#define WG_GROUP 8
#endif
#define WG_PAIR 2 // blocks per cluster, sharing A's tile
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
#define WG_CLUSTER __cluster_dims__(WG_PAIR, 1, 1)
#else // other architectures: no clusters; the fallback below ignores the pairing
#define WG_CLUSTER
#endif
#define WG_THREADS 384
#define WG_A_BYTES (WG_BM * WG_BK * 4)
#define WG_B_BYTES (WG_BK * WG_BN * 4)
#define WG_STAGE_BYTES (WG_A_BYTES + WG_B_BYTES)
// What the host passes as the launch's duet::local: the stages plus 1024 bytes to align them.
#define WG_SMEM_BYTES (WG_STAGES * WG_STAGE_BYTES + 1024)

// A matrix with rows padded to Kp floats (A where K % 4 != 0, B where N % 4 != 0; tc3's A):
// Ap[m][k] = A[m][k], zero for k >= K.
extern "C" __global__ void matmul_tf32_pad(const float* __restrict__ A, float* __restrict__ Ap,
                                           int M, int K, int Kp) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < Kp)
        for (int m = blockIdx.y; m < M; m += gridDim.y) // rows beyond the grid's 65535
            Ap[(size_t)m * Kp + k] = k < K ? A[(size_t)m * K + k] : 0.0f;
}

#ifdef WG_HAVE_WGMMA
// d (64 columns x 256 rows of C^T per warpgroup) += B^T-slice (64 x 8, registers: f[0..3] as
// mma.sync's m16n8k8 A fragment) * A^T-slice (8 x 256, shared memory).
__device__ __forceinline__ void wg_mma(float* d, const unsigned* f, unsigned long long da) {
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 "
        "{"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "{%128, %129, %130, %131}, %132, 1, 1, 1;"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(f[0]), "r"(f[1]), "r"(f[2]), "r"(f[3]), "l"(da));
}

// One stage u of a consumer: wait for it, read its B^T fragments (4 slices of 8 of K) from B's
// boxes at sb (box j: 32 rows of K x 32 columns, 128-byte swizzled: element (k, c) at
// j * 4096 + k * 128 + ((c / 4) ^ (k % 8)) * 16 + (c % 4) * 4), issue its 4 wgmmas, wait for
// them (ptxas serializes wgmmas whose register inputs are written while others are in flight)
// and release the stage, in both blocks of the pair; the other consumer's wgmmas keep the tensor
// cores busy meanwhile.
__device__ __forceinline__ void wg_stage(float* d, int u, unsigned base, unsigned full,
                                         unsigned empty, int cw, int warp, int lane) {
    const int g = lane >> 2, t = lane & 3;
    unsigned f[4][4];
    const int s = u % WG_STAGES;
    wg_bar_wait(full + 8 * s, (u / WG_STAGES) & 1);
    const unsigned sa = base + s * WG_STAGE_BYTES, sb = sa + WG_A_BYTES;
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            const int n = cw * 64 + warp * 16 + g + (i & 1) * 8, k = kk * 8 + t + (i >> 1) * 4;
            const int c = n & 31;
            const unsigned at = sb + (n >> 5) * 4096 + k * 128 + (((c >> 2) ^ (k & 7)) << 4) +
                                ((c & 3) << 2);
            asm volatile("ld.shared.b32 %0, [%1];" : "=r"(f[kk][i]) : "r"(at));
        }
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
        wg_mma(d, f[kk], wg_desc(sa + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    if (lane < WG_PAIR) // the warp's release, in each block of the pair
        wg_bar_arrive_in(empty + 8 * s, lane);
}
// A consumer warpgroup cw: columns 64 cw .. 64 cw + 63 of the block, all its 256 rows, stored
// from d[4 j + e]: C^T's row (C's column) 16 warp + g (+ 8 for e >= 2) of the consumer's 64,
// column (C's row) 8 j + 2 t + (e & 1).
__device__ __forceinline__ void wg_consume(unsigned base, unsigned full, unsigned empty,
                                           int tiles, int cw, int tid, float* __restrict__ C,
                                           int M, int N, int m0, int n0) {
    const int warp = (tid >> 5) & 3, lane = tid & 31, g = lane >> 2, t = lane & 3;
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        d[i] = 0.0f;
    for (int u = 0; u < tiles; ++u)
        wg_stage(d, u, base, full, empty, cw, warp, lane);
    const int col0 = n0 + cw * 64 + warp * 16 + g;
#pragma unroll
    for (int j = 0; j < WG_BM / 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int row = m0 + 8 * j + 2 * t + (e & 1), col = col0 + (e >> 1) * 8;
            if (row < M && col < N)
                C[(size_t)row * N + col] = d[4 * j + e];
        }
}
#endif

// C = A * B from tile maps over A (M x Kp, boxes of 256 x 32) and B (K x Np4: N rounded up to 4,
// boxes of 32 x 32); A and B are the same matrices as plain pointers (B with rows of Np4), read
// only by the fallback. Blocks of 32 x 12 threads; grid x (even) walks the 128-column tiles of C
// (one past N where their count is odd), y the 256-row tiles, regrouped by WG_GROUP row tiles
// and paired along x.
extern "C" __global__ void __launch_bounds__(WG_THREADS, 1) WG_CLUSTER
    matmul_tf32_wgmma(const __grid_constant__ DuetTileMap map_a,
                      const __grid_constant__ DuetTileMap map_b, const float* __restrict__ A,
                      const float* __restrict__ B, float* __restrict__ C, int M, int N, int K,
                      int Kp, int Np4) {
    const int tid = threadIdx.y * 32 + threadIdx.x;
    int m0, n0;
    wg_block_origin(WG_BM, WG_BN, WG_GROUP, m0, n0, WG_PAIR);
#ifdef WG_HAVE_WGMMA
    (void)Np4;
    __shared__ __align__(8) unsigned long long bars[2 * WG_STAGES];
    const unsigned full = static_cast<unsigned>(__cvta_generic_to_shared(bars));
    const unsigned empty = full + 8 * WG_STAGES;
    const unsigned raw = static_cast<unsigned>(__cvta_generic_to_shared(duet_dynamic_smem));
    const unsigned base = (raw + 1023u) & ~1023u;
    const int wg = tid >> 7;
    const int tiles = (Kp + WG_BK - 1) / WG_BK;
    wg_bars_init(full, empty, WG_STAGES, tid, 8 * WG_PAIR);
    wg_cluster_sync();
    const unsigned rank = wg_cluster_rank();
    if (wg == 0) { // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (tid < 32) // warp 0, thread 0 issuing
            wg_produce(tiles, WG_STAGES, base, WG_STAGE_BYTES, full, empty,
                       [&](int u, unsigned sa, unsigned bar) {
                           // A's tile u from block u % 2, into both blocks of the pair
                           if (u % WG_PAIR == static_cast<int>(rank))
                               wg_tile_multicast(sa, &map_a, u * WG_BK, m0, bar,
                                                 (1u << WG_PAIR) - 1);
#pragma unroll
                           for (int j = 0; j < WG_BN / 32; ++j)
                               wg_tile_copy(sa + WG_A_BYTES + j * 4096, &map_b, n0 + 32 * j,
                                            u * WG_BK, bar);
                       },
                       tid == 0);
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        wg_consume(base, full, empty, tiles, wg - 1, tid, C, M, N, m0, n0);
    }
    wg_cluster_sync(); // no block exits while its peer may still arrive on its barriers
#else
    wg_fallback(A, B, nullptr, C, M, N, K, m0, n0, WG_BM, WG_BN, tid, WG_THREADS, 1, Np4);
#endif
}
