// The NVRTC options of every Duet kernel, at build time (nvrtc_compile.cpp, the code embedded in
// the plugin) and at run time (cuda_build.cpp: --define builds, DUET_KERNEL_DIR, GPUs the
// embedded code does not cover). One list, so that the two paths give the same machine code for
// the same source: nvcc's front end gave other code for the same file (on the H100, sgemm `best`
// ran 3% slower built by nvcc than by NVRTC, same toolkit; docs/design/sgemm.md), and
// every sweep with --define measured NVRTC's code while the default ran nvcc's. The description of
// the embedded build (DUET_FATBIN_OPTIONS in CMakeLists.txt, which cannot read this list)
// spells the same flags out: change both together.
#pragma once

#include <string>
#include <vector>

namespace duet::cuda {

// -default-device: functions without __device__/__host__ compile for the device, as nvcc would
// for a kernel file's helpers. No fast math unless asked, as on OpenCL.
inline std::vector<std::string> nvrtc_base_flags(const std::string& arch) {
    return {"-std=c++17", "-default-device", "-arch=" + arch, "-DDUET_CUDA=1"};
}

} // namespace duet::cuda
