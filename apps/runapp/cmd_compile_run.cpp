// runapp compile: runs the vendors' compilers (duet::run_tool: argument arrays, never a shell, in
// a private temporary folder that is removed afterwards).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <duet/duet.hpp>

#include "cmd_compile.hpp"
#include "step_builds.hpp"

namespace runapp::compile {

namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

// The first line of a tool's message, for a one-line reason.
std::string trim_line(const std::string& s) {
    const auto b = s.find_first_not_of(" \n");
    if (b == std::string::npos)
        return "";
    return s.substr(b, s.find('\n', b) - b);
}

std::string tool(const Target& t, std::size_t i) {
    return find_tool(t.tools.at(i).first);
}

const char* amd_libs = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

// clang's amdgcn OpenCL needs ROCm's device libraries, linked by hand so that an architecture
// the packaged libraries predate (gfx1100 with 5.2) gets its ISA constant from a one-line file.
duet::ToolRun build_amd(const Target& t, const fs::path& dir, const std::string& file,
                        const std::vector<std::string>& d_args) {
    const std::string clang = tool(t, 0), arch = t.arch.substr(3);
    std::vector<std::string> argv = {clang,
                                     "-x",
                                     "cl",
                                     "-cl-std=CL1.2",
                                     "-target",
                                     "amdgcn-amd-amdhsa",
                                     "-mcpu=" + t.arch,
                                     "-nogpulib",
                                     "-O3",
                                     "-DDUET_OPENCL=1",
                                     "-I",
                                     "src"};
    argv.insert(argv.end(), d_args.begin(), d_args.end());
    const bool wave64 = t.arch.rfind("gfx9", 0) == 0;
    std::vector<std::string> libs = {"opencl",
                                     "ocml",
                                     "ockl",
                                     "oclc_daz_opt_off",
                                     "oclc_unsafe_math_off",
                                     "oclc_finite_only_off",
                                     "oclc_correctly_rounded_sqrt_on",
                                     wave64 ? "oclc_wavefrontsize64_on"
                                            : "oclc_wavefrontsize64_off",
                                     "oclc_abi_version_400"};
    std::vector<std::string> paths;
    for (const auto& l : libs)
        paths.push_back(std::string(amd_libs) + "/" + l + ".bc");
    std::string isa = std::string(amd_libs) + "/oclc_isa_version_" + arch + ".bc";
    std::error_code ec;
    if (!fs::exists(isa, ec)) {
        // "gfx1100" -> 11000: major 11, minor 0, stepping 0 (the packaged files' numbering).
        const std::string major = arch.substr(0, arch.size() - 2);
        const int minor = std::stoi(arch.substr(arch.size() - 2, 1), nullptr, 16);
        const int step = std::stoi(arch.substr(arch.size() - 1), nullptr, 16);
        write(dir / "isa.cl", "__constant int __oclc_ISA_version = " +
                                  std::to_string(std::stoi(major) * 1000 + minor * 100 + step) +
                                  ";\n");
        duet::ToolRun r = duet::run_tool({clang, "-x", "cl", "-cl-std=CL1.2", "-target",
                                          "amdgcn-amd-amdhsa", "-mcpu=" + t.arch, "-nogpulib",
                                          "-emit-llvm", "-c", "isa.cl", "-o", "isa.bc"},
                                         dir);
        if (r.code != 0)
            return r;
        isa = (dir / "isa.bc").string();
    }
    paths.push_back(isa);
    for (const auto& p : paths) {
        if (!fs::exists(p, ec))
            return {-2,
                    "ROCm's device library " + p + " is missing: apt-get install rocm-device-libs"};
        argv.insert(argv.end(), {"-Xclang", "-mlink-builtin-bitcode", "-Xclang", p});
    }
    argv.insert(argv.end(), {"-S", "src/" + file, "-o", "out.s"});
    return duet::run_tool(argv, dir);
}

// The file's defines as -DNAME=VALUE arguments (its tile macros).
std::vector<std::string> define_args(const FileDefines& defines, const std::string& file) {
    std::vector<std::string> out;
    if (auto it = defines.find(file); it != defines.end())
        for (const auto& [name, value] : it->second)
            out.push_back("-D" + name + "=" + value);
    return out;
}

} // namespace

FileDefines record_defines(duet::KernelLanguage lang) {
    FileDefines out;
    for (const auto& b : duet::apps::step_builds(duet::apps::plain_device(lang)))
        duet::apps::add_unset(out[b.file], b.defines);
    return out;
}

std::vector<FileResult> build_for(const Target& t, const std::vector<SourceFile>& files,
                                  const std::vector<SourceFile>& headers,
                                  const FileDefines& defines) {
    std::vector<FileResult> out;
    std::string missing;
    for (const auto& [program, package] : t.tools)
        if (find_tool(program).empty())
            missing +=
                (missing.empty() ? "" : "; ") + program + " not found (install " + package + ")";
    for (const auto& f : files) {
        FileResult r;
        r.target = t.name;
        r.file = f.name;
        if (!missing.empty()) {
            r.available = false;
            r.log = missing;
            out.push_back(r);
            continue;
        }
        const auto start = std::chrono::steady_clock::now();
        const duet::PrivateTempDir tmp("duet-compile", "runapp compile");
        fs::create_directory(tmp.path() / "src");
        for (const auto& h : headers)
            write(tmp.path() / "src" / fs::path(h.name).filename(), h.text);
        write(tmp.path() / "src" / fs::path(f.name).filename(), f.text);
        const std::string file = fs::path(f.name).filename().string();
        const std::vector<std::string> d_args = define_args(defines, file);
        std::string d_text;
        for (const auto& d : d_args)
            d_text += " " + d;
        duet::ToolRun ran;
        if (t.group == "intel") {
            ran = duet::run_tool({tool(t, 0), "compile", "-file", "src/" + file, "-device", t.arch,
                                  "-options",
                                  "-DDUET_OPENCL=1 -I " + (tmp.path() / "src").string() + d_text,
                                  "-output_no_suffix", "-output", "out"},
                                 tmp.path());
            if (ran.code == 0) {
                duet::ToolRun dis = duet::run_tool(
                    {tool(t, 0), "disasm", "-file", "out", "-dump", "dump", "-device", t.arch},
                    tmp.path());
                r.kernels = parse_ocloc_ptm(duet::read_whole_file(tmp.path() / "dump" / "PTM.txt"));
                if (r.kernels.empty())
                    ran = {1, "ocloc built the file but its disassembly lists no kernel:\n" +
                                  dis.output};
            }
        } else if (t.group == "amd") {
            ran = build_amd(t, tmp.path(), file, d_args);
            if (ran.code == 0)
                r.kernels = parse_amdgpu_asm(duet::read_whole_file(tmp.path() / "out.s"));
        } else if (t.group == "spirv") {
            // Unoptimised LLVM IR: llvm-spirv 15 cannot translate what clang's optimiser makes
            // (llvm.vector.reduce.*); the device's own compiler optimises the SPIR-V.
            std::vector<std::string> argv = {
                tool(t, 0), "-x",  "cl",      "-cl-std=CL1.2",        "-target",
                "spir64",   "-O2", "-Xclang", "-disable-llvm-passes", "-DDUET_OPENCL=1",
                "-I",       "src"};
            argv.insert(argv.end(), d_args.begin(), d_args.end());
            argv.insert(argv.end(), {"-emit-llvm", "-c", "src/" + file, "-o", "out.bc"});
            ran = duet::run_tool(argv, tmp.path());
            if (ran.code == 0)
                ran = duet::run_tool(
                    {tool(t, 1), "--spirv-max-version=1.0", "out.bc", "-o", "out.spv"}, tmp.path());
            if (ran.code == 0)
                ran = duet::run_tool({tool(t, 2), "--target-env", "opencl2.1", "out.spv"},
                                     tmp.path());
            if (ran.code == 0)
                for (const auto& k :
                     duet::kernels_defined_in(f.text, duet::KernelLanguage::opencl_c)) {
                    KernelUsage u;
                    u.kernel = k;
                    r.kernels.push_back(u);
                }
        } else if (t.group == "nvidia") {
            std::vector<std::string> argv = {tool(t, 0),         "-cubin", "-arch=" + t.arch,
                                             "--resource-usage", "-O3",    "-std=c++17",
                                             "-DDUET_CUDA=1",    "-I",     "src"};
            argv.insert(argv.end(), d_args.begin(), d_args.end());
            argv.insert(argv.end(), {"src/" + file, "-o", "out.cubin"});
            ran = duet::run_tool(argv, tmp.path());
            if (ran.code != 0 &&
                ran.output.find("Unsupported gpu architecture") != std::string::npos) {
                r.available = false;
                ran.output =
                    "this CUDA toolkit cannot build " + t.arch + " (" + trim_line(ran.output) + ")";
            } else if (ran.code == 0) {
                r.kernels = parse_ptxas(ran.output);
            }
        }
        r.ok = r.available && ran.code == 0;
        if (!r.ok)
            r.log = ran.output;
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.push_back(r);
    }
    return out;
}

std::vector<std::string> tool_versions(const std::vector<Target>& ts) {
    std::vector<std::string> out;
    std::vector<std::string> seen;
    for (const auto& t : ts)
        for (const auto& [program, package] : t.tools) {
            const std::string path = find_tool(program);
            if (path.empty() || std::find(seen.begin(), seen.end(), program) != seen.end())
                continue;
            seen.push_back(program);
            const duet::PrivateTempDir tmp("duet-compile", "runapp compile");
            if (program == "ocloc") { // ocloc has no --version; its query writes a file
                duet::run_tool({path, "query", "OCL_DRIVER_VERSION"}, tmp.path());
                // The file ends in a NUL byte: keep printable characters only.
                std::string v = duet::read_whole_file(tmp.path() / "OCL_DRIVER_VERSION");
                std::erase_if(
                    v, [](char c) { return c != '\n' && static_cast<unsigned char>(c) < 0x20; });
                out.push_back("ocloc: driver " + trim_line(v));
                continue;
            }
            duet::ToolRun r = duet::run_tool({path, "--version"}, tmp.path());
            std::string first;
            std::istringstream in(r.output);
            for (std::string line; std::getline(in, line);)
                if (line.find_first_of("0123456789") != std::string::npos) {
                    first = line;
                    if (program != "nvcc" || line.find("release") != std::string::npos)
                        break;
                }
            out.push_back(program + ": " + first);
        }
    return out;
}

} // namespace runapp::compile
