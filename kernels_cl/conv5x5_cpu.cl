// conv5x5 shaped for a CPU: each work-item a block of CONV_CPU_ROWS rows x CONV_CPU_COLS columns,
// walked row by row in vectors of the device's preferred float width (CPU_VW), CONV_CPU_VECS
// vectors side by side: each output vector is 25 fused multiply-adds of the filter with unaligned
// vector loads of the five input rows, which the previous rows of the block have just brought
// into the core's cache. The CONV_CPU_VECS sums are independent, so the core's FMA units overlap
// them (one sum alone waits the FMA's latency at every tap). Images larger than the device's
// cache are written with non-temporal stores (cpu_stream.clh). No local memory, no barrier; the
// columns within 2 of the image's left and right edges clamp, scalar. A block is as wide as the
// image up to CONV_CPU_COLS (16384) columns: each of its rows is then one long stream per input
// row, which the prefetchers follow; blocks of 1024 columns (a new stream every 4 KiB) measured
// 1.1-1.25x slower on the 2-core AMD EPYC (PoCL 3.1, 6144^2).
// Arguments as every conv5x5 kernel: (in, out, filter, width, height), global size
// (ceil(W / CONV_CPU_COLS), ceil(H / CONV_CPU_ROWS)) rounded to the local size. Correct on any
// device (slow on a GPU). Twin: kernels_cu/conv5x5_cpu.cu.

#include "cpu_stream.clh"
#ifndef CONV_CPU_ROWS
#error "CONV_CPU_ROWS is set by the host from the step record (apps/ladders/conv5x5_steps.cpp)"
#endif
#ifndef CONV_CPU_COLS
#error "CONV_CPU_COLS is set by the host from the step record (apps/ladders/conv5x5_steps.cpp)"
#endif
#ifndef CONV_CPU_VECS
#define CONV_CPU_VECS 4
#endif
#if CONV_CPU_VECS < 1 || CONV_CPU_VECS > 8
#error "CONV_CPU_VECS: 1 to 8 vectors"
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
    const bool stream = CPU_STREAM(8ul * (ulong)width * (ulong)height);
    for (int y = y0; y < y1; ++y) {
        __global const float* row[5];
#pragma unroll
        for (int dy = 0; dy < 5; ++dy)
            row[dy] = in + (size_t)clamp(y + dy - 2, 0, height - 1) * width;
        __global float* o = out + (size_t)y * width;
        int x = x0;
        // Left edge (and any block too narrow for a vector): scalar, clamped.
        // The vectors start at the first multiple of CPU_VW from 2 on: aligned where the row is.
        const int vec_begin = (max(x0, 2) + CPU_VW - 1) / CPU_VW * CPU_VW;
        const int vec_end = width - 2 - CPU_VW; // last x whose vector stays inside
        for (; x < x1 && (x < vec_begin || x > vec_end); ++x) {
            float s = 0.0f;
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = CPU_FMA(f[dy * 5 + dx], row[dy][clamp(x + dx - 2, 0, width - 1)], s);
            o[x] = s;
        }
        const bool nt = stream && CPU_ALIGNED(o + x);
        for (; x + CONV_CPU_VECS * CPU_VW <= x1 && x + (CONV_CPU_VECS - 1) * CPU_VW <= vec_end;
             x += CONV_CPU_VECS * CPU_VW) {
            VT s[CONV_CPU_VECS];
#pragma unroll
            for (int v = 0; v < CONV_CPU_VECS; ++v)
                s[v] = (VT)(0.0f);
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx) {
                    const VT t = (VT)(f[dy * 5 + dx]);
#pragma unroll
                    for (int v = 0; v < CONV_CPU_VECS; ++v)
                        s[v] = CPU_FMA(t, VLOAD(0, row[dy] + x + v * CPU_VW + dx - 2), s[v]);
                }
            if (nt) {
#pragma unroll
                for (int v = 0; v < CONV_CPU_VECS; ++v)
                    STREAM_STORE(s[v], o + x + v * CPU_VW);
            } else {
#pragma unroll
                for (int v = 0; v < CONV_CPU_VECS; ++v)
                    VSTORE(s[v], 0, o + x + v * CPU_VW);
            }
        }
        for (; x + CPU_VW <= x1 && x <= vec_end; x += CPU_VW) {
            VT s = (VT)(0.0f);
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = CPU_FMA((VT)(f[dy * 5 + dx]), VLOAD(0, row[dy] + x + dx - 2), s);
            VSTORE(s, 0, o + x);
        }
        for (; x < x1; ++x) { // the right edge and the block's tail
            float s = 0.0f;
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = CPU_FMA(f[dy * 5 + dx], row[dy][clamp(x + dx - 2, 0, width - 1)], s);
            o[x] = s;
        }
    }
    if (stream)
        write_mem_fence(CLK_GLOBAL_MEM_FENCE); // streamed stores are weakly ordered
}
