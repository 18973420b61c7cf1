#pragma once
// The CPU-shaped ladder steps (the `cpu` variant of each app; kernels_cl/*_cpu.cl and their CUDA
// twins): the vector width they are built for and how many work-items they launch.
#include <cstddef>

#include <duet/duet.hpp>

#include "app.hpp"
#include "shape.hpp"

namespace duet::apps {

// The float vector width of the cpu steps: --define CPU_VW=W when given (4, 8 or 16), else the
// device's preferred float width (OpenCL; its native width where it prefers fewer than 4, as
// Intel's CPU runtime does), raised to 4 and capped at 16, else 8 (CUDA: its twins are built
// for 8).
std::size_t cpu_vector_width(const DeviceInfo& info, const RunConfig& cfg);
// Adds CPU_VW (and CPU_CACHE_BYTES, the device's cache size, and CPU_HAS_FMA where the device
// reports them) to `opts` unless the user defined them; returns the width.
std::size_t add_cpu_width(BuildOptions& opts, const DeviceInfo& info, const RunConfig& cfg);
// Work-items for a step that gives each one a contiguous chunk: CPU_TASKS_PER_CU (4) per compute
// unit, so that a core that finishes early takes another chunk; at least 1.
std::size_t cpu_tasks(const DeviceInfo& info, const RunConfig& cfg, const std::string& app);
// The fewest work-items that share `iterations` loop iterations so that none runs more than
// half the device's limit (DeviceInfo::max_loop_iterations); 1 where there is no limit.
std::size_t loop_bound_items(const DeviceInfo& info, std::size_t iterations);

// Work-groups of 1 x L work-items, L = `items` halving down to 1, each work-item a block of
// rows x cols outputs: conv5x5's cpu step (a group is a column of blocks that one core runs in
// turn; matmul's has shapes of its own, matmul_steps.cpp).
std::vector<Shape> cpu_block_shapes(std::size_t rows, std::size_t cols, std::size_t items);

// The hooks of a cpu step (step.hpp): its build takes the vector width (add_cpu_width).
std::shared_ptr<const StepHooks> cpu_width_hooks();

} // namespace duet::apps
