// Launch planning: grid = global / local per dimension (the app rounds global up, never us),
// arguments as pointers to their values, local arguments laid out in one dynamic shared memory
// block (as duet_local_t offsets, or as `extern __shared__` memory when the kernel has no
// parameter for them), tile maps as the CUtensorMap they describe (cuda_tile_map.cpp). The range
// and argument contracts are checked by the runtime (Queue::launch_args against launch_contract_of)
// before this runs: CUDA's own errors for those cases (cudaErrorInvalidConfiguration, or garbage
// from a wrongly sized argument) say too little.
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
    c.limits.local_name = "maxThreadsDim";
    c.limits.groups_name = "maxGridSize";
    c.limits.group_items_name = "cudaFuncAttributeMaxThreadsPerBlock";
    return c;
}

LaunchPlan plan_launch(CudaKernel& kernel, const Range& range,
                       const std::array<std::size_t, 3>& local, std::span<const KernelArg> args) {
    const CudaDevice& dev = kernel.device();
    // Built only when a check fails: launches are frequent, failures are not.
    const auto where = [&] {
        return "launching " + kernel_on_device(kernel) + " over " + range.to_string() +
               (range.has_local()
                    ? ""
                    : " (local size " + dims_string(local, range.dims()) + " chosen)");
    };
    LaunchPlan plan;
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
    plan.argv.resize(args.size());
    plan.pointers.resize(args.size());
    plan.offsets.resize(args.size());
    plan.maps.resize(args.size());
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
        case KernelArg::Kind::tile_map: {
            const auto* buf = dynamic_cast<const CudaBuffer*>(a.buffer);
            if (!buf || &buf->device() != &dev)
                throw Error::usage(where() + ": argument " + std::to_string(i) +
                                   " is a tile map over a buffer that is not CUDA memory of " +
                                   dev.label());
            plan.maps[i] = encode_tile_map(dev, a.tile, buf->ptr(), [&] {
                return where() + ": argument " + std::to_string(i);
            });
            arg_value = plan.maps[i].bytes;
            break;
        }
        case KernelArg::Kind::scalar:
            // cudaLaunchKernel copies the bytes during the call; it does not write them.
            arg_value = const_cast<unsigned char*>(a.value.data());
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
    return plan;
}

} // namespace duet::cuda
