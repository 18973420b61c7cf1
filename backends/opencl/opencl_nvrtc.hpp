#pragma once
// NVRTC, CUDA's run-time compiler, as the OpenCL backend uses it: the first way of the
// cuda-c++-via-ptx route makes PTX of an app's CUDA C++ with it, for NVIDIA's OpenCL to build as
// a program binary (after opencl_ptx_params.hpp's rewrite). Opened with dlopen on first use, so
// the plugin loads where no CUDA toolkit is; nothing is linked. No OpenCL here: the unit tests
// run it (tests/test_nvcl_ptx.cpp).
#include <map>
#include <string>
#include <vector>

#include <duet/device.hpp>

namespace duet::opencl {

// The library, found once per process, or what was tried and what to install.
struct NvrtcTool {
    std::string path;     // where it was loaded from
    std::string version;  // nvrtcVersion: "13.0"
    std::string missing;  // empty when it loaded
    std::string identity; // "NVRTC 13.0 <path>", for program keys and build options
};
const NvrtcTool& nvrtc_tool();

// NVRTC's options for PTX of a CUDA C++ text for `arch` ("compute_90"; "": NVRTC's default):
// Duet's (-std=c++17, -default-device, -DDUET_CUDA=1), -I of the toolkit's headers where found
// (backends/nvidia_tools/), the defines, fast math, and the app's cuda-c++ options (checked by
// Device::load_kernel), less any architecture of theirs (the device decides).
std::vector<std::string> nvrtc_ptx_options(const std::string& arch, const BuildOptions& options);

// What one compile made.
struct NvrtcPtx {
    std::string ptx;                            // NVRTC's, CUDA's form, without the NUL
    std::map<std::string, std::string> lowered; // each name expression's PTX entry name
    std::string log;                            // warnings
};
// The PTX of `text` compiled with `args`, each of `name_expressions` ("vecadd", "tk<float>")
// lowered. An unavailable Error where NVRTC is missing; a build Error with NVRTC's log where it
// refuses the text (or a name expression names no kernel).
NvrtcPtx nvrtc_ptx(const std::string& text, const std::string& origin,
                   const std::vector<std::string>& args,
                   const std::vector<std::string>& name_expressions);

} // namespace duet::opencl
