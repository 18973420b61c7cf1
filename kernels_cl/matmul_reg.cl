// Matrix multiply, step 5 of the ladder: reg4x4 and reg8x8. kernels_cl/matmul.clh says what
// every step keeps; kernels_cu/matmul_reg.cu is the CUDA twin.
#include "matmul.clh"

// Each kernel builds with its step record's macros (apps/ladders/matmul_steps.cpp): R4_BM, R4_BN
// and R4_BK for reg4x4, R8_* for reg8x8; a build with neither is a mistake.
#if !defined(R4_BM) && !defined(R8_BM)
#error "R4_BM, R4_BN and R4_BK (reg4x4) or R8_BM, R8_BN and R8_BK (reg8x8) are set by the host from the step records (apps/ladders/matmul_steps.cpp)"
#endif

// ---- 5. reg4x4, reg8x8: register blocking -----------------------------------------------------
// A work-group of (BN/TN) x (BM/TM) work-items computes a BM x BN block of C; each work-item
// keeps a TM x TN block of C in registers. Per step k of a tile it reads TM values of A and TN of
// B from local memory and does TM*TN multiply-adds with them: the multiply-adds per local-memory
// read grow with the register block (1x1: 1/2, 4x4: 2, 8x8: 4).
// A's tile is stored transposed, As[k][m], so the TM values a work-item needs at step k are
// neighbours, as are B's. The tiles are loaded 4 floats at a time (matmul_load4): one 16-byte
// load where K (for A) or N (for B) is a multiple of 4, bounds-checked scalars otherwise.
// Each work-item owns TM consecutive rows and TN consecutive columns of the block.
// Its TM values of A (and TN of B) at step k are neighbours starting on a 16-byte boundary, so
// they are read from local memory as float4s: one 16-byte read instead of four. CUDA's compiler
// merges the four scalar reads of the twin on its own; NVIDIA's OpenCL compiler does not, and
// with scalar reads these steps ran 1.5-1.7x slower through OpenCL than through CUDA on the H100
// (docs/design/ladders.md).
// (The remainders are written q - r * d rather than q % d: with both q / d and q % d, LLVM emits
// a `freeze` instruction that Oclgrind's uninitialised-value checker cannot run.)
#ifdef R4_BM // reg4x4's build (the step record's macros)
#ifndef R4_BN
#error "reg4x4: R4_BN is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R4_BM"
#endif
#ifndef R4_BK
#error "reg4x4: R4_BK is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R4_BM"
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

__kernel __attribute__((reqd_work_group_size(R4_TX, R4_TY, 1))) void
matmul_reg4x4(__global const float* A, __global const float* B, __global float* C, const int M,
              const int N, const int K) {
    __local float As[R4_BK][R4_BM] __attribute__((aligned(16))); // transposed: As[k][m]
    __local float Bs[R4_BK][R4_BN] __attribute__((aligned(16)));
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * R4_TX + tx;
    const int m0 = (int)get_group_id(1) * R4_BM;
    const int n0 = (int)get_group_id(0) * R4_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    float acc[R4_TM][R4_TN];
    MATMUL_UNROLL
    for (int i = 0; i < R4_TM; ++i)
        MATMUL_UNROLL
        for (int j = 0; j < R4_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R4_BK) {
        MATMUL_UNROLL
        for (int l = 0; l < R4_BM * R4_BK / (4 * R4_NT); ++l) { // A: BM rows of BK/4 float4s
            const int q = tid + l * R4_NT;
            const int r = q / (R4_BK / 4), c = (q - r * (R4_BK / 4)) * 4;
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
        MATMUL_UNROLL
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
        MATMUL_UNROLL
        for (int k = 0; k < R4_BK; ++k) {
            float a[R4_TM], b[R4_TN];
            MATMUL_UNROLL
            for (int i = 0; i < R4_TM; i += 4) { // 16-byte local reads (see above)
                const float4 q = *(__local const float4*)&As[k][ty * R4_TM + i];
                a[i] = q.x;
                a[i + 1] = q.y;
                a[i + 2] = q.z;
                a[i + 3] = q.w;
            }
            MATMUL_UNROLL
            for (int j = 0; j < R4_TN; j += 4) {
                const float4 q = *(__local const float4*)&Bs[k][tx * R4_TN + j];
                b[j] = q.x;
                b[j + 1] = q.y;
                b[j + 2] = q.z;
                b[j + 3] = q.w;
            }
            MATMUL_UNROLL
            for (int i = 0; i < R4_TM; ++i)
                MATMUL_UNROLL
                for (int j = 0; j < R4_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    MATMUL_UNROLL
    for (int i = 0; i < R4_TM; ++i) {
        const int row = m0 + ty * R4_TM + i;
        MATMUL_UNROLL
        for (int j = 0; j < R4_TN; ++j) {
            const int col = n0 + tx * R4_TN + j;
            if (row < M && col < N)
                C[row * N + col] = acc[i][j];
        }
    }
}
#endif // R4_BM

// reg8x8: the same kernel with an 8x8 register block, a 128x128 block of C per 256 work-items
// and a thinner K tile (8), so the two tiles still fit comfortably in local memory.
#ifdef R8_BM // reg8x8's build (the step record's macros)
#ifndef R8_BN
#error "reg8x8: R8_BN is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R8_BM"
#endif
#ifndef R8_BK
#error "reg8x8: R8_BK is set by the host from the step record (apps/ladders/matmul_steps.cpp), with R8_BM"
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

__kernel __attribute__((reqd_work_group_size(R8_TX, R8_TY, 1))) void
matmul_reg8x8(__global const float* A, __global const float* B, __global float* C, const int M,
              const int N, const int K) {
    __local float As[R8_BK][R8_BM] __attribute__((aligned(16))); // transposed: As[k][m]
    __local float Bs[R8_BK][R8_BN] __attribute__((aligned(16)));
    const int tx = (int)get_local_id(0);
    const int ty = (int)get_local_id(1);
    const int tid = ty * R8_TX + tx;
    const int m0 = (int)get_group_id(1) * R8_BM;
    const int n0 = (int)get_group_id(0) * R8_BN;
    const int a_vec = (K & 3) == 0, b_vec = (N & 3) == 0;
    float acc[R8_TM][R8_TN];
    MATMUL_UNROLL
    for (int i = 0; i < R8_TM; ++i)
        MATMUL_UNROLL
        for (int j = 0; j < R8_TN; ++j)
            acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += R8_BK) {
        MATMUL_UNROLL
        for (int l = 0; l < R8_BM * R8_BK / (4 * R8_NT); ++l) {
            const int q = tid + l * R8_NT;
            const int r = q / (R8_BK / 4), c = (q - r * (R8_BK / 4)) * 4;
            const float4 v = matmul_load4(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
        MATMUL_UNROLL
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
        MATMUL_UNROLL
        for (int k = 0; k < R8_BK; ++k) {
            float a[R8_TM], b[R8_TN];
            MATMUL_UNROLL
            for (int i = 0; i < R8_TM; i += 4) { // 16-byte local reads (see above)
                const float4 q = *(__local const float4*)&As[k][ty * R8_TM + i];
                a[i] = q.x;
                a[i + 1] = q.y;
                a[i + 2] = q.z;
                a[i + 3] = q.w;
            }
            MATMUL_UNROLL
            for (int j = 0; j < R8_TN; j += 4) {
                const float4 q = *(__local const float4*)&Bs[k][tx * R8_TN + j];
                b[j] = q.x;
                b[j + 1] = q.y;
                b[j + 2] = q.z;
                b[j + 3] = q.w;
            }
            MATMUL_UNROLL
            for (int i = 0; i < R8_TM; ++i)
                MATMUL_UNROLL
                for (int j = 0; j < R8_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    MATMUL_UNROLL
    for (int i = 0; i < R8_TM; ++i) {
        const int row = m0 + ty * R8_TM + i;
        MATMUL_UNROLL
        for (int j = 0; j < R8_TN; ++j) {
            const int col = n0 + tx * R8_TN + j;
            if (row < M && col < N)
                C[row * N + col] = acc[i][j];
        }
    }
}
#endif // R8_BM
