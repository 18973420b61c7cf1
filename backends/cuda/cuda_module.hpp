#pragma once
// A loaded CUDA library (one compiled .cu file) and the kernels taken from it.
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <duet/backend/launch_checks.hpp>
#include <duet/device.hpp>

namespace duet::cuda {

class CudaDevice;

// A cudaLibrary_t loaded from a fatbin, cubin or PTX image; unloaded when the last kernel taken
// from it and the device's module cache have let go of it.
class CudaModule {
  public:
    // Loads `image` (cudaLibraryLoadData copies it). `origin` names it in messages ("matmul.cu");
    // `declared_kernels` (from the source text) stand in when the library cannot list its own.
    // `lowered_names` maps the name expressions the image was built with ("dot<double>") to
    // their symbols in it. `source_text` (the file it was built from) gives the kernels'
    // parameter counts where the driver cannot (declared_params).
    CudaModule(const CudaDevice& device, const void* image, std::string origin,
               std::string build_options, std::vector<std::string> declared_kernels,
               std::vector<std::pair<std::string, std::string>> lowered_names = {},
               std::string source_text = {});
    ~CudaModule();
    CudaModule(const CudaModule&) = delete;
    CudaModule& operator=(const CudaModule&) = delete;

    cudaLibrary_t handle() const { return library_; }
    const std::string& origin() const { return origin_; }
    const std::string& build_options() const { return build_options_; }
    // Names of the kernels in the library, for "not in module" messages (empty if unknown).
    std::vector<std::string> kernel_names() const;
    // The symbol a kernel is looked up by: the lowered name of a name expression the module
    // was built with, else `name` itself (an extern "C" kernel).
    const std::string& symbol(const std::string& name) const;
    // The parameter count of kernel `name` as its source declares it (params_in_source), or
    // nullopt.
    std::optional<std::size_t> declared_params(const std::string& name) const;

  private:
    std::vector<std::string> loaded_kernel_names() const;

    int ordinal_;
    cudaLibrary_t library_ = nullptr;
    std::string origin_, build_options_;
    std::vector<std::string> declared_kernels_;
    std::vector<std::pair<std::string, std::string>> lowered_names_;
    std::string source_text_;
};

// One kernel of a CudaModule, with the attributes launches are checked against.
class CudaKernel final : public Kernel {
  public:
    // Looks `name` up in `module` and reads its attributes on `device` (which must be current).
    // A name the module lacks is Error(not_found) listing what it has.
    CudaKernel(CudaDevice& device, std::shared_ptr<CudaModule> module, std::string name);

    const std::string& name() const override { return name_; }
    std::size_t max_work_group_size() const override {
        return static_cast<std::size_t>(attributes_.maxThreadsPerBlock);
    }
    double build_ms() const override { return build_ms_; }
    Provenance provenance() const override { return provenance_; }
    const std::string& build_options() const override { return module_->build_options(); }
    // cudaOccupancyMaxPotentialBlockSize for this kernel with `dynamic_local_bytes` of dynamic
    // shared memory per block (over the device's opt-in limit: a usage Error).
    std::size_t suggested_group_size(std::size_t dynamic_local_bytes) const override;

    // Records how the kernel was obtained, once load_kernel knows.
    void set_build_facts(double build_ms, Provenance provenance) {
        build_ms_ = build_ms;
        provenance_ = provenance;
    }
    cudaKernel_t handle() const { return kernel_; }
    CudaDevice& device() const { return *device_; }
    const CudaModule& module() const { return *module_; }
    const cudaFuncAttributes& attributes() const { return attributes_; }
    // Parameters as compiled (cudaFuncGetParamInfo over the count, kernel_param_count): sizes
    // only, kind unknown; `known` is false when the count or a size is not known.
    const KernelSignature& signature() const { return signature_; }
    // Makes `dynamic_bytes` of dynamic shared memory launchable: above the default limit the
    // kernel must opt in (once) with cudaFuncAttributeMaxDynamicSharedMemorySize. Over the
    // device's opt-in limit is a usage Error naming it. The device must be current.
    void allow_dynamic_shared(std::size_t dynamic_bytes);

  private:
    CudaDevice* device_;
    std::shared_ptr<CudaModule> module_;
    std::string name_;
    cudaKernel_t kernel_ = nullptr;
    cudaFuncAttributes attributes_{};
    KernelSignature signature_;
    double build_ms_ = 0;
    Provenance provenance_ = Provenance::compiled;
    // Dynamic shared bytes launchable without a further cudaFuncSetAttribute call. Only grows:
    // lowering it could break a launch on another thread that was already checked.
    std::atomic<std::size_t> dynamic_shared_limit_{0};
};

} // namespace duet::cuda
