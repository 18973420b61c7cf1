// The Device's entry points that check before the backend builds: defines, once for all
// backends (build_options.cpp's rule), so a define refused by one is refused by all.
#include <duet/backend/build_options.hpp>
#include <duet/device.hpp>

namespace duet {

std::unique_ptr<Kernel> Device::load_kernel(const std::string& name, const BuildOptions& options) {
    for (const auto& [n, v] : options.defines)
        check_define(n, v);
    return do_load_kernel(name, options);
}

std::unique_ptr<Buffer> Device::view(const Buffer&, std::size_t, std::size_t) {
    throw Error::unsupported("buffer views are not supported by " + info().backend + " (" +
                             info().id() + ")");
}

} // namespace duet
