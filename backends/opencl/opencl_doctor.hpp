#pragma once
// The OpenCL backend's findings for runapp doctor.
#include <string>
#include <vector>

#include <duet/registry.hpp>

namespace duet::opencl {

// The ICD loader, the ICD files and the vendor libraries they name, each library probed for its
// platforms and devices; vendor libraries installed but registered nowhere. Never throws.
std::vector<Finding> diagnose_icd();

// Why drivers cannot keep their kernel caches ($XDG_CACHE_HOME or $HOME/.cache cannot be
// written, or HOME is unset: PoCL then offers no device), or empty.
std::string cache_home_problem();

} // namespace duet::opencl
