// Written only in CUDA C++: each block of TILE threads (a power of two) sums its tile of `in`
// through shared memory, scaled, with a device function template. Duet runs this one text on CUDA
// devices directly and on OpenCL devices that take SPIR-V through clang and llvm-spirv
// (kernels_cl/duet_cuda_c.clh); elsewhere the load names why it cannot.
#ifndef TILE
#define TILE 128
#endif

template <class T> __device__ __forceinline__ T scaled(T v, T k) {
    return v * k;
}

extern "C" __global__ void __launch_bounds__(TILE)
    tile_sums(int n, float k, const float* __restrict__ in, float* __restrict__ sums) {
    __shared__ float part[TILE];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? scaled(in[i], k) : 0.0f;
    __syncthreads();
    for (int step = TILE / 2; step > 0; step /= 2) {
        if (threadIdx.x < step)
            part[threadIdx.x] += part[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        sums[blockIdx.x] = part[0];
}
