#pragma once
// One histogram kernel in both languages, written the way each language is written: the OpenCL
// one takes its bins as a __local int* parameter, the CUDA one declares them `extern __shared__`
// and has no parameter for them. The host launches both with the same arguments:
// (data, hist, n, duet::local(256 * sizeof(int))).
#include <vector>

namespace duet_test {

inline const char* const histogram_cl = R"(
__kernel void histogram(__global const int* data, __global int* hist, const int n,
                        __local int* bins) {
    const int l = get_local_id(0), ls = get_local_size(0), i = get_global_id(0);
    for (int b = l; b < 256; b += ls)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n)
        atomic_add(&bins[data[i] & 255], 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = l; b < 256; b += ls)
        if (bins[b] != 0)
            atomic_add(&hist[b], bins[b]);
}
)";

inline const char* const histogram_cu = R"(
extern "C" __global__ void histogram(const int* data, int* hist, int n) {
    extern __shared__ int bins[];
    const int l = threadIdx.x, ls = blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int b = l; b < 256; b += ls)
        bins[b] = 0;
    __syncthreads();
    if (i < n)
        atomicAdd(&bins[data[i] & 255], 1);
    __syncthreads();
    for (int b = l; b < 256; b += ls)
        if (bins[b] != 0)
            atomicAdd(&hist[b], bins[b]);
}
)";

// The input both backends' histogram tests launch on (n values in [0, 1000)) and the 256-bin
// histogram of their low bytes it must give.
struct HistogramCase {
    std::vector<int> data, want;
    explicit HistogramCase(int n) : data(n), want(256, 0) {
        for (int i = 0; i < n; ++i) {
            data[i] = (i * 7919 + 13) % 1000;
            ++want[data[i] & 255];
        }
    }
};

} // namespace duet_test
