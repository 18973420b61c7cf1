#pragma once
// The OpenCL backend's findings for runapp doctor.
#include <vector>

#include <duet/registry.hpp>

namespace duet::opencl {

// The ICD loader, the ICD files and the vendor libraries they name, each library probed for its
// platforms and devices; vendor libraries installed but registered nowhere. Never throws.
std::vector<Finding> diagnose_icd();

} // namespace duet::opencl
