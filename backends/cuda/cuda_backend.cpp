// The CUDA backend plugin's entry points and device enumeration. The CUDA runtime is linked
// statically and finds the driver (libcuda.so.1) itself at run time, so the plugin loads on
// machines without an NVIDIA driver and reports why it has no devices.
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <duet/backend/backend.hpp>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_nvrtc.hpp"

namespace duet::cuda {

namespace {

constexpr const char* driver_soname = "libcuda.so.1";

// The path of the libcuda the runtime loaded (for runapp info), or its soname.
std::string loaded_driver_path() {
    std::string path;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) -> int {
            const char* name = info->dlpi_name;
            if (!name || !*name)
                return 0;
            const char* base = std::strrchr(name, '/');
            base = base ? base + 1 : name;
            if (std::strncmp(base, "libcuda.so", 10) != 0)
                return 0;
            *static_cast<std::string*>(out) = name;
            return 1;
        },
        &path);
    return path.empty() ? driver_soname : path;
}

// Why the runtime found no devices, in words a user can act on.
std::string no_device_reason(cudaError_t rc, int driver_version, int runtime_version) {
    if (rc == cudaErrorInsufficientDriver && driver_version > 0)
        return "CUDA driver too old: driver supports CUDA " + version_string(driver_version) +
               ", this runtime needs " + std::to_string(runtime_version / 1000) +
               ".0; update the NVIDIA driver";
    if (rc == cudaErrorInsufficientDriver ||
        (rc == cudaErrorInitializationError && driver_version == 0)) {
        // The runtime reports a missing driver as "insufficient"; find out which it is.
        if (void* h = dlopen(driver_soname, RTLD_LAZY | RTLD_LOCAL)) {
            dlclose(h);
            return std::string("CUDA driver library ") + driver_soname +
                   " was found but reports no CUDA version; is the nvidia kernel module loaded "
                   "(nvidia-smi)?";
        }
        return "no CUDA driver (libcuda.so.1 not found)";
    }
    if (rc == cudaErrorNoDevice) {
        std::string reason = "no CUDA device";
        if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES"))
            reason += std::string(" (CUDA_VISIBLE_DEVICES=\"") + visible + "\")";
        return reason;
    }
    std::string reason = std::string("cudaGetDeviceCount failed with ") + cudaGetErrorName(rc) +
                         ": " + cudaGetErrorString(rc);
    if (const auto h = hint(rc); !h.empty())
        reason += " (" + h + ")";
    return reason;
}

class CudaBackend final : public Backend {
  public:
    CudaBackend() {
        report_.name = "cuda";
        try {
            enumerate();
        } catch (const std::exception& e) {
            devices_.clear();
            report_.device_count = 0;
            report_.reason = std::string("CUDA backend initialisation failed: ") + e.what();
        }
    }

    BackendReport report() const override { return report_; }
    std::size_t device_count() const override { return devices_.size(); }
    Device& device(std::size_t i) override { return *devices_.at(i); }

    // The driver as enumeration found it, then NVRTC: what runapp doctor shows before the
    // device count.
    std::vector<Finding> diagnose() const override { return {driver_finding(), nvrtc_finding()}; }

  private:
    Finding driver_finding() const {
        const PlatformReport* p = report_.platforms.empty() ? nullptr : &report_.platforms.front();
        if (!p)
            return {"FAIL", "CUDA driver", report_.reason, "report this as a bug"};
        if (!devices_.empty())
            return {"PASS", "CUDA driver", p->library + " (" + p->version + ")", ""};
        return {"WARN", "CUDA driver", p->note.empty() ? report_.reason : p->note,
                "needs an NVIDIA GPU and driver (nvidia-smi should work)"};
    }

    // NVRTC (CUDA's run-time compiler, ~100 MB), found where the builds look for it
    // (cuda_nvrtc.cpp): needed only for CUDA kernels compiled at run time (an app's own .cu
    // source, defines, fast math, DUET_KERNEL_DIR). Duet's kernels without defines run from the
    // binaries built in.
    static Finding nvrtc_finding() {
        try {
            const Nvrtc& n = Nvrtc::instance();
            return {"PASS", "NVRTC", "found: " + n.path() + " (" + n.version() + ")", ""};
        } catch (const duet::Error& e) {
            duet::log().debug("cuda: NVRTC: {}", e.what());
            return {"INFO", "NVRTC", "not found",
                    "needed only for CUDA kernels compiled at run time (an app's own .cu source, "
                    "--define, fast math, DUET_KERNEL_DIR); Duet's own kernels run without it. "
                    "To add it: NVIDIA's apt package cuda-nvrtc-13-X (or pip "
                    "nvidia-cuda-nvrtc), with its lib directory on LD_LIBRARY_PATH or CUDA_PATH "
                    "set to the toolkit"};
        }
    }

    void enumerate() {
        int runtime = 0, driver = 0;
        // Neither call needs a driver: with none, the driver version reads as 0.
        if (traced(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion(&runtime)") !=
            cudaSuccess)
            runtime = CUDART_VERSION;
        if (traced(cudaDriverGetVersion(&driver), "cudaDriverGetVersion(&driver)") != cudaSuccess)
            driver = 0;
        (void)cudaGetLastError();
        report_.version = version_string(runtime);

        PlatformReport platform;
        platform.name = "CUDA";
        platform.vendor = "NVIDIA Corporation";
        platform.version = driver > 0 ? "CUDA " + version_string(driver) : "no driver";

        // Initialises the driver but creates no context: `runapp list` stays fast.
        int count = 0;
        const cudaError_t rc = traced(cudaGetDeviceCount(&count), "cudaGetDeviceCount(&count)");
        if (rc != cudaSuccess) {
            (void)cudaGetLastError();
            report_.reason = no_device_reason(rc, driver, runtime);
            platform.library = driver > 0 ? loaded_driver_path() : driver_soname;
            platform.note = report_.reason;
            report_.platforms.push_back(platform);
            duet::log().debug("cuda: no devices: {}", report_.reason);
            return;
        }
        platform.library = loaded_driver_path();
        for (int i = 0; i < count; ++i) {
            try {
                devices_.push_back(std::make_unique<CudaDevice>(
                    query_device(i, driver, runtime, platform.library), driver));
            } catch (const std::exception& e) {
                // One unreadable device (e.g. fallen off the bus) must not hide the others.
                duet::log().warn("cuda: device {} skipped: {}", i, e.what());
                platform.note += (platform.note.empty() ? "" : "; ") + std::string("device ") +
                                 std::to_string(i) + " skipped: " + e.what();
            }
        }
        platform.device_count = static_cast<int>(devices_.size());
        if (devices_.empty())
            report_.reason =
                count == 0 ? "no CUDA device" : "no CUDA device could be read: " + platform.note;
        report_.device_count = platform.device_count;
        report_.platforms.push_back(platform);
    }

    BackendReport report_;
    std::vector<std::unique_ptr<CudaDevice>> devices_;
};

} // namespace

} // namespace duet::cuda

DUET_BACKEND_EXPORT int duet_backend_abi() {
    return DUET_BACKEND_ABI;
}

DUET_BACKEND_EXPORT duet::Backend* duet_backend_create() {
    try {
        return new duet::cuda::CudaBackend();
    } catch (const std::exception& e) {
        try {
            duet::log().error("cuda: backend initialisation failed: {}", e.what());
        } catch (...) {
        }
        return nullptr;
    } catch (...) {
        return nullptr;
    }
}
