#pragma once
// CUDA runtime return codes turned into duet::Error, and the debug log of every call made.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include <duet/backend/log.hpp>
#include <duet/error.hpp>

namespace duet::cuda {

// Throws duet::Error(runtime, "cuda", call, code, cudaGetErrorName(code), what + hint).
// `call` may be the whole call expression; the Error keeps only the function name.
[[noreturn]] void fail(cudaError_t code, const char* call, const std::string& what);

// Throws (see fail) when `code` is not cudaSuccess.
inline void check(cudaError_t code, const char* call, const std::string& what) {
    if (code != cudaSuccess)
        fail(code, call, what);
}

// Logs `call` and its result at debug level; returns `code` unchanged.
cudaError_t traced(cudaError_t code, const char* call) noexcept;

// What to do about an error, or "" when there is nothing useful to say.
std::string hint(cudaError_t code);

// For destructors, which must not throw: logs a failed release. Silent while the CUDA runtime
// is being torn down at process exit, when every call fails with cudaErrorCudartUnloading.
void release_failed(cudaError_t code, const char* call) noexcept;

// "13.0" from the 13000 of cudaRuntimeGetVersion/cudaDriverGetVersion.
std::string version_string(int cuda_version);

// "4096 bytes (4.0 KiB)" for messages about sizes.
std::string bytes_string(std::size_t bytes);

} // namespace duet::cuda

// Calls a CUDA runtime function, logs it at debug level and throws duet::Error on failure.
// `what` (what was being done) is evaluated only when the call failed.
#define DUET_CUDA_CHECK(expr, what)                                                                \
    do {                                                                                           \
        const cudaError_t duet_cuda_rc_ = ::duet::cuda::traced((expr), #expr);                     \
        if (duet_cuda_rc_ != cudaSuccess)                                                          \
            ::duet::cuda::fail(duet_cuda_rc_, #expr, (what));                                      \
    } while (0)

// Calls a CUDA runtime function in a destructor: logs, never throws.
#define DUET_CUDA_RELEASE(expr)                                                                    \
    do {                                                                                           \
        const cudaError_t duet_cuda_rc_ = ::duet::cuda::traced((expr), #expr);                     \
        if (duet_cuda_rc_ != cudaSuccess)                                                          \
            ::duet::cuda::release_failed(duet_cuda_rc_, #expr);                                    \
    } while (0)
