#pragma once
// CUDA C++ on OpenCL devices that take IL, through clang and llvm-spirv (opencl_spirv.cpp).
#include <memory>
#include <string>
#include <vector>

#include <duet/device.hpp>

#include "opencl_common.hpp"
#include "opencl_program.hpp"

namespace duet::opencl {

// The dialect table's route this file implements.
inline constexpr const char* cuda_via_spirv = "cuda-c++-via-spir-v";

// The system's clang and llvm-spirv of one version, or why there are none.
struct SpirvTools {
    std::string clang, llvm_spirv;
    std::string missing; // empty when both were found
};
const SpirvTools& spirv_tools();

// True when `d` builds SPIR-V (cl_khr_il_program or an IL version) and the tools are there;
// else false with `why`.
bool takes_il(const cl::Device& d, std::string& why);

// The SPIR-V of CUDA C++ `text` with the build's defines and fast math; `flags` gets clang's
// options (for the program's build options and cache keys). A build Error holds clang's log.
std::vector<unsigned char> cuda_to_spirv(const std::string& text, const std::string& origin,
                                         const BuildOptions& options, std::string& flags);

// The program of `il` built for `dev` with `options`.
std::shared_ptr<ProgramEntry> build_il_program(OpenclDevice& dev,
                                               const std::vector<unsigned char>& il,
                                               const std::string& options,
                                               const std::string& origin);

} // namespace duet::opencl
