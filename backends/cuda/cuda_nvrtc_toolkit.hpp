#pragma once
// The CUDA toolkit's headers for NVRTC: where they are (so that an app's kernel may include
// <cooperative_groups.h> or <cub/cub.cuh> as nvcc would let it), and a digest of the ones a
// source includes (so that a changed toolkit header never reuses an old build from the cache).
#include <string>
#include <vector>

#include "nvidia_toolkit.hpp"

namespace duet::cuda {

// -I directories for NVRTC: the shared finder (backends/nvidia_tools/nvidia_toolkit.hpp).
using nvidia::toolkit_include_dirs;

// A digest of the contents of every file under `dirs` that `source` includes, directly or
// through another (each #include <name> or "name" found in `dirs`, whatever #if surrounds it:
// more files than the compiler reads, never fewer). Empty when it includes none.
std::string toolkit_headers_digest(const std::string& source, const std::vector<std::string>& dirs);

} // namespace duet::cuda
