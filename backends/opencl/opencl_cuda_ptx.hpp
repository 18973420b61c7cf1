#pragma once
// The cuda-c++-via-ptx route's compile: PTX of an app's CUDA C++ for NVIDIA's OpenCL, made by
// NVRTC (first way: opencl_nvrtc.hpp, then opencl_ptx_params.hpp's rewrite of its pointer
// parameters) or, where no NVRTC loads, by clang with libclc (second way: opencl_clang.hpp).
// No OpenCL here: the unit tests run it.
#include <map>
#include <string>
#include <vector>

#include <duet/device.hpp>

namespace duet::opencl {

// Why neither way is there, naming what to install for each; "" when one is.
std::string cuda_ptx_missing();
// The tool the route uses now (NVRTC's identity, or clang's and libclc's), for program keys.
std::string cuda_ptx_tool();

// The PTX made of one CUDA C++ text for NVIDIA's OpenCL.
struct CudaPtx {
    std::vector<unsigned char> bytes;           // the program binary: PTX text with its NUL
    std::map<std::string, std::string> entries; // a name the app loads → its .entry's name
    std::map<std::string, std::string> refused; // an .entry this route cannot launch → why
    std::string flags;                          // the tool and its options, for build options
};

// The name expressions NVRTC lowers for loading `name` from `text`: the app's instantiations
// and `name` itself where the text mentions it. Sorted, for program keys.
std::vector<std::string> cuda_ptx_names(const std::string& name, const BuildOptions& options,
                                        const std::string& text);

// `text` (named `origin`) as PTX for a device of `architecture` ("sm_90": NVRTC compiles for
// compute_90; "" lets NVRTC choose), loading `names` (cuda_ptx_names). A build Error holds the
// compiler's log.
CudaPtx cuda_to_ptx(const std::string& text, const std::string& origin,
                    const std::string& architecture, const BuildOptions& options,
                    const std::vector<std::string>& names);

} // namespace duet::opencl
