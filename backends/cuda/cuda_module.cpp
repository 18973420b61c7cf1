// Loaded libraries and kernels. The CUDA 12 library API (cudaLibraryLoadData, cudaKernel_t)
// gives context-independent handles through the runtime, so the plugin never links libcuda.
#include "cuda_module.hpp"

#include <cuda_runtime.h> // cudaOccupancyMaxPotentialBlockSize (a template over the kernel)

#include <algorithm>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_param_count.hpp"

namespace duet::cuda {

CudaModule::CudaModule(const CudaDevice& device, const void* image, std::string origin,
                       std::string build_options, std::vector<std::string> declared_kernels,
                       std::vector<std::pair<std::string, std::string>> lowered_names,
                       std::string source_text)
    : ordinal_(device.ordinal()), origin_(std::move(origin)),
      build_options_(std::move(build_options)), declared_kernels_(std::move(declared_kernels)),
      lowered_names_(std::move(lowered_names)), source_text_(std::move(source_text)) {
    // No JIT or library options: the driver keeps its own copy of the image, and with lazy
    // loading (the default since CUDA 12.2) a kernel is loaded into the context on first use.
    DUET_CUDA_CHECK(cudaLibraryLoadData(&library_, image, nullptr, nullptr, 0, nullptr, nullptr, 0),
                    "loading module " + origin_ + " on " + device.label());
}

CudaModule::~CudaModule() {
    DUET_CUDA_RELEASE(cudaSetDevice(ordinal_));
    DUET_CUDA_RELEASE(cudaLibraryUnload(library_));
}

const std::string& CudaModule::symbol(const std::string& name) const {
    for (const auto& [expression, lowered] : lowered_names_)
        if (expression == name)
            return lowered;
    return name;
}

std::optional<std::size_t> CudaModule::declared_params(const std::string& name) const {
    return params_in_source(source_text_, name);
}

std::vector<std::string> CudaModule::kernel_names() const {
    auto names = loaded_kernel_names();
    return names.empty() ? declared_kernels_ : names;
}

std::vector<std::string> CudaModule::loaded_kernel_names() const {
    std::vector<std::string> names;
    unsigned count = 0;
    if (traced(cudaLibraryGetKernelCount(&count, library_), "cudaLibraryGetKernelCount") !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return names;
    }
    std::vector<cudaKernel_t> kernels(count);
    if (count == 0 || traced(cudaLibraryEnumerateKernels(kernels.data(), count, library_),
                             "cudaLibraryEnumerateKernels") != cudaSuccess) {
        (void)cudaGetLastError();
        return names;
    }
    for (cudaKernel_t k : kernels) {
        const char* name = nullptr;
        if (traced(cudaFuncGetName(&name, reinterpret_cast<const void*>(k)), "cudaFuncGetName") ==
                cudaSuccess &&
            name)
            names.emplace_back(name);
        else
            (void)cudaGetLastError();
    }
    std::sort(names.begin(), names.end());
    return names;
}

CudaKernel::CudaKernel(CudaDevice& device, std::shared_ptr<CudaModule> module, std::string name)
    : device_(&device), module_(std::move(module)), name_(std::move(name)) {
    const cudaError_t rc =
        traced(cudaLibraryGetKernel(&kernel_, module_->handle(), module_->symbol(name_).c_str()),
               "cudaLibraryGetKernel(&kernel_, module_->handle(), symbol)");
    if (rc == cudaErrorSymbolNotFound || rc == cudaErrorSharedObjectSymbolNotFound) {
        (void)cudaGetLastError();
        std::string message = "kernel " + name_ + " is not in module " + module_->origin();
        if (const auto names = module_->kernel_names(); !names.empty()) {
            message += " (it has:";
            for (const auto& n : names)
                message += " " + n;
            message += ")";
        }
        message += "; a kernel is found by its plain name when declared extern \"C\" "
                   "__global__, else by its C++ name (\"ns::kernel\", \"dot<double>\"), "
                   "which must be named in the source the module was built from";
        throw Error(ErrorKind::not_found, "cuda", "cudaLibraryGetKernel", static_cast<long>(rc),
                    cudaGetErrorName(rc), message);
    }
    check(rc, "cudaLibraryGetKernel",
          "looking up kernel " + name_ + " in module " + module_->origin() + " on " +
              device.label());

    // Per-device facts (the register use decides maxThreadsPerBlock); this is also the first
    // use of the kernel in this context, where lazy loading surfaces a missing binary.
    DUET_CUDA_CHECK(cudaFuncGetAttributes(&attributes_, reinterpret_cast<const void*>(kernel_)),
                    "reading the attributes of kernel " + name_ + " from module " +
                        module_->origin() + " on " + device.label());
    dynamic_shared_limit_ =
        static_cast<std::size_t>(std::max(attributes_.maxDynamicSharedSizeBytes, 0));

    // Parameter sizes let a launch reject an int passed for a size_t before the kernel reads
    // garbage. They are asked for up to the count only (kernel_param_count: the driver's, else
    // the source's): a query past the last parameter fails by design, which compute-sanitizer
    // reports as the program's error. Without a count, or where a query fails, the sizes count
    // as unknown and launches are not checked against them. CUDA limits parameters to 32764
    // bytes, so more than 8192 means the count is wrong.
    constexpr std::size_t max_parameters = 8192;
    const auto count = kernel_param_count(kernel_, module_->declared_params(name_));
    signature_.known = count && *count <= max_parameters;
    for (std::size_t i = 0; signature_.known && i < *count; ++i) {
        std::size_t offset = 0, size = 0;
        const cudaError_t prc =
            traced(cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernel_), i, &offset, &size),
                   "cudaFuncGetParamInfo");
        if (prc != cudaSuccess) {
            (void)cudaGetLastError();
            signature_.known = false;
            break;
        }
        KernelParam p;
        p.size = size;
        signature_.params.push_back(p);
    }
    if (!signature_.known)
        signature_.params.clear();
    duet::log().debug("cuda: kernel {} on {}: {} registers, {} bytes static shared, max {} "
                      "threads per block, {} parameters{}",
                      name_, device.label(), attributes_.numRegs, attributes_.sharedSizeBytes,
                      attributes_.maxThreadsPerBlock, signature_.params.size(),
                      signature_.known ? "" : " (unknown)");
}

void CudaKernel::allow_dynamic_shared(std::size_t dynamic_bytes) {
    if (dynamic_bytes <= dynamic_shared_limit_.load())
        return;
    const std::size_t static_bytes = attributes_.sharedSizeBytes;
    const std::size_t optin = device_->limits().shared_per_block_optin;
    const std::size_t max_dynamic = optin > static_bytes ? optin - static_bytes : 0;
    if (dynamic_bytes > max_dynamic)
        throw Error::usage("kernel " + name_ + " on " + device_->label() + " asks for " +
                           bytes_string(dynamic_bytes) +
                           " of dynamic shared memory (its duet::local arguments, 16-byte "
                           "aligned) besides its " +
                           bytes_string(static_bytes) +
                           " of static shared memory; the device allows " + bytes_string(optin) +
                           " per block (sharedMemPerBlockOptin), so at most " +
                           bytes_string(max_dynamic) + " of dynamic shared memory");
    // Opt in to the device's whole limit at once: the attribute only grows, so launches
    // already checked on other threads stay valid.
    DUET_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel_),
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(max_dynamic)),
                    "allowing kernel " + name_ + " " + bytes_string(max_dynamic) +
                        " of dynamic shared memory on " + device_->label());
    std::size_t current = dynamic_shared_limit_.load();
    while (current < max_dynamic &&
           !dynamic_shared_limit_.compare_exchange_weak(current, max_dynamic)) {
    }
}

std::size_t CudaKernel::suggested_group_size(std::size_t dynamic_local_bytes) const {
    device_->activate();
    const_cast<CudaKernel*>(this)->allow_dynamic_shared(dynamic_local_bytes); // checks the limit
    int min_grid = 0, block = 0;
    DUET_CUDA_CHECK(
        cudaOccupancyMaxPotentialBlockSize(
            &min_grid, &block, reinterpret_cast<const void*>(kernel_), dynamic_local_bytes),
        "asking the occupancy API for a block size of kernel " + name_ + " with " +
            bytes_string(dynamic_local_bytes) + " of dynamic shared memory on " + device_->label());
    return static_cast<std::size_t>(std::max(block, 1));
}

} // namespace duet::cuda
