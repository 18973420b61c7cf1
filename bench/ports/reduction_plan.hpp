#pragma once
// The cuda-samples reduction's host wrapper (reduction_kernel.cu's reduce<T>) and driver
// (reduction.cpp's getNumBlocksAndThreads and benchmarkReduce, cpuFinalReduction=false) as data:
// which kernel instantiation each pass launches, with how many blocks, threads and bytes of
// dynamic shared memory, until one value is left. The sample's own rules, quirks included.
#include <cstddef>
#include <string>
#include <vector>

namespace ports {

struct ReducePass {
    std::string kernel; // the C++ name expression: "reduce6<int, 256, true>"
    unsigned size = 0;  // elements in
    unsigned threads = 0, blocks = 0;
    std::size_t shared_bytes = 0;
};

// The sample's defaults (reduction.cpp runTest): 2^24 elements, 256 threads at most, kernel 7,
// 64 blocks at most for kernels 6 and up.
struct ReduceConfig {
    std::string type = "int"; // int, float or double
    std::size_t type_size = 4;
    int kernel = 7;
    unsigned size = 1u << 24;
    unsigned max_threads = 256, max_blocks = 64;
};

// The first pass over the input, then the passes over the partial sums on the GPU (each after a
// device-to-device copy of its input), as benchmarkReduce runs them.
std::vector<ReducePass> reduce_plan(const ReduceConfig& c);

} // namespace ports
