// Launch planning: grid = global / local per dimension (the app rounds global up, never us),
// arguments as pointers to their values, local arguments laid out in one dynamic shared memory
// block (as duet_local_t offsets, or as `extern __shared__` memory when the kernel has no
// parameter for them), tile maps (duet::tile_map) as the CUtensorMap they describe
// (cuda_tile_map.cpp). The range and argument contracts are checked by the runtime
// (Queue::launch_args against launch_contract_of) before this runs: CUDA's own errors for those
// cases (cudaErrorInvalidConfiguration, or garbage from a wrongly sized argument) say too little.
#include "cuda_launch.hpp"

#include <climits>
#include <string>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_memory.hpp"
#include "cuda_module.hpp"

namespace duet::cuda {

namespace {

std::string dims_string(const std::array<std::size_t, 3>& v, int dims) {
    std::string s = std::to_string(v[0]);
    for (int d = 1; d < dims; ++d)
        s += "x" + std::to_string(v[d]);
    return s;
}

std::string kernel_on_device(const CudaKernel& k) {
    return "kernel " + k.name() + " on " + k.device().label();
}

// CUDA has no driver-chosen block: for Range::driver_local, the occupancy API's block size for
// the launch's dynamic shared memory, as the largest power of two up to it that divides the
// global size (in 2-D and 3-D, Duet's default rule within it).
std::array<std::size_t, 3> occupancy_block(const CudaKernel& kernel, const Range& range,
                                           std::span<const KernelArg> args) {
    std::size_t shared = 0;
    for (const auto& a : args)
        if (a.kind == KernelArg::Kind::local)
            shared = round_up(shared, local_alignment) + a.size;
    const std::size_t suggested = kernel.suggested_group_size(shared);
    if (range.dims() > 1)
        return default_local_size(range, suggested);
    std::size_t block = 1;
    while (block * 2 <= suggested)
        block *= 2;
    while (block > 1 && range.global()[0] % block != 0)
        block /= 2;
    return {block, 1, 1};
}

} // namespace

LaunchContract launch_contract_of(const CudaKernel& kernel) {
    const DeviceLimits& lim = kernel.device().limits();
    LaunchContract c;
    c.signature = &kernel.signature();
    c.surplus_locals_are_shared = true;
    for (int d = 0; d < 3; ++d) {
        c.limits.max_local[d] = static_cast<std::size_t>(lim.max_block_dims[d]);
        c.limits.max_groups[d] = static_cast<std::size_t>(lim.max_grid_dims[d]);
    }
    c.limits.max_group_items = kernel.max_work_group_size();
    c.limits.max_parameter_bytes = kernel.device().info().max_parameter_bytes;
    c.limits.local_name = "maxThreadsDim";
    c.limits.groups_name = "maxGridSize";
    c.limits.group_items_name = "cudaFuncAttributeMaxThreadsPerBlock";
    return c;
}

void plan_launch(CudaKernel& kernel, const Range& range, const std::array<std::size_t, 3>& asked,
                 std::span<const KernelArg> args, LaunchPlan& plan) {
    const CudaDevice& dev = kernel.device();
    // Zeros: the driver's choice (Range::driver_local).
    const std::array<std::size_t, 3> local =
        asked[0] == 0 ? occupancy_block(kernel, range, args) : asked;
    // Built only when a check fails: launches are frequent, failures are not.
    const auto where = [&] {
        return "launching " + kernel_on_device(kernel) + " over " + range.to_string() +
               (range.has_local()
                    ? ""
                    : " (local size " + dims_string(local, range.dims()) + " chosen)");
    };
    plan.block = dim3(static_cast<unsigned>(local[0]), static_cast<unsigned>(local[1]),
                      static_cast<unsigned>(local[2]));
    plan.grid = dim3(static_cast<unsigned>(range.global()[0] / local[0]),
                     static_cast<unsigned>(range.global()[1] / local[1]),
                     static_cast<unsigned>(range.global()[2] / local[2]));

    // A kernel with fewer parameters than arguments, where the surplus is exactly its
    // duet::local arguments, takes them as `extern __shared__` memory (the CUDA idiom); with as
    // many parameters as arguments each local argument is a duet_local_t offset (Duet's own
    // convention). Either way they are laid out one after another, 16-byte aligned.
    const bool locals_as_shared = locals_beyond_params(kernel.signature(), args);

    // Sized up front: argv holds addresses of these elements, which must not move.
    bool tile_maps = false;
    for (const auto& a : args)
        tile_maps |= a.kind == KernelArg::Kind::extension;
    plan.argv.resize(args.size());
    plan.pointers.resize(args.size());
    plan.offsets.resize(args.size());
    plan.maps.resize(tile_maps ? args.size() : 0); // 128 bytes each: only when used
    std::size_t shared = 0, k = 0;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const KernelArg& a = args[i];
        void* arg_value = nullptr;
        switch (a.kind) {
        case KernelArg::Kind::buffer: {
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
            arg_value = &plan.pointers[i];
            break;
        }
        case KernelArg::Kind::extension: {
            const TileMap* map = as_tile_map(*a.extension);
            if (!map)
                throw Error::usage(where() + ": argument " + std::to_string(i) + " is a " +
                                   a.extension->name() + ", an extension of the " +
                                   a.extension->backend() +
                                   " backend; a CUDA kernel takes buffers, scalars, "
                                   "duet::local and duet::tile_map");
            const auto* buf = dynamic_cast<const CudaBuffer*>(a.buffer);
            if (!buf || &buf->device() != &dev)
                throw Error::usage(where() + ": argument " + std::to_string(i) +
                                   " is a tile map over a buffer that is not CUDA memory of " +
                                   dev.label());
            plan.maps[i] = encode_tile_map(
                dev, *map, buf->ptr(), [&] { return where() + ": argument " + std::to_string(i); });
            arg_value = plan.maps[i].bytes;
            break;
        }
        case KernelArg::Kind::scalar:
            // cudaLaunchKernel copies the bytes during the call; it does not write them.
            arg_value = const_cast<void*>(a.bytes());
            break;
        case KernelArg::Kind::local: {
            const std::size_t offset = round_up(shared, local_alignment);
            if (a.size > UINT_MAX || offset > UINT_MAX - a.size)
                throw Error::usage(where() + ": local arguments of " +
                                   bytes_string(offset + a.size) +
                                   " in total do not fit in a duet_local_t offset");
            plan.offsets[i] = static_cast<LocalOffset>(offset);
            arg_value = &plan.offsets[i];
            shared = offset + a.size;
            break;
        }
        }
        if (a.kind != KernelArg::Kind::local || !locals_as_shared)
            plan.argv[k++] = arg_value;
    }
    plan.argv.resize(k);
    plan.shared_bytes = shared;
    if (shared > 0)
        kernel.allow_dynamic_shared(shared);
}

} // namespace duet::cuda
