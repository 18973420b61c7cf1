#pragma once
// Device memory (cudaMalloc) and page-locked host memory (cudaHostAlloc).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <duet/device.hpp>

namespace duet::cuda {

class CudaDevice;

// A cudaMalloc allocation on one device.
class CudaBuffer final : public Buffer {
  public:
    // Allocates `bytes`; over the device's total or free memory is an Error naming both.
    CudaBuffer(CudaDevice& device, std::size_t bytes);
    // A view of memory owned elsewhere (a mapped host buffer's device pointer): not freed here.
    CudaBuffer(CudaDevice& device, void* mapped, std::size_t bytes)
        : device_(&device), ptr_(mapped), bytes_(bytes), owned_(false) {}
    // A view: `bytes` of `parent` from byte `offset` (checked by the caller), not freed here.
    CudaBuffer(const CudaBuffer& parent, std::size_t offset, std::size_t bytes);
    ~CudaBuffer() override;
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;

    std::size_t size() const override { return bytes_; }
    void* ptr() const { return ptr_; }
    // The device pointer itself: CUDA's kernels take it inside structs and closures as it is.
    std::uint64_t device_address() const override {
        return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr_));
    }
    CudaDevice& device() const { return *device_; }

  private:
    CudaDevice* device_;
    void* ptr_ = nullptr;
    std::size_t bytes_;
    bool owned_ = true; // false for a view (of a mapped host buffer or of another buffer)
};

// Pinned host memory; plain host memory (pinned() false) when pinning fails.
class CudaHostBuffer final : public HostBuffer {
  public:
    CudaHostBuffer(CudaDevice& device, std::size_t bytes);
    ~CudaHostBuffer() override;
    CudaHostBuffer(const CudaHostBuffer&) = delete;
    CudaHostBuffer& operator=(const CudaHostBuffer&) = delete;

    void* data() override { return ptr_; }
    std::size_t size() const override { return bytes_; }
    bool pinned() const override { return pinned_; }
    // The mapped memory's device pointer as a buffer (cudaHostAllocMapped), when pinned.
    const Buffer* device_buffer() const override { return view_.get(); }

  private:
    void* ptr_ = nullptr;
    std::size_t bytes_;
    bool pinned_ = false;
    std::unique_ptr<CudaBuffer> view_;
};

// `buf` as a CudaBuffer; a buffer of another backend is a usage Error naming `role` and `who`
// (the queue or device it was given to).
const CudaBuffer& as_cuda_buffer(const Buffer& buf, const char* role, const std::string& who);

} // namespace duet::cuda
