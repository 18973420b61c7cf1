// runapp compile: the targets it knows, how --target names them, and where their tools are.
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include <duet/duet.hpp>

#include "cmd_compile.hpp"

namespace runapp::compile {

namespace {

namespace fs = std::filesystem;

const std::pair<std::string, std::string> ocloc{"ocloc", "intel-opencl-icd"};
const std::pair<std::string, std::string> clang{"clang-15", "clang-15"};
const std::pair<std::string, std::string> spirv{"llvm-spirv-15", "llvm-spirv-15"};
const std::pair<std::string, std::string> spirv_val{"spirv-val", "spirv-tools"};
const std::pair<std::string, std::string> nvcc{"nvcc", "the CUDA toolkit (/usr/local/cuda)"};

} // namespace

const std::vector<Target>& targets() {
    static const std::vector<Target> all = {
        {"skl", "intel", "opencl", "skl", {ocloc}},         // Gen9
        {"tgllp", "intel", "opencl", "tgllp", {ocloc}},     // Xe-LP
        {"dg2-g10", "intel", "opencl", "dg2-g10", {ocloc}}, // Xe-HPG (Arc A770)
        {"pvc", "intel", "opencl", "pvc", {ocloc}},         // Xe-HPC (Max 1550)
        {"gfx906", "amd", "opencl", "gfx906", {clang}},     // Vega 20 (MI50), wave64
        {"gfx90a", "amd", "opencl", "gfx90a", {clang}},     // CDNA2 (MI210/250), wave64
        {"gfx1030", "amd", "opencl", "gfx1030", {clang}},   // RDNA2 (RX 6800), wave32
        {"gfx1100", "amd", "opencl", "gfx1100", {clang}},   // RDNA3 (RX 7900), wave32
        {"spirv", "spirv", "opencl", "spir64", {clang, spirv, spirv_val}},
        {"sm_70", "nvidia", "cuda", "sm_70", {nvcc}},
        {"sm_80", "nvidia", "cuda", "sm_80", {nvcc}},
        {"sm_90", "nvidia", "cuda", "sm_90", {nvcc}},
    };
    return all;
}

std::vector<Target> select_targets(const std::string& list) {
    std::vector<Target> out;
    auto add = [&](const Target& t) {
        for (const auto& o : out)
            if (o.name == t.name)
                return;
        out.push_back(t);
    };
    std::size_t start = 0;
    for (;;) {
        const auto comma = list.find(',', start);
        const std::string item =
            list.substr(start, comma == std::string::npos ? comma : comma - start);
        bool matched = false;
        for (const auto& t : targets())
            if (item == "all" || item == t.name || item == t.group) {
                add(t);
                matched = true;
            }
        if (!matched) {
            std::string known = "all, intel, amd, spirv, nvidia";
            for (const auto& t : targets())
                if (t.name != t.group)
                    known += ", " + t.name;
            throw duet::Error::usage("--target '" + item +
                                     "': not a known target (known: " + known + ")");
        }
        if (comma == std::string::npos)
            return out;
        start = comma + 1;
    }
}

std::string find_tool(const std::string& program) {
    std::vector<std::string> dirs;
    if (const char* path = std::getenv("PATH"); path && *path) {
        const std::string p = path;
        std::size_t start = 0;
        for (;;) {
            const auto c = p.find(':', start);
            dirs.push_back(p.substr(start, c == std::string::npos ? c : c - start));
            if (c == std::string::npos)
                break;
            start = c + 1;
        }
    }
    // The CUDA toolkit is usually not on PATH; its usual home is searched last.
    if (program == "nvcc" || program == "ptxas") {
        if (const char* cuda = std::getenv("CUDA_PATH"); cuda && *cuda)
            dirs.push_back(std::string(cuda) + "/bin");
        dirs.push_back("/usr/local/cuda/bin");
    }
    for (const auto& d : dirs) {
        if (d.empty() || d[0] != '/') // a relative PATH entry would run whatever lies in the cwd
            continue;
        const fs::path p = fs::path(d) / program;
        std::error_code ec;
        if (fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0)
            return p.string();
    }
    return "";
}

} // namespace runapp::compile
