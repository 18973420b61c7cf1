#pragma once
// What matmul's host code (matmul.cpp) and its step records (matmul_steps.cpp) share.
#include <vector>

#include "app.hpp"

namespace duet::apps {

// matmul's ladder, in order: one record per step (step.hpp).
const std::vector<Step>& matmul_steps();
// "" when the device runs the tf32 step (NVIDIA tensor cores with TF32, compute capability 8.0+,
// in a language that reaches them), else why it is skipped ("is skipped on X: ...").
std::string tf32_unsupported(const DeviceInfo& info);
// best's defines for this device beyond its kernel's defaults, those the user has not set: on
// NVIDIA's OpenCL, warp tiles and 16-deep tiles (the CUDA kernel's own defaults).
Defines best_device_defines(const RunConfig& cfg, const DeviceInfo& info);

} // namespace duet::apps
