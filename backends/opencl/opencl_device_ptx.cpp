// The cuda-c++-via-ptx route on an OpenCL device (OpenclDevice::load_cuda_ptx_kernel): CUDA C++
// made PTX (opencl_cuda_ptx.hpp: NVRTC, else clang with libclc), built on NVIDIA's OpenCL as a
// program binary. Kept in memory for the process, not in the on-disk cache, under a key of the
// text, the options, the names to lower and the tool.
#include "opencl_cuda_ptx.hpp"
#include "opencl_device.hpp"
#include "opencl_routes.hpp"

namespace duet::opencl {

std::unique_ptr<Kernel> OpenclDevice::load_cuda_ptx_kernel(const std::string& name,
                                                           const BuildOptions& options,
                                                           const KernelText& text) {
    const std::string opts = "-cl-kernel-arg-info";
    const std::vector<std::string> names = cuda_ptx_names(name, options, text.text);
    std::string key = std::string(cuda_via_ptx) + '\0' + text.text + '\0' + opts;
    for (const auto& [n, v] : options.defines)
        key += " -D" + n + "=" + v;
    key += options.fast_math ? " fast-math" : "";
    for (const auto& o : options.options_for("cuda-c++"))
        key += '\0' + o;
    for (const auto& n : names)
        key += std::string(1, '\0') + "name " + n;
    key += '\0' + info().architecture + '\0' + cuda_ptx_tool();
    bool in_memory = false;
    auto entry = program_once(key, in_memory, [&] {
        CudaPtx ptx = cuda_to_ptx(text.text, text.origin, info().architecture, options, names);
        auto built = build_program_from(*this, ProgramForm::binary, ptx.bytes, opts, text.origin);
        built->options = "ptx by " + ptx.flags + " | " + opts;
        built->entries = std::move(ptx.entries);
        built->refused = std::move(ptx.refused);
        return built;
    });
    return make_kernel(name, entry, in_memory, text.origin);
}

} // namespace duet::opencl
