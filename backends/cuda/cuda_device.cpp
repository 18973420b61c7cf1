// The CUDA device: context on first use, queues, memory, and the backend's own fill kernel.
// Kernel loading is in cuda_build.cpp.
#include "cuda_device.hpp"

#include <chrono>

#include "cuda_check.hpp"
#include "cuda_fatbins.hpp"
#include "cuda_memory.hpp"
#include "cuda_queue.hpp"

namespace duet::cuda {

CudaDevice::CudaDevice(DeviceFacts facts, int driver_version)
    : info_(std::move(facts.info)), limits_(facts.limits), driver_version_(driver_version) {}

// Members go in reverse order: the fill kernel, then the modules it and others hold.
CudaDevice::~CudaDevice() = default;

void CudaDevice::activate() {
    if (context_ready_.load(std::memory_order_acquire)) { // every operation: the short way
        DUET_CUDA_CHECK(cudaSetDevice(ordinal()), "making " + label() + " current");
        return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    // Since CUDA 12, cudaSetDevice creates the device's primary context when it has none, so
    // this is where the first real use of a device pays for it (tens to hundreds of ms).
    DUET_CUDA_CHECK(cudaSetDevice(ordinal()), "making " + label() + " current");
    std::call_once(context_once_, [&] {
        duet::log().debug(
            "cuda: {} ready ({:.1f} ms to create its context)", label(),
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        context_ready_.store(true, std::memory_order_release);
    });
}

std::unique_ptr<Queue> CudaDevice::create_queue(const QueueOptions& options) {
    return std::make_unique<CudaQueue>(*this, options);
}

std::unique_ptr<Buffer> CudaDevice::alloc_bytes(std::size_t bytes) {
    return std::make_unique<CudaBuffer>(*this, bytes);
}

std::unique_ptr<Buffer> CudaDevice::view(const Buffer& parent, std::size_t offset,
                                         std::size_t bytes) {
    const CudaBuffer& cb = as_cuda_buffer(parent, "a view's parent", label());
    if (&cb.device() != this)
        throw Error::usage("a view's parent buffer belongs to " + cb.device().label() + ", not " +
                           label());
    if (bytes == 0 || offset > parent.size() || bytes > parent.size() - offset ||
        offset % view_alignment() != 0)
        throw Error::usage("a view of " + std::to_string(bytes) + " bytes at offset " +
                           std::to_string(offset) + " does not fit a buffer of " +
                           std::to_string(parent.size()) + " bytes on " + label());
    return std::make_unique<CudaBuffer>(cb, offset, bytes);
}

std::unique_ptr<HostBuffer> CudaDevice::alloc_host(std::size_t bytes) {
    return std::make_unique<CudaHostBuffer>(*this, bytes);
}

cudaKernel_t CudaDevice::fill_kernel() {
    // call_once: concurrent first fills load it once; a failed load is retried next time.
    std::call_once(fill_once_, [&] {
        ModuleSource source;
        source.origin = "duet_fill.cu";
        source.fatbin = find_embedded_fatbin(source.origin, "");
        // The source text is only needed if the embedded fatbin has no code for this GPU.
        for (auto& f : kernel_files(KernelLanguage::cuda))
            if (f.name == source.origin)
                source.text = std::move(f.text);
        if (!source.fatbin && source.text.empty())
            throw Error::runtime("this build of the CUDA plugin has no kernels_cu/duet_fill.cu, "
                                 "which Queue::fill needs for patterns wider than one byte; "
                                 "rebuild Duet",
                                 "cuda");
        fill_kernel_ = load_from(source, "duet_fill_bytes", BuildOptions{});
    });
    return fill_kernel_->handle();
}

} // namespace duet::cuda
