#pragma once
// From duet's launch description (Range, KernelArgs) to cudaLaunchKernel's (grid, block,
// argument pointers, dynamic shared memory), with every limit checked before CUDA sees it.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <duet/kernel_arg.hpp>
#include <duet/range.hpp>

namespace duet::cuda {

class CudaKernel;

// What kernels_cu/duet_cuda.cuh calls duet_local_t: a byte offset into dynamic shared memory.
using LocalOffset = unsigned int;
// Local arguments are laid out at this alignment, in argument order (duet_cuda.cuh relies on it).
inline constexpr std::size_t local_alignment = 16;

// One launch, ready for cudaLaunchKernel. argv points into the plan's own vectors and into the
// KernelArg span it was made from, so both must outlive the launch call (not the launch).
struct LaunchPlan {
    dim3 grid, block;
    std::size_t shared_bytes = 0;     // dynamic shared memory: all local arguments
    std::vector<void*> argv;          // one pointer per argument, to its value
    std::vector<void*> pointers;      // device addresses of buffer arguments
    std::vector<LocalOffset> offsets; // offsets of local arguments
};

// The local size used when the Range has none: in 1D the largest of 256, 128, ..., 1 that
// divides the global size; 16x16 in 2D and 8x8x4 in 3D, each dimension falling back to smaller
// powers of two that divide; halved until the kernel can launch that many threads.
std::array<std::size_t, 3> default_local_size(const Range& range, std::size_t max_threads);

// Checks `range` and `args` against `kernel` and its device, and converts them. Usage Errors
// name the limit (threads per block, block dimensions, grid size, shared memory, arguments).
// The kernel's device must be current (an opt-in for large shared memory may be set).
LaunchPlan plan_launch(CudaKernel& kernel, const Range& range, std::span<const KernelArg> args);

} // namespace duet::cuda
