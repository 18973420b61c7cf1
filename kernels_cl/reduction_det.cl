// Reduction, deterministic (det_f32): a float sum whose bits depend on the input alone, not on
// the device, its compute units, the work-group size or the scheduling, and are the same in
// kernels_cu/reduction_det.cu (same kernel name, same arguments, same additions in the same
// order).
//
// The order of additions is fixed by the input size alone:
// - Work-group g sums the fixed chunk g of the input: DET_FLOATS values in the first pass, then
//   DET_PAIRS (sum, compensation) pairs in the passes after, until one pair is left (the host
//   repeats the kernel; every pass's shape follows from n).
// - Inside a chunk, DET_LANES (256) virtual lanes: lane v adds, in order, the 4 values of float4
//   number v, v + 256, v + 512, ... of the chunk (pairs: pair v, v + 256, ...), then the lanes'
//   results meet in a fixed binary tree in local memory (lane v takes lane v + s, s = 128 .. 1).
//   A work-group of L work-items runs lanes lid, lid + L, ...: any L gives the same additions,
//   so --local changes the speed, never the bits. No sub-group reduction (their order is the
//   implementation's), no atomics.
// - Every addition is compensated: TwoSum (Knuth) gives s + x exactly as the float t = s + x
//   and its rounding error e, which goes to a second accumulator c; pairs add as (s1 + s2,
//   (c1 + c2) + e). The result is s + c: within about one rounding of the exact sum plus
//   n u^2 sum|x| (u = 2^-24), where plain float sums are off by up to depth * u * sum|x|.
// Only additions and subtractions: no multiply for a compiler to fuse into an fma, and no
// reassociation without fast-math (which Duet never passes unless asked); so CUDA's and
// OpenCL's compilers must produce the same bits.
//
// Arguments: in (n floats, or n pairs when pairs != 0, as 2n floats), out (2 floats, sum and
// compensation, per work-group), n (values or pairs), pairs.
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

// (s, c) += x: s + x rounded into s, its exact rounding error added to c.
#define DET_ADD(s, c, x)                                                                           \
    do {                                                                                           \
        const float t_ = (s) + (x);                                                                \
        const float b_ = t_ - (s);                                                                 \
        const float e_ = ((s) - (t_ - b_)) + ((x)-b_);                                             \
        (s) = t_;                                                                                  \
        (c) = (c) + e_;                                                                            \
    } while (0)
// (s, c) += (s2, c2)
#define DET_MERGE(s, c, s2, c2)                                                                    \
    do {                                                                                           \
        const float t_ = (s) + (s2);                                                               \
        const float b_ = t_ - (s);                                                                 \
        const float e_ = ((s) - (t_ - b_)) + ((s2)-b_);                                            \
        (s) = t_;                                                                                  \
        (c) = ((c) + (c2)) + e_;                                                                   \
    } while (0)

// Lane v of chunk `base` (in floats): float4 number v + 256 j, j = 0, 1, ..., x, y, z, w in turn.
// A whole chunk reads float4s; the last, partial one reads floats with zeros past n (which of
// the two a chunk takes follows from n, like everything else here).
void det_lane_floats(__global const float* in, const uint n, const uint base, const uint v,
                     float* s, float* c) {
    float ss = 0.0f, cc = 0.0f;
    if (base + DET_FLOATS <= n) {
        __global const float4* p = (__global const float4*)(in + base);
        for (uint j = 0; j < DET_FLOATS / (4 * DET_LANES); ++j) {
            const float4 x = p[v + j * DET_LANES];
            DET_ADD(ss, cc, x.x);
            DET_ADD(ss, cc, x.y);
            DET_ADD(ss, cc, x.z);
            DET_ADD(ss, cc, x.w);
        }
    } else {
        for (uint j = 0; j < DET_FLOATS / (4 * DET_LANES); ++j)
            for (uint e = 0; e < 4; ++e) {
                const uint i = base + 4 * (v + j * DET_LANES) + e;
                const float x = i < n ? in[i] : 0.0f;
                DET_ADD(ss, cc, x);
            }
    }
    *s = ss;
    *c = cc;
}

// Lane v of chunk `base` (in pairs): pair number v + 256 j, j = 0, 1, ...
void det_lane_pairs(__global const float* in, const uint n, const uint base, const uint v,
                    float* s, float* c) {
    float ss = 0.0f, cc = 0.0f;
    for (uint j = 0; j < DET_PAIRS / DET_LANES; ++j) {
        const uint i = base + v + j * DET_LANES;
        if (i < n) {
            const float2 x = ((__global const float2*)in)[i];
            DET_MERGE(ss, cc, x.x, x.y);
        }
    }
    *s = ss;
    *c = cc;
}

__kernel void reduce_det_f32(__global const float* in, __global float* out, const int n,
                             const int pairs) {
    __local float sd[2 * DET_LANES];
    const uint lid = (uint)get_local_id(0), ls = (uint)get_local_size(0);
    const uint g = (uint)get_group_id(0);
    const uint un = (uint)n;
    for (uint v = lid; v < DET_LANES; v += ls) {
        float s, c;
        if (pairs)
            det_lane_pairs(in, un, g * DET_PAIRS, v, &s, &c);
        else
            det_lane_floats(in, un, g * DET_FLOATS, v, &s, &c);
        sd[2 * v] = s;
        sd[2 * v + 1] = c;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint h = DET_LANES / 2; h >= 1; h /= 2) {
        for (uint v = lid; v < h; v += ls) {
            float s = sd[2 * v], c = sd[2 * v + 1];
            DET_MERGE(s, c, sd[2 * (v + h)], sd[2 * (v + h) + 1]);
            sd[2 * v] = s;
            sd[2 * v + 1] = c;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[2 * g] = sd[0];
        out[2 * g + 1] = sd[1];
    }
}
