// CUDA C++ to PTX for NVIDIA's OpenCL, NVRTC first, clang second (opencl_cuda_ptx.hpp).
#include "opencl_cuda_ptx.hpp"

#include <algorithm>

#include "opencl_clang.hpp"
#include "opencl_nvrtc.hpp"
#include "opencl_ptx_params.hpp"

namespace duet::opencl {

namespace {

std::string joined(const std::vector<std::string>& args) {
    std::string s;
    for (const auto& a : args)
        s += (s.empty() ? "" : " ") + a;
    return s;
}

CudaPtx through_nvrtc(const std::string& text, const std::string& origin,
                      const std::string& architecture, const BuildOptions& options,
                      const std::vector<std::string>& names) {
    const bool sm = architecture.rfind("sm_", 0) == 0;
    const std::vector<std::string> args =
        nvrtc_ptx_options(sm ? "compute_" + architecture.substr(3) : "", options);
    const NvrtcPtx made = nvrtc_ptx(text, origin, args, names);
    NvclPtx form = nvcl_form(made.ptx, scan_kernels(text, dialect("cuda-c++")));
    if (!form.error.empty())
        throw Error(ErrorKind::build, "opencl", "nvrtcGetPTX", 0, "",
                    "NVRTC's PTX of " + origin +
                        " could not be put in NVIDIA OpenCL's form: " + form.error,
                    made.ptx);
    CudaPtx out;
    out.bytes.assign(form.ptx.begin(), form.ptx.end());
    out.bytes.push_back('\0'); // NVIDIA's OpenCL reads a PTX binary as a C string
    out.entries = made.lowered;
    out.refused = std::move(form.refused);
    out.flags = nvrtc_tool().identity + ": " + joined(args);
    return out;
}

} // namespace

std::string cuda_ptx_missing() {
    const std::string& clang = clang_tools(ClangTarget::ptx).missing;
    if (nvrtc_tool().missing.empty() || clang.empty())
        return "";
    return "neither way to PTX is there: " + nvrtc_tool().missing + "; and " + clang;
}

std::string cuda_ptx_tool() {
    return nvrtc_tool().missing.empty() ? nvrtc_tool().identity
                                        : clang_tools(ClangTarget::ptx).identity;
}

std::vector<std::string> cuda_ptx_names(const std::string& name, const BuildOptions& options,
                                        const std::string& text) {
    std::vector<std::string> names = options.instantiations;
    // The kernel's own identifier: "tk" of "ns::tk<float>".
    const std::string head = name.substr(0, name.find('<'));
    const std::size_t colons = head.rfind("::");
    std::string id = colons == std::string::npos ? head : head.substr(colons + 2);
    id.erase(id.find_last_not_of(' ') + 1);
    for (const auto& k : scan_kernels(text, dialect("cuda-c++")))
        if (k.name == id) {
            names.push_back(name);
            break;
        }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

CudaPtx cuda_to_ptx(const std::string& text, const std::string& origin,
                    const std::string& architecture, const BuildOptions& options,
                    const std::vector<std::string>& names) {
    if (nvrtc_tool().missing.empty())
        return through_nvrtc(text, origin, architecture, options, names);
    if (const std::string why = cuda_ptx_missing(); !why.empty())
        throw Error::unavailable(why, "opencl");
    CudaPtx out;
    out.flags = "clang: ";
    std::string flags;
    out.bytes = cuda_through_clang(ClangTarget::ptx, text, origin, options, flags);
    out.flags += flags; // clang's entries are the kernels' own names (C++ for OpenCL kernels)
    return out;
}

} // namespace duet::opencl
