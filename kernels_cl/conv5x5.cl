// 5x5 convolution of a float32 image, W x H, row-major, clamp-to-edge borders:
//   out[y][x] = sum_{dy,dx in 0..4} filter[dy*5+dx] * in[clamp(y+dy-2)][clamp(x+dx-2)]
// Every variant has the same arguments (in, out, filter, width, height) and runs on a 2-D
// range; the host rounds the range up, so every kernel checks its outputs against the image.
// Halo coordinates are always clamped, so any size from 1x1 up is valid. kernels_cu/conv5x5.cu
// holds the same kernels, step for step.

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

// 1. Naive: one output per work-item, 25 clamped reads of the image and 25 reads of the filter,
// all from global memory. Neighbouring work-items read overlapping pixels; only caches help.
__kernel void conv5x5_naive(__global const float* in, __global float* out,
                            __global const float* filter, const int width, const int height) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (x >= width || y >= height)
        return; // no barrier in this kernel, so leaving early is safe
    float sum = 0.0f;
    for (int dy = 0; dy < 5; ++dy) {
        const int gy = clamp(y + dy - CONV_R, 0, height - 1);
        for (int dx = 0; dx < 5; ++dx) {
            const int gx = clamp(x + dx - CONV_R, 0, width - 1);
            sum += filter[dy * 5 + dx] * in[gy * width + gx];
        }
    }
    out[y * width + x] = sum;
}

// 2. The filter in constant memory: every work-item reads the same coefficient at the same
// time, which the constant cache broadcasts instead of a global load per work-item.
__kernel void conv5x5_const(__global const float* in, __global float* out,
                            __constant float* filter, const int width, const int height) {
    const int x = (int)get_global_id(0);
    const int y = (int)get_global_id(1);
    if (x >= width || y >= height)
        return; // no barrier in this kernel
    float sum = 0.0f;
    for (int dy = 0; dy < 5; ++dy) {
        const int gy = clamp(y + dy - CONV_R, 0, height - 1);
        for (int dx = 0; dx < 5; ++dx) {
            const int gx = clamp(x + dx - CONV_R, 0, width - 1);
            sum += filter[dy * 5 + dx] * in[gy * width + gx];
        }
    }
    out[y * width + x] = sum;
}

#ifdef CONV_TILE_W
// 3. Tiled: the work-group loads its CONV_TILE_W x CONV_TILE_H block of the image plus the
// 2-pixel halo into local memory once (coalesced, coordinates clamped), then every work-item
// computes its output from local memory: 25 global reads per pixel become about 1.6.
// The local size must be CONV_TILE_W x CONV_TILE_H (the attribute makes a mismatch an error).
#define CONV_TIN_W (CONV_TILE_W + 2 * CONV_R)
#define CONV_TIN_H (CONV_TILE_H + 2 * CONV_R)
__kernel __attribute__((reqd_work_group_size(CONV_TILE_W, CONV_TILE_H, 1))) void
conv5x5_tiled(__global const float* restrict in, __global float* restrict out,
              __constant float* filter, const int width, const int height) {
    __local float tile[CONV_TIN_H][CONV_TIN_W];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int x0 = (int)get_group_id(0) * CONV_TILE_W;
    const int y0 = (int)get_group_id(1) * CONV_TILE_H;

    // Cooperative load: the work-group walks the (TILE+4)^2 input block in row-major order,
    // so consecutive work-items read consecutive pixels of a row.
    for (int i = ly * CONV_TILE_W + lx; i < CONV_TIN_W * CONV_TIN_H;
         i += CONV_TILE_W * CONV_TILE_H) {
        const int r = i / CONV_TIN_W;
        const int c = i - r * CONV_TIN_W;
        const int gy = clamp(y0 + r - CONV_R, 0, height - 1);
        const int gx = clamp(x0 + c - CONV_R, 0, width - 1);
        tile[r][c] = in[gy * width + gx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    // Work-items past the image edge took part in the load and the barrier; they only skip
    // the store.
    const int x = x0 + lx;
    const int y = y0 + ly;
    float sum = 0.0f;
    for (int dy = 0; dy < 5; ++dy)
        for (int dx = 0; dx < 5; ++dx)
            sum += filter[dy * 5 + dx] * tile[ly + dy][lx + dx];
    if (x < width && y < height)
        out[y * width + x] = sum;
}
#endif // CONV_TILE_W

#ifdef CONV_ROWS
// 4. Rows: each work-item computes CONV_ROWS outputs down one column, keeping a sliding
// window of 5 input rows x 5 pixels in registers: each input row is read once per work-item
// (CONV_ROWS + 4 rows for CONV_ROWS outputs instead of 5 per output), and the filter is held
// in registers. Horizontal reuse between neighbouring work-items is left to the caches.
// Global size: (W, ceil(H / CONV_ROWS)), rounded up to the local size.
// The input is read through the read-only data cache where the compiler takes inline PTX
// (NVIDIA's OpenCL; the host defines DUET_NV_LDG from the device's capabilities): ld.global.nc,
// which CUDA's compiler emits for the twin's const __restrict__ input on its own and NVIDIA's
// OpenCL compiler does not (OpenCL/CUDA on the H100 at 8192^2: 1.32 with plain loads, 1.07 with
// these). Elsewhere a plain load.
#if defined(DUET_NV_LDG) && DUET_NV_LDG
float conv_ldg(__global const float* p) {
    float v;
    __asm__("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}
#define CONV_LDG(p) conv_ldg(p)
#else
#define CONV_LDG(p) (*(p))
#endif
__kernel void conv5x5_rows(__global const float* restrict in, __global float* restrict out,
                           __constant float* filter, const int width, const int height) {
    const int x = (int)get_global_id(0);
    const int y0 = (int)get_global_id(1) * CONV_ROWS;
    if (x >= width || y0 >= height)
        return; // no barrier in this kernel
    float f[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        f[k] = filter[k];
    int gx[5];
#pragma unroll
    for (int dx = 0; dx < 5; ++dx)
        gx[dx] = clamp(x + dx - CONV_R, 0, width - 1);

    // w[j] holds input row y + j - 2 for the output row y being computed.
    float w[5][5];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int gy = clamp(y0 + j - CONV_R, 0, height - 1);
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
            w[j][dx] = CONV_LDG(in + gy * width + gx[dx]);
    }
#pragma unroll
    for (int i = 0; i < CONV_ROWS; ++i) {
        const int y = y0 + i;
        const int gy = min(y + CONV_R, height - 1);
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
            w[4][dx] = CONV_LDG(in + gy * width + gx[dx]);
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
// 5. Best: the memory-bound design. A work-group of CONV_BX x CONV_BY work-items owns a block
// of (4*CONV_BX) x (CONV_BY*CONV_BROWS) outputs. It loads the block's input, halo included,
// into local memory once with float4 loads (16-byte aligned: the block starts 4 columns left
// of its first output, and rows are aligned when the width is a multiple of 4; otherwise and at
// the image edges it loads the 4 pixels one by one, clamped). Each work-item then computes
// 4 adjacent columns x CONV_BROWS rows with a sliding window of 5 rows x 8 pixels in
// registers, reading 3 float4 per row from local memory, and writes float4 where aligned.
// Global memory sees each input pixel about once (plus the halo, mostly from L2) and each
// output pixel once, in full cache lines.
#define CONV_BW (4 * CONV_BX)               // outputs per group in x
#define CONV_BH (CONV_BY * CONV_BROWS)      // outputs per group in y
#define CONV_BIN_W4 (CONV_BX + 2)           // float4 per input row: columns x0-4 .. x0+BW+4
#define CONV_BIN_H (CONV_BH + 2 * CONV_R)   // input rows: y0-2 .. y0+BH+2
#define CONV_BLOADS ((CONV_BIN_H * CONV_BIN_W4 + CONV_BX * CONV_BY - 1) / (CONV_BX * CONV_BY))
__kernel __attribute__((reqd_work_group_size(CONV_BX, CONV_BY, 1))) void
conv5x5_best(__global const float* restrict in, __global float* restrict out,
             __constant float* filter, const int width, const int height) {
    __local float4 tile[CONV_BIN_H * CONV_BIN_W4];
    const int lx = (int)get_local_id(0);
    const int ly = (int)get_local_id(1);
    const int x0 = (int)get_group_id(0) * CONV_BW;
    const int y0 = (int)get_group_id(1) * CONV_BH;
    const bool vec_rows = (width & 3) == 0; // every row starts 16-byte aligned

    const int tid = ly * CONV_BX + lx;
    // A group whose input block lies wholly inside the image (all but the border groups) needs
    // no clamping; there every work-item issues all its loads before its first local store, so
    // several loads per work-item are in flight at once (a load-store loop keeps one in flight
    // and is latency bound; the measurement is in docs/design/ladders.md). The test is the same
    // for the whole group, so the branch does not diverge.
    const bool interior = x0 >= 4 && x0 + CONV_BW + 4 <= width && y0 >= CONV_R &&
                          y0 + CONV_BH + CONV_R <= height;
    if (interior) {
        float4 v[CONV_BLOADS];
#pragma unroll
        for (int j = 0; j < CONV_BLOADS; ++j) {
            const int i = tid + j * CONV_BX * CONV_BY;
            if (i < CONV_BIN_H * CONV_BIN_W4) {
                const int r = i / CONV_BIN_W4;
                __global const float* p =
                    in + (y0 + r - CONV_R) * width + x0 - 4 + 4 * (i - r * CONV_BIN_W4);
                if (vec_rows)
                    v[j] = *(__global const float4*)p;
                else
                    v[j] = (float4)(p[0], p[1], p[2], p[3]);
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
            const int gy = clamp(y0 + r - CONV_R, 0, height - 1);
            const int gx = x0 - 4 + 4 * c4;
            __global const float* row = in + gy * width;
            float4 v;
            if (vec_rows && gx >= 0 && gx + 3 < width) {
                v = *(__global const float4*)(row + gx);
            } else {
                v.x = row[clamp(gx, 0, width - 1)];
                v.y = row[clamp(gx + 1, 0, width - 1)];
                v.z = row[clamp(gx + 2, 0, width - 1)];
                v.w = row[clamp(gx + 3, 0, width - 1)];
            }
            tile[i] = v;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float f[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        f[k] = filter[k];
    // Output column x0 + 4*lx + k (k = 0..3) needs tile columns 4*lx + 2 + k .. 4*lx + 6 + k,
    // that is float4 number lx (.z .w), lx + 1 (all) and lx + 2 (.x .y) of a tile row.
    float w[5][8];
    const int r0 = ly * CONV_BROWS; // tile row of the first input row of this work-item
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
            __global float* o = out + y * width + x;
            if (vec_store) {
                *(__global float4*)o = (float4)(s[0], s[1], s[2], s[3]);
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
