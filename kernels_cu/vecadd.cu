// Vector add, c = a + b: the same two kernels as kernels_cl/vecadd.cl.
#include "duet_cuda.cuh"

// Naive: one element per thread, with the bounds check for the rounded-up grid.
extern "C" __global__ void vecadd_naive(const float* a, const float* b, float* c, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Grid-stride loop with float4 loads; the tail is done one element at a time.
extern "C" __global__ void vecadd_vec4(const float* a, const float* b, float* c, int n) {
    const int stride = gridDim.x * blockDim.x;
    const int gid = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (int i = gid; i < n4; i += stride) {
        const float4 x = a4[i], y = b4[i];
        c4[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (int i = n4 * 4 + gid; i < n; i += stride)
        c[i] = a[i] + b[i];
}
