// 5x5 convolution of a float32 image, W x H, row-major, clamp-to-edge borders: the same
// kernels as kernels_cl/conv5x5.cl, step for step, same names and arguments
// (in, out, filter, width, height). See the .cl file for the reasoning behind each step.
#include "duet_cuda.cuh"

// The tile macros come from the step records (apps/ladders/conv5x5_steps.cpp), each kernel
// with its own: tiled builds with CONV_TILE_W and CONV_TILE_H (outputs per group in x and y = the
// local size), rows with CONV_ROWS (output rows per work-item), best with CONV_BX and CONV_BY
// (its work-group; each work-item 4 adjacent columns) and CONV_BROWS (output rows per
// work-item). A build without a kernel's macros leaves that kernel out; naive and const need
// none.
#if defined(CONV_TILE_W) && !defined(CONV_TILE_H)
#error "conv5x5 tiled: CONV_TILE_H is set by the host from the step record (apps/ladders/conv5x5_steps.cpp), with CONV_TILE_W"
#endif
#if defined(CONV_BX) && !(defined(CONV_BY) && defined(CONV_BROWS))
#error "conv5x5 best: CONV_BY and CONV_BROWS are set by the host from the step record (apps/ladders/conv5x5_steps.cpp), with CONV_BX"
#endif

#define CONV_R 2 // filter radius

// OpenCL C's clamp(), for ints.
__device__ __forceinline__ int conv_clamp(int v, int lo, int hi) { return min(max(v, lo), hi); }

// 1. Naive: one output per thread, image and filter read from global memory.
extern "C" __global__ void conv5x5_naive(const float* in, float* out, const float* filter,
                                         int width, int height) {
    const int x = duet_global_id(0);
    const int y = duet_global_id(1);
    if (x >= width || y >= height)
        return; // no barrier in this kernel
    float sum = 0.0f;
    for (int dy = 0; dy < 5; ++dy) {
        const int gy = conv_clamp(y + dy - CONV_R, 0, height - 1);
        for (int dx = 0; dx < 5; ++dx) {
            const int gx = conv_clamp(x + dx - CONV_R, 0, width - 1);
            sum += filter[dy * 5 + dx] * in[gy * width + gx];
        }
    }
    out[y * width + x] = sum;
}

// 2. The filter through the read-only path. OpenCL declares the argument __constant; CUDA's
// __constant__ memory is a module-level symbol that cannot be a kernel argument (filling it
// takes cudaMemcpyToSymbol, outside the runtime's API, which has one argument list for both
// backends). The CUDA equivalent for a pointer argument is `const __restrict__` read with
// __ldg: the load goes through the read-only (uniform/texture) cache, and since every thread
// of a warp reads the same coefficient, one cached value is broadcast to the whole warp, which
// is what the constant cache does for the OpenCL kernel.
extern "C" __global__ void conv5x5_const(const float* in, float* out,
                                         const float* __restrict__ filter, int width,
                                         int height) {
    const int x = duet_global_id(0);
    const int y = duet_global_id(1);
    if (x >= width || y >= height)
        return; // no barrier in this kernel
    float sum = 0.0f;
    for (int dy = 0; dy < 5; ++dy) {
        const int gy = conv_clamp(y + dy - CONV_R, 0, height - 1);
        for (int dx = 0; dx < 5; ++dx) {
            const int gx = conv_clamp(x + dx - CONV_R, 0, width - 1);
            sum += __ldg(&filter[dy * 5 + dx]) * in[gy * width + gx];
        }
    }
    out[y * width + x] = sum;
}

#ifdef CONV_TILE_W
// 3. Tiled: the block loads its tile plus the 2-pixel halo into shared memory once
// (coalesced, clamped), then computes from shared memory. blockDim must be
// CONV_TILE_W x CONV_TILE_H (the host makes it so).
#define CONV_TIN_W (CONV_TILE_W + 2 * CONV_R)
#define CONV_TIN_H (CONV_TILE_H + 2 * CONV_R)
extern "C" __global__ __launch_bounds__(CONV_TILE_W * CONV_TILE_H) void conv5x5_tiled(
    const float* __restrict__ in, float* __restrict__ out, const float* __restrict__ filter,
    int width, int height) {
    __shared__ float tile[CONV_TIN_H][CONV_TIN_W];
    const int lx = threadIdx.x;
    const int ly = threadIdx.y;
    const int x0 = blockIdx.x * CONV_TILE_W;
    const int y0 = blockIdx.y * CONV_TILE_H;

    for (int i = ly * CONV_TILE_W + lx; i < CONV_TIN_W * CONV_TIN_H;
         i += CONV_TILE_W * CONV_TILE_H) {
        const int r = i / CONV_TIN_W;
        const int c = i - r * CONV_TIN_W;
        const int gy = conv_clamp(y0 + r - CONV_R, 0, height - 1);
        const int gx = conv_clamp(x0 + c - CONV_R, 0, width - 1);
        tile[r][c] = in[gy * width + gx];
    }
    __syncthreads();

    // Threads past the image edge took part in the load and the barrier; they only skip
    // the store.
    const int x = x0 + lx;
    const int y = y0 + ly;
    float sum = 0.0f;
    for (int dy = 0; dy < 5; ++dy)
        for (int dx = 0; dx < 5; ++dx)
            sum += __ldg(&filter[dy * 5 + dx]) * tile[ly + dy][lx + dx];
    if (x < width && y < height)
        out[y * width + x] = sum;
}
#endif // CONV_TILE_W

#ifdef CONV_ROWS
// 4. Rows: CONV_ROWS outputs down one column per thread, a sliding window of 5 input rows x
// 5 pixels in registers, the filter in registers.
extern "C" __global__ void conv5x5_rows(const float* __restrict__ in, float* __restrict__ out,
                                        const float* __restrict__ filter, int width,
                                        int height) {
    const int x = duet_global_id(0);
    const int y0 = duet_global_id(1) * CONV_ROWS;
    if (x >= width || y0 >= height)
        return; // no barrier in this kernel
    float f[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        f[k] = __ldg(&filter[k]);
    int gx[5];
#pragma unroll
    for (int dx = 0; dx < 5; ++dx)
        gx[dx] = conv_clamp(x + dx - CONV_R, 0, width - 1);

    // w[j] holds input row y + j - 2 for the output row y being computed.
    float w[5][5];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int gy = conv_clamp(y0 + j - CONV_R, 0, height - 1);
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
            w[j][dx] = in[gy * width + gx[dx]];
    }
#pragma unroll
    for (int i = 0; i < CONV_ROWS; ++i) {
        const int y = y0 + i;
        const int gy = min(y + CONV_R, height - 1);
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
            w[4][dx] = in[gy * width + gx[dx]];
        float sum = 0.0f;
#pragma unroll
        for (int dy = 0; dy < 5; ++dy)
#pragma unroll
            for (int dx = 0; dx < 5; ++dx)
                sum += f[dy * 5 + dx] * w[dy][dx];
        if (y < height)
            out[y * width + x] = sum;
#pragma unroll
        for (int j = 0; j < 4; ++j) // slide the window down one row
#pragma unroll
            for (int dx = 0; dx < 5; ++dx)
                w[j][dx] = w[j + 1][dx];
    }
}
#endif // CONV_ROWS

#ifdef CONV_BX
// 5. Best: the block loads its (4*CONV_BX + 8) x (CONV_BY*CONV_BROWS + 4) input block into
// shared memory with float4 loads where aligned (clamped scalar loads at the edges and for
// widths that are not a multiple of 4); each thread computes 4 columns x CONV_BROWS rows with a
// 5 x 8 sliding window in registers and writes float4 where aligned.
#define CONV_BW (4 * CONV_BX)
#define CONV_BH (CONV_BY * CONV_BROWS)
#define CONV_BIN_W4 (CONV_BX + 2)
#define CONV_BIN_H (CONV_BH + 2 * CONV_R)
#define CONV_BLOADS ((CONV_BIN_H * CONV_BIN_W4 + CONV_BX * CONV_BY - 1) / (CONV_BX * CONV_BY))
extern "C" __global__ __launch_bounds__(CONV_BX * CONV_BY) void conv5x5_best(
    const float* __restrict__ in, float* __restrict__ out, const float* __restrict__ filter,
    int width, int height) {
    __shared__ float4 tile[CONV_BIN_H * CONV_BIN_W4];
    const int lx = threadIdx.x;
    const int ly = threadIdx.y;
    const int x0 = blockIdx.x * CONV_BW;
    const int y0 = blockIdx.y * CONV_BH;
    const bool vec_rows = (width & 3) == 0; // every row starts 16-byte aligned

    const int tid = ly * CONV_BX + lx;
    // Interior blocks: no clamping, all loads issued before the first shared store.
    const bool interior = x0 >= 4 && x0 + CONV_BW + 4 <= width && y0 >= CONV_R &&
                          y0 + CONV_BH + CONV_R <= height;
    if (interior) {
        float4 v[CONV_BLOADS];
#pragma unroll
        for (int j = 0; j < CONV_BLOADS; ++j) {
            const int i = tid + j * CONV_BX * CONV_BY;
            if (i < CONV_BIN_H * CONV_BIN_W4) {
                const int r = i / CONV_BIN_W4;
                const float* p =
                    in + (y0 + r - CONV_R) * width + x0 - 4 + 4 * (i - r * CONV_BIN_W4);
                if (vec_rows)
                    v[j] = *reinterpret_cast<const float4*>(p);
                else
                    v[j] = make_float4(p[0], p[1], p[2], p[3]);
            }
        }
#pragma unroll
        for (int j = 0; j < CONV_BLOADS; ++j) {
            const int i = tid + j * CONV_BX * CONV_BY;
            if (i < CONV_BIN_H * CONV_BIN_W4)
                tile[i] = v[j];
        }
    } else {
        for (int i = tid; i < CONV_BIN_H * CONV_BIN_W4; i += CONV_BX * CONV_BY) {
            const int r = i / CONV_BIN_W4;
            const int c4 = i - r * CONV_BIN_W4;
            const int gy = conv_clamp(y0 + r - CONV_R, 0, height - 1);
            const int gx = x0 - 4 + 4 * c4;
            const float* row = in + gy * width;
            float4 v;
            if (vec_rows && gx >= 0 && gx + 3 < width) {
                v = *reinterpret_cast<const float4*>(row + gx);
            } else {
                v.x = row[conv_clamp(gx, 0, width - 1)];
                v.y = row[conv_clamp(gx + 1, 0, width - 1)];
                v.z = row[conv_clamp(gx + 2, 0, width - 1)];
                v.w = row[conv_clamp(gx + 3, 0, width - 1)];
            }
            tile[i] = v;
        }
    }
    __syncthreads();

    float f[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        f[k] = __ldg(&filter[k]);
    // Output column x0 + 4*lx + k (k = 0..3) needs tile columns 4*lx + 2 + k .. 4*lx + 6 + k:
    // float4 number lx (.z .w), lx + 1 (all) and lx + 2 (.x .y) of a tile row.
    float w[5][8];
    const int r0 = ly * CONV_BROWS;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const float4 a = tile[(r0 + j) * CONV_BIN_W4 + lx];
        const float4 b = tile[(r0 + j) * CONV_BIN_W4 + lx + 1];
        const float4 c = tile[(r0 + j) * CONV_BIN_W4 + lx + 2];
        w[j][0] = a.z; w[j][1] = a.w; w[j][2] = b.x; w[j][3] = b.y;
        w[j][4] = b.z; w[j][5] = b.w; w[j][6] = c.x; w[j][7] = c.y;
    }
    const int x = x0 + 4 * lx;
    const bool vec_store = vec_rows && x + 3 < width;
#pragma unroll
    for (int i = 0; i < CONV_BROWS; ++i) {
        {
            const float4 a = tile[(r0 + i + 4) * CONV_BIN_W4 + lx];
            const float4 b = tile[(r0 + i + 4) * CONV_BIN_W4 + lx + 1];
            const float4 c = tile[(r0 + i + 4) * CONV_BIN_W4 + lx + 2];
            w[4][0] = a.z; w[4][1] = a.w; w[4][2] = b.x; w[4][3] = b.y;
            w[4][4] = b.z; w[4][5] = b.w; w[4][6] = c.x; w[4][7] = c.y;
        }
        float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int dy = 0; dy < 5; ++dy)
#pragma unroll
            for (int dx = 0; dx < 5; ++dx)
                for (int k = 0; k < 4; ++k)
                    s[k] += f[dy * 5 + dx] * w[dy][dx + k];
        const int y = y0 + r0 + i;
        if (y < height) {
            float* o = out + y * width + x;
            if (vec_store) {
                *reinterpret_cast<float4*>(o) = make_float4(s[0], s[1], s[2], s[3]);
            } else {
#pragma unroll
                for (int k = 0; k < 4; ++k)
                    if (x + k < width)
                        o[k] = s[k];
            }
        }
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int k = 0; k < 8; ++k)
                w[j][k] = w[j + 1][k];
    }
}
#endif // CONV_BX
