#pragma once
// Kernels that take values as real code passes them, in OpenCL C and CUDA: a 108-byte struct of
// weights, a struct of LARGE floats, a struct of two device addresses, and the benchmarks'
// for_each_kernel<F> over a functor of device pointers (CUDA). Shared by the conformance suite
// (tests/conformance/conformance_values.cpp) and the NVRTC checks without a GPU
// (test_nvrtc_idioms.cpp).
namespace value_kernels {

inline const char* const opencl_source = R"(
typedef struct { float w[25]; float bias; int n; } Weights;
typedef struct { ulong a; ulong b; int n; } Pair;
typedef struct { float v[LARGE]; } Large;
__kernel void weigh(__global const float* x, __global float* y, Weights k) {
    int i = get_global_id(0);
    if (i >= k.n) return;
    float s = k.bias;
    for (int j = 0; j < 25; ++j) s += k.w[j] * x[i];
    y[i] = s;
}
__kernel void large_sum(__global float* y, Large k) {
    if (get_global_id(0) == 0) { float s = 0; for (int j = 0; j < LARGE; ++j) s += k.v[j]; y[0] = s; }
}
__kernel void pair_twice(Pair p) {
    __global const float* a = (__global const float*)p.a;
    __global float* b = (__global float*)p.b;
    int i = get_global_id(0);
    if (i < p.n) b[i] = 2.0f * a[i];
}
)";

inline const char* const cuda_source = R"(
struct Weights { float w[25]; float bias; int n; };
struct Pair { const float* a; float* b; int n; };
struct Large { float v[LARGE]; };
extern "C" __global__ void weigh(const float* x, float* y, Weights k) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= k.n) return;
    float s = k.bias;
    for (int j = 0; j < 25; ++j) s += k.w[j] * x[i];
    y[i] = s;
}
extern "C" __global__ void large_sum(float* y, Large k) {
    if (blockIdx.x == 0 && threadIdx.x == 0) { float s = 0; for (int j = 0; j < LARGE; ++j) s += k.v[j]; y[0] = s; }
}
extern "C" __global__ void pair_twice(Pair p) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) p.b[i] = 2.0f * p.a[i];
}
namespace bench {
template <class F> __global__ void for_each_kernel(F f, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) f(i);
}
struct Triad {
    const float* a; const float* b; float* c; float s;
    __device__ void operator()(int i) const { c[i] = a[i] + s * b[i]; }
};
}
)";

// The functor kernel's C++ name expression.
inline const char* const for_each_triad = "bench::for_each_kernel<bench::Triad>";

} // namespace value_kernels
