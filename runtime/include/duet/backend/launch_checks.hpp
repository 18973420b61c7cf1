#pragma once
// Launch contracts checked once for both backends: arguments against the kernel's signature,
// and ranges against the device's limits, before any driver sees them.
#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <duet/kernel_arg.hpp>
#include <duet/range.hpp>

namespace duet {

// One kernel parameter as the backend's API describes it.
struct KernelParam {
    // unknown: only the size is known (CUDA), or nothing is (size 0).
    enum class Kind { unknown, buffer, scalar, local };
    Kind kind = Kind::unknown;
    std::size_t size = 0; // bytes as passed (a pointer's size for buffers); 0 when unknown
    std::string type;     // "const float*", "int" (empty when unknown)
    std::string name;     // "x" (empty when unknown)
};

// A kernel's parameter list. `known` false: the backend could not tell (nothing is checked).
struct KernelSignature {
    bool known = false;
    std::vector<KernelParam> params;
    // "(global const float* x, int n)", or "(8 bytes, 4 bytes)" where only sizes are known.
    std::string to_string() const;
};

// What a kernel parameter of Kind::unknown receives for a duet::local argument under Duet's
// own convention (kernels_cu/duet_cuda.cuh's duet_local_t byte offset).
inline constexpr std::size_t local_offset_param_size = sizeof(unsigned int);

// Why `args` cannot be passed to a kernel of `signature` (empty when they can): count
// (an unset argument is named), buffer/scalar/local kind, scalar size. The message names the
// expected and given counts and the signature. `args` are those that map onto parameters.
std::string kernel_args_problem(const KernelSignature& signature, std::span<const KernelArg> args);

// Why `args` (those that map onto parameters) take more parameter space than `limit` bytes
// (empty when they fit, or when `limit` is 0: unknown).
std::string parameter_bytes_problem(std::span<const KernelArg> args, std::size_t limit);

// A device's launch limits; a zero entry is "no limit known".
struct LaunchLimits {
    int max_dims = 3;
    std::size_t max_group_items = 0;                // work-items per group for this kernel
    std::array<std::size_t, 3> max_local{0, 0, 0};  // work-items per group, per dimension
    std::array<std::size_t, 3> max_groups{0, 0, 0}; // work-groups (CUDA grid), per dimension
    std::size_t max_global = 0;                     // work-items per dimension
    std::size_t max_total = 0;                      // work-items in all dimensions together
    std::size_t max_local_bytes = 0;                // duet::local bytes per launch (0: not here)
    std::size_t max_parameter_bytes = 0;            // argument bytes in all (DeviceInfo's)
    // The backend's names for the limits, put after the numbers in messages ("maxThreadsDim").
    const char* local_name = "";
    const char* groups_name = "";
    const char* group_items_name = "";
};

// What a queue's backend gives the runtime to check a launch against (Queue::launch_contract):
// the kernel's parameters and the device's and the kernel's limits.
struct LaunchContract {
    const KernelSignature* signature = nullptr; // owned by the kernel; nullptr: nothing known
    LaunchLimits limits;
    // The CUDA idiom: when every duet::local argument has no parameter (the kernel has exactly
    // that many fewer), they become the kernel's `extern __shared__` memory.
    bool surplus_locals_are_shared = false;
};

// True when `args` passed to a kernel of `signature` hold duet::local arguments and exactly
// those have no parameter (the surplus_locals_are_shared case).
bool locals_beyond_params(const KernelSignature& signature, std::span<const KernelArg> args);

// Why `range` run with work-groups of `local` cannot launch within `limits` (empty when it
// can): zero sizes, global not a multiple of local, size_t overflow of products, limits.
std::string launch_range_problem(const Range& range, const std::array<std::size_t, 3>& local,
                                 const LaunchLimits& limits);

// The one default work-group rule, used by both backends when a Range has no local size: in 1D
// the largest of 256, 128, ..., 1 that divides the global size; 16x16 in 2D and 8x8x4 in 3D,
// each dimension falling back to smaller powers of two that divide; halved until the kernel can
// launch that many work-items.
std::array<std::size_t, 3> default_local_size(const Range& range, std::size_t max_items);

} // namespace duet
