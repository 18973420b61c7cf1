#pragma once
// How many parameters a CUDA kernel takes, found without a call that fails by design: asking the
// driver for the parameter past the last one is an API error, which compute-sanitizer reports
// and its --error-exitcode turns into a failed run of a user's clean program.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>

namespace duet::cuda {

// The parameter count of `kernel`: the driver's cuKernelGetParamCount where the driver has it
// (looked up once through the runtime's entry points), else `declared` (the count in the source
// text, params_in_source); nullopt when neither knows.
std::optional<std::size_t> kernel_param_count(cudaKernel_t kernel,
                                              std::optional<std::size_t> declared);

// The number of parameters of the __global__ function `name` ("dot<double>": its template
// `dot`) in CUDA C++ source `text`, from its first declaration; nullopt where the list cannot be
// counted for sure (not found, a preprocessor line or `...` inside it, or a parameter
// that is a single word, which a macro could expand to several).
std::optional<std::size_t> params_in_source(const std::string& text, const std::string& name);

} // namespace duet::cuda
