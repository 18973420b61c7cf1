// conv5x5 shaped for a CPU: each work-item a block of CONV_CPU_ROWS rows x CONV_CPU_COLS columns,
// walked row by row in vectors of the device's preferred float width (CPU_VW): each output vector
// is 25 multiply-adds of the filter (in registers) with unaligned vector loads of the five input
// rows, which the previous rows of the block have just brought into the core's cache. No local
// memory, no barrier; the columns within 2 of the image's left and right edges clamp, scalar.
// Arguments as every conv5x5 kernel: (in, out, filter, width, height), global size
// (ceil(W / CONV_CPU_COLS), ceil(H / CONV_CPU_ROWS)) rounded to the local size. Correct on any
// device (slow on a GPU). Twin: kernels_cu/conv5x5_cpu.cu.

#include "cpu_vector.clh"
#ifndef CONV_CPU_ROWS
#define CONV_CPU_ROWS 16
#endif
#ifndef CONV_CPU_COLS
#define CONV_CPU_COLS 1024
#endif

__kernel void conv5x5_cpu(__global const float* restrict in, __global float* restrict out,
                          __constant float* filter, const int width, const int height) {
    const int x0 = (int)get_global_id(0) * CONV_CPU_COLS;
    const int y0 = (int)get_global_id(1) * CONV_CPU_ROWS;
    if (x0 >= width || y0 >= height)
        return;
    const int x1 = min(width, x0 + CONV_CPU_COLS), y1 = min(height, y0 + CONV_CPU_ROWS);
    float f[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        f[k] = filter[k];
    for (int y = y0; y < y1; ++y) {
        __global const float* row[5];
#pragma unroll
        for (int dy = 0; dy < 5; ++dy)
            row[dy] = in + (size_t)clamp(y + dy - 2, 0, height - 1) * width;
        __global float* o = out + (size_t)y * width;
        int x = x0;
        // Left edge (and any block too narrow for a vector): scalar, clamped.
        const int vec_begin = max(x0, 2);
        const int vec_end = width - 2 - CPU_VW; // last x whose vector stays inside
        for (; x < x1 && (x < vec_begin || x > vec_end); ++x) {
            float s = 0.0f;
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = mad(f[dy * 5 + dx], row[dy][clamp(x + dx - 2, 0, width - 1)], s);
            o[x] = s;
        }
        for (; x + CPU_VW <= x1 && x <= vec_end; x += CPU_VW) {
            VT s = (VT)(0.0f);
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = mad((VT)(f[dy * 5 + dx]), VLOAD(0, row[dy] + x + dx - 2), s);
            VSTORE(s, 0, o + x);
        }
        for (; x < x1; ++x) { // the right edge and the block's tail
            float s = 0.0f;
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = mad(f[dy * 5 + dx], row[dy][clamp(x + dx - 2, 0, width - 1)], s);
            o[x] = s;
        }
    }
}
