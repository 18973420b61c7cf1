// Reduction, deterministic (det_f32): the twin of kernels_cl/reduction_det.cl, whose comments
// explain the order of additions. The same chunks, lanes, tree and compensated additions in the
// same order, so the two languages give the same bits on the same input. Only additions and
// subtractions (nothing for nvcc's default --fmad to contract), volatile-free: every value that
// crosses threads goes through shared memory between __syncthreads().
#include "duet_cuda.cuh"

#define DET_LANES 256
#ifndef DET_FLOATS
#error "DET_FLOATS is set by the host from the step record (apps/ladders/reduction_det.cpp)"
#endif
#ifndef DET_PAIRS
#error "DET_PAIRS is set by the host from the step record (apps/ladders/reduction_det.cpp)"
#endif
#if DET_FLOATS % (4 * DET_LANES) != 0 || DET_PAIRS % DET_LANES != 0
#error "det_f32: chunks of whole float4 (floats) or pairs per lane"
#endif

namespace {

// (s, c) += x: TwoSum, the rounding error of s + x into c.
__device__ __forceinline__ void det_add(float& s, float& c, float x) {
    const float t = __fadd_rn(s, x);
    const float b = __fsub_rn(t, s);
    const float e = __fadd_rn(__fsub_rn(s, __fsub_rn(t, b)), __fsub_rn(x, b));
    s = t;
    c = __fadd_rn(c, e);
}
// (s, c) += (s2, c2)
__device__ __forceinline__ void det_merge(float& s, float& c, float s2, float c2) {
    const float t = __fadd_rn(s, s2);
    const float b = __fsub_rn(t, s);
    const float e = __fadd_rn(__fsub_rn(s, __fsub_rn(t, b)), __fsub_rn(s2, b));
    s = t;
    c = __fadd_rn(__fadd_rn(c, c2), e);
}

__device__ __forceinline__ void det_lane_floats(const float* in, unsigned n, unsigned base,
                                                unsigned v, float& s, float& c) {
    s = 0.0f;
    c = 0.0f;
    if (base + DET_FLOATS <= n) {
        const float4* p = reinterpret_cast<const float4*>(in + base);
#pragma unroll
        for (unsigned j = 0; j < DET_FLOATS / (4 * DET_LANES); ++j) {
            const float4 x = p[v + j * DET_LANES];
            det_add(s, c, x.x);
            det_add(s, c, x.y);
            det_add(s, c, x.z);
            det_add(s, c, x.w);
        }
    } else {
        for (unsigned j = 0; j < DET_FLOATS / (4 * DET_LANES); ++j)
            for (unsigned e = 0; e < 4; ++e) {
                const unsigned i = base + 4 * (v + j * DET_LANES) + e;
                det_add(s, c, i < n ? in[i] : 0.0f);
            }
    }
}

__device__ __forceinline__ void det_lane_pairs(const float* in, unsigned n, unsigned base,
                                               unsigned v, float& s, float& c) {
    s = 0.0f;
    c = 0.0f;
#pragma unroll
    for (unsigned j = 0; j < DET_PAIRS / DET_LANES; ++j) {
        const unsigned i = base + v + j * DET_LANES;
        if (i < n) {
            const float2 x = reinterpret_cast<const float2*>(in)[i];
            det_merge(s, c, x.x, x.y);
        }
    }
}

} // namespace

extern "C" __global__ void reduce_det_f32(const float* __restrict__ in, float* __restrict__ out,
                                          int n, int pairs) {
    __shared__ float sd[2 * DET_LANES];
    const unsigned lid = threadIdx.x, ls = blockDim.x, g = blockIdx.x;
    const unsigned un = static_cast<unsigned>(n);
    for (unsigned v = lid; v < DET_LANES; v += ls) {
        float s, c;
        if (pairs)
            det_lane_pairs(in, un, g * DET_PAIRS, v, s, c);
        else
            det_lane_floats(in, un, g * DET_FLOATS, v, s, c);
        sd[2 * v] = s;
        sd[2 * v + 1] = c;
    }
    __syncthreads();
    for (unsigned h = DET_LANES / 2; h >= 1; h /= 2) {
        for (unsigned v = lid; v < h; v += ls) {
            float s = sd[2 * v], c = sd[2 * v + 1];
            det_merge(s, c, sd[2 * (v + h)], sd[2 * (v + h) + 1]);
            sd[2 * v] = s;
            sd[2 * v + 1] = c;
        }
        __syncthreads();
    }
    if (lid == 0) {
        out[2 * g] = sd[0];
        out[2 * g + 1] = sd[1];
    }
}
