#pragma once
// What a CUDA device is (DeviceInfo for runapp info) and the limits launches are checked against.
#include <array>
#include <cstddef>
#include <string>

#include <duet/device_info.hpp>

namespace duet::cuda {

// The numbers the backend checks allocations and launches against, kept as CUDA reports them.
struct DeviceLimits {
    int cc_major = 0, cc_minor = 0; // compute capability
    int max_threads_per_block = 0;
    std::array<int, 3> max_block_dims{0, 0, 0};
    std::array<int, 3> max_grid_dims{0, 0, 0};
    std::size_t shared_per_block = 0;       // without opt-in (48 KiB)
    std::size_t shared_per_block_optin = 0; // with cudaFuncAttributeMaxDynamicSharedMemorySize
    int multiprocessors = 0;
    std::size_t total_mem = 0;

    // "sm_90"
    std::string sm() const { return "sm_" + std::to_string(cc_major * 10 + cc_minor); }
};

// Everything known about one device before its context exists.
struct DeviceFacts {
    DeviceInfo info;
    DeviceLimits limits;
};

// Queries device `ordinal` (cudaGetDeviceProperties, cudaDeviceGetAttribute; neither creates a
// context). `driver_library` is what DeviceInfo::library shows. Throws duet::Error on failure.
DeviceFacts query_device(int ordinal, int driver_version, int runtime_version,
                         const std::string& driver_library);

// The kernel module's version ("580.65.06") from /proc/driver/nvidia/version, or "".
std::string kernel_module_version();

} // namespace duet::cuda
