// Reduction (sum): the classic optimisation ladder (M. Harris, "Optimizing Parallel Reduction in
// CUDA"), written for OpenCL C 1.2 and correct on every device: GPUs with 32- or 64-wide
// hardware threads, Intel's 8/16/32-wide sub-groups, CPUs that run one work-item after another,
// and Oclgrind. The twin in kernels_cu/reduction.cu has the same kernel names, arguments and
// algorithm.
//
// Every kernel exists twice, reduce_<variant>_i32 (int) and reduce_<variant>_f32 (float): the
// body of a variant is one macro, DUET_RED_<VARIANT>(T), and each kernel is written out by name
// below it so that the name can be found in the source text. Every kernel has the arguments
//     (__global const T* in, __global T* out, const int n, __local T* sdata)
// reads in[0, n), and writes one partial sum per work-group to out[group id] (the atomic variant:
// adds its work-group's sum to out[0], which the host zeroes first). The host repeats a kernel,
// ping-ponging between two buffers, until one value is left. sdata holds one T per work-item.
//
// Requirements the host checks: the work-group size is a power of two (the trees halve it);
// n >= 1 and n <= INT_MAX. Indices are uint: with n <= INT_MAX, i + get_local_size(0) and the
// grid-stride steps cannot wrap.
//
// No kernel relies on lockstep execution: OpenCL 1.2 gives no warp-/wavefront-synchronous
// guarantee (work-items of a group may run in any interleaving, and a CPU runs them one after
// another between barriers), so every step that reads another work-item's local memory is
// separated from the write by barrier(CLK_LOCAL_MEM_FENCE), reached by every work-item of the
// group. Where the CUDA twin drops to __syncwarp() for the last 32 threads, this file keeps the
// full barrier, except on a device whose compiler takes NVIDIA's inline PTX (DUET_RED_PTX_WARP,
// below): there the work-items 0-31 are one warp, and the same warp barrier as CUDA's is there.

#if defined(DUET_HAS_SUBGROUPS) && DUET_HAS_SUBGROUPS
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

// WG: the work-group size the fully unrolled kernels (unroll_all, grid_stride) are compiled for:
// the host always passes the local size it launches with (the step record's shape, or --local;
// apps/ladders/reduction_steps.cpp), and a build without WG leaves those kernels out.
// reqd_work_group_size makes a launch with any other size an error instead of a wrong sum.
#if defined(WG) && WG > 1024
#error "WG above 1024: the unrolled trees start at 1024"
#endif

// ---- shared pieces: kernels_cl/reduction.clh ----------------------------------------------------
#include "reduction.clh"

// ---- 1. interleaved addressing, divergent branches ---------------------------------------------
// One element per work-item (zero past the end). At step s, work-items whose id is a multiple of
// 2s add the slot s above them: the active work-items are scattered over every warp, so every
// warp diverges, and % is slow.
#define DUET_RED_INTERLEAVED(T)                                                                    \
    const uint lid = (uint)get_local_id(0);                                                        \
    const uint ls = (uint)get_local_size(0);                                                       \
    const uint gid = (uint)get_group_id(0) * ls + lid;                                             \
    sdata[lid] = gid < (uint)n ? in[gid] : (T)0;                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    for (uint s = 1; s < ls; s *= 2) {                                                             \
        if (lid % (2u * s) == 0)                                                                   \
            sdata[lid] += sdata[lid + s];                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    }                                                                                              \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

__kernel void reduce_interleaved_i32(__global const int* in, __global int* out, const int n,
                                     __local int* sdata) {
    DUET_RED_INTERLEAVED(int)
}
__kernel void reduce_interleaved_f32(__global const float* in, __global float* out, const int n,
                                     __local float* sdata) {
    DUET_RED_INTERLEAVED(float)
}

// ---- 2. strided index, no divergence ------------------------------------------------------------
// The same pairs as 1, but work-item t does the pair at index 2st: the active work-items are
// contiguous (whole warps idle, none diverges). New problem: the strided local-memory accesses
// hit the same banks.
#define DUET_RED_STRIDED(T)                                                                        \
    const uint lid = (uint)get_local_id(0);                                                        \
    const uint ls = (uint)get_local_size(0);                                                       \
    const uint gid = (uint)get_group_id(0) * ls + lid;                                             \
    sdata[lid] = gid < (uint)n ? in[gid] : (T)0;                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    for (uint s = 1; s < ls; s *= 2) {                                                             \
        const uint index = 2u * s * lid;                                                           \
        if (index < ls)                                                                            \
            sdata[index] += sdata[index + s];                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    }                                                                                              \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

__kernel void reduce_strided_i32(__global const int* in, __global int* out, const int n,
                                 __local int* sdata) {
    DUET_RED_STRIDED(int)
}
__kernel void reduce_strided_f32(__global const float* in, __global float* out, const int n,
                                 __local float* sdata) {
    DUET_RED_STRIDED(float)
}

// ---- 3. sequential addressing -------------------------------------------------------------------
// The lower half adds the upper half, halving each step: contiguous work-items, conflict-free
// consecutive addresses. Half the work-items are idle from the first step.
#define DUET_RED_SEQUENTIAL(T)                                                                     \
    const uint lid = (uint)get_local_id(0);                                                        \
    const uint ls = (uint)get_local_size(0);                                                       \
    const uint gid = (uint)get_group_id(0) * ls + lid;                                             \
    sdata[lid] = gid < (uint)n ? in[gid] : (T)0;                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    for (uint s = ls / 2u; s > 0u; s >>= 1)                                                        \
        DUET_RED_STEP(1, s)                                                                        \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

__kernel void reduce_sequential_i32(__global const int* in, __global int* out, const int n,
                                    __local int* sdata) {
    DUET_RED_SEQUENTIAL(int)
}
__kernel void reduce_sequential_f32(__global const float* in, __global float* out, const int n,
                                    __local float* sdata) {
    DUET_RED_SEQUENTIAL(float)
}

// ---- 4. first add during the global load --------------------------------------------------------
// Each work-group covers 2 * local size elements and each work-item adds its two while loading,
// so no work-item is idle in the first step and half as many groups are launched.
#define DUET_RED_FIRST_ADD_LOAD(T)                                                                 \
    const uint lid = (uint)get_local_id(0);                                                        \
    const uint ls = (uint)get_local_size(0);                                                       \
    const uint i = (uint)get_group_id(0) * 2u * ls + lid;                                          \
    T v = i < (uint)n ? in[i] : (T)0;                                                              \
    if (i + ls < (uint)n)                                                                          \
        v += in[i + ls];                                                                           \
    sdata[lid] = v;                                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);

#define DUET_RED_FIRST_ADD(T)                                                                      \
    DUET_RED_FIRST_ADD_LOAD(T)                                                                     \
    for (uint s = ls / 2u; s > 0u; s >>= 1)                                                        \
        DUET_RED_STEP(1, s)                                                                        \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

__kernel void reduce_first_add_i32(__global const int* in, __global int* out, const int n,
                                   __local int* sdata) {
    DUET_RED_FIRST_ADD(int)
}
__kernel void reduce_first_add_f32(__global const float* in, __global float* out, const int n,
                                   __local float* sdata) {
    DUET_RED_FIRST_ADD(float)
}

// ---- 5. last warp unrolled ----------------------------------------------------------------------
// Harris: once s <= 32 only one warp is active, so the last six steps drop both the barrier and
// the `tid < s` test because a warp runs in lockstep. OpenCL 1.2 promises no such thing (64-wide
// AMD wavefronts, 8/16-wide Intel sub-groups, CPUs running work-items one by one), so here the
// loop stops at s > 32 and the last six steps are unrolled WITH their test and barrier: what is
// saved is the loop overhead, not the synchronisation (on NVIDIA's OpenCL, inline PTX gives
// these steps CUDA's warp barrier: DUET_RED_LAST_WARP above). The steps are guarded by the
// work-group size, which is the same for the whole group, so small groups (< 64) stay in bounds.
#define DUET_RED_UNROLL_LAST(T)                                                                    \
    DUET_RED_FIRST_ADD_LOAD(T)                                                                     \
    for (uint s = ls / 2u; s > 32u; s >>= 1)                                                       \
        DUET_RED_STEP(1, s)                                                                        \
    DUET_RED_LAST_WARP(ls)                                                                         \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

__kernel void reduce_unroll_last_i32(__global const int* in, __global int* out, const int n,
                                     __local int* sdata) {
    DUET_RED_UNROLL_LAST(int)
}
__kernel void reduce_unroll_last_f32(__global const float* in, __global float* out, const int n,
                                     __local float* sdata) {
    DUET_RED_UNROLL_LAST(float)
}

// ---- 6. completely unrolled for the work-group size ---------------------------------------------
// The work-group size is the compile-time constant WG (CUDA: a template parameter), so every
// step's condition folds away and the tree has no loop at all. The last six steps synchronise as
// in 5.
#define DUET_RED_TREE_WG                                                                           \
    DUET_RED_STEP(WG > 512, 512u)                                                                  \
    DUET_RED_STEP(WG > 256, 256u)                                                                  \
    DUET_RED_STEP(WG > 128, 128u)                                                                  \
    DUET_RED_STEP(WG > 64, 64u)                                                                    \
    DUET_RED_LAST_WARP((uint)WG)

#define DUET_RED_UNROLL_ALL(T)                                                                     \
    const uint lid = (uint)get_local_id(0);                                                        \
    const uint i = (uint)get_group_id(0) * (2u * WG) + lid;                                        \
    T v = i < (uint)n ? in[i] : (T)0;                                                              \
    if (i + WG < (uint)n)                                                                          \
        v += in[i + WG];                                                                           \
    sdata[lid] = v;                                                                                \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    DUET_RED_TREE_WG                                                                               \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

#ifdef WG
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_unroll_all_i32(__global const int* in, __global int* out, const int n, __local int* sdata) {
    DUET_RED_UNROLL_ALL(int)
}
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_unroll_all_f32(__global const float* in, __global float* out, const int n,
                      __local float* sdata) {
    DUET_RED_UNROLL_ALL(float)
}
#endif // WG

// ---- 7. many elements per work-item (grid-stride) -----------------------------------------------
// A fixed number of work-groups (enough to fill the device) walks the whole input, each
// work-item adding pairs in a register, then the unrolled tree of 6 once. Far fewer work-groups,
// so far fewer partial sums and tree steps per element; the second pass is one work-group.
#define DUET_RED_GRID_STRIDE(T)                                                                    \
    DUET_RED_GRID_STRIDE_LOAD(T, (uint)WG)                                                         \
    sdata[lid] = sum;                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    DUET_RED_TREE_WG                                                                               \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = sdata[0];

#ifdef WG
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_grid_stride_i32(__global const int* in, __global int* out, const int n, __local int* sdata) {
    DUET_RED_GRID_STRIDE(int)
}
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void
reduce_grid_stride_f32(__global const float* in, __global float* out, const int n,
                       __local float* sdata) {
    DUET_RED_GRID_STRIDE(float)
}
#endif // WG

// ---- 8. sub-group / warp shuffles ---------------------------------------------------------------
// The grid-stride load of 7, then the group's sum in registers where the device has sub-groups
// (sub_group_reduce_add; CUDA: __shfl_down_sync), which needs local memory only for one partial
// per sub-group. Devices without sub-groups get the local-memory tree (the host says which ran).
#define DUET_RED_SHUFFLE(T)                                                                        \
    DUET_RED_GRID_STRIDE_LOAD(T, (uint)get_local_size(0))                                          \
    const T total = duet_red_group_sum_##T(sum, sdata);                                            \
    if (lid == 0)                                                                                  \
        out[get_group_id(0)] = total;

__kernel void reduce_shuffle_i32(__global const int* in, __global int* out, const int n,
                                 __local int* sdata) {
    DUET_RED_SHUFFLE(int)
}
__kernel void reduce_shuffle_f32(__global const float* in, __global float* out, const int n,
                                 __local float* sdata) {
    DUET_RED_SHUFFLE(float)
}

// ---- 9. a single pass with atomics --------------------------------------------------------------
// As 8, but each work-group adds its sum straight into out[0] with one atomic: one launch, no
// second pass. The host zeroes out[0] first. Float sums come out in whatever order the groups
// finish, so they may differ from run to run in the last bits.
#define DUET_RED_ATOMIC(T)                                                                         \
    DUET_RED_GRID_STRIDE_LOAD(T, (uint)get_local_size(0))                                          \
    const T total = duet_red_group_sum_##T(sum, sdata);                                            \
    if (lid == 0)                                                                                  \
        duet_red_atomic_add_##T(out, total);

__kernel void reduce_atomic_i32(__global const int* in, __global int* out, const int n,
                                __local int* sdata) {
    DUET_RED_ATOMIC(int)
}
__kernel void reduce_atomic_f32(__global const float* in, __global float* out, const int n,
                                __local float* sdata) {
    DUET_RED_ATOMIC(float)
}
