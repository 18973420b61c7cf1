// vecadd shaped for a CPU: c = a + b with a few work-items per core, each a contiguous chunk
// walked in vectors of the device's preferred float width (CPU_VW, passed by the host from
// CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: 8 for AVX2, 16 for AVX-512). A core's hardware
// prefetcher follows three straight streams; nothing depends on the compiler vectorising across
// work-items. Arrays larger than the device's cache are written with non-temporal stores
// (cpu_stream.clh): c is not read before it is written. Correct on any device (slow on a GPU,
// whose neighbouring work-items should touch neighbouring addresses). Twin:
// kernels_cu/vecadd_cpu.cu.

#include "cpu_stream.clh"

// Work-item g of G takes elements [g * chunk, min(n, (g + 1) * chunk)), chunk a whole number of
// vectors: every vector but the last work-item's tail is whole. Any global size works.
__kernel void vecadd_cpu(__global const float* restrict a, __global const float* restrict b,
                         __global float* restrict c, const int n) {
    const uint g = (uint)get_global_id(0), G = (uint)get_global_size(0);
    const uint un = (uint)n;
    const uint vecs = (un + CPU_VW - 1) / CPU_VW;
    const uint chunk = (vecs + G - 1) / G * CPU_VW;
    const uint begin = min(un, g * chunk), end = min(un, begin + chunk);
    uint i = begin;
    // begin is a multiple of CPU_VW: c + begin is aligned where c is (a buffer's base always is).
    if (cpu_stream(12ul * un) && cpu_aligned(c + begin)) {
        for (; i + CPU_VW <= end; i += CPU_VW)
            STREAM_STORE(VLOAD(0, a + i) + VLOAD(0, b + i), c + i);
        write_mem_fence(CLK_GLOBAL_MEM_FENCE); // streamed stores are weakly ordered
    }
    for (; i + CPU_VW <= end; i += CPU_VW)
        VSTORE(VLOAD(0, a + i) + VLOAD(0, b + i), 0, c + i);
    for (; i < end; ++i)
        c[i] = a[i] + b[i];
}
