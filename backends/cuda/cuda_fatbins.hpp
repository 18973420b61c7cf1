#pragma once
// The fat binaries built from kernels_cu/*.cu at build time, embedded in the plugin: one per
// (file, defines) the steps' first builds ask (the kernels' tile macros come from the step
// records, so most files are embedded with defines).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duet::cuda {

// One build of a kernels_cu/ file.
struct EmbeddedFatbin {
    std::string_view file;     // "matmul_reg.cu"
    std::string_view defines;  // canonical: "NAME=VALUE NAME=VALUE", sorted by name ("": none)
    const unsigned char* data; // the fatbin image, suitably aligned for cudaLibraryLoadData
    std::size_t size;          // bytes
};

// Every embedded fatbin (the table is generated at configure time from the kernels_cu/ glob).
std::span<const EmbeddedFatbin> embedded_fatbins();
// The defines of a request in canonical form ("NAME=VALUE ...", sorted by name), or nothing
// to match when a name repeats (no embedded image has such a build).
std::string canonical_defines(const std::vector<std::pair<std::string, std::string>>& defines,
                              bool& unique);
// The fatbin of `file` built with exactly `defines` (canonical), or nullptr.
const EmbeddedFatbin* find_embedded_fatbin(std::string_view file, std::string_view defines);
// The options the fatbins were built with (their defines aside), for Kernel::build_options().
std::string_view embedded_build_options();

} // namespace duet::cuda
