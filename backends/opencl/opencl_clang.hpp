#pragma once
// CUDA C++ as C++ for OpenCL through the system's clang: the compile step of the dialect table's
// cuda-c++ routes to the OpenCL backend, by target (SPIR-V for devices that take IL, PTX for
// NVIDIA's OpenCL). No OpenCL here: the unit tests run it (tests/test_clang_ptx.cpp).
#include <string>
#include <vector>

#include <duet/device.hpp>

namespace duet::opencl {

// What clang makes of the text.
enum class ClangTarget {
    spir_v, // -target spir64, then llvm-spirv: IL (clCreateProgramWithIL)
    ptx,    // -target nvptx64-nvidia-nvcl with libclc's builtins: NVIDIA's program binary
};

// The system's tools for one target, or what to install.
struct ClangTools {
    std::string clang;    // /usr/bin/clang-N
    std::string second;   // llvm-spirv-N (spir_v) or libclc's nvptx64--nvidiacl.bc (ptx)
    std::string missing;  // empty when everything was found
    std::string identity; // the tools' paths and versions, for program keys
};
// Found once per process: root-owned files in fixed places, never PATH.
const ClangTools& clang_tools(ClangTarget target);

// The SPIR-V (spir_v) or the PTX text with its terminating NUL (ptx) of CUDA C++ `text`, with
// kernels_cl/duet_cuda_c.clh included first, each kernel's pointer parameters made __global,
// the build's defines and fast math; `flags` gets clang's options (for the program's build
// options). A build Error holds the failing tool's log.
std::vector<unsigned char> cuda_through_clang(ClangTarget target, const std::string& text,
                                              const std::string& origin,
                                              const BuildOptions& options, std::string& flags);

} // namespace duet::opencl
