// conv5x5 shaped for a CPU (the twin of kernels_cl/conv5x5_cpu.cl): each thread a block of
// CONV_CPU_ROWS rows x CONV_CPU_COLS columns, row by row, the filter in registers, clamped at the
// edges. Same arguments and global size (in blocks) as the OpenCL kernel at its defaults. Correct
// on a GPU, and slow there.
#include "duet_cuda.cuh"

#ifndef CONV_CPU_ROWS
#error "CONV_CPU_ROWS is set by the host from the step record (apps/ladders/conv5x5_steps.cpp)"
#endif
#ifndef CONV_CPU_COLS
#error "CONV_CPU_COLS is set by the host from the step record (apps/ladders/conv5x5_steps.cpp)"
#endif

extern "C" __global__ void conv5x5_cpu(const float* __restrict__ in, float* __restrict__ out,
                                       const float* __restrict__ filter, int width, int height) {
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * CONV_CPU_COLS;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * CONV_CPU_ROWS;
    if (x0 >= width || y0 >= height)
        return;
    const int x1 = min(width, x0 + CONV_CPU_COLS), y1 = min(height, y0 + CONV_CPU_ROWS);
    float f[25];
#pragma unroll
    for (int k = 0; k < 25; ++k)
        f[k] = filter[k];
    for (int y = y0; y < y1; ++y) {
        const float* row[5];
#pragma unroll
        for (int dy = 0; dy < 5; ++dy)
            row[dy] = in + (size_t)min(max(y + dy - 2, 0), height - 1) * width;
        for (int x = x0; x < x1; ++x) {
            float s = 0.0f;
#pragma unroll
            for (int dy = 0; dy < 5; ++dy)
#pragma unroll
                for (int dx = 0; dx < 5; ++dx)
                    s = fmaf(f[dy * 5 + dx], row[dy][min(max(x + dx - 2, 0), width - 1)], s);
            out[(size_t)y * width + x] = s;
        }
    }
}
