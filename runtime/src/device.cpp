// The Device's entry points that check before the backend builds: defines, compiler options
// name expressions and kernel names, once for all backends (build_options.cpp's rules), so what one
// backend refuses every backend refuses.
#include <duet/backend/build_options.hpp>
#include <duet/backend/kernel_sources.hpp>
#include <duet/device.hpp>

namespace duet {

std::unique_ptr<Kernel> Device::load_kernel(const std::string& name, const BuildOptions& options) {
    for (const auto& [n, v] : options.defines)
        check_define(n, v);
    check_compiler_options("cuda_options", options.cuda_options);
    check_compiler_options("opencl_options", options.opencl_options);
    check_name_expressions(options.instantiations);
    const std::string origin =
        options.sources.origin.empty() ? "the kernel source" : options.sources.origin;
    check_kernel_names(options.sources.opencl, KernelLanguage::opencl_c, origin);
    check_kernel_names(options.sources.cuda, KernelLanguage::cuda, origin);
    return do_load_kernel(name, options);
}

std::unique_ptr<Buffer> Device::view(const Buffer&, std::size_t, std::size_t) {
    throw Error::unsupported("buffer views are not supported by " + info().backend + " (" +
                             info().id() + ")");
}

std::unique_ptr<Buffer> Device::read_in_place(std::shared_ptr<const void>, const void*,
                                              std::size_t) {
    return nullptr;
}

} // namespace duet
