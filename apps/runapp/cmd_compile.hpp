#pragma once
// runapp compile: vendor offline compilers build Duet's kernels for devices this machine does
// not have. Split by idea: the target table (cmd_compile_targets.cpp), running the tools
// (cmd_compile_run.cpp), parsing their output (cmd_compile_parse.cpp, pure functions) and
// printing (cmd_compile.cpp).
#include <map>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace runapp::compile {

// One target a kernel can be built for.
struct Target {
    std::string name;     // skl, gfx90a, spirv, sm_80
    std::string group;    // intel, amd, spirv, nvidia
    std::string language; // opencl or cuda: which kernel files it builds
    std::string arch;     // what the tool is told (-device, -mcpu, -arch)
    std::vector<std::pair<std::string, std::string>> tools; // (program, Debian package)
};

// Every known target, in display order.
const std::vector<Target>& targets();
// --target LIST (comma-separated names, groups or "all") to targets; an unknown name throws a
// usage Error naming the known ones.
std::vector<Target> select_targets(const std::string& list);
// The full path of a program found in PATH (and, for CUDA's tools, /usr/local/cuda/bin), or "".
std::string find_tool(const std::string& program);

// What a compiler said about one kernel; -1 where it did not say.
struct KernelUsage {
    std::string kernel;
    long vgpr = -1, sgpr = -1, agpr = -1; // registers per lane (AMD VGPR/AGPR, NVIDIA regs), scalar
    long spill = -1;                      // bytes spilled (NVIDIA stores, AMD VGPR+SGPR count*4)
    long scratch = -1;                    // private/stack bytes per work-item (Intel per thread)
    long local = -1;                      // local/shared memory bytes per work-group
    long max_wg = -1;                     // largest work-group the binary allows
    long simd = -1;                       // SIMD width / wavefront size it was compiled for
    std::string note;                     // how a figure was obtained, where not plain
};

// Parsers of the tools' outputs (pure: text in, figures out).
// ocloc disasm's PTM.txt (patch tokens of each kernel of a Gen9..Xe binary).
std::vector<KernelUsage> parse_ocloc_ptm(const std::string& text);
// The amdhsa.kernels metadata at the end of clang's amdgcn assembly.
std::vector<KernelUsage> parse_amdgpu_asm(const std::string& text);
// ptxas -v (nvcc --resource-usage) lines.
std::vector<KernelUsage> parse_ptxas(const std::string& text);
// The largest block an NVIDIA SM with 64K registers can hold at this register count.
long nvidia_max_threads(long regs);

// The result of building one kernel file for one target.
struct FileResult {
    std::string target, file;
    bool available = true; // false: its compiler is missing (why in log)
    bool ok = false;
    std::string log; // the compiler's log on failure, or why unavailable
    std::vector<KernelUsage> kernels;
    double seconds = 0;
};

// A kernel file to build (name, text); headers of the same language lie beside it.
using SourceFile = duet::SourceFile;

// The defines each kernel file is built with (-DNAME=VALUE), by file name: the tile macros its
// step records give (the kernels have no defaults).
using FileDefines = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;
// Every shipped file of `lang`: the defines of all the builds its steps ask on a plain device of
// the language (apps/framework/step_builds.hpp), merged (each kernel's macros are its own).
FileDefines record_defines(duet::KernelLanguage lang);

// Builds every file of the target's language for the target, in a private temporary folder,
// each with its defines.
std::vector<FileResult> build_for(const Target& t, const std::vector<SourceFile>& files,
                                  const std::vector<SourceFile>& headers,
                                  const FileDefines& defines);

// Version lines of the compilers, for the report.
std::vector<std::string> tool_versions(const std::vector<Target>& ts);

} // namespace runapp::compile
