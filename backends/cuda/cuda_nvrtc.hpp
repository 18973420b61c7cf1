#pragma once
// NVRTC, CUDA's run-time compiler, opened with dlopen on first use: the plugin loads (and
// reports devices) where NVRTC is not installed, and only a kernel that needs compiling fails.
#include <string>
#include <utility>
#include <vector>

#include <duet/backend/kernel_sources.hpp>

namespace duet::cuda {

// What one NVRTC compilation produced.
struct NvrtcOutput {
    std::vector<unsigned char> image; // CUBIN, or NUL-terminated PTX when compiled for compute_XX
    std::string log;                  // warnings (the log of a failure goes into the Error)
    // Each name expression asked for and its lowered (mangled) name in the image.
    std::vector<std::pair<std::string, std::string>> lowered_names;
};

class Nvrtc {
  public:
    // The process-wide instance; Error(unavailable) saying what was tried and what to install
    // when the library cannot be opened. A failure is retried on the next call.
    static const Nvrtc& instance();

    // "13.0"
    const std::string& version() const { return version_; }
    // Where the library was found.
    const std::string& path() const { return path_; }
    // Architectures this NVRTC compiles for (75, 80, ...); empty when it cannot say.
    const std::vector<int>& supported_archs() const { return archs_; }

    // Compiles `source` (named `program_name` in diagnostics) with `headers` available to
    // #include "name". `cubin` selects the output: CUBIN for -arch=sm_XX, PTX for compute_XX.
    // Each of `name_expressions` ("dot<double>", "ns::kernel") is instantiated and its lowered
    // name returned (nvrtcAddNameExpression, nvrtcGetLoweredName).
    // A compile error is Error(build) with message `what` and NVRTC's log as the build log.
    NvrtcOutput compile(const std::string& source, const std::string& program_name,
                        const std::vector<SourceFile>& headers,
                        const std::vector<std::string>& options, bool cubin,
                        const std::string& what,
                        const std::vector<std::string>& name_expressions = {}) const;

    struct Api; // the function pointers, resolved with dlsym

  private:
    Nvrtc() = default;
    const Api* api_ = nullptr;
    std::string version_, path_;
    std::vector<int> archs_;
};

} // namespace duet::cuda
