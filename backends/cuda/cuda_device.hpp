#pragma once
// One CUDA device: its description, its lazily created context, and its loaded modules.
#include <cuda_runtime_api.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <duet/backend/kernel_sources.hpp>
#include <duet/device.hpp>

#include "cuda_device_info.hpp"
#include "cuda_module.hpp"

namespace duet::cuda {

struct EmbeddedFatbin;

class CudaDevice final : public Device {
  public:
    // `driver_version` is cudaDriverGetVersion's number, part of the program cache key.
    CudaDevice(DeviceFacts facts, int driver_version);
    ~CudaDevice() override;

    const DeviceInfo& info() const override { return info_; }
    std::unique_ptr<Queue> create_queue(const QueueOptions& options) override;
    std::unique_ptr<Buffer> alloc_bytes(std::size_t bytes) override;
    // A pointer into one of this device's buffers, not freed by the view.
    std::unique_ptr<Buffer> view(const Buffer& parent, std::size_t offset,
                                 std::size_t bytes) override;
    std::size_t view_alignment() const override { return 256; } // cudaMalloc's alignment
    std::unique_ptr<HostBuffer> alloc_host(std::size_t bytes) override;
    // Also OpenCL C, through NVRTC and kernels_cu/duet_opencl_c.cuh, and PTX, which the driver
    // compiles on load (cuda_build.cpp).
    bool takes(const Dialect& dialect, const DialectRoute& route, std::string& why) const override;

    int ordinal() const { return info_.local_index; }
    const DeviceLimits& limits() const { return limits_; }
    int driver_version() const { return driver_version_; }
    // Makes this device current on the calling thread. The first call on any thread creates
    // the device's primary context, so enumeration alone (runapp list) never does.
    void activate();
    // The backend's own fill kernel (kernels_cu/duet_fill.cu), loaded on first use.
    cudaKernel_t fill_kernel();

  protected:
    std::unique_ptr<Kernel> do_load_kernel(const std::string& name,
                                           const BuildOptions& options) override;

  private:
    // Where a kernel's code comes from.
    struct ModuleSource {
        std::string origin;    // "matmul.cu", the app's file, or "<string>"
        std::string text;      // CUDA C++ source (for NVRTC)
        bool extern_c = false; // every kernel extern "C" (a translated text): no name expressions
        bool ptx = false;      // `text` is an app's PTX, for the driver (not NVRTC)
        const EmbeddedFatbin* fatbin = nullptr; // set when the embedded build may be used
    };
    // Loads kernel `name` from `source`: the embedded fatbin when set (falling back to NVRTC
    // when it has no code for this GPU), else NVRTC through the caches.
    std::unique_ptr<CudaKernel> load_from(const ModuleSource& source, const std::string& name,
                                          const BuildOptions& options);
    // The module of an embedded fatbin / of NVRTC output, from modules_ when already loaded.
    // Called with modules_mutex_ held; `cache_hit` is set when nothing was compiled,
    // `from_memory` when the module was already loaded.
    std::shared_ptr<CudaModule> embedded_module(const ModuleSource& source, bool& from_memory);
    std::shared_ptr<CudaModule> ptx_module(const ModuleSource& source, bool& from_memory);
    std::shared_ptr<CudaModule> compiled_module(const ModuleSource& source, const std::string& name,
                                                const BuildOptions& options, bool& cache_hit,
                                                bool& from_memory);
    // The module of the disk cache's entry `key` (with its lowered names when `lowered` is
    // set), or null when there is none or it does not load (then the entry is removed).
    std::shared_ptr<CudaModule> cached_module(const ModuleSource& source, const std::string& key,
                                              const std::string& flags, bool ptx, bool lowered);

    DeviceInfo info_;
    DeviceLimits limits_;
    int driver_version_;
    std::once_flag context_once_;
    std::atomic<bool> context_ready_{false}; // activate() has made the context once
    std::mutex modules_mutex_;
    std::map<std::string, std::shared_ptr<CudaModule>> modules_; // key: origin/source hash+options
    std::once_flag fill_once_;
    std::unique_ptr<CudaKernel> fill_kernel_;
};

} // namespace duet::cuda
