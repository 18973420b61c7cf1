#pragma once
// Where the CUDA toolkit's headers are, for NVRTC's -I: shared by the two backends that compile
// with NVRTC (the CUDA backend's builds, the OpenCL backend's CUDA C++ to PTX route), which do
// not know each other. A static library both plugins link (backends/nvidia_tools/CMakeLists.txt).
#include <string>
#include <vector>

namespace duet::nvidia {

// -I directories for NVRTC: <root>/include and, where it exists, <root>/include/cccl (CUDA 13
// keeps CUB, Thrust and libcu++ there), for the first toolkit root that has
// include/cooperative_groups.h among: the one above the NVRTC library `nvrtc_path` is in
// (<root>/lib64/libnvrtc.so.13), CUDA_PATH, CUDA_HOME, /usr/local/cuda. Empty when none has.
std::vector<std::string> toolkit_include_dirs(const std::string& nvrtc_path);

} // namespace duet::nvidia
