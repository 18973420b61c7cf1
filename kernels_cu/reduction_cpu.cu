// The reduction shaped for a CPU (the twin of kernels_cl/reduction_cpu.cl): each thread sums one
// contiguous chunk in CPU_ACC x CPU_VW independent partial sums, thread 0 of the block adds the
// block's sums after one barrier. Same arguments and results as every reduction kernel; correct
// on a GPU and slow there (the chunked loads are uncoalesced).
#include "duet_cuda.cuh"

#ifndef CPU_VW
#error "CPU_VW is set by the host from the step record (apps/framework/cpu_steps.cpp)"
#endif
#ifndef CPU_ACC
#error "CPU_ACC is set by the host from the step record (apps/ladders/reduction_steps.cpp)"
#endif

template <class T> __device__ void reduce_cpu(const T* __restrict__ in, T* __restrict__ out, int n,
                                              T* sdata) {
    const unsigned lid = threadIdx.x, ls = blockDim.x;
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x, G = gridDim.x * blockDim.x;
    const unsigned un = static_cast<unsigned>(n), step = CPU_VW * CPU_ACC;
    const unsigned chunk = ((un + step - 1) / step + G - 1) / G * step;
    const unsigned begin = min(un, g * chunk), end = min(un, begin + chunk);
    T acc[step];
    for (unsigned l = 0; l < step; ++l)
        acc[l] = T(0);
    unsigned i = begin;
    for (; i + step <= end; i += step)
        for (unsigned l = 0; l < step; ++l)
            acc[l] += in[i + l];
    T sum = T(0);
    for (; i < end; ++i)
        sum += in[i];
    for (unsigned l = 0; l < step; ++l)
        sum += acc[l];
    sdata[lid] = sum;
    __syncthreads();
    if (lid == 0) {
        for (unsigned k = 1; k < ls; ++k)
            sum += sdata[k];
        out[blockIdx.x] = sum;
    }
}

extern "C" __global__ void reduce_cpu_i32(const int* in, int* out, int n, duet_local_t sdata) {
    reduce_cpu(in, out, n, DUET_LOCAL(int, sdata));
}
extern "C" __global__ void reduce_cpu_f32(const float* in, float* out, int n, duet_local_t sdata) {
    reduce_cpu(in, out, n, DUET_LOCAL(float, sdata));
}
