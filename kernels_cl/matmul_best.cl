// Matrix multiply, step 6 of the ladder: best, and matmul_split_sum (its split-K sum).
// kernels_cl/matmul.clh says what every step keeps; kernels_cu/matmul_best.cu is the CUDA twin.
#include "matmul.clh"

// ---- 6. best: double-buffered tiles, 8x16 register blocks, 16-byte local reads -----------------
// The reg8x8 scheme with a wider block (128x256 of C per group of 16x16 work-items, 8x16 outputs
// each: every value loaded into local memory serves 8 or 16 multiply-adds of a work-item) and
// these changes, for big GPUs:
//  - double buffering: two copies of each tile. While the group computes on one, each work-item
//    has already issued the global loads of the next tile into registers, so memory latency
//    overlaps the arithmetic; the registers go to the other copy after the compute, and one
//    barrier per tile suffices (a copy is rewritten only after the barrier that ends its use).
//  - the register block is split into 4x4 pieces spread over the block of C: work-item (tx, ty)
//    owns rows g*4*BEST_TY + ty*4 + 0..3 for g < TM/4, and likewise columns. Neighbouring
//    work-items then read neighbouring 16-byte vectors from local memory (no bank conflicts, one
//    vector instruction per 4 values), and write neighbouring vectors of C.
//  - warp tiles (BEST_WTX = W, where the host or the user defines it): the pieces spread over
//    the tile of C of one warp instead, (TM*32/W) x (TN*W), its 32 work-items W along N. A warp
//    then reads TM*32/W values of A and TN*W of B per k (128 for 8x16 and W = 4, not 272), so
//    fewer local-memory wavefronts per multiply-add. NVIDIA's OpenCL on the H100 runs it with
//    16-deep tiles, 0-3% faster by machine (docs/PERFORMANCE-SGEMM.md); elsewhere unmeasured, off.
//  - A's transposed tile is padded by 4 floats per row, so the scattered stores of its columns
//    fall into different banks while every row stays 16-byte aligned.
//  - a group wholly inside C, with 16-byte aligned rows, loads its tiles without bounds checks
//    (all but the last tile of K when BK does not divide it). Where rows are not aligned the
//    host builds with BEST_UNALIGNED (1: A's, 2: B's, 3: both): such groups still load without
//    checks, those rows float by float.
//    Those tiles run in a loop of their own (BEST_HOT), with no branch at the top of each tile.
// On the H100 the wider block and the unchecked loads took NVIDIA's OpenCL from 36 to 46 TFLOP/s
// at 4096 (docs/PERFORMANCE.md); on PoCL the wider block is twice as fast as 128x128.
// Tunables (a tuner may override them): BEST_BM x BEST_BN block of C, BEST_BK deep tiles,
// BEST_TM x BEST_TN outputs per work-item (multiples of 4), BEST_WTX (0, 1, 2, 4, 8, 16, 32).
#ifndef BEST_BM
#define BEST_BM 128
#endif
#ifndef BEST_BN
#define BEST_BN 256
#endif
#ifndef BEST_BK
#define BEST_BK 8
#endif
#ifndef BEST_TM
#define BEST_TM 8
#endif
#ifndef BEST_TN
#define BEST_TN 16
#endif
#ifndef BEST_SPLIT // 1: K split over the launch's third dimension (set by the host when it splits)
#define BEST_SPLIT 0
#endif
#ifndef BEST_FAST // work-groups wholly inside aligned matrices load without bounds checks
#define BEST_FAST 1
#endif
#ifndef BEST_HOT // 1: groups inside C run their whole tiles in a loop of their own
#define BEST_HOT 1
#endif
#ifndef BEST_UNALIGNED // set by the host: 1 where A's rows are not 16-byte aligned (K % 4 != 0),
#define BEST_UNALIGNED 0 // 2 where B's are not (N % 4 != 0), 3 both: unchecked loads by float
#endif
#ifndef BEST_CLAMP // 1 (set by the host): groups at C's edges load clamped rows and columns
#define BEST_CLAMP 0
#endif
#if BEST_CLAMP && !(BEST_UNALIGNED & 2) // row m of A, and 4 columns from n of B, clamped into them
#define BEST_CLAMPED 1
#define BEST_ROW(m, M) min(m, (M) - 1)
#define BEST_C4(n, N) min(n, (N) - 4)
#else
#define BEST_CLAMPED 0
#define BEST_ROW(m, M) (m)
#define BEST_C4(n, N) (n)
#endif
// Four floats of A from p, all inside it (BEST_LDA), and whether A's rows allow the unchecked
// loads (BEST_A_READY: by float any rows do, by 16 bytes aligned ones); likewise for B.
#if BEST_UNALIGNED & 1
#define BEST_LDA(p) vload4(0, p)
#define BEST_A_READY(a_vec) 1
#else
#define BEST_LDA(p) (*(__global const float4*)(p))
#define BEST_A_READY(a_vec) (a_vec)
#endif
#if BEST_UNALIGNED & 2
#define BEST_B_READY(b_vec) 1
#else
#define BEST_B_READY(b_vec) (b_vec)
#endif
// Four floats of `row` (n floats) from column c on, unchecked: by 16 bytes where B's rows are
// aligned (with BEST_CLAMP, four past the row's end are its last four), else by vload4.
float4 matmul_best_ldb(__global const float* row, const int c, const int n) {
    (void)n; // (BEST_C4 ignores it without BEST_CLAMP)
#if BEST_UNALIGNED & 2
    return vload4(0, row + c);
#else
    return *(__global const float4*)(row + BEST_C4(c, n));
#endif
}
#ifndef BEST_UNROLL // NVIDIA's compiler: unroll the register-block loops as the CUDA file does
#define BEST_UNROLL 1
#endif
#if BEST_UNROLL && defined(cl_nv_pragma_unroll)
#define BEST_UNROLLED _Pragma("unroll")
#else
#define BEST_UNROLLED
#endif
#define BEST_TX (BEST_BN / BEST_TN) // work-items along dimension 0
#define BEST_TY (BEST_BM / BEST_TM) // work-items along dimension 1
#define BEST_NT (BEST_TX * BEST_TY)
#ifndef BEST_WTX // warp tiles, W work-items of a warp along N (0: pieces spread over the group)
#define BEST_WTX 0
#endif
#if BEST_WTX && 32 % BEST_WTX != 0
#error "best: BEST_WTX divides 32"
#endif
// The warp's tile of C, and whether the group holds whole ones (else the group-wide layout).
#define BEST_WM (BEST_TM * (32 / (BEST_WTX ? BEST_WTX : 1)))
#define BEST_WN (BEST_TN * BEST_WTX)
#define BEST_WARPS (BEST_WTX && BEST_BM % BEST_WM == 0 && BEST_BN % BEST_WN == 0)
#if BEST_WARPS
#define BEST_RSTEP (4 * (32 / BEST_WTX))
#define BEST_CSTEP (4 * BEST_WTX)
#else
#define BEST_RSTEP (4 * BEST_TY)
#define BEST_CSTEP (4 * BEST_TX)
#endif
#ifndef BEST_PAD // floats of padding per row of A's transposed tile, where 48 KiB leave room
#define BEST_PAD (8 * BEST_BK * (BEST_BM + 4 + BEST_BN) <= 49152 ? 4 : 0)
#endif
#define BEST_LA (BEST_BM * BEST_BK / (4 * BEST_NT)) // float4 loads of A per work-item per tile
#define BEST_LB (BEST_BK * BEST_BN / (4 * BEST_NT)) // float4 loads of B per work-item per tile
#if BEST_TM % 4 != 0 || BEST_TN % 4 != 0 || BEST_BM % BEST_TM != 0 || BEST_BN % BEST_TN != 0 ||    \
    BEST_BK % 4 != 0 || BEST_PAD % 4 != 0 || BEST_LA < 1 || BEST_LB < 1 ||                         \
    BEST_LA * 4 * BEST_NT != BEST_BM * BEST_BK || BEST_LB * 4 * BEST_NT != BEST_BK * BEST_BN
#error "best: 4 | TM, TN, BK, PAD; TM | BM; TN | BN; each tile whole float4 loads per work-item"
#endif

// NVIDIA's OpenCL compiler (its NVVM 7) moved one of the hot loop's six 16-byte loads of the next
// tiles below the tile's 2048 multiply-adds, next to its store into local memory, so that load's
// latency showed once per tile: the same PTX otherwise, run through CUDA, gave 46.9 TFLOP/s
// against NVRTC's 49.1 (docs/PERFORMANCE-SGEMM.md). An empty asm statement that takes the loaded
// values keeps every load above the arithmetic; it emits no instruction. Other compilers: none
// (-DDUET_NO_NV_KEEP leaves it out on NVIDIA's too, to measure it).
#if defined(cl_nv_pragma_unroll) && !defined(DUET_NO_NV_KEEP)
void matmul_best_keep(float4* v) {
    float x = v->x, y = v->y, z = v->z, w = v->w;
    __asm__ __volatile__("" : "+f"(x), "+f"(y), "+f"(z), "+f"(w));
    *v = (float4)(x, y, z, w);
}
#define BEST_KEEP(v) matmul_best_keep(&(v))
#else
#define BEST_KEEP(v)
#endif

// Issues the global loads of the tile at k0 into registers (`inside`: no bounds checks needed).
void matmul_best_load(__global const float* A, __global const float* B, const int M, const int N,
                      const int K, const int m0, const int n0, const int k0, const int tid,
                      const int a_vec, const int b_vec, const int inside, float4* pa,
                      float4* pb) {
    for (int l = 0; l < BEST_LA; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BK / 4), c = (q - r * (BEST_BK / 4)) * 4;
        pa[l] = BEST_FAST && inside ? BEST_LDA(A + BEST_ROW(m0 + r, M) * K + k0 + c)
                                    : matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
    }
    for (int l = 0; l < BEST_LB; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BN / 4), c = (q - r * (BEST_BN / 4)) * 4;
        pb[l] = BEST_FAST && inside ? matmul_best_ldb(B + (k0 + r) * N, n0 + c, N)
                                    : matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
    }
    for (int l = 0; l < BEST_LA; ++l)
        BEST_KEEP(pa[l]);
    for (int l = 0; l < BEST_LB; ++l)
        BEST_KEEP(pb[l]);
}


// Stores the registers of matmul_best_load into one copy of the tiles (A transposed).
void matmul_best_store(__local float (*As)[BEST_BM + BEST_PAD], __local float (*Bs)[BEST_BN],
                       const int tid, const float4* pa, const float4* pb) {
    for (int l = 0; l < BEST_LA; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BK / 4), c = (q - r * (BEST_BK / 4)) * 4;
        As[c + 0][r] = pa[l].x;
        As[c + 1][r] = pa[l].y;
        As[c + 2][r] = pa[l].z;
        As[c + 3][r] = pa[l].w;
    }
    for (int l = 0; l < BEST_LB; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BN / 4), c = (q - r * (BEST_BN / 4)) * 4;
        *(__local float4*)&Bs[r][c] = pb[l];
    }
}

// acc += the product of one pair of tiles: per k, TM values of A's column and TN of B's row by
// 16-byte reads, then TM x TN multiply-adds.
void matmul_best_tile(__local const float (*As)[BEST_BM + BEST_PAD], __local const float (*Bs)[BEST_BN],
                      const int rbase, const int cbase, float (*acc)[BEST_TN]) {
    BEST_UNROLLED
    for (int k = 0; k < BEST_BK; ++k) {
        float a[BEST_TM], b[BEST_TN];
        BEST_UNROLLED
        for (int g = 0; g < BEST_TM / 4; ++g) {
            const float4 v = *(__local const float4*)&As[k][g * BEST_RSTEP + rbase];
            a[g * 4 + 0] = v.x;
            a[g * 4 + 1] = v.y;
            a[g * 4 + 2] = v.z;
            a[g * 4 + 3] = v.w;
        }
        BEST_UNROLLED
        for (int g = 0; g < BEST_TN / 4; ++g) {
            const float4 v = *(__local const float4*)&Bs[k][g * BEST_CSTEP + cbase];
            b[g * 4 + 0] = v.x;
            b[g * 4 + 1] = v.y;
            b[g * 4 + 2] = v.z;
            b[g * 4 + 3] = v.w;
        }
        BEST_UNROLLED
        for (int i = 0; i < BEST_TM; ++i)
            BEST_UNROLLED
            for (int j = 0; j < BEST_TN; ++j)
                acc[i][j] += a[i] * b[j];
    }
}

// C = A * B, A M x K, B K x N, C M x Nc with rows of Nc floats, Nc <= N: the host passes N > Nc
// where it copied B to rows of whole 16 bytes (BEST_ALIGN), and C is still written in place.
__kernel __attribute__((reqd_work_group_size(BEST_TX, BEST_TY, 1))) void
matmul_best(__global const float* restrict A, __global const float* restrict B,
            __global float* restrict C, const int M, const int N, const int K, const int Nc) {
    __local float As[2][BEST_BK][BEST_BM + BEST_PAD] __attribute__((aligned(16)));
    __local float Bs[2][BEST_BK][BEST_BN] __attribute__((aligned(16)));
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * BEST_TX + tx;
#if BEST_WARPS
    const int lane = tid & 31, warp = tid >> 5;
    const int rbase = (warp / (BEST_BN / BEST_WN)) * BEST_WM + (lane / BEST_WTX) * 4;
    const int cbase = (warp % (BEST_BN / BEST_WN)) * BEST_WN + (lane % BEST_WTX) * 4;
#else
    const int rbase = ty * 4, cbase = tx * 4;
#endif
    const int m0 = (int)get_group_id(1) * BEST_BM;
    const int n0 = (int)get_group_id(0) * BEST_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    // In a group inside C, every load is inside A and B except in the last tile of K when BK
    // does not divide it: those tiles load without checks, by float4 where rows are aligned.
    // With BEST_CLAMP (B's rows aligned; the host sets it where C has groups at its edges), those
    // count as inside: they load row min(m, M-1) of A for rows m beyond M, and columns from
    // min(n, N-4) of B, real values whose products land in rows and columns of C that the group
    // never stores. So they too run the hot loop: with checked loads they run slower than the
    // others and, coming last, lengthen the run's tail. It is a build of its own: the clamps in
    // the hot loop cost 1.3% on the H100 (CUDA; 2.8% in OpenCL), docs/PERFORMANCE-SGEMM.md.
    const int inside = (BEST_A_READY(a_vec) && BEST_B_READY(b_vec)) &&
                       (BEST_CLAMPED ? N >= 4 : m0 + BEST_BM <= M && n0 + BEST_BN <= N);
    const int full_tiles = K / BEST_BK;
#if BEST_SPLIT
    // Split K: group z (dimension 2) takes its share of the K tiles and writes its partial
    // product to the z-th M x Nc slice of C; matmul_split_sum adds them. (A build of its own, as
    // in the CUDA file, where the offsets cost the unsplit kernel 6%.)
    const int all_tiles = (K + BEST_BK - 1) / BEST_BK;
    const int share = (all_tiles + (int)get_num_groups(2) - 1) / (int)get_num_groups(2);
    const int t0 = (int)get_group_id(2) * share;
    const int tiles = max(0, min(all_tiles, t0 + share) - t0);
    C += (size_t)get_group_id(2) * (size_t)M * (size_t)Nc;
#else
    const int t0 = 0;
    const int tiles = (K + BEST_BK - 1) / BEST_BK;
#endif
    float acc[BEST_TM][BEST_TN];
    for (int i = 0; i < BEST_TM; ++i)
        for (int j = 0; j < BEST_TN; ++j)
            acc[i][j] = 0.0f;
    float4 pa[BEST_LA], pb[BEST_LB];

    matmul_best_load(A, B, M, N, K, m0, n0, t0 * BEST_BK, tid, a_vec, b_vec,
                     inside && t0 < full_tiles, pa, pb);
    matmul_best_store(As[0], Bs[0], tid, pa, pb);
    barrier(CLK_LOCAL_MEM_FENCE);
    int t = 0;
#if BEST_HOT
    // The hot loop: while the next tile is whole and inside A and B (a group inside C, all but
    // the last one or two tiles), loads without checks and no branch but the loop's own.
    if (BEST_FAST && inside)
        for (const int hot = min(tiles, full_tiles - t0) - 1; t < hot; ++t) {
            const int cur = t & 1;
            matmul_best_load(A, B, M, N, K, m0, n0, (t0 + t + 1) * BEST_BK, tid, a_vec, b_vec,
                             1, pa, pb);
            matmul_best_tile(As[cur], Bs[cur], rbase, cbase, acc);
            matmul_best_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
#endif
    for (; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles) // the same for the whole group: no divergence around the barrier
            matmul_best_load(A, B, M, N, K, m0, n0, (t0 + t + 1) * BEST_BK, tid, a_vec, b_vec,
                             inside && t0 + t + 1 < full_tiles, pa, pb);
        matmul_best_tile(As[cur], Bs[cur], rbase, cbase, acc);
        if (t + 1 < tiles)
            matmul_best_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < BEST_TM; ++i) {
        const int row = m0 + (i / 4) * BEST_RSTEP + rbase + i % 4;
        for (int g = 0; g < BEST_TN / 4; ++g) {
            const int col = n0 + g * BEST_CSTEP + cbase;
            const float4 v = (float4)(acc[i][g * 4 + 0], acc[i][g * 4 + 1], acc[i][g * 4 + 2],
                                      acc[i][g * 4 + 3]);
            matmul_store4(C, row, col, M, Nc, (Nc & 3) == 0, v);
        }
    }
}

// The sum of `splits` partial products of split-K `best`: C[i] = P[i] + P[count + i] + ...
__kernel void matmul_split_sum(__global const float* restrict P, __global float* restrict C,
                               const int count, const int splits) {
    const int i = (int)get_global_id(0);
    if (i < count) {
        float s = 0.0f;
        for (int z = 0; z < splits; ++z)
            s += P[(size_t)z * (size_t)count + i];
        C[i] = s;
    }
}
