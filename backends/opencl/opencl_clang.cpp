// CUDA C++ through clang for the OpenCL backend (opencl_clang.hpp): clang compiles the text as
// C++ for OpenCL (kernels_cl/duet_cuda_c.clh first, each kernel's pointer parameters made
// __global), to SPIR-V through llvm-spirv or to PTX with libclc's builtins linked in. The tools
// are the system's own (a fixed list of root-owned paths, never PATH), run without a shell in a
// private temporary folder that is removed afterwards.
#include "opencl_clang.hpp"

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <duet/backend/kernel_sources.hpp>
#include <duet/tool_run.hpp>

namespace duet::opencl {

namespace fs = std::filesystem;

namespace {

// A system file: a regular file owned by root that only root may change (and run, for a tool).
bool system_file(const fs::path& p, bool tool) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
           (st.st_mode & (S_IWGRP | S_IWOTH)) == 0 && (!tool || ::access(p.c_str(), X_OK) == 0);
}

// A file's identity for program keys: its real path, size and modification time.
std::string identity_of(const fs::path& p) {
    struct stat st {};
    std::error_code ec;
    const fs::path real = fs::canonical(p, ec);
    ::stat(p.c_str(), &st);
    return (ec ? p : real).string() + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtime) + ";";
}

ClangTools found(const fs::path& clang, const fs::path& second) {
    return {clang.string(), second.string(), "", identity_of(clang) + identity_of(second)};
}

ClangTools spirv_tools() {
    for (int v = 20; v >= 13; --v) {
        const fs::path clang = "/usr/bin/clang-" + std::to_string(v);
        const fs::path spirv = "/usr/bin/llvm-spirv-" + std::to_string(v);
        if (system_file(clang, true) && system_file(spirv, true))
            return found(clang, spirv);
    }
    return {"", "",
            "no clang-N with llvm-spirv-N of the same version in /usr/bin (Debian: "
            "clang-15 llvm-spirv-15)",
            ""};
}

// Whether `clang` was built with the nvptx64 target (Debian's are; a vendor's may not be).
bool has_nvptx(const std::string& clang) {
    const PrivateTempDir dir("duet-clang", "asking clang for its targets");
    const ToolRun r = run_tool({clang, "-print-targets"}, dir.path());
    return r.code == 0 && r.output.find("nvptx64") != std::string::npos;
}

ClangTools ptx_tools() {
    fs::path clang;
    for (int v = 20; v >= 13 && clang.empty(); --v)
        if (system_file("/usr/bin/clang-" + std::to_string(v), true))
            clang = "/usr/bin/clang-" + std::to_string(v);
    if (clang.empty())
        return {"", "", "no clang-N in /usr/bin (Debian: clang-15 libclc-15)", ""};
    fs::path bitcode;
    for (const char* dir : {"/usr/lib/clc", "/usr/share/clc"})
        if (system_file(fs::path(dir) / "nvptx64--nvidiacl.bc", false))
            bitcode = fs::path(dir) / "nvptx64--nvidiacl.bc";
    if (bitcode.empty())
        return {clang.string(), "",
                "no libclc bitcode for NVIDIA's OpenCL (/usr/lib/clc/nvptx64--nvidiacl.bc; "
                "Debian: libclc-15)",
                ""};
    if (!has_nvptx(clang.string()))
        return {clang.string(), bitcode.string(),
                clang.string() + " has no nvptx64 target (Debian's clang-15 has)", ""};
    return found(clang, bitcode);
}

std::string duet_cuda_header() {
    for (auto& f : kernel_files(KernelLanguage::opencl_c))
        if (f.name == "duet_cuda_c.clh")
            return std::move(f.text);
    throw Error::runtime("this build of the OpenCL plugin lacks kernels_cl/duet_cuda_c.clh",
                         "opencl");
}

// clang's options for `target`, before the files.
std::vector<std::string> clang_args(ClangTarget target, const ClangTools& tools,
                                    const BuildOptions& options) {
    std::vector<std::string> args{tools.clang, "-x", "clcpp", "-cl-std=clc++1.0", "-target"};
    // PTX for the OS LLVM calls nvcl, NVIDIA's OpenCL: `.target sm_20, texmode_independent`,
    // pointer parameters `.ptr .global`, as that driver's clSetKernelArg needs them (libclc's
    // file says "nvidiacl", which LLVM reads as no OS: CUDA's form, every pointer a plain .u64).
    const std::vector<std::string> by_target =
        target == ClangTarget::ptx
            ? std::vector<std::string>{"nvptx64-nvidia-nvcl",    "-S",      "-O3",       "-Xclang",
                                       "-mlink-builtin-bitcode", "-Xclang", tools.second}
            : std::vector<std::string>{"spir64", "-emit-llvm", "-c", "-O2"};
    args.insert(args.end(), by_target.begin(), by_target.end());
    for (const char* a : {"-Xclang", "-finclude-default-header", "-DDUET_OPENCL=1"})
        args.emplace_back(a);
    for (const auto& [n, v] : options.defines)
        args.push_back("-D" + n + (v.empty() ? "" : "=" + v));
    if (options.fast_math)
        args.emplace_back("-cl-fast-relaxed-math");
    return args;
}

Error tool_failed(const std::string& tool, const std::string& path, const std::string& what,
                  const std::string& log) {
    return Error(ErrorKind::build, "opencl", tool, 0, "",
                 what + " with " + path + " failed; its log follows", log);
}

} // namespace

const ClangTools& clang_tools(ClangTarget target) {
    static const ClangTools spirv = spirv_tools();
    if (target == ClangTarget::spir_v)
        return spirv;
    static const ClangTools ptx = ptx_tools();
    return ptx;
}

std::vector<unsigned char> cuda_through_clang(ClangTarget target, const std::string& text,
                                              const std::string& origin,
                                              const BuildOptions& options, std::string& flags) {
    const ClangTools& tools = clang_tools(target);
    if (!tools.missing.empty())
        throw Error::runtime(tools.missing, "opencl");
    const bool ptx = target == ClangTarget::ptx;
    const std::string into = ptx ? "PTX" : "SPIR-V";
    const PrivateTempDir dir(ptx ? "duet-ptx" : "duet-spirv", "the " + into + " build");
    std::ofstream(dir.path() / "duet_cuda_c.clh") << duet_cuda_header();
    std::ofstream(dir.path() / "kernel.clcpp") << qualify_cuda_pointer_parameters(text, "__global");
    std::vector<std::string> args = clang_args(target, tools, options);
    for (const auto& a : args)
        flags += (flags.empty() ? "" : " ") + a;
    const fs::path out = dir.path() / (ptx ? "kernel.ptx" : "kernel.bc");
    for (const std::string& tail :
         {std::string("-include"), (dir.path() / "duet_cuda_c.clh").string(), std::string("-o"),
          out.string(), (dir.path() / "kernel.clcpp").string()})
        args.push_back(tail);
    if (ToolRun r = run_tool(args, dir.path()); r.code != 0)
        throw tool_failed("clang", tools.clang,
                          "compiling the CUDA C++ of " + origin + " to " + into, r.output);
    if (ptx) {
        const std::string text_out = read_whole_file(out);
        std::vector<unsigned char> bytes(text_out.begin(), text_out.end());
        bytes.push_back('\0'); // NVIDIA's OpenCL reads a PTX binary as a C string
        return bytes;
    }
    const fs::path spv = dir.path() / "kernel.spv";
    if (ToolRun r = run_tool({tools.second, out.string(), "-o", spv.string()}, dir.path());
        r.code != 0)
        throw tool_failed("llvm-spirv", tools.second, "translating " + origin + " to SPIR-V",
                          r.output);
    const std::string il = read_whole_file(spv);
    return {il.begin(), il.end()};
}

} // namespace duet::opencl
