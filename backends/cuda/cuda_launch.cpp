// Launch planning: grid = global / local per dimension (the app rounds global up, never us),
// arguments as pointers to their values, local arguments as offsets into one dynamic shared
// memory block. CUDA's own errors for these cases (cudaErrorInvalidConfiguration, or garbage
// from a wrongly sized argument) say too little, so everything is checked here first.
#include "cuda_launch.hpp"

#include <climits>
#include <string>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "cuda_module.hpp"

namespace duet::cuda {

namespace {

// Largest power of two <= cap that divides `global`.
std::size_t dividing_power_of_two(std::size_t global, std::size_t cap) {
    std::size_t l = cap;
    while (l > 1 && global % l != 0)
        l /= 2;
    return l;
}

std::string dims_string(const std::array<std::size_t, 3>& v, int dims) {
    std::string s = std::to_string(v[0]);
    for (int d = 1; d < dims; ++d)
        s += "x" + std::to_string(v[d]);
    return s;
}

std::string kernel_on_device(const CudaKernel& k) {
    return "kernel " + k.name() + " on " + k.device().label();
}

const char* kind_name(KernelArg::Kind kind) {
    switch (kind) {
    case KernelArg::Kind::buffer:
        return "a buffer (a device pointer)";
    case KernelArg::Kind::local:
        return "duet::local() (a duet_local_t offset)";
    default:
        return "a scalar";
    }
}

} // namespace

std::array<std::size_t, 3> default_local_size(const Range& range, std::size_t max_threads) {
    static constexpr std::array<std::array<std::size_t, 3>, 3> caps{
        {{256, 1, 1}, {16, 16, 1}, {8, 8, 4}}};
    const auto& cap = caps[static_cast<std::size_t>(range.dims() - 1)];
    std::array<std::size_t, 3> local{1, 1, 1};
    for (int d = 0; d < range.dims(); ++d)
        local[d] = dividing_power_of_two(range.global()[d], cap[d]);
    // Halving a power-of-two divisor keeps it a divisor, so the result still tiles the range.
    while (local[0] * local[1] * local[2] > std::max<std::size_t>(max_threads, 1)) {
        auto& largest = local[0] >= local[1] && local[0] >= local[2] ? local[0]
                        : local[1] >= local[2]                       ? local[1]
                                                                     : local[2];
        largest /= 2;
    }
    return local;
}

LaunchPlan plan_launch(CudaKernel& kernel, const Range& range, std::span<const KernelArg> args) {
    const CudaDevice& dev = kernel.device();
    const DeviceLimits& lim = dev.limits();
    range.validate();

    const std::array<std::size_t, 3> local =
        range.has_local() ? range.local_size()
                          : default_local_size(range, kernel.max_work_group_size());
    const int dims = range.dims();
    // Built only when a check fails: launches are frequent, failures are not.
    const auto where = [&] {
        return "launching " + kernel_on_device(kernel) + " over " + range.to_string() +
               (range.has_local() ? "" : " (local size " + dims_string(local, dims) + " chosen)");
    };

    static const char axis[] = "xyz";
    LaunchPlan plan;
    std::array<unsigned, 3> block{1, 1, 1}, grid{1, 1, 1};
    for (int d = 0; d < 3; ++d) {
        if (local[d] > static_cast<std::size_t>(lim.max_block_dims[d]))
            throw Error::usage(where() + ": the local size in " + axis[d] + " is " +
                               std::to_string(local[d]) + ", over the device's limit of " +
                               std::to_string(lim.max_block_dims[d]) + " (maxThreadsDim)");
        const std::size_t g = range.global()[d] / local[d];
        if (g > static_cast<std::size_t>(lim.max_grid_dims[d]))
            throw Error::usage(where() + ": " + std::to_string(g) + " blocks in " + axis[d] +
                               ", over the device's grid limit of " +
                               std::to_string(lim.max_grid_dims[d]) +
                               " (maxGridSize); use a larger local size or fewer work-items");
        block[d] = static_cast<unsigned>(local[d]);
        grid[d] = static_cast<unsigned>(g);
    }
    const std::size_t threads = local[0] * local[1] * local[2];
    if (threads > kernel.max_work_group_size())
        throw Error::usage(where() + ": a block of " + dims_string(local, dims) + " = " +
                           std::to_string(threads) + " threads is over this kernel's limit of " +
                           std::to_string(kernel.max_work_group_size()) +
                           " threads per block (cudaFuncAttributeMaxThreadsPerBlock; the "
                           "device allows " +
                           std::to_string(lim.max_threads_per_block) +
                           ", the kernel's register use may allow fewer)");
    plan.block = dim3(block[0], block[1], block[2]);
    plan.grid = dim3(grid[0], grid[1], grid[2]);

    const auto& sizes = kernel.parameter_sizes();
    if (kernel.parameters_known() && sizes.size() != args.size())
        throw Error::usage(where() + ": the kernel takes " + std::to_string(sizes.size()) +
                           " arguments, " + std::to_string(args.size()) + " were given");

    // Sized up front: argv holds addresses of these elements, which must not move.
    plan.argv.resize(args.size());
    plan.pointers.resize(args.size());
    plan.offsets.resize(args.size());
    std::size_t shared = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const KernelArg& a = args[i];
        std::size_t size = 0;
        switch (a.kind) {
        case KernelArg::Kind::buffer: {
            if (!a.buffer)
                throw Error::usage(where() + ": argument " + std::to_string(i) +
                                   " is a null buffer");
            const auto* buf = dynamic_cast<const CudaBuffer*>(a.buffer);
            if (!buf)
                throw Error::usage(where() + ": argument " + std::to_string(i) +
                                   " is not CUDA device memory (it was allocated by another "
                                   "backend)");
            if (&buf->device() != &dev)
                throw Error::usage(where() + ": argument " + std::to_string(i) +
                                   " is a buffer on " + buf->device().label() +
                                   "; kernels can only use buffers of their own device");
            plan.pointers[i] = buf->ptr();
            plan.argv[i] = &plan.pointers[i];
            size = sizeof(void*);
            break;
        }
        case KernelArg::Kind::scalar:
            // cudaLaunchKernel copies the bytes during the call; it does not write them.
            plan.argv[i] = const_cast<unsigned char*>(a.value.data());
            size = a.size;
            break;
        case KernelArg::Kind::local: {
            const std::size_t offset = round_up(shared, local_alignment);
            if (a.size > UINT_MAX || offset > UINT_MAX - a.size)
                throw Error::usage(where() + ": local arguments of " +
                                   bytes_string(offset + a.size) +
                                   " in total do not fit in a duet_local_t offset");
            plan.offsets[i] = static_cast<LocalOffset>(offset);
            plan.argv[i] = &plan.offsets[i];
            shared = offset + a.size;
            size = sizeof(LocalOffset);
            break;
        }
        }
        if (kernel.parameters_known() && sizes[i] != size)
            throw Error::usage(where() + ": argument " + std::to_string(i) + " is " +
                               std::to_string(sizes[i]) + " bytes in the kernel, but " +
                               kind_name(a.kind) + " of " + std::to_string(size) +
                               " bytes was given (check the type: int vs size_t, float vs "
                               "double)");
    }
    plan.shared_bytes = shared;
    if (shared > 0)
        kernel.allow_dynamic_shared(shared);
    return plan;
}

} // namespace duet::cuda
