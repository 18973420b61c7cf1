#pragma once
// Timing events: a start and an end cudaEvent_t recorded around one queued operation.
#include <cuda_runtime_api.h>

#include <duet/event.hpp>

namespace duet::cuda {

class CudaEvent final : public EventImpl {
  public:
    // Takes both events on device `ordinal` (which must be current) from the device's pool of
    // released ones, creating them when it is empty; the destructor gives them back.
    explicit CudaEvent(int ordinal);
    ~CudaEvent() override;
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;

    // Records the start / end on `stream` (a stream of the same device).
    void record_start(cudaStream_t stream);
    void record_end(cudaStream_t stream);

    void wait() override;
    double elapsed_ms() override;
    double elapsed_ms_until(EventImpl& last) override;

  private:
    int ordinal_;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
};

} // namespace duet::cuda
