#pragma once
// From duet's launch description (Range, KernelArgs) to cudaLaunchKernel's (grid, block,
// argument pointers, dynamic shared memory), with every limit checked before CUDA sees it.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include <duet/backend/launch_checks.hpp>
#include <duet/kernel_arg.hpp>
#include <duet/range.hpp>

#include "cuda_tile_map.hpp"

namespace duet::cuda {

class CudaKernel;

// What kernels_cu/duet_cuda.cuh calls duet_local_t: a byte offset into dynamic shared memory.
using LocalOffset = unsigned int;
// Local arguments are laid out at this alignment, in argument order (duet_cuda.cuh relies on it).
inline constexpr std::size_t local_alignment = 16;

// One launch, ready for cudaLaunchKernel. argv points into the plan's own vectors and into the
// KernelArg span it was made from, so both must outlive the launch call (not the launch).
//
// duet::local arguments: a kernel whose parameters are as many as the arguments takes each as a
// duet_local_t byte offset (kernels_cu/duet_cuda.cuh); a kernel with no parameter for any of
// them (`extern __shared__ int bins[];`, the parameter count from cudaFuncGetParamInfo) takes
// them as its dynamic shared memory. Either way the first starts at byte 0 and each next one at
// the first 16-byte boundary after the end of the one before, in argument order.
struct LaunchPlan {
    dim3 grid, block;
    std::size_t shared_bytes = 0;     // dynamic shared memory: all local arguments
    std::vector<void*> argv;          // one pointer per kernel parameter, to its value
    std::vector<void*> pointers;      // device addresses of buffer arguments
    std::vector<LocalOffset> offsets; // offsets of local arguments
    std::vector<TileMapParam> maps;   // tile-map arguments (CUtensorMap)
};

// What the runtime checks a launch of `kernel` against (Queue::launch_args): its parameter
// sizes, the block and grid limits of its device, its threads per block; duet::local arguments
// with no parameter are its dynamic shared memory.
LaunchContract launch_contract_of(const CudaKernel& kernel);

// Converts a launch the runtime has checked against launch_contract_of(kernel), with `local`
// its block (zeros: Range::driver_local, the block then comes from the occupancy API). Usage Errors
// for what only CUDA knows: buffers of another backend or device, local offsets past duet_local_t,
// shared memory past the device's opt-in. The kernel's device must be current (an opt-in for large
// shared memory may be set). `plan` is the queue's own, reused from launch to launch: its vectors
// keep their capacity, so a launch allocates nothing once the queue has seen as many arguments.
void plan_launch(CudaKernel& kernel, const Range& range, const std::array<std::size_t, 3>& local,
                 std::span<const KernelArg> args, LaunchPlan& plan);

} // namespace duet::cuda
