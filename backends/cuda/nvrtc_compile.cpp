// Build-time tool: one of Duet's CUDA kernel files compiled by NVRTC, with the flags the runtime
// uses (cuda_nvrtc_flags.hpp), to machine code for one architecture (sm_XX: a CUBIN) or to PTX
// (compute_XX), with the defines of one of the steps' builds (apps/framework/step_builds.hpp:
// the kernels' tile macros come from the step records). backends/cuda/CMakeLists.txt packs the
// images of each (file, defines) into a fatbin that is embedded in the plugin.
//
//   duet_nvrtc_compile SOURCE.cu INCLUDE_DIR sm_90a|compute_120 OUTPUT [NAME=VALUE...]
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nvrtc.h>

#include "cuda_nvrtc_flags.hpp"

namespace {

bool check(nvrtcResult r, const char* what, const std::string& source) {
    if (r == NVRTC_SUCCESS)
        return true;
    std::cerr << "duet_nvrtc_compile: " << what << " failed for " << source << ": "
              << nvrtcGetErrorString(r) << "\n";
    return false;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::cerr << "usage: duet_nvrtc_compile SOURCE.cu INCLUDE_DIR sm_XX|compute_XX OUTPUT "
                     "[NAME=VALUE...]\n";
        return 2;
    }
    const std::string source = argv[1], include = argv[2], arch = argv[3], output = argv[4];
    const bool cubin = arch.rfind("sm_", 0) == 0;
    if (!cubin && arch.rfind("compute_", 0) != 0) {
        std::cerr << "duet_nvrtc_compile: '" << arch << "' is neither sm_XX nor compute_XX\n";
        return 2;
    }
    std::ifstream in(source, std::ios::binary);
    if (!in) {
        std::cerr << "duet_nvrtc_compile: cannot read " << source << "\n";
        return 1;
    }
    std::ostringstream text;
    text << in.rdbuf();
    const std::string name = source.substr(source.find_last_of('/') + 1);

    nvrtcProgram prog = nullptr;
    if (!check(nvrtcCreateProgram(&prog, text.str().c_str(), name.c_str(), 0, nullptr, nullptr),
               "nvrtcCreateProgram", source))
        return 1;
    auto flags = duet::cuda::nvrtc_base_flags(arch);
    // The defines as the runtime passes them (cuda_nvrtc_args.hpp), after Duet's own flags.
    for (int i = 5; i < argc; ++i) {
        const std::string d = argv[i];
        if (d.find('=') == std::string::npos || d.front() == '=') {
            std::cerr << "duet_nvrtc_compile: '" << d << "' is not NAME=VALUE\n";
            return 2;
        }
        flags.push_back("-D" + d);
    }
    flags.push_back("--include-path=" + include);
    std::vector<const char*> opts;
    for (const auto& f : flags)
        opts.push_back(f.c_str());
    const nvrtcResult built = nvrtcCompileProgram(prog, static_cast<int>(opts.size()), opts.data());
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    if (log_size > 1) {
        std::string log(log_size, '\0');
        nvrtcGetProgramLog(prog, log.data());
        std::cerr << log.c_str();
    }
    if (!check(built, "nvrtcCompileProgram", source)) {
        nvrtcDestroyProgram(&prog);
        return 1;
    }
    std::size_t size = 0;
    std::string image;
    const bool got = cubin ? check(nvrtcGetCUBINSize(prog, &size), "nvrtcGetCUBINSize", source) &&
                                 (image.resize(size),
                                  check(nvrtcGetCUBIN(prog, image.data()), "nvrtcGetCUBIN", source))
                           : check(nvrtcGetPTXSize(prog, &size), "nvrtcGetPTXSize", source) &&
                                 (image.resize(size),
                                  check(nvrtcGetPTX(prog, image.data()), "nvrtcGetPTX", source));
    nvrtcDestroyProgram(&prog);
    if (!got || image.empty())
        return 1;
    if (!cubin) // the PTX text without its terminating NUL
        image.resize(std::min(image.find('\0'), image.size()));
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out.write(image.data(), static_cast<std::streamsize>(image.size()));
    if (!out.flush()) {
        std::cerr << "duet_nvrtc_compile: cannot write " << output << "\n";
        return 1;
    }
    return 0;
}
