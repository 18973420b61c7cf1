// The CUDA toolkit's include directories for NVRTC (nvidia_toolkit.hpp).
#include "nvidia_toolkit.hpp"

#include <cstdlib>
#include <filesystem>

namespace duet::nvidia {

namespace {

namespace fs = std::filesystem;

bool is_toolkit_root(const fs::path& root) {
    std::error_code ec;
    return !root.empty() && fs::is_regular_file(root / "include" / "cooperative_groups.h", ec);
}

} // namespace

std::vector<std::string> toolkit_include_dirs(const std::string& nvrtc_path) {
    std::vector<fs::path> roots;
    if (!nvrtc_path.empty()) {
        const fs::path lib = fs::path(nvrtc_path).parent_path(); // <root>/lib64
        roots.push_back(lib.parent_path());
        roots.push_back(lib.parent_path().parent_path().parent_path()); // targets/<arch>/lib
    }
    for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
        if (const char* v = std::getenv(var); v && *v)
            roots.emplace_back(v);
    roots.emplace_back("/usr/local/cuda");
    for (const auto& root : roots) {
        if (!is_toolkit_root(root))
            continue;
        std::vector<std::string> dirs{(root / "include").string()};
        std::error_code ec;
        if (fs::is_directory(root / "include" / "cccl", ec))
            dirs.push_back((root / "include" / "cccl").string());
        return dirs;
    }
    return {};
}

} // namespace duet::nvidia
