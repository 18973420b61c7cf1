#pragma once
// BabelStream's kernels through Duet, as upstream wrote them: CUDAStream.cu as it is (with the
// functors of babelstream_closures.cuh appended for its host-made lambdas) on devices that build
// CUDA C++, OCLStream.cpp's kernel string on devices that build OpenCL C, each kernel named in
// its own text. One host program: every argument is bound by the parameter name the kernel
// declares, and each kernel's grid follows from what it declares (stream_range).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace ports {

// What the port reads from BabelStream's files (under `dir`: src/cuda, src/ocl, src/Stream.h).
struct BabelStream {
    std::string cu_text, cu_origin; // CUDAStream.cu + babelstream_closures.cuh
    std::string cl_text, cl_origin; // OCLStream.cpp's kernel string, byte for byte
    std::size_t tbsize = 0, tbsize_dot = 0, unroll = 0;       // CUDAStream.h's and .cu's values
    double start_a = 0, start_b = 0, start_c = 0, scalar = 0; // Stream.h's start values
    std::string scalar_text;                                  // "0.4", as upstream passes it
};
BabelStream read_babelstream(const std::string& dir);

// The BuildOptions of one operation: both texts, each with the kernel's name in it, the
// defines upstream's builds pass (TYPE, startScalar, GRID_STRIDE, UNROLL_FACTOR, TBSIZE_DOT) and
// every CUDA instantiation (one NVRTC build serves them all).
duet::BuildOptions stream_options(const BabelStream& up, bool is_float,
                                  const std::string& cl_kernel, const std::string& cu_kernel);

// The kernel's arguments: each parameter it declares, by name, from `pool`; a parameter the
// pool lacks exits naming the kernel's signature.
using ArgPool = std::map<std::string, duet::KernelArg>;
std::vector<duet::NamedArg> bind(const duet::Kernel& k, const ArgPool& pool);

// The grid of a kernel over `n` elements, as upstream launches it: a kernel over a closure (a
// parameter `f`: CUDAStream's for_each_kernel) strides over the arrays, in CUDAStream's
// for_each grid (ceil(n / UNROLL_FACTOR / group) groups of TBSIZE, the group from the occupancy
// API and at most TBSIZE); a kernel over the arrays themselves (OCLStream's) takes one
// work-item per element, in groups the driver chooses.
duet::Range stream_range(const duet::Kernel& k, std::size_t n, const BabelStream& up);

// The dot's grid, as both upstream versions choose it: GPUs 4 groups per compute unit of the
// largest group (CUDA: TBSIZE_DOT; OpenCL: the device's largest, 1024 on NVIDIA's), CPUs one
// group per compute unit of twice the native double vector width.
struct DotShape {
    std::size_t groups = 0, group = 0;
};
DotShape dot_shape(const duet::Device& dev, const duet::Kernel& k, const BabelStream& up);

} // namespace ports
