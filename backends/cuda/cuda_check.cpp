// CUDA error handling: every failed runtime call becomes one duet::Error that says what was being
// done, which call failed, its error name, and what to do about it.
#include "cuda_check.hpp"

#include <cstdio>

namespace duet::cuda {

namespace {

// "cudaMalloc(&ptr, bytes)" -> "cudaMalloc": the Error names the function, not the expression.
std::string function_name(const char* call) {
    std::string s = call ? call : "";
    if (const auto paren = s.find('('); paren != std::string::npos)
        s.resize(paren);
    return s;
}

} // namespace

std::string hint(cudaError_t code) {
    switch (code) {
    case cudaErrorMemoryAllocation:
        return "the device is out of memory: free buffers or use a smaller size";
    case cudaErrorInsufficientDriver:
        return "the NVIDIA driver is older than this CUDA runtime: update the driver";
    case cudaErrorNoDevice:
        return "no CUDA device is visible: check nvidia-smi and CUDA_VISIBLE_DEVICES";
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage:
        return "the kernel binary has no code for this GPU: add its architecture to "
               "DUET_CUDA_ARCHS and rebuild, or pass a define so that NVRTC compiles it";
    case cudaErrorUnsupportedPtxVersion:
        return "the driver is older than the compiler that produced the PTX: update the driver";
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
        // These are sticky: the context is lost, every later call on this device fails too.
        return "a kernel faulted (often an out-of-bounds access); the CUDA context is now "
               "unusable and the process must restart; run it under compute-sanitizer to find "
               "the access";
    case cudaErrorLaunchTimeout:
        return "the kernel ran past the display watchdog's limit: use a smaller size or a GPU "
               "without a display attached";
    case cudaErrorLaunchOutOfResources:
        return "the kernel needs more registers or shared memory than a block of this size can "
               "have: use a smaller local size";
    case cudaErrorInvalidConfiguration:
        return "the launch geometry or shared memory size is over a device limit";
    case cudaErrorDevicesUnavailable:
        return "the GPU is in exclusive-process mode and used by another process (nvidia-smi "
               "shows the compute mode)";
    case cudaErrorSystemDriverMismatch:
        return "the loaded kernel module and libcuda.so differ in version: reboot or reload the "
               "nvidia kernel module";
    case cudaErrorSystemNotReady:
        return "the system is not ready for CUDA (on NVSwitch systems, start nvidia-fabricmanager)";
    case cudaErrorStubLibrary:
        return "the libcuda.so found is the toolkit's stub: install the NVIDIA driver and keep "
               "lib64/stubs off LD_LIBRARY_PATH";
    case cudaErrorJitCompilerNotFound:
        return "the driver's PTX JIT compiler is missing: install the full NVIDIA driver";
    case cudaErrorCudartUnloading:
        return "the CUDA runtime is shutting down (the call came during process exit)";
    default:
        return {};
    }
}

void fail(cudaError_t code, const char* call, const std::string& what) {
    // Non-sticky errors are also left in the runtime's per-thread "last error"; clear it so a
    // later cudaGetLastError check is not blamed for this failure.
    (void)cudaGetLastError();
    std::string message = what;
    if (const char* text = cudaGetErrorString(code); text && *text)
        message += ": " + std::string(text);
    if (const auto h = hint(code); !h.empty())
        message += " (" + h + ")";
    const char* name = cudaGetErrorName(code);
    throw Error(ErrorKind::runtime, "cuda", function_name(call), static_cast<long>(code),
                name ? name : "cudaError?", message);
}

cudaError_t traced(cudaError_t code, const char* call) noexcept {
    try {
        auto& logger = duet::log();
        if (logger.should_log(spdlog::level::debug))
            logger.debug("cuda: {} -> {}", call, cudaGetErrorName(code));
    } catch (...) {
        // Logging must never turn a CUDA call into a failure.
    }
    return code;
}

void release_failed(cudaError_t code, const char* call) noexcept {
    (void)cudaGetLastError();
    if (code == cudaErrorCudartUnloading)
        return;
    try {
        duet::log().warn("cuda: {} failed with {} while releasing a resource", call,
                         cudaGetErrorName(code));
    } catch (...) {
    }
}

std::string version_string(int cuda_version) {
    if (cuda_version <= 0)
        return "none";
    return std::to_string(cuda_version / 1000) + "." + std::to_string(cuda_version % 1000 / 10);
}

std::string bytes_string(std::size_t bytes) {
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
    std::string s = std::to_string(bytes) + " bytes";
    if (bytes < 1024)
        return s;
    double v = static_cast<double>(bytes);
    int u = -1;
    while (v >= 1024.0 && u < 3) {
        v /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%.1f %s)", v, units[u]);
    return s + buf;
}

} // namespace duet::cuda
