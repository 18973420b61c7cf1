// The includes of a .cu file that NVRTC cannot open, left out (cuda_nvrtc_host_code.hpp):
// NVRTC has no C or C++ standard library and no directory of the file, so `<stdio.h>`, a host
// header beside the file (`"CUDAStream.h"`) and the host-only libraries' headers (<cuda.h>,
// <nvml.h>) would stop it before it reads a kernel.
#include "cuda_nvrtc_host_code.hpp"

#include <algorithm>
#include <filesystem>

namespace duet::cuda {

namespace {

// The name of an `#include <name>` or `#include "name"` line, and which it is; empty if the
// line is no include.
std::string included(const std::string& l, bool& angled) {
    std::size_t p = l.find_first_not_of(" \t");
    if (p == std::string::npos || l[p] != '#')
        return {};
    p = l.find_first_not_of(" \t", p + 1);
    if (p == std::string::npos || l.compare(p, 7, "include") != 0)
        return {};
    p = l.find_first_not_of(" \t", p + 7);
    if (p == std::string::npos || (l[p] != '<' && l[p] != '"'))
        return {};
    angled = l[p] == '<';
    const std::size_t close = l.find(angled ? '>' : '"', p + 1);
    return close == std::string::npos ? std::string() : l.substr(p + 1, close - p - 1);
}

bool opens(const std::string& name, const std::vector<std::string>& dirs,
           const std::vector<std::string>& header_names) {
    if (name == "cuda.h" || name == "nvml.h") // the driver API and NVML: host libraries
        return false;
    if (std::count(header_names.begin(), header_names.end(), name) > 0)
        return true;
    return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) {
        std::error_code ec;
        return std::filesystem::is_regular_file(std::filesystem::path(d) / name, ec);
    });
}

} // namespace

void drop_includes(DeviceCode& out, const std::vector<std::string>& dirs,
                   const std::vector<std::string>& header_names) {
    std::size_t line_start = 0, line = 1;
    while (line_start < out.text.size()) {
        std::size_t end = out.text.find('\n', line_start);
        if (end == std::string::npos)
            end = out.text.size();
        bool angled = false;
        const std::string name = included(out.text.substr(line_start, end - line_start), angled);
        if (!name.empty() && !opens(name, dirs, header_names)) {
            out.left_out.push_back("#include " + (angled ? "<" + name + ">" : '"' + name + '"') +
                                   " (line " + std::to_string(line) + ")");
            std::fill(out.text.begin() + static_cast<std::ptrdiff_t>(line_start),
                      out.text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
        }
        line_start = end + 1;
        ++line;
    }
}

} // namespace duet::cuda
