// Matrix multiply C = A * B, float32, row-major: A is M x K, B is K x N, C is M x N.
// The optimisation ladder, one kernel per step; kernels_cu/matmul.cu has the same kernels, with
// the same names and arguments, step for step. Every kernel takes (A, B, C, M, N, K), works for
// any M, N, K >= 1, and is launched over a 2-D range: dimension 0 walks the columns of C (so
// neighbouring work-items touch neighbouring addresses), dimension 1 walks the rows.
//
// Rules every kernel keeps (they run on CPUs and under Oclgrind as well as on GPUs):
//  - a work-item outside C still takes part in loading tiles and reaches every barrier; the
//    bounds are checked at each load (zeros outside) and at the store, never by returning early;
//  - no kernel assumes a warp, a sub-group width or lockstep execution;
//  - tunables are macros with defaults, so a build may override them (-DBEST_BK=16); the host
//    reads the same names to size the launch.
// The CUDA file marks the small constant-trip loops `#pragma unroll`; OpenCL C 1.2 has no such
// pragma, and the GPU compilers unroll these loops on their own (on PoCL the hint made the
// best kernel several times slower). `best` asks for it only where the compiler offers
// cl_nv_pragma_unroll (NVIDIA's).

// ---- 1. naive ---------------------------------------------------------------------------------
// One output per work-item, straight from global memory: every work-item reads a row of A and a
// column of B, so each element of A and B is read N or M times. The host honours --local, which
// shows coalescing (128x1: neighbours read neighbouring B elements; 1x128: neighbours read A
// elements K floats apart) and occupancy (8x8, 16x16, 32x32). No barrier, so an early exit is fine.
__kernel void matmul_naive(__global const float* A, __global const float* B, __global float* C,
                           const int M, const int N, const int K) {
    const int col = (int)get_global_id(0);
    const int row = (int)get_global_id(1);
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = acc;
    }
}

// ---- 2. tiled16, tiled32 ----------------------------------------------------------------------
// A TS x TS work-group computes a TS x TS block of C. It walks K one TS-wide tile at a time: each
// work-item loads one element of A's tile and one of B's into local memory (a zero where the tile
// hangs over the edge of the matrix, so the sums need no special case), the group waits at a
// barrier, then every work-item reads TS values of each tile from local memory. Each global
// element is now read M/TS or N/TS times instead of M or N times.
// The body is shared by the two sizes; each kernel declares its own local arrays.
// On a device whose work-groups are smaller than TS x TS (apps/ladder_shapes.cpp picks the shape),
// the group is TS x TS/RPI work-items and each computes RPI rows of the tile, TS/RPI rows apart,
// loading RPI elements of each tile; RPI = 1 is the textbook kernel. The tile and RPI are macros
// (T16_TS/T16_RPI, T32_TS/T32_RPI), 16/32 and 1 unless the host shrinks them.
#ifndef T16_TS
#define T16_TS 16
#endif
#ifndef T16_RPI
#define T16_RPI 1
#endif
#ifndef T32_TS
#define T32_TS 32
#endif
#ifndef T32_RPI
#define T32_RPI 1
#endif
#if T16_TS % T16_RPI != 0 || T32_TS % T32_RPI != 0
#error "tiled: RPI must divide TS"
#endif
void matmul_tiled_body(__global const float* A, __global const float* B, __global float* C,
                       const int M, const int N, const int K, __local float* As, __local float* Bs,
                       const int TS, const int RPI, float* acc) {
    const int NY = TS / RPI; // work-items along dimension 1
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int col = (int)get_group_id(0) * TS + tx;
    const int row0 = (int)get_group_id(1) * TS + ty; // rows row0, row0 + NY, ...
    for (int i = 0; i < RPI; ++i)
        acc[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        const int ka = k0 + tx; // column of A this work-item loads
        for (int i = 0; i < RPI; ++i) {
            const int r = ty + i * NY;   // row of the tiles
            const int row = row0 + i * NY; // row of A loaded
            const int kb = k0 + r;         // row of B loaded
            As[r * TS + tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
            Bs[r * TS + tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k) {
            const float b = Bs[k * TS + tx];
            for (int i = 0; i < RPI; ++i)
                acc[i] += As[(ty + i * NY) * TS + k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE); // the tiles are overwritten next round
    }
    for (int i = 0; i < RPI; ++i)
        if (row0 + i * NY < M && col < N)
            C[(row0 + i * NY) * N + col] = acc[i];
}

__kernel void matmul_tiled16(__global const float* A, __global const float* B, __global float* C,
                             const int M, const int N, const int K) {
    __local float As[T16_TS * T16_TS];
    __local float Bs[T16_TS * T16_TS];
    float acc[T16_RPI];
    matmul_tiled_body(A, B, C, M, N, K, As, Bs, T16_TS, T16_RPI, acc);
}

__kernel void matmul_tiled32(__global const float* A, __global const float* B, __global float* C,
                             const int M, const int N, const int K) {
    __local float As[T32_TS * T32_TS];
    __local float Bs[T32_TS * T32_TS];
    float acc[T32_RPI];
    matmul_tiled_body(A, B, C, M, N, K, As, Bs, T32_TS, T32_RPI, acc);
}

// ---- 3. wpt2: two outputs per work-item -------------------------------------------------------
// A WPT2_TS x WPT2_TS block of C is computed by WPT2_TS x WPT2_TS/2 work-items, each owning two
// outputs WPT2_TS/2 rows apart. The value read from B's tile is used twice, so there are fewer
// local-memory reads per multiply-add, and half as many work-items share the same loads.
#ifndef WPT2_TS
#define WPT2_TS 32
#endif
#define WPT2_HALF (WPT2_TS / 2)
#if WPT2_TS % 2 != 0
#error "WPT2_TS must be even"
#endif

__kernel void matmul_wpt2(__global const float* A, __global const float* B, __global float* C,
                          const int M, const int N, const int K) {
    __local float As[WPT2_TS][WPT2_TS];
    __local float Bs[WPT2_TS][WPT2_TS];
    const int tx = (int)get_local_id(0); // 0 .. WPT2_TS-1
    const int ty = (int)get_local_id(1); // 0 .. WPT2_HALF-1
    const int col = (int)get_group_id(0) * WPT2_TS + tx;
    const int row0 = (int)get_group_id(1) * WPT2_TS + ty;
    const int row1 = row0 + WPT2_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += WPT2_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + WPT2_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + WPT2_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bs[ty][tx] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bs[ty + WPT2_HALF][tx] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < WPT2_TS; ++k) {
            const float b = Bs[k][tx];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + WPT2_HALF][k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (col < N) {
        if (row0 < M)
            C[row0 * N + col] = acc0;
        if (row1 < M)
            C[row1 * N + col] = acc1;
    }
}

// ---- 4. btrans: B's tile stored transposed, padded ---------------------------------------------
// As wpt2, but B's tile is stored transposed, Bt[column][k], so the inner loop walks both tiles
// along k with the same constant stride (the compiler folds the k offsets into the instructions
// instead of adding a row stride per step). Transposed, the work-items of a group would write
// (and read) a column of Bt whose elements lie WPT2_TS floats apart, all in the same local-memory
// bank; one float of padding per row (WPT2_TS + 1) spreads them over every bank.
#ifndef BT_TS
#define BT_TS 32
#endif
#define BT_HALF (BT_TS / 2)
#if BT_TS % 2 != 0
#error "BT_TS must be even"
#endif

__kernel void matmul_btrans(__global const float* A, __global const float* B, __global float* C,
                            const int M, const int N, const int K) {
    __local float As[BT_TS][BT_TS];
    __local float Bt[BT_TS][BT_TS + 1]; // Bt[n][k]: transposed, +1 against bank conflicts
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int col = (int)get_group_id(0) * BT_TS + tx;
    const int row0 = (int)get_group_id(1) * BT_TS + ty;
    const int row1 = row0 + BT_HALF;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int k0 = 0; k0 < K; k0 += BT_TS) {
        const int ka = k0 + tx;
        const int kb0 = k0 + ty, kb1 = kb0 + BT_HALF;
        As[ty][tx] = (row0 < M && ka < K) ? A[row0 * K + ka] : 0.0f;
        As[ty + BT_HALF][tx] = (row1 < M && ka < K) ? A[row1 * K + ka] : 0.0f;
        Bt[tx][ty] = (kb0 < K && col < N) ? B[kb0 * N + col] : 0.0f;
        Bt[tx][ty + BT_HALF] = (kb1 < K && col < N) ? B[kb1 * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < BT_TS; ++k) {
            const float b = Bt[tx][k];
            acc0 += As[ty][k] * b;
            acc1 += As[ty + BT_HALF][k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (col < N) {
        if (row0 < M)
            C[row0 * N + col] = acc0;
        if (row1 < M)
            C[row1 * N + col] = acc1;
    }
}

// ---- shared by the register-blocked kernels ---------------------------------------------------
// Four consecutive elements p[row][col .. col+3] of a rows x cols row-major matrix, zeros outside.
// With `vec` (cols a multiple of 4, so every row starts 16-byte aligned, and col a multiple of 4)
// the four are one aligned 16-byte load, all inside the row or all outside it; otherwise each
// element is loaded and bounds-checked on its own.
float4 matmul_load4(__global const float* p, const int row, const int col, const int rows,
                    const int cols, const int vec) {
    float4 v = (float4)(0.0f);
    if (row < rows) {
        const int i = row * cols + col;
        if (vec) {
            if (col < cols)
                v = *(__global const float4*)(p + i);
        } else {
            if (col < cols)
                v.x = p[i];
            if (col + 1 < cols)
                v.y = p[i + 1];
            if (col + 2 < cols)
                v.z = p[i + 2];
            if (col + 3 < cols)
                v.w = p[i + 3];
        }
    }
    return v;
}

// Stores four consecutive elements p[row][col .. col+3], dropping those outside the matrix; one
// aligned 16-byte store under the same condition as matmul_load4.
void matmul_store4(__global float* p, const int row, const int col, const int rows, const int cols,
                   const int vec, const float4 v) {
    if (row < rows) {
        const int i = row * cols + col;
        if (vec) {
            if (col < cols)
                *(__global float4*)(p + i) = v;
        } else {
            if (col < cols)
                p[i] = v.x;
            if (col + 1 < cols)
                p[i + 1] = v.y;
            if (col + 2 < cols)
                p[i + 2] = v.z;
            if (col + 3 < cols)
                p[i + 3] = v.w;
        }
    }
}

// ---- 5. reg4x4, reg8x8: register blocking -----------------------------------------------------
// A work-group of (BN/TN) x (BM/TM) work-items computes a BM x BN block of C; each work-item
// keeps a TM x TN block of C in registers. Per step k of a tile it reads TM values of A and TN of
// B from local memory and does TM*TN multiply-adds with them: the multiply-adds per local-memory
// read grow with the register block (1x1: 1/2, 4x4: 2, 8x8: 4).
// A's tile is stored transposed, As[k][m], so the TM values a work-item needs at step k are
// neighbours, as are B's. The tiles are loaded 4 floats at a time (matmul_load4): one 16-byte
// load where K (for A) or N (for B) is a multiple of 4, bounds-checked scalars otherwise.
// Each work-item owns TM consecutive rows and TN consecutive columns of the block.
// (The remainders are written q - r * d rather than q % d: with both q / d and q % d, LLVM emits
// a `freeze` instruction that Oclgrind's uninitialised-value checker cannot run.)
#ifndef R4_BM
#define R4_BM 64
#endif
#ifndef R4_BN
#define R4_BN 64
#endif
#ifndef R4_BK
#define R4_BK 16
#endif
#define R4_TM 4
#define R4_TN 4
#define R4_TX (R4_BN / R4_TN) // work-items along dimension 0
#define R4_TY (R4_BM / R4_TM) // work-items along dimension 1
#define R4_NT (R4_TX * R4_TY)
#if R4_BM % R4_TM != 0 || R4_BN % R4_TN != 0 || R4_BK % 4 != 0 || R4_BN % 4 != 0 ||                \
    (R4_BM * R4_BK) % (4 * R4_NT) != 0 || (R4_BK * R4_BN) % (4 * R4_NT) != 0
#error "reg4x4: TM | BM, TN | BN, 4 | BK, each tile whole float4 loads per work-item"
#endif

#ifndef DUET_MATMUL_NO_REG // left out where the compiler cannot build them (apps/matmul.cpp)
__kernel __attribute__((reqd_work_group_size(R4_TX, R4_TY, 1))) void
matmul_reg4x4(__global const float* A, __global const float* B, __global float* C, const int M,
              const int N, const int K) {
    __local float As[R4_BK][R4_BM]; // transposed: As[k][m]
    __local float Bs[R4_BK][R4_BN];
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * R4_TX + tx;
    const int m0 = (int)get_group_id(1) * R4_BM;
    const int n0 = (int)get_group_id(0) * R4_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    float acc[R4_TM][R4_TN];
    for (int i = 0; i < R4_TM; ++i)
        for (int j = 0; j < R4_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R4_BK) {
        for (int l = 0; l < R4_BM * R4_BK / (4 * R4_NT); ++l) { // A: BM rows of BK/4 float4s
            const int q = tid + l * R4_NT;
            const int r = q / (R4_BK / 4), c = (q - r * (R4_BK / 4)) * 4;
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
        for (int l = 0; l < R4_BK * R4_BN / (4 * R4_NT); ++l) { // B: BK rows of BN/4 float4s
            const int q = tid + l * R4_NT;
            const int r = q / (R4_BN / 4), c = (q - r * (R4_BN / 4)) * 4;
            const float4 v = matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
            Bs[r][c + 0] = v.x;
            Bs[r][c + 1] = v.y;
            Bs[r][c + 2] = v.z;
            Bs[r][c + 3] = v.w;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < R4_BK; ++k) {
            float a[R4_TM], b[R4_TN];
            for (int i = 0; i < R4_TM; ++i)
                a[i] = As[k][ty * R4_TM + i];
            for (int j = 0; j < R4_TN; ++j)
                b[j] = Bs[k][tx * R4_TN + j];
            for (int i = 0; i < R4_TM; ++i)
                for (int j = 0; j < R4_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < R4_TM; ++i) {
        const int row = m0 + ty * R4_TM + i;
        for (int j = 0; j < R4_TN; ++j) {
            const int col = n0 + tx * R4_TN + j;
            if (row < M && col < N)
                C[row * N + col] = acc[i][j];
        }
    }
}
#endif

// reg8x8: the same kernel with an 8x8 register block, a 128x128 block of C per 256 work-items
// and a thinner K tile (8), so the two tiles still fit comfortably in local memory.
#ifndef R8_BM
#define R8_BM 128
#endif
#ifndef R8_BN
#define R8_BN 128
#endif
#ifndef R8_BK
#define R8_BK 8
#endif
#define R8_TM 8
#define R8_TN 8
#define R8_TX (R8_BN / R8_TN)
#define R8_TY (R8_BM / R8_TM)
#define R8_NT (R8_TX * R8_TY)
#if R8_BM % R8_TM != 0 || R8_BN % R8_TN != 0 || R8_BK % 4 != 0 || R8_BN % 4 != 0 ||                \
    (R8_BM * R8_BK) % (4 * R8_NT) != 0 || (R8_BK * R8_BN) % (4 * R8_NT) != 0
#error "reg8x8: TM | BM, TN | BN, 4 | BK, each tile whole float4 loads per work-item"
#endif

#ifndef DUET_MATMUL_NO_REG
__kernel __attribute__((reqd_work_group_size(R8_TX, R8_TY, 1))) void
matmul_reg8x8(__global const float* A, __global const float* B, __global float* C, const int M,
              const int N, const int K) {
    __local float As[R8_BK][R8_BM]; // transposed: As[k][m]
    __local float Bs[R8_BK][R8_BN];
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * R8_TX + tx;
    const int m0 = (int)get_group_id(1) * R8_BM;
    const int n0 = (int)get_group_id(0) * R8_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    float acc[R8_TM][R8_TN];
    for (int i = 0; i < R8_TM; ++i)
        for (int j = 0; j < R8_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R8_BK) {
        for (int l = 0; l < R8_BM * R8_BK / (4 * R8_NT); ++l) {
            const int q = tid + l * R8_NT;
            const int r = q / (R8_BK / 4), c = (q - r * (R8_BK / 4)) * 4;
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
        for (int l = 0; l < R8_BK * R8_BN / (4 * R8_NT); ++l) {
            const int q = tid + l * R8_NT;
            const int r = q / (R8_BN / 4), c = (q - r * (R8_BN / 4)) * 4;
            const float4 v = matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
            Bs[r][c + 0] = v.x;
            Bs[r][c + 1] = v.y;
            Bs[r][c + 2] = v.z;
            Bs[r][c + 3] = v.w;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < R8_BK; ++k) {
            float a[R8_TM], b[R8_TN];
            for (int i = 0; i < R8_TM; ++i)
                a[i] = As[k][ty * R8_TM + i];
            for (int j = 0; j < R8_TN; ++j)
                b[j] = Bs[k][tx * R8_TN + j];
            for (int i = 0; i < R8_TM; ++i)
                for (int j = 0; j < R8_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < R8_TM; ++i) {
        const int row = m0 + ty * R8_TM + i;
        for (int j = 0; j < R8_TN; ++j) {
            const int col = n0 + tx * R8_TN + j;
            if (row < M && col < N)
                C[row * N + col] = acc[i][j];
        }
    }
}
#endif

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
//  - A's transposed tile is padded by 4 floats per row, so the scattered stores of its columns
//    fall into different banks while every row stays 16-byte aligned.
//  - a group wholly inside C, with 16-byte aligned rows, loads its tiles without bounds checks
//    (all but the last tile of K when BK does not divide it).
// On the H100 the wider block and the unchecked loads took NVIDIA's OpenCL from 36 to 46 TFLOP/s
// at 4096 (docs/PERFORMANCE.md); on PoCL the wider block is twice as fast as 128x128.
// Tunables (a tuner may override them): BEST_BM x BEST_BN block of C, BEST_BK deep tiles,
// BEST_TM x BEST_TN outputs per work-item (multiples of 4).
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

// Issues the global loads of the tile at k0 into registers (`inside`: no bounds checks needed).
void matmul_best_load(__global const float* A, __global const float* B, const int M, const int N,
                      const int K, const int m0, const int n0, const int k0, const int tid,
                      const int a_vec, const int b_vec, const int inside, float4* pa,
                      float4* pb) {
    for (int l = 0; l < BEST_LA; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BK / 4), c = (q - r * (BEST_BK / 4)) * 4;
        pa[l] = BEST_FAST && inside ? *(__global const float4*)(A + (m0 + r) * K + k0 + c)
                                    : matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
    }
    for (int l = 0; l < BEST_LB; ++l) {
        const int q = tid + l * BEST_NT;
        const int r = q / (BEST_BN / 4), c = (q - r * (BEST_BN / 4)) * 4;
        pb[l] = BEST_FAST && inside ? *(__global const float4*)(B + (k0 + r) * N + n0 + c)
                                    : matmul_load4(B, k0 + r, n0 + c, K, N, b_vec);
    }
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

__kernel __attribute__((reqd_work_group_size(BEST_TX, BEST_TY, 1))) void
matmul_best(__global const float* restrict A, __global const float* restrict B,
            __global float* restrict C, const int M, const int N, const int K) {
    __local float As[2][BEST_BK][BEST_BM + BEST_PAD] __attribute__((aligned(16)));
    __local float Bs[2][BEST_BK][BEST_BN] __attribute__((aligned(16)));
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * BEST_TX + tx;
    const int m0 = (int)get_group_id(1) * BEST_BM;
    const int n0 = (int)get_group_id(0) * BEST_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    // In a group inside C with 16-byte aligned rows, every load is inside A and B and aligned,
    // except in the last tile of K when BK does not divide it: those tiles load without checks.
    const int inside = a_vec && b_vec && m0 + BEST_BM <= M && n0 + BEST_BN <= N;
    const int full_tiles = K / BEST_BK;
#if BEST_SPLIT
    // Split K: group z (dimension 2) takes its share of the K tiles and writes its partial
    // product to the z-th M x N slice of C; matmul_split_sum adds them. (A build of its own, as
    // in the CUDA file, where the offsets cost the unsplit kernel 6%.)
    const int all_tiles = (K + BEST_BK - 1) / BEST_BK;
    const int share = (all_tiles + (int)get_num_groups(2) - 1) / (int)get_num_groups(2);
    const int t0 = (int)get_group_id(2) * share;
    const int tiles = max(0, min(all_tiles, t0 + share) - t0);
    C += (size_t)get_group_id(2) * (size_t)M * (size_t)N;
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
    for (int t = 0; t < tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < tiles) // the same for the whole group: no divergence around the barrier
            matmul_best_load(A, B, M, N, K, m0, n0, (t0 + t + 1) * BEST_BK, tid, a_vec, b_vec,
                             inside && t0 + t + 1 < full_tiles, pa, pb);
        BEST_UNROLLED
        for (int k = 0; k < BEST_BK; ++k) {
            float a[BEST_TM], b[BEST_TN];
            BEST_UNROLLED
            for (int g = 0; g < BEST_TM / 4; ++g) {
                const float4 v = *(__local const float4*)&As[cur][k][g * 4 * BEST_TY + ty * 4];
                a[g * 4 + 0] = v.x;
                a[g * 4 + 1] = v.y;
                a[g * 4 + 2] = v.z;
                a[g * 4 + 3] = v.w;
            }
            BEST_UNROLLED
            for (int g = 0; g < BEST_TN / 4; ++g) {
                const float4 v = *(__local const float4*)&Bs[cur][k][g * 4 * BEST_TX + tx * 4];
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
        if (t + 1 < tiles)
            matmul_best_store(As[cur ^ 1], Bs[cur ^ 1], tid, pa, pb);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int i = 0; i < BEST_TM; ++i) {
        const int row = m0 + (i / 4) * 4 * BEST_TY + ty * 4 + i % 4;
        for (int g = 0; g < BEST_TN / 4; ++g) {
            const int col = n0 + g * 4 * BEST_TX + tx * 4;
            const float4 v = (float4)(acc[i][g * 4 + 0], acc[i][g * 4 + 1], acc[i][g * 4 + 2],
                                      acc[i][g * 4 + 3]);
            matmul_store4(C, row, col, M, N, b_vec, v);
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
