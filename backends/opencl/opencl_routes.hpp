#pragma once
// The dialect table's routes to the OpenCL backend that go through another compiler
// (opencl_routes.cpp): which a device takes, and the programs made from what they produce. The
// compile itself is opencl_clang.cpp.
#include <memory>
#include <string>
#include <vector>

#include "opencl_common.hpp"
#include "opencl_program.hpp"

namespace duet::opencl {

// The dialect table's routes this backend implements.
inline constexpr const char* cuda_via_spirv = "cuda-c++-via-spir-v";
inline constexpr const char* cuda_via_ptx = "cuda-c++-via-ptx";

// True when `d` builds SPIR-V (cl_khr_il_program or an IL version) and clang with llvm-spirv is
// there; else false with `why`.
bool takes_il(const cl::Device& d, std::string& why);
// True when `platform` is NVIDIA's OpenCL, whose program binaries are PTX; else false with
// `why`. With `compile`, NVRTC, or else clang with the nvptx64 target and libclc's bitcode,
// must be there too (opencl_cuda_ptx.hpp).
bool takes_ptx(const cl::Platform& platform, bool compile, std::string& why);

// How a program's bytes reach the driver.
enum class ProgramForm {
    il,     // clCreateProgramWithIL (SPIR-V)
    binary, // clCreateProgramWithBinary (NVIDIA: PTX text with its NUL)
};
// The program of `bytes` built for `dev` with `options`. A build Error holds the driver's log.
std::shared_ptr<ProgramEntry> build_program_from(OpenclDevice& dev, ProgramForm form,
                                                 const std::vector<unsigned char>& bytes,
                                                 const std::string& options,
                                                 const std::string& origin);

} // namespace duet::opencl
