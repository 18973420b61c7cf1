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

} // namespace duet::apps
