// CUDA C++ on OpenCL devices that take IL: the dialect table's "cuda-c++-via-spir-v" route.
// clang compiles the text as C++ for OpenCL (kernels_cl/duet_cuda_c.clh first, each kernel's
// pointer parameters made __global) to SPIR-V through llvm-spirv; the device builds that IL.
// The tools are the system's own (a fixed list of root-owned paths, never PATH), run without a
// shell in a private temporary folder that is removed afterwards.
#include "opencl_spirv.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <duet/backend/kernel_sources.hpp>
#include <duet/backend/log.hpp>
#include <duet/tool_run.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace duet::opencl {

namespace fs = std::filesystem;

namespace {

// A system tool: a regular file owned by root that only root may change.
bool system_tool(const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
           (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 && ::access(p.c_str(), X_OK) == 0;
}

} // namespace

const SpirvTools& spirv_tools() {
    static const SpirvTools tools = [] {
        SpirvTools t;
        for (int v = 20; v >= 13; --v) {
            const fs::path clang = "/usr/bin/clang-" + std::to_string(v);
            const fs::path spirv = "/usr/bin/llvm-spirv-" + std::to_string(v);
            if (system_tool(clang) && system_tool(spirv))
                return SpirvTools{clang.string(), spirv.string(), ""};
        }
        t.missing = "no clang-N with llvm-spirv-N of the same version in /usr/bin (Debian: "
                    "clang-15 llvm-spirv-15)";
        return t;
    }();
    return tools;
}

bool takes_il(const cl::Device& d, std::string& why) {
    std::string il, extensions;
    try {
        extensions = d.getInfo<CL_DEVICE_EXTENSIONS>();
        il = d.getInfo<CL_DEVICE_IL_VERSION>();
    } catch (const cl::Error&) {
        // OpenCL 1.2 devices have no CL_DEVICE_IL_VERSION.
    }
    if (il.find("SPIR-V") == std::string::npos &&
        extensions.find("cl_khr_il_program") == std::string::npos) {
        why = "the device takes no SPIR-V (it reports neither cl_khr_il_program nor an IL "
              "version)";
        return false;
    }
    if (!spirv_tools().missing.empty()) {
        why = spirv_tools().missing;
        return false;
    }
    return true;
}

std::vector<unsigned char> cuda_to_spirv(const std::string& text, const std::string& origin,
                                         const BuildOptions& options, std::string& flags) {
    const SpirvTools& tools = spirv_tools();
    const PrivateTempDir dir("duet-spirv", "the SPIR-V build");
    std::string header;
    for (auto& f : kernel_files(KernelLanguage::opencl_c))
        if (f.name == "duet_cuda_c.clh")
            header = std::move(f.text);
    if (header.empty())
        throw Error::runtime("this build of the OpenCL plugin lacks kernels_cl/duet_cuda_c.clh",
                             "opencl");
    std::ofstream(dir.path() / "duet_cuda_c.clh") << header;
    std::ofstream(dir.path() / "kernel.clcpp") << qualify_cuda_pointer_parameters(text, "__global");
    std::vector<std::string> args{tools.clang,
                                  "-x",
                                  "clcpp",
                                  "-cl-std=clc++1.0",
                                  "-target",
                                  "spir64",
                                  "-emit-llvm",
                                  "-c",
                                  "-O2",
                                  "-Xclang",
                                  "-finclude-default-header",
                                  "-DDUET_OPENCL=1"};
    for (const auto& [n, v] : options.defines)
        args.push_back("-D" + n + (v.empty() ? "" : "=" + v));
    if (options.fast_math)
        args.push_back("-cl-fast-relaxed-math");
    for (const auto& a : args)
        flags += (flags.empty() ? "" : " ") + a;
    for (const std::string& tail : std::vector<std::string>{
             "-include", (dir.path() / "duet_cuda_c.clh").string(), "-o",
             (dir.path() / "kernel.bc").string(), (dir.path() / "kernel.clcpp").string()})
        args.push_back(tail);
    if (ToolRun r = run_tool(args, dir.path()); r.code != 0)
        throw Error(ErrorKind::build, "opencl", "clang", 0, "",
                    "compiling the CUDA C++ of " + origin + " to SPIR-V with " + tools.clang +
                        " failed; its log follows",
                    r.output);
    if (ToolRun r = run_tool({tools.llvm_spirv, (dir.path() / "kernel.bc").string(), "-o",
                              (dir.path() / "kernel.spv").string()},
                             dir.path());
        r.code != 0)
        throw Error(ErrorKind::build, "opencl", "llvm-spirv", 0, "",
                    "translating " + origin + " to SPIR-V with " + tools.llvm_spirv +
                        " failed; its log follows",
                    r.output);
    const std::string spv = read_whole_file(dir.path() / "kernel.spv");
    return {spv.begin(), spv.end()};
}

std::shared_ptr<ProgramEntry> build_il_program(OpenclDevice& dev,
                                               const std::vector<unsigned char>& il,
                                               const std::string& options,
                                               const std::string& origin) {
    const auto t0 = std::chrono::steady_clock::now();
    auto entry = std::make_shared<ProgramEntry>();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithIL(dev.context()(), il.data(), il.size(), &err);
    if (err != CL_SUCCESS)
        throw Error(ErrorKind::build, "opencl", "clCreateProgramWithIL", err, error_name(err),
                    "loading the SPIR-V of " + origin + " on " + dev.where());
    entry->program = cl::Program(p);
    try {
        entry->program.build(std::vector<cl::Device>{dev.cl_device()}, options.c_str());
    } catch (const cl::Error& e) {
        std::string log;
        try {
            log = entry->program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(dev.cl_device());
        } catch (...) {
        }
        throw Error(ErrorKind::build, "opencl", "clBuildProgram", e.err(), error_name(e.err()),
                    "building the SPIR-V of " + origin + " for " + dev.where() +
                        " failed; the compiler's log follows",
                    log);
    }
    entry->options = options;
    entry->origin = origin;
    entry->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return entry;
}

} // namespace duet::opencl
