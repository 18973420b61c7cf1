#pragma once
// A duet::Queue on a CUDA stream: transfers, fills and launches, each timed by a CudaEvent
// where the queue was asked for timing.
#include <cuda_runtime_api.h>

#include <duet/backend/launch_checks.hpp>
#include <duet/device.hpp>

#include "cuda_launch.hpp"

namespace duet::cuda {

class CudaBuffer;
class CudaDevice;
class CudaKernel;

class CudaQueue final : public Queue {
  public:
    CudaQueue(CudaDevice& device, const QueueOptions& options);
    // Waits for queued work first: a caller may free host memory right after the queue is gone.
    ~CudaQueue() override;
    CudaQueue(const CudaQueue&) = delete;
    CudaQueue& operator=(const CudaQueue&) = delete;

    const Device& device() const override;
    void finish() override;

  protected:
    Event do_write_bytes(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset,
                         bool blocking) override;
    Event do_read_bytes(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset,
                        bool blocking) override;
    Event do_copy(const Buffer& src, Buffer& dst, std::size_t bytes) override;
    Event do_fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size,
                        std::size_t bytes) override;
    LaunchContract launch_contract(Kernel& kernel) const override;
    Event do_launch(Kernel& kernel, const Range& range, const std::array<std::size_t, 3>& local,
                    KernelArgs args) override;

  private:
    // `kernel` as one loaded on this queue's device, else a usage Error.
    CudaKernel& own(Kernel& kernel) const;
    // Records a start event, runs `op` (which enqueues on stream_), records the end event.
    template <class Op> Event enqueue(Op&& op);
    // enqueue() where the device is current already (a launch made it so: one cudaSetDevice).
    template <class Op> Event enqueue_current(Op&& op);
    // `buf` as a buffer of this queue's device, else a usage Error naming `role`.
    const CudaBuffer& own(const Buffer& buf, const char* role) const;
    std::string who() const;

    CudaDevice& device_;
    bool timing_ = true;
    cudaStream_t stream_ = nullptr;
    // With timing off, the one Event every operation returns (it waits for the device): made
    // once, so a launch costs a reference count rather than two allocations.
    Event untimed_;
    // The launch being planned, reused by every launch (a Queue serves one thread at a time).
    LaunchPlan plan_;
};

} // namespace duet::cuda
