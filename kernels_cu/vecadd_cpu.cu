// vecadd shaped for a CPU (the twin of kernels_cl/vecadd_cpu.cl): each thread a contiguous chunk
// of whole 8-float vectors. On a GPU neighbouring threads then touch addresses a chunk apart:
// correct, and slow, which is the point of the comparison.
#include "duet_cuda.cuh"

#ifndef CPU_VW
#error "CPU_VW is set by the host from the step record (apps/framework/cpu_steps.cpp)"
#endif

extern "C" __global__ void vecadd_cpu(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int n) {
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, G = gridDim.x * blockDim.x;
    const unsigned un = static_cast<unsigned>(n);
    const unsigned vecs = (un + CPU_VW - 1) / CPU_VW;
    const unsigned chunk = (vecs + G - 1) / G * CPU_VW;
    const unsigned begin = min(un, g * chunk), end = min(un, begin + chunk);
    for (unsigned i = begin; i < end; ++i)
        c[i] = a[i] + b[i];
}
