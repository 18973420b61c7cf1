// OpenCL C on NVRTC: the dialect table's "opencl-c-on-nvrtc" route. The CUDA backend compiles an
// app's OpenCL C kernel text with this header included first, so that the OpenCL C 1.2 a portable
// kernel uses reads as CUDA C++: address-space words, work-item functions, barriers, the
// unsigned type names, the common built-ins, sub-groups as warps, GCC's __asm__ spelling,
// float2/float4 arithmetic and vector literals of
// float, int and uint vectors of 2 and 4 ((float4)(a, b, c, d), (float4)(s): the translation
// makes them calls of duet_ocl_make_float4, and pointers to __local memory plain pointers,
// swizzles read from a name or an indexed name (v.yx, p[i].yxwz), backends/cuda/
// cuda_translate.hpp). What is not here (image types, 8- and 16-wide vectors, other vector
// literals, .s0-style and written swizzles) fails to compile with NVRTC's message,
// never silently. A kernel's parameter of local memory becomes the block's dynamic shared
// memory (one per kernel; two are a build Error before NVRTC runs). The bare
// words `global` and `constant` are not defined: CUDA's own __global__ and __constant__ expand to
// attributes of those names, so a kernel spells them __global and __constant.
#pragma once

#define __kernel extern "C" __global__
#define kernel extern "C" __global__
#define __global
#define __constant const
#define __local __shared__
#define local __shared__
#define __private
#define private
#define restrict __restrict__
#define __read_only const
#define __write_only

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2

template <class V> __device__ __forceinline__ unsigned duet_ocl_dim(const V& v, uint d) {
    return d == 0 ? v.x : d == 1 ? v.y : d == 2 ? v.z : 1u;
}
__device__ __forceinline__ size_t get_local_id(uint d) {
    return d < 3 ? duet_ocl_dim(threadIdx, d) : 0;
}
__device__ __forceinline__ size_t get_group_id(uint d) {
    return d < 3 ? duet_ocl_dim(blockIdx, d) : 0;
}
__device__ __forceinline__ size_t get_local_size(uint d) {
    return duet_ocl_dim(blockDim, d);
}
__device__ __forceinline__ size_t get_num_groups(uint d) {
    return duet_ocl_dim(gridDim, d);
}
__device__ __forceinline__ size_t get_global_id(uint d) {
    return get_group_id(d) * get_local_size(d) + get_local_id(d);
}
__device__ __forceinline__ size_t get_global_size(uint d) {
    return get_num_groups(d) * get_local_size(d);
}
__device__ __forceinline__ size_t get_global_offset(uint) {
    return 0;
}
// A global fence makes the group's global writes visible device-wide, as OpenCL's does.
__device__ __forceinline__ void barrier(int flags) {
    if (flags & CLK_GLOBAL_MEM_FENCE)
        __threadfence();
    __syncthreads();
}
__device__ __forceinline__ void mem_fence(int flags) {
    if (flags & CLK_GLOBAL_MEM_FENCE)
        __threadfence();
    else
        __threadfence_block();
}

// Inline assembly as GCC spells it (NVIDIA's OpenCL takes it; NVRTC knows asm and volatile).
#define __asm__ asm
#define __volatile__ volatile

// Sub-groups (cl_khr_subgroups) as CUDA's warps: 32 work-items of the group's linear order, the
// last one partial when the group is not a multiple of 32. The reduction is called by every
// work-item of a sub-group, as OpenCL requires, so the shuffles' masks name exactly those.
__device__ __forceinline__ uint duet_ocl_linear_local_id() {
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ uint duet_ocl_group_items() {
    return blockDim.x * blockDim.y * blockDim.z;
}
__device__ __forceinline__ uint get_sub_group_id() {
    return duet_ocl_linear_local_id() / 32u;
}
__device__ __forceinline__ uint get_sub_group_local_id() {
    return duet_ocl_linear_local_id() % 32u;
}
__device__ __forceinline__ uint get_num_sub_groups() {
    return (duet_ocl_group_items() + 31u) / 32u;
}
__device__ __forceinline__ uint get_max_sub_group_size() {
    return 32u;
}
__device__ __forceinline__ uint get_sub_group_size() {
    const uint left = duet_ocl_group_items() - get_sub_group_id() * 32u;
    return left < 32u ? left : 32u;
}
template <class T> __device__ __forceinline__ T sub_group_reduce_add(T v) {
    const uint lanes = get_sub_group_size(), lane = get_sub_group_local_id();
    const unsigned mask = lanes == 32u ? 0xffffffffu : (1u << lanes) - 1u;
    for (uint offset = 16u; offset > 0u; offset >>= 1) {
        const T other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < lanes)
            v += other;
    }
    return __shfl_sync(mask, v, 0);
}

#define mad(a, b, c) ((a) * (b) + (c))
#define native_exp __expf
#define native_log __logf
#define native_sin __sinf
#define native_cos __cosf
#define native_sqrt sqrtf
#define native_rsqrt rsqrtf
#define native_divide(a, b) __fdividef((a), (b))
#define as_float __int_as_float
#define as_int __float_as_int
#define as_uint __float_as_uint
#define convert_float(x) static_cast<float>(x)
#define convert_int(x) static_cast<int>(x)
#define convert_uint(x) static_cast<unsigned>(x)
// OpenCL's atomics take volatile pointers (CUDA's do not) and convert the value to the
// pointee's type.
#define DUET_OCL_ATOMIC(NAME, CUDA)                                                                \
    template <class T, class U> __device__ __forceinline__ T NAME(volatile T* p, U v) {            \
        return CUDA(const_cast<T*>(p), static_cast<T>(v));                                         \
    }
DUET_OCL_ATOMIC(atomic_add, atomicAdd)
DUET_OCL_ATOMIC(atomic_sub, atomicSub)
DUET_OCL_ATOMIC(atomic_min, atomicMin)
DUET_OCL_ATOMIC(atomic_max, atomicMax)
DUET_OCL_ATOMIC(atomic_xchg, atomicExch)
template <class T, class U, class V>
__device__ __forceinline__ T atomic_cmpxchg(volatile T* p, U expected, V desired) {
    return atomicCAS(const_cast<T*>(p), static_cast<T>(expected), static_cast<T>(desired));
}
#define atomic_inc(p) atomic_add((p), 1)
#define atomic_dec(p) atomic_sub((p), 1)

__device__ __forceinline__ float clamp(float x, float lo, float hi) {
    return fminf(fmaxf(x, lo), hi);
}
__device__ __forceinline__ int clamp(int x, int lo, int hi) {
    return min(max(x, lo), hi);
}
__device__ __forceinline__ float mix(float a, float b, float t) {
    return a + (b - a) * t;
}

// float2 / float4 arithmetic, element by element and with a scalar, as OpenCL C has it.
#define DUET_OCL_VEC_OPS(V, BODY2)                                                                 \
    __device__ __forceinline__ V operator+(V a, V b) { return BODY2(+, a, b); }                    \
    __device__ __forceinline__ V operator-(V a, V b) { return BODY2(-, a, b); }                    \
    __device__ __forceinline__ V operator*(V a, V b) { return BODY2(*, a, b); }                    \
    __device__ __forceinline__ V operator/(V a, V b) { return BODY2(/, a, b); }                    \
    __device__ __forceinline__ V operator*(V a, float s) { return a * duet_splat_##V(s); }        \
    __device__ __forceinline__ V operator*(float s, V a) { return a * duet_splat_##V(s); }        \
    __device__ __forceinline__ V& operator+=(V& a, V b) { return a = a + b; }                      \
    __device__ __forceinline__ V& operator*=(V& a, V b) { return a = a * b; }
__device__ __forceinline__ float2 duet_splat_float2(float s) {
    return make_float2(s, s);
}
__device__ __forceinline__ float4 duet_splat_float4(float s) {
    return make_float4(s, s, s, s);
}
#define DUET_OCL_F2(op, a, b) make_float2(a.x op b.x, a.y op b.y)
#define DUET_OCL_F4(op, a, b) make_float4(a.x op b.x, a.y op b.y, a.z op b.z, a.w op b.w)
DUET_OCL_VEC_OPS(float2, DUET_OCL_F2)
DUET_OCL_VEC_OPS(float4, DUET_OCL_F4)
__device__ __forceinline__ float dot(float4 a, float4 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}
__device__ __forceinline__ float4 vload4(size_t i, const float* p) {
    return make_float4(p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]);
}
__device__ __forceinline__ void vstore4(float4 v, size_t i, float* p) {
    p[4 * i] = v.x, p[4 * i + 1] = v.y, p[4 * i + 2] = v.z, p[4 * i + 3] = v.w;
}

// Swizzles: the translation makes v.yxwz duet_ocl_swizzle<1, 0, 3, 2>(v), a read of 2 to 4
// lanes of a 2- or 4-wide float, int or uint vector (a lane the vector lacks fails to compile).
template <class V> struct duet_ocl_vec;
template <class S> struct duet_ocl_make;
#define DUET_OCL_SWIZZLE_TYPES(S, M)                                                               \
    template <> struct duet_ocl_vec<M##2> {                                                        \
        using scalar = S;                                                                          \
    };                                                                                             \
    template <> struct duet_ocl_vec<M##4> {                                                        \
        using scalar = S;                                                                          \
    };                                                                                             \
    template <> struct duet_ocl_make<S> {                                                          \
        static __device__ __forceinline__ M##2 of(S a, S b) { return make_##M##2(a, b); }          \
        static __device__ __forceinline__ M##3 of(S a, S b, S c) { return make_##M##3(a, b, c); }  \
        static __device__ __forceinline__ M##4 of(S a, S b, S c, S d) {                            \
            return make_##M##4(a, b, c, d);                                                        \
        }                                                                                          \
    };
DUET_OCL_SWIZZLE_TYPES(float, float)
DUET_OCL_SWIZZLE_TYPES(int, int)
DUET_OCL_SWIZZLE_TYPES(unsigned, uint)
template <int I, class V>
__device__ __forceinline__ typename duet_ocl_vec<V>::scalar duet_ocl_lane(const V& v) {
    if constexpr (I == 0)
        return v.x;
    else if constexpr (I == 1)
        return v.y;
    else if constexpr (I == 2)
        return v.z;
    else
        return v.w;
}
template <int... L, class V> __device__ __forceinline__ auto duet_ocl_swizzle(const V& v) {
    return duet_ocl_make<typename duet_ocl_vec<V>::scalar>::of(duet_ocl_lane<L>(v)...);
}

// Vector literals: every element given, one scalar for all, or two halves.
#define DUET_OCL_LITERALS(V, S)                                                                    \
    __device__ __forceinline__ V##2 duet_ocl_make_##V##2(S a, S b) { return make_##V##2(a, b); }  \
    __device__ __forceinline__ V##2 duet_ocl_make_##V##2(S s) { return make_##V##2(s, s); }        \
    __device__ __forceinline__ V##4 duet_ocl_make_##V##4(S a, S b, S c, S d) {                     \
        return make_##V##4(a, b, c, d);                                                            \
    }                                                                                              \
    __device__ __forceinline__ V##4 duet_ocl_make_##V##4(S s) { return make_##V##4(s, s, s, s); }  \
    __device__ __forceinline__ V##4 duet_ocl_make_##V##4(V##2 a, V##2 b) {                         \
        return make_##V##4(a.x, a.y, b.x, b.y);                                                    \
    }
DUET_OCL_LITERALS(float, float)
DUET_OCL_LITERALS(int, int)
DUET_OCL_LITERALS(uint, unsigned)
