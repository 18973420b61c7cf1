#pragma once
// The fat binaries nvcc built from kernels_cu/*.cu at build time, embedded in the plugin.
#include <cstddef>
#include <span>
#include <string_view>

namespace duet::cuda {

// One kernels_cu/ file compiled by nvcc -fatbin.
struct EmbeddedFatbin {
    std::string_view file;     // "matmul.cu"
    const unsigned char* data; // the fatbin image, suitably aligned for cudaLibraryLoadData
    std::size_t size;          // bytes
};

// Every embedded fatbin (generated at configure time from the kernels_cu/ glob).
std::span<const EmbeddedFatbin> embedded_fatbins();
// The fatbin of `file`, or nullptr.
const EmbeddedFatbin* find_embedded_fatbin(std::string_view file);
// The nvcc options the fatbins were built with, for Kernel::build_options().
std::string_view embedded_build_options();

} // namespace duet::cuda
