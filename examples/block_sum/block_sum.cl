// Each work-group sums its get_local_size(0) inputs (a power of two) in local memory, given by
// the host as duet::local(bytes), and writes one partial sum.
__kernel void block_sum(__global const float* in, __global float* partial, __local float* tile,
                        const int n) {
    const int i = get_global_id(0), l = get_local_id(0);
    tile[l] = i < n ? in[i] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (l < s)
            tile[l] += tile[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        partial[get_group_id(0)] = tile[0];
}
