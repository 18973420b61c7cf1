// Matrix multiply, step 7 of the ladder (tf32), on Hopper (compute capability 9.0, built as
// sm_90a): the tensor cores' warpgroup instruction wgmma, which reads both tiles straight from
// shared memory through 64-bit matrix descriptors, fed by the tile copy engine (TMA), instead of
// mma.sync's register fragments (kernels_cu/matmul_tf32.cu, which every other GPU runs).
// apps/ladders/matmul.cpp launches it on CUDA devices of compute capability 9.0 only.
//
// The operands: for TF32, wgmma takes both A (M x K) and B (K x N) "K-major" only, each row of A
// and each column of B contiguous along K (the transpose bits exist for f16/bf16 alone). A is
// K-major as it lies (row-major); B is not, so matmul_tf32_bt first writes B^T (N x Kp, Kp = K
// rounded up to 4, zeros beyond K), and where K % 4 != 0 matmul_tf32_pad writes A with rows of Kp
// (the copy engine needs rows 16 bytes apart); the host counts those passes in the timed work.
//
// The copies: two tile maps (duet::tile_map, CUDA's CUtensorMap), one over A and one over B^T,
// each a box of 32 floats (128 bytes) by 128 or 256 rows, which the copy engine writes into
// shared memory with the 128-byte swizzle that wgmma's descriptors read, zeros outside the
// matrices (so partial tiles need no code). One thread issues both copies of a stage; an
// mbarrier per stage ("full") counts their bytes in and releases the stage to the consumers.
//
// Numerics: wgmma reads the fp32 bits and uses them as TF32, dropping the 13 low mantissa bits
// (truncation, relative error below 2^-10 per input, twice the rounding of matmul_tf32.cu's
// cvt.rna); the host's bound is derived for truncation (tf32_entry_bound).
//
// The block: 128 x 256 of C, three warpgroups (384 threads, 32 x 12 in the launch). Warpgroup
// 0 is the producer: its first thread waits for a stage to be free ("empty" mbarrier), arms
// "full" with the stage's 48 KiB and starts the two copies. Warpgroups 1 and 2 consume: each
// 64 x 256 of C with one m64n256k8 instruction per 8 of K (128 float accumulators a thread);
// they wait on "full", issue the stage's 4 wgmmas, and once the group before has retired
// (wait_group 1) release that group's stage to "empty". No block-wide barrier in the loop: the
// two consumers and the copies run out of step, which is what keeps the tensor pipe busy
// (docs/design/ladders.md: 93% busy for cuBLAS's kernel of this shape, 73% for a cp.async
// kernel with a barrier per tile). The producer gives up registers (setmaxnreg) to the
// consumers.
//
// Shared memory layout (what the copy engine's 128-byte swizzle writes, K-major): row r of a
// tile (128 bytes: 8 chunks of 16 bytes) keeps chunk c at position c ^ (r % 8); 8 rows form a
// 1024-byte atom, the tiles are 1024-byte aligned. The descriptor: start address >> 4 (bits
// 0-13), leading byte offset (16-29, unused by swizzled K-major layouts: 1), stride byte offset
// 1024 >> 4 between atoms of 8 rows (32-45), base offset 0 (49-51), swizzle mode 1 = 128 bytes
// (62-63). The k-th slice of 8 (32 bytes) starts 32 k bytes further.
#include "matmul_wgmma.cuh"

#define WG_BM 128
#define WG_BN 256
#define WG_BK 32
#define WG_STAGES 4
#ifndef WG_GROUP // row tiles per group of the block order
#define WG_GROUP 16
#endif
#define WG_THREADS 384
#define WG_A_BYTES (WG_BM * WG_BK * 4)
#define WG_B_BYTES (WG_BN * WG_BK * 4)
#define WG_STAGE_BYTES (WG_A_BYTES + WG_B_BYTES)
// What the host passes as the launch's duet::local: the stages plus 1024 bytes to align them.
#define WG_SMEM_BYTES (WG_STAGES * WG_STAGE_BYTES + 1024)

// B^T with rows padded to Kp floats: Bt[n][k] = B[k][n], zero for k >= K. 32 x 32 tiles through
// shared memory (rows padded by one float: no bank conflicts), 32 x 8 threads, 4 rows each.
extern "C" __global__ void matmul_tf32_bt(const float* __restrict__ B, float* __restrict__ Bt,
                                          int K, int N, int Kp) {
    __shared__ float tile[32][33];
    const int n0 = blockIdx.x * 32, k0 = blockIdx.y * 32;
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int i = 0; i < 32; i += 8) {
        const int k = k0 + ty + i, n = n0 + tx;
        tile[ty + i][tx] = k < K && n < N ? B[k * N + n] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < 32; i += 8) {
        const int n = n0 + ty + i, k = k0 + tx;
        if (n < N && k < Kp)
            Bt[n * Kp + k] = tile[tx][ty + i];
    }
}

// A with rows padded to Kp floats (K % 4 != 0 only): Ap[m][k] = A[m][k], zero for k >= K.
extern "C" __global__ void matmul_tf32_pad(const float* __restrict__ A, float* __restrict__ Ap,
                                           int M, int K, int Kp) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < Kp)
        for (int m = blockIdx.y; m < M; m += gridDim.y) // rows beyond the grid's 65535
            Ap[(size_t)m * Kp + k] = k < K ? A[(size_t)m * K + k] : 0.0f;
}

#ifdef WG_HAVE_WGMMA
// d (64 x 256 of C per warpgroup) += A-slice (64 x 8) * B-slice (8 x 256), from shared memory;
// d holds 128 floats a thread.
__device__ __forceinline__ void wg_mma(float* d, unsigned long long da, unsigned long long db) {
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
        "%128, %129, 1, 1, 1;"
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
        : "l"(da), "l"(db));
}

#endif

// C = A * B from tile maps over A (M x Kp; A itself or matmul_tf32_pad's copy) and B^T (N x Kp,
// from matmul_tf32_bt); A and Bt are the same matrices as plain pointers, read only by the
// fallback below. Blocks of 32 x 12 threads; grid x walks the 256-column tiles of C, y the
// 128-row tiles; consecutive blocks are regrouped by WG_GROUP row tiles so that a wave shares
// panels of A and B in L2.
extern "C" __global__ void __launch_bounds__(WG_THREADS, 1)
    matmul_tf32_wgmma(const __grid_constant__ DuetTileMap map_a,
                      const __grid_constant__ DuetTileMap map_b, const float* __restrict__ A,
                      const float* __restrict__ Bt, float* __restrict__ C, int M, int N, int K,
                      int Kp) {
    const int tid = threadIdx.y * 32 + threadIdx.x;
    int m0, n0;
    wg_block_origin(WG_BM, WG_BN, WG_GROUP, m0, n0);
#ifdef WG_HAVE_WGMMA
    __shared__ __align__(8) unsigned long long bars[2 * WG_STAGES];
    const unsigned full = static_cast<unsigned>(__cvta_generic_to_shared(bars));
    const unsigned empty = full + 8 * WG_STAGES;
    const unsigned raw = static_cast<unsigned>(__cvta_generic_to_shared(duet_dynamic_smem));
    const unsigned base = (raw + 1023u) & ~1023u;
    const int wg = tid >> 7;
    const int tiles = (Kp + WG_BK - 1) / WG_BK;
    if (tid == 0) {
        for (int s = 0; s < WG_STAGES; ++s) {
            wg_bar_init(full + 8 * s, 1);   // the producer's arrive, plus the copies' bytes
            wg_bar_init(empty + 8 * s, 256); // every consumer thread
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (wg == 0) { // the producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (tid == 0) {
            for (int u = 0; u < tiles; ++u) {
                const int s = u % WG_STAGES;
                if (u >= WG_STAGES) // the consumers' release of tile u - STAGES
                    wg_bar_wait(empty + 8 * s, ((u / WG_STAGES) - 1) & 1);
                const unsigned sa = base + s * WG_STAGE_BYTES;
                wg_bar_expect(full + 8 * s, WG_STAGE_BYTES);
                wg_tile_copy(sa, &map_a, u * WG_BK, m0, full + 8 * s);
                wg_tile_copy(sa + WG_A_BYTES, &map_b, u * WG_BK, n0, full + 8 * s);
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
    const int cw = wg - 1; // consumer: rows 64 cw .. 64 cw + 63 of the block
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; ++i)
        d[i] = 0.0f;
    for (int u = 0; u < tiles; ++u) {
        const int s = u % WG_STAGES;
        wg_bar_wait(full + 8 * s, (u / WG_STAGES) & 1);
        const unsigned sa = base + s * WG_STAGE_BYTES + cw * (64 * 128);
        const unsigned sb = base + s * WG_STAGE_BYTES + WG_A_BYTES;
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < WG_BK / 8; ++kk)
            wg_mma(d, wg_desc(sa + kk * 32), wg_desc(sb + kk * 32));
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
        if (u >= 1) // group u-1 has retired: its stage may be refilled
            wg_bar_arrive(empty + 8 * ((u - 1) % WG_STAGES));
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");

    wg_store<WG_BN / 8>(d, C, M, N, m0 + cw * 64, n0, tid);
#else
    wg_fallback(A, Bt, nullptr, C, M, N, K, Kp, m0, n0, WG_BM, WG_BN, tid, WG_THREADS);
#endif
}
