// Reduction (sum): the classic optimisation ladder (M. Harris, "Optimizing Parallel Reduction in
// CUDA"), the twin of kernels_cl/reduction.cl: the same kernel names, arguments and algorithm.
//
// Every kernel exists twice, reduce_<variant>_i32 (int) and reduce_<variant>_f32 (float), both
// thin extern "C" wrappers around one template, written out by name so they can be found in the
// source text and loaded from the fat binary without NVRTC. Every kernel has the arguments
//     (const T* in, T* out, int n, duet_local_t sdata)      // sdata: duet::local(blockDim.x * 4)
// reads in[0, n) and writes one partial sum per block to out[blockIdx.x] (the atomic variant: adds
// its block's sum to out[0], which the host zeroes first). The host repeats a kernel, ping-ponging
// between two buffers, until one value is left.
//
// Requirements the host checks: blockDim.x is a power of two (the trees halve it) and at most
// 1024; 1 <= n <= INT_MAX. Indices are unsigned: with n <= INT_MAX, i + blockDim.x and the
// grid-stride steps cannot wrap.
//
// Warp-synchronous code: Harris's last-warp unroll relies on the 32 threads of a warp running in
// lockstep, through a volatile pointer. Since Volta, threads of a warp are scheduled
// independently and may diverge and reconverge anywhere, so that code is a data race. Here the
// last 32 threads synchronise with __syncwarp() between steps, which both waits for the warp's
// threads and orders their shared-memory accesses (no volatile needed). The OpenCL twin keeps
// full barriers instead, because OpenCL 1.2 has no warp at all. These steps need the threads
// lid < 32 to lie in one warp, which holds for any warp of 32 or more lanes (every CUDA device's
// warpSize is 32); nothing else here assumes a width: the shuffles of steps 8-9 take warpSize.
#include "duet_cuda.cuh"

namespace {

// One tree step of sequential addressing over the whole block.
template <class T> __device__ __forceinline__ void block_step(T* sdata, unsigned lid, unsigned s) {
    if (lid < s)
        sdata[lid] += sdata[lid + s];
    __syncthreads();
}

// The same step for the last 32 threads (called by threads lid < 32 only): __syncwarp over the
// threads that exist (the whole warp, or all of a block smaller than 32).
template <class T>
__device__ __forceinline__ void warp_step(T* sdata, unsigned lid, unsigned s, unsigned mask) {
    if (lid < s)
        sdata[lid] += sdata[lid + s];
    __syncwarp(mask);
}

// Mask of the threads of warp 0 of this block: all 32, or the whole block when it is smaller.
__device__ __forceinline__ unsigned warp0_mask() {
    return blockDim.x >= 32u ? 0xffffffffu : (1u << blockDim.x) - 1u;
}

// Grid-stride load: RED_PER values in[i], in[i + ls], ... from i = block * RED_PER * ls + lid,
// stepping by RED_PER * ls * blocks, added in a register. The RED_PER loads of a step are issued
// before any is added, so that many are in flight per thread; the last, partial step checks each.
#ifndef RED_PER // 4 in the records: faster than 2 on the H100 (docs/design/ladders.md)
#error "RED_PER is set by the host from the step record (apps/ladders/reduction_steps.cpp)"
#endif
#if RED_PER < 1 || RED_PER > 16
#error "RED_PER: 1 to 16 values per thread per step"
#endif
template <class T>
__device__ __forceinline__ T grid_stride_load(const T* in, unsigned n, unsigned ls) {
    const unsigned stride = RED_PER * ls * gridDim.x;
    T sum = T(0);
    unsigned i = blockIdx.x * RED_PER * ls + threadIdx.x;
    for (; i + (RED_PER - 1) * ls < n; i += stride) {
        T v[RED_PER];
#pragma unroll
        for (int u = 0; u < RED_PER; ++u)
            v[u] = in[i + u * ls];
#pragma unroll
        for (int u = 0; u < RED_PER; ++u)
            sum += v[u];
    }
#pragma unroll
    for (int u = 0; u < RED_PER; ++u)
        if (i + u * ls < n)
            sum += in[i + u * ls];
    return sum;
}

// The block's sum of one value per thread, returned to thread 0 (variants 8 and 9): each warp
// reduces in registers with __shfl_down_sync over the real warp width (warpSize, or the block
// when it is smaller), lane 0 of each warp writes its partial, and warp 0 reduces the partials
// the same way. The OpenCL twin uses sub_group_reduce_add, or a local-memory tree without
// sub-groups.
template <class T> __device__ __forceinline__ T block_sum_shuffle(T v, T* sdata) {
    const unsigned lid = threadIdx.x;
    const unsigned width = min(unsigned(warpSize), blockDim.x); // a power of two
    const unsigned mask = warp0_mask();                          // every warp has `width` lanes
    for (unsigned off = width / 2u; off > 0u; off /= 2u)
        v += __shfl_down_sync(mask, v, off, width);
    const unsigned lane = lid % width, warp = lid / width, warps = blockDim.x / width;
    if (lane == 0)
        sdata[warp] = v;
    __syncthreads();
    if (warp == 0) { // warps <= 1024 / 32 = width, so one pass of warp 0 covers them
        v = lane < warps ? sdata[lane] : T(0);
        for (unsigned off = width / 2u; off > 0u; off /= 2u)
            v += __shfl_down_sync(mask, v, off, width);
    }
    return v;
}

__device__ __forceinline__ void atomic_add_to(int* p, int v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add_to(float* p, float v) { atomicAdd(p, v); }

// ---- 1. interleaved addressing, divergent branches ---------------------------------------------
template <class T> __device__ void interleaved(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    const unsigned gid = blockIdx.x * ls + lid;
    sdata[lid] = gid < unsigned(n) ? in[gid] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < ls; s *= 2) {
        if (lid % (2u * s) == 0)
            sdata[lid] += sdata[lid + s];
        __syncthreads();
    }
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// ---- 2. strided index, no divergence ------------------------------------------------------------
template <class T> __device__ void strided(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    const unsigned gid = blockIdx.x * ls + lid;
    sdata[lid] = gid < unsigned(n) ? in[gid] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < ls; s *= 2) {
        const unsigned index = 2u * s * lid;
        if (index < ls)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// ---- 3. sequential addressing -------------------------------------------------------------------
template <class T> __device__ void sequential(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    const unsigned gid = blockIdx.x * ls + lid;
    sdata[lid] = gid < unsigned(n) ? in[gid] : T(0);
    __syncthreads();
    for (unsigned s = ls / 2u; s > 0u; s >>= 1)
        block_step(sdata, lid, s);
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// ---- 4. first add during the global load --------------------------------------------------------
template <class T> __device__ __forceinline__ void first_add_load(const T* in, int n, T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    const unsigned i = blockIdx.x * 2u * ls + lid;
    T v = i < unsigned(n) ? in[i] : T(0);
    if (i + ls < unsigned(n))
        v += in[i + ls];
    sdata[lid] = v;
    __syncthreads();
}

template <class T> __device__ void first_add(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    first_add_load(in, n, sdata);
    for (unsigned s = ls / 2u; s > 0u; s >>= 1)
        block_step(sdata, lid, s);
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// ---- 5. last warp unrolled ----------------------------------------------------------------------
// The loop stops at s > 32; the last six steps run in warp 0 only, with __syncwarp() instead of
// __syncthreads() (see the top of the file for why not Harris's bare volatile code). Each step
// is guarded by the block size so blocks smaller than 64 stay in bounds.
template <class T> __device__ void unroll_last(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    first_add_load(in, n, sdata);
    for (unsigned s = ls / 2u; s > 32u; s >>= 1)
        block_step(sdata, lid, s);
    if (lid < 32u) {
        const unsigned mask = warp0_mask();
        if (ls > 32u) warp_step(sdata, lid, 32u, mask);
        if (ls > 16u) warp_step(sdata, lid, 16u, mask);
        if (ls > 8u) warp_step(sdata, lid, 8u, mask);
        if (ls > 4u) warp_step(sdata, lid, 4u, mask);
        if (ls > 2u) warp_step(sdata, lid, 2u, mask);
        if (ls > 1u) warp_step(sdata, lid, 1u, mask);
    }
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// ---- 6. completely unrolled for the block size --------------------------------------------------
// The block size is the template parameter WG, so every condition folds away. The block steps
// end at 64; the warp steps, as in 5, use __syncwarp().
template <unsigned WG, class T> __device__ __forceinline__ void tree_wg(T* sdata, unsigned lid) {
    if constexpr (WG > 512u) block_step(sdata, lid, 512u);
    if constexpr (WG > 256u) block_step(sdata, lid, 256u);
    if constexpr (WG > 128u) block_step(sdata, lid, 128u);
    if constexpr (WG > 64u) block_step(sdata, lid, 64u);
    if (lid < 32u) {
        constexpr unsigned mask = WG >= 32u ? 0xffffffffu : (1u << (WG & 31u)) - 1u;
        if constexpr (WG > 32u) warp_step(sdata, lid, 32u, mask);
        if constexpr (WG > 16u) warp_step(sdata, lid, 16u, mask);
        if constexpr (WG > 8u) warp_step(sdata, lid, 8u, mask);
        if constexpr (WG > 4u) warp_step(sdata, lid, 4u, mask);
        if constexpr (WG > 2u) warp_step(sdata, lid, 2u, mask);
        if constexpr (WG > 1u) warp_step(sdata, lid, 1u, mask);
    }
}

template <unsigned WG, class T> __device__ void unroll_all(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x;
    const unsigned i = blockIdx.x * (2u * WG) + lid;
    T v = i < unsigned(n) ? in[i] : T(0);
    if (i + WG < unsigned(n))
        v += in[i + WG];
    sdata[lid] = v;
    __syncthreads();
    tree_wg<WG>(sdata, lid);
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// ---- 7. many elements per thread (grid-stride) --------------------------------------------------
template <unsigned WG, class T> __device__ void grid_stride(const T* in, T* out, int n, T* sdata) {
    const unsigned lid = threadIdx.x;
    sdata[lid] = grid_stride_load(in, unsigned(n), WG);
    __syncthreads();
    tree_wg<WG>(sdata, lid);
    if (lid == 0)
        out[blockIdx.x] = sdata[0];
}

// The kernels are loaded by name from the fat binary, so the block size cannot be a template
// argument chosen at the launch site as in Harris's host code: the kernel branches once, on the
// (block-uniform) blockDim.x, to the instantiation for it. OpenCL gets WG as a compile-time define
// instead. A size that is not a power of two up to 1024 traps (the host rejects it first).
#define DUET_RED_DISPATCH_WG(FN, T)                                                                \
    switch (blockDim.x) {                                                                          \
    case 1024: FN<1024, T>(in, out, n, s); break;                                                  \
    case 512: FN<512, T>(in, out, n, s); break;                                                    \
    case 256: FN<256, T>(in, out, n, s); break;                                                    \
    case 128: FN<128, T>(in, out, n, s); break;                                                    \
    case 64: FN<64, T>(in, out, n, s); break;                                                      \
    case 32: FN<32, T>(in, out, n, s); break;                                                      \
    case 16: FN<16, T>(in, out, n, s); break;                                                      \
    case 8: FN<8, T>(in, out, n, s); break;                                                        \
    case 4: FN<4, T>(in, out, n, s); break;                                                        \
    case 2: FN<2, T>(in, out, n, s); break;                                                        \
    case 1: FN<1, T>(in, out, n, s); break;                                                        \
    default: __trap();                                                                             \
    }

// ---- 8. warp shuffles ---------------------------------------------------------------------------
template <class T> __device__ void shuffle(const T* in, T* out, int n, T* sdata) {
    const T total = block_sum_shuffle(grid_stride_load(in, unsigned(n), blockDim.x), sdata);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}

// ---- 9. a single pass with atomics --------------------------------------------------------------
template <class T> __device__ void atomic_pass(const T* in, T* out, int n, T* sdata) {
    const T total = block_sum_shuffle(grid_stride_load(in, unsigned(n), blockDim.x), sdata);
    if (threadIdx.x == 0)
        atomic_add_to(out, total);
}

} // namespace

// ---- the kernels --------------------------------------------------------------------------------

extern "C" __global__ void reduce_interleaved_i32(const int* in, int* out, int n,
                                                  duet_local_t sdata) {
    interleaved(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_interleaved_f32(const float* in, float* out, int n,
                                                  duet_local_t sdata) {
    interleaved(in, out, n, DUET_LOCAL(float, sdata));
}
extern "C" __global__ void reduce_strided_i32(const int* in, int* out, int n, duet_local_t sdata) {
    strided(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_strided_f32(const float* in, float* out, int n,
                                              duet_local_t sdata) {
    strided(in, out, n, DUET_LOCAL(float, sdata));
}
extern "C" __global__ void reduce_sequential_i32(const int* in, int* out, int n,
                                                 duet_local_t sdata) {
    sequential(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_sequential_f32(const float* in, float* out, int n,
                                                 duet_local_t sdata) {
    sequential(in, out, n, DUET_LOCAL(float, sdata));
}
extern "C" __global__ void reduce_first_add_i32(const int* in, int* out, int n,
                                                duet_local_t sdata) {
    first_add(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_first_add_f32(const float* in, float* out, int n,
                                                duet_local_t sdata) {
    first_add(in, out, n, DUET_LOCAL(float, sdata));
}
extern "C" __global__ void reduce_unroll_last_i32(const int* in, int* out, int n,
                                                  duet_local_t sdata) {
    unroll_last(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_unroll_last_f32(const float* in, float* out, int n,
                                                  duet_local_t sdata) {
    unroll_last(in, out, n, DUET_LOCAL(float, sdata));
}
extern "C" __global__ void reduce_unroll_all_i32(const int* in, int* out, int n,
                                                 duet_local_t sdata) {
    int* s = DUET_LOCAL(int, sdata);
    DUET_RED_DISPATCH_WG(unroll_all, int)
}
extern "C" __global__ void reduce_unroll_all_f32(const float* in, float* out, int n,
                                                 duet_local_t sdata) {
    float* s = DUET_LOCAL(float, sdata);
    DUET_RED_DISPATCH_WG(unroll_all, float)
}
extern "C" __global__ void reduce_grid_stride_i32(const int* in, int* out, int n,
                                                  duet_local_t sdata) {
    int* s = DUET_LOCAL(int, sdata);
    DUET_RED_DISPATCH_WG(grid_stride, int)
}
extern "C" __global__ void reduce_grid_stride_f32(const float* in, float* out, int n,
                                                  duet_local_t sdata) {
    float* s = DUET_LOCAL(float, sdata);
    DUET_RED_DISPATCH_WG(grid_stride, float)
}
extern "C" __global__ void reduce_shuffle_i32(const int* in, int* out, int n, duet_local_t sdata) {
    shuffle(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_shuffle_f32(const float* in, float* out, int n,
                                              duet_local_t sdata) {
    shuffle(in, out, n, DUET_LOCAL(float, sdata));
}
extern "C" __global__ void reduce_atomic_i32(const int* in, int* out, int n, duet_local_t sdata) {
    atomic_pass(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_atomic_f32(const float* in, float* out, int n,
                                             duet_local_t sdata) {
    atomic_pass(in, out, n, DUET_LOCAL(float, sdata));
}
