#pragma once
// Kernels written the way people write CUDA C++ and OpenCL C, loaded through the public API as
// they are (no extern "C", no wrappers): shared by the conformance suite, which launches them on
// every device, and test_nvrtc_idioms, which compiles the CUDA ones through the plugin's NVRTC
// path where there is no GPU.
//
// CUDA: templates over the element type and the block size, a namespace, a functor passed by
// value, lambdas given to a __device__ helper, a static __shared__ array sized by a
// template parameter, a grid-stride loop and __launch_bounds__. (The lambdas are written in
// device code, where they need no annotation: NVRTC 13.0 refuses --extended-lambda, which a
// `[=] __device__` lambda needs.) OpenCL: `kernel void` with
// restrict pointers, the element type from -DTYPE, local memory as an argument.
namespace idioms {

inline const char* const cuda_source = R"CU(
namespace streamlike {

template <typename T> __device__ __forceinline__ T fma_op(T a, T s, T b) { return a * s + b; }

// An element-wise operation as a functor: passed to the kernel by value.
template <typename T> struct Scale {
    T factor;
    __device__ T operator()(T x) const { return factor * x; }
};

template <typename F> __device__ void for_each_index(int n, F f) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        f(i);
}

template <typename T, typename Op>
__global__ void map_kernel(const T* __restrict__ in, T* __restrict__ out, Op op, int n) {
    for_each_index(n, [=](int i) { out[i] = op(in[i]); });
}

template <typename T>
__global__ void triad_kernel(T* __restrict__ a, const T* __restrict__ b,
                             const T* __restrict__ c, T scalar, int n) {
    for_each_index(n, [=](int i) { a[i] = fma_op(c[i], scalar, b[i]); });
}

// One partial sum of a[i] * b[i] per block, reduced in a static shared array.
template <typename T, int BLOCK>
__global__ void __launch_bounds__(BLOCK) dot_kernel(const T* __restrict__ a,
                                                    const T* __restrict__ b,
                                                    T* __restrict__ partial, int n) {
    static __shared__ T sums[BLOCK];
    T sum = T(0);
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x)
        sum += a[i] * b[i];
    sums[threadIdx.x] = sum;
    for (int offset = BLOCK / 2; offset > 0; offset /= 2) {
        __syncthreads();
        if (threadIdx.x < offset)
            sums[threadIdx.x] += sums[threadIdx.x + offset];
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = sums[0];
}

} // namespace streamlike

// A kernel outside any namespace, not extern "C": found by its C++ name.
__global__ void fill_iota(int* out, int first, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = first + i;
}
)CU";

// The name expressions of the CUDA source's kernels, as an app lists them.
inline const char* const triad_float = "streamlike::triad_kernel<float>";
inline const char* const triad_double = "streamlike::triad_kernel<double>";
inline const char* const dot_float = "streamlike::dot_kernel<float, 128>";
inline const char* const map_scale = "streamlike::map_kernel<float, streamlike::Scale<float>>";
inline const char* const fill_iota = "fill_iota";

// The CUDA functor's layout on the host: the scalar argument for map_kernel's Op.
struct ScaleArg {
    float factor;
};

inline const char* const opencl_source = R"CL(
#ifndef TYPE
#error "build with -DTYPE=float or -DTYPE=double"
#endif

TYPE fma_op(TYPE a, TYPE s, TYPE b) { return a * s + b; }

kernel void triad(global TYPE* restrict a, global const TYPE* restrict b,
                  global const TYPE* restrict c, const TYPE scalar, const int n) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        a[i] = fma_op(c[i], scalar, b[i]);
}

// Not "dot": that is an OpenCL C built-in function (PoCL renames a kernel of that name).
kernel void dot_partial(global const TYPE* restrict a, global const TYPE* restrict b,
                global TYPE* restrict partial, local TYPE* restrict sums, const int n) {
    const int l = get_local_id(0), size = get_local_size(0);
    TYPE sum = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        sum += a[i] * b[i];
    sums[l] = sum;
    for (int offset = size / 2; offset > 0; offset /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < offset)
            sums[l] += sums[l + offset];
    }
    if (l == 0)
        partial[get_group_id(0)] = sums[0];
}

kernel void fill_iota(global int* restrict out, const int first, const int n) {
    const int i = get_global_id(0);
    if (i < n)
        out[i] = first + i;
}
)CL";

} // namespace idioms
