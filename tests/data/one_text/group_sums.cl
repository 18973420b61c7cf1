// Written only in OpenCL C 1.2: each work-group of GROUP (a power of two) sums its part of `in`
// through local memory and a barrier; `scale4` reads and writes float4 vectors and makes them
// with vector literals. Duet runs this one text on OpenCL devices directly and on CUDA devices
// through NVRTC (kernels_cu/duet_opencl_c.cuh).
#ifndef GROUP
#define GROUP 256
#endif

__kernel void group_sums(__global const float* restrict in, __global float* restrict sums,
                         const uint n) {
    __local float part[GROUP];
    const uint lid = get_local_id(0);
    const uint i = get_global_id(0);
    part[lid] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = GROUP / 2; step > 0; step /= 2) {
        if (lid < step)
            part[lid] += part[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = part[0];
}

__kernel void scale4(__global float* data, const float k, const uint n4) {
    const uint i = get_global_id(0);
    if (i >= n4)
        return;
    const float4 v = vload4(i, data) * (float4)(k); // one scalar for every element
    const float4 zero = (float4)((float2)(0.0f), (float2)(0.0f, 0.0f));
    vstore4((float4)(v.x, v.y, v.z, v.w) + zero, i, data);
}
