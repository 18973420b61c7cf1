// Vector add, c = a + b: the first kernel of every GPU course.

// Naive: one element per work-item; the global size is rounded up to the work-group size,
// so the bounds check keeps the extra work-items from writing past the end.
__kernel void vecadd_naive(__global const float* a, __global const float* b,
                           __global float* c, const int n) {
    const int i = (int)get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}

// Grid-stride loop with float4 loads: a fixed number of work-items walks the whole vector,
// four elements per access, so each memory transaction moves 16 bytes per work-item.
// The tail (n not a multiple of 4) is done one element at a time by the first work-items.
__kernel void vecadd_vec4(__global const float* a, __global const float* b,
                          __global float* c, const int n) {
    const int stride = (int)get_global_size(0);
    const int gid = (int)get_global_id(0);
    const int n4 = n / 4;
    __global const float4* a4 = (__global const float4*)a;
    __global const float4* b4 = (__global const float4*)b;
    __global float4* c4 = (__global float4*)c;
    for (int i = gid; i < n4; i += stride)
        c4[i] = a4[i] + b4[i];
    for (int i = n4 * 4 + gid; i < n; i += stride)
        c[i] = a[i] + b[i];
}
