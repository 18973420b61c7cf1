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
// best's defines beyond its kernel's defaults for this device and an N x K B, those the user has
// not set: BEST_UNALIGNED where rows are not 16-byte aligned (N or K not a multiple of 4); on
// NVIDIA's OpenCL, warp tiles and 16-deep tiles (the CUDA kernel's own defaults).
Defines best_defines(const RunConfig& cfg, const DeviceInfo& info, std::size_t N, std::size_t K);

} // namespace duet::apps
