#pragma once
// The only places the apps ask what kind of device they run on. Apps never compare backend,
// language or type names themselves: each question is one function here, answered from
// DeviceInfo (its type and capabilities), or the device's profile (device_profile.hpp), so a new
// backend needs no change in apps/.
#include <duet/duet.hpp>

namespace duet::apps {

// The device is a CPU (its OpenCL compiler vectorises across work-items; sizes are capped).
bool is_cpu(const DeviceInfo& info);
// The device is a GPU (big tuning spaces and sizes, matmul's split of K).
bool is_gpu(const DeviceInfo& info);

// OpenCL's sub-group functions are there (cl_khr_subgroups); CUDA always has warp shuffles.
bool has_subgroups(const DeviceInfo& info);

} // namespace duet::apps
