#pragma once
// A .cu file as people have it, with host code beside its kernels (main, <<<>>> launches,
// #include <stdio.h>): the part NVRTC can compile, and what was left out to get it.
#include <string>
#include <vector>

namespace duet::cuda {

struct DeviceCode {
    std::string text;                  // the source with host-only parts blanked
    std::vector<std::string> left_out; // "main (line 40)", "#include <stdio.h> (line 2)"
};

// `source` with its host-only parts replaced by blank lines (line numbers stay those of the
// file). Left out: functions that are neither __global__ nor __device__ and are named main,
// launch with <<<>>>, call the CUDA runtime's host API (cudaMalloc, cudaMemcpy, ...) or the C
// library's host-only calls (fprintf, exit, ...), or are declared __host__ (templates
// included), make a __device__ lambda (nvcc's --extended-lambda, which NVRTC lacks), or call a
// function left out; explicit instantiations (`template class X<float>;`) of what was left out;
// and the includes drop_includes names. Kernels, __device__ functions, types, namespaces and
// everything else stay as written; a file with no host code comes back unchanged.
DeviceCode device_code(const std::string& source, const std::vector<std::string>& include_dirs,
                       const std::vector<std::string>& header_names);

// Blanks in `out` the #include lines NVRTC cannot open, <name> or "name": not in `dirs` nor
// among `header_names` (NVRTC has no C or C++ standard library and no directory of the file;
// device printf needs no header), and <cuda.h> and <nvml.h> (host libraries).
void drop_includes(DeviceCode& out, const std::vector<std::string>& dirs,
                   const std::vector<std::string>& header_names);

} // namespace duet::cuda
