#pragma once
// What matmul's host code (matmul.cpp) and its step records (matmul_steps.cpp) share.
#include <vector>

#include "app.hpp"

namespace duet::apps {

// matmul's ladder, in order: one record per step (step.hpp).
const std::vector<Step>& matmul_steps();
// True on PoCL 5.x with its default work-group method, whose kernel compiler aborts building
// matmul's reg4x4 and reg8x8: those steps refuse the device, and the other steps build without
// them (POCL_WORK_GROUP_METHOD=cbs builds them).
bool pocl5_loopvec(const DeviceInfo& info);
// "" when the device runs the tf32 step (NVIDIA tensor cores with TF32, compute capability 8.0+,
// in a language that reaches them), else why it is skipped ("is skipped on X: ...").
std::string tf32_unsupported(const DeviceInfo& info);

} // namespace duet::apps
