// Device and pinned host memory. Allocation failures name the request and what the device has,
// so that "out of memory" says by how much.
#include "cuda_memory.hpp"

#include <new>

#include "cuda_check.hpp"
#include "cuda_device.hpp"

namespace duet::cuda {

namespace {

// Alignment of the plain-memory fallback: a page, like cudaHostAlloc's memory.
constexpr std::align_val_t host_alignment{4096};

} // namespace

CudaBuffer::CudaBuffer(CudaDevice& device, std::size_t bytes) : device_(&device), bytes_(bytes) {
    device.activate();
    if (bytes == 0)
        return; // cudaMalloc(0) would give nullptr anyway; a zero-sized buffer holds nothing
    std::size_t free = 0, total = 0;
    DUET_CUDA_CHECK(cudaMemGetInfo(&free, &total), "reading the free memory of " + device.label());
    const std::string request = "allocating " + bytes_string(bytes) + " on " + device.label();
    if (bytes > total)
        throw Error::usage(request + ": the device has only " + bytes_string(total) +
                           " of memory in total (" + bytes_string(free) + " free)");
    if (bytes > free)
        throw Error(ErrorKind::runtime, "cuda", "cudaMalloc", cudaErrorMemoryAllocation,
                    "cudaErrorMemoryAllocation",
                    request + ": only " + bytes_string(free) + " of the device's " +
                        bytes_string(total) +
                        " are free (other buffers or processes hold the rest; nvidia-smi shows "
                        "them)");
    DUET_CUDA_CHECK(cudaMalloc(&ptr_, bytes),
                    request + " (" + bytes_string(free) + " free of " + bytes_string(total) + ")");
}

CudaBuffer::CudaBuffer(const CudaBuffer& parent, std::size_t offset, std::size_t bytes)
    : device_(parent.device_), ptr_(static_cast<char*>(parent.ptr_) + offset), bytes_(bytes),
      owned_(false) {}

CudaBuffer::~CudaBuffer() {
    if (!ptr_ || !owned_) // a view: its owner frees it
        return;
    // cudaFree waits for work that may still use the memory, so no explicit sync is needed.
    DUET_CUDA_RELEASE(cudaSetDevice(device_->ordinal()));
    DUET_CUDA_RELEASE(cudaFree(ptr_));
}

CudaHostBuffer::CudaHostBuffer(CudaDevice& device, std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0)
        return;
    device.activate();
    // Portable: pinned for every device's context, so one host buffer can feed all GPUs.
    // Mapped: kernels may also reach it directly (device_buffer()).
    const cudaError_t rc =
        traced(cudaHostAlloc(&ptr_, bytes, cudaHostAllocPortable | cudaHostAllocMapped),
               "cudaHostAlloc(&ptr_, bytes, cudaHostAllocPortable | cudaHostAllocMapped)");
    if (rc == cudaSuccess) {
        pinned_ = true;
        void* device_ptr = nullptr;
        if (traced(cudaHostGetDevicePointer(&device_ptr, ptr_, 0), "cudaHostGetDevicePointer") ==
            cudaSuccess)
            view_ = std::make_unique<CudaBuffer>(device, device_ptr, bytes);
        else
            (void)cudaGetLastError(); // pinned, not mapped: transfers still work
        return;
    }
    (void)cudaGetLastError();
    ptr_ = nullptr;
    // Pinning can fail where plain memory does not (RLIMIT_MEMLOCK, fragmentation): the buffer
    // still works, transfers are just staged and slower, and pinned() says so.
    duet::log().warn("cuda: cudaHostAlloc of {} failed with {}; using pageable memory instead",
                     bytes_string(bytes), cudaGetErrorName(rc));
    ptr_ = ::operator new(bytes, host_alignment, std::nothrow);
    if (!ptr_)
        throw Error(ErrorKind::runtime, "cuda", "cudaHostAlloc", static_cast<long>(rc),
                    cudaGetErrorName(rc),
                    "allocating " + bytes_string(bytes) + " of host memory for " + device.label() +
                        ": neither pinned nor pageable memory is available");
}

CudaHostBuffer::~CudaHostBuffer() {
    if (!ptr_)
        return;
    if (pinned_)
        DUET_CUDA_RELEASE(cudaFreeHost(ptr_));
    else
        ::operator delete(ptr_, host_alignment);
}

const CudaBuffer& as_cuda_buffer(const Buffer& buf, const char* role, const std::string& who) {
    const auto* cb = dynamic_cast<const CudaBuffer*>(&buf);
    if (!cb)
        throw Error::usage(std::string(role) + " given to " + who +
                           " is not CUDA device memory (it was allocated by another backend); "
                           "allocate it on a CUDA device");
    return *cb;
}

} // namespace duet::cuda
