// The reduction shaped for a CPU: a few work-groups per core, each work-item summing one
// contiguous chunk of the input in CPU_ACC independent vector accumulators of the device's
// preferred width (CPU_VW), so that a core streams straight through memory with several additions
// in flight and no barrier in the loop. The work-group's sums (one per work-item) are added by its
// first work-item after one barrier. Arguments as every reduction kernel (kernels_cl/reduction.cl):
//     (__global const T* in, __global T* out, const int n, __local T* sdata)
// out[group] = the group's sum; sdata holds one T per work-item. Any work-group size works.
// Correct on any device; on a GPU the chunked loads are uncoalesced (slow, not wrong).
// Twin: kernels_cu/reduction_cpu.cu.
//
// Float order (the host's bound): a value goes through at most chunk / (CPU_VW * CPU_ACC) + 1
// additions in its accumulator lane, CPU_ACC - 1 adding the accumulators, CPU_VW - 1 adding the
// lanes, CPU_VW * CPU_ACC for the tail, and the work-group's local size - 1 in the group's sum.

#include "cpu_vector.clh"
#ifndef CPU_ACC
#error "CPU_ACC is set by the host from the step record (apps/ladders/reduction_steps.cpp)"
#endif
#if CPU_ACC == 1
#define DUET_RED_CPU_MORE
#define DUET_RED_CPU_JOIN
#elif CPU_ACC == 2
#define DUET_RED_CPU_MORE acc1 += v[1];
#define DUET_RED_CPU_JOIN acc0 += acc1;
#elif CPU_ACC == 4
#define DUET_RED_CPU_MORE                                                                          \
    acc1 += v[1];                                                                                  \
    acc2 += v[2];                                                                                  \
    acc3 += v[3];
#define DUET_RED_CPU_JOIN                                                                          \
    acc0 += acc1;                                                                                  \
    acc0 += acc2;                                                                                  \
    acc0 += acc3;
#else
#error "CPU_ACC: 1, 2 or 4 accumulators"
#endif

#define DUET_RED_CPU(T)                                                                            \
    const uint lid = (uint)get_local_id(0), ls = (uint)get_local_size(0);                          \
    const uint g = (uint)get_global_id(0), G = (uint)get_global_size(0);                           \
    const uint un = (uint)n, step = CPU_VW * CPU_ACC;                                              \
    const uint chunk = ((un + step - 1) / step + G - 1) / G * step;                                \
    const uint begin = min(un, g * chunk), end = min(un, begin + chunk);                           \
    /* begin is a multiple of step where the chunk has values (a buffer's base is aligned for   \
       the largest type): whole aligned vectors through a vector pointer, into accumulators the   \
       compiler keeps in registers (vloads into an array of them indexed in a loop stayed in   \
       memory in PoCL's build, a store and a load around every addition, each vload8 in pieces) */\
    __global const VEC(T)* v = (__global const VEC(T)*)in + begin / CPU_VW;                        \
    const uint whole = (end - begin) / step;                                                       \
    VEC(T) acc0 = (VEC(T))(0), acc1 = (VEC(T))(0), acc2 = (VEC(T))(0), acc3 = (VEC(T))(0);        \
    for (uint k = 0; k < whole; ++k, v += CPU_ACC) {                                               \
        acc0 += v[0];                                                                              \
        DUET_RED_CPU_MORE                                                                          \
    }                                                                                              \
    uint i = begin + whole * step;                                                                 \
    T tail = 0;                                                                                    \
    for (; i < end; ++i)                                                                           \
        tail += in[i];                                                                             \
    DUET_RED_CPU_JOIN                                                                              \
    T lanes[CPU_VW];                                                                               \
    VSTORE(acc0, 0, lanes);                                                                        \
    T sum = tail;                                                                                  \
    for (int l = 0; l < CPU_VW; ++l)                                                               \
        sum += lanes[l];                                                                           \
    /* Every work-item reaches the barrier, groups of one too: PoCL 3.1 hangs (groups of 2 to 16) \
       or loses sums (32 and up) when the barrier follows an early return, even one the whole     \
       group takes (if (ls == 1) return;), which OpenCL allows. */                                \
    sdata[lid] = sum;                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
    if (lid == 0) {                                                                                \
        for (uint k = 1; k < ls; ++k)                                                              \
            sum += sdata[k];                                                                       \
        out[get_group_id(0)] = sum;                                                                \
    }

__kernel void reduce_cpu_i32(__global const int* restrict in, __global int* restrict out,
                             const int n, __local int* sdata) {
    DUET_RED_CPU(int)
}
__kernel void reduce_cpu_f32(__global const float* restrict in, __global float* restrict out,
                             const int n, __local float* sdata) {
    DUET_RED_CPU(float)
}
