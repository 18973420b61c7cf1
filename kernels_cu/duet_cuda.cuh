// Shared by every kernels_cu/ file: the names OpenCL C has built in, so the CUDA kernels read
// step for step like their OpenCL twins, and the one way to reach dynamic shared memory.
#pragma once

// A duet::local(bytes) argument arrives in CUDA as a byte offset into the launch's dynamic
// shared memory (CUDA has a single dynamic shared array per launch; the backend lays the
// local arguments out in it, 16-byte aligned, in argument order). A kernel may instead have no
// parameter for its local arguments and declare `extern __shared__` memory: the backend then
// makes them that array, laid out the same way (the first at byte 0).
typedef unsigned int duet_local_t;
#ifndef __OPENCL_CPP_VERSION__
extern __shared__ __align__(16) unsigned char duet_dynamic_smem[];
#define DUET_LOCAL(type, arg) (reinterpret_cast<type*>(duet_dynamic_smem + (arg)))
#endif // C++ for OpenCL (the SPIR-V route, kernels_cl/duet_cuda_c.clh) has no such array

__device__ __forceinline__ int duet_global_id(int d) {
    return d == 0 ? blockIdx.x * blockDim.x + threadIdx.x
                  : d == 1 ? blockIdx.y * blockDim.y + threadIdx.y
                           : blockIdx.z * blockDim.z + threadIdx.z;
}
__device__ __forceinline__ int duet_global_size(int d) {
    return d == 0 ? gridDim.x * blockDim.x : d == 1 ? gridDim.y * blockDim.y : gridDim.z * blockDim.z;
}
