#pragma once
// The only places the apps ask what kind of device, or which kernel language, they run on. Apps
// never compare backend or type names themselves: each question is one function here, answered
// from DeviceInfo (its type and capabilities), so a new backend needs no change in apps/.
#include <duet/device_info.hpp>

namespace duet::apps {

// The device is a CPU (its OpenCL compiler vectorises across work-items; sizes are capped).
bool is_cpu(const DeviceInfo& info);
// The device is a GPU (big tuning spaces and sizes, matmul's split of K).
bool is_gpu(const DeviceInfo& info);

// The language of the kernels the device runs: OpenCL C compiled at run time (whose kernels have
// the WG and DUET_HAS_SUBGROUPS switches), or CUDA (warp shuffles always, block size from
// blockDim, its own tile defaults).
// DeviceInfo::kernel_language, as the backend set it.
using KernelLanguage = duet::KernelLanguage;
KernelLanguage kernel_language(const DeviceInfo& info);
// OpenCL's sub-group functions are there (cl_khr_subgroups); CUDA always has warp shuffles.
bool has_subgroups(const DeviceInfo& info);

} // namespace duet::apps
