// Device-side timing: cudaEventElapsedTime between events recorded on the operation's stream,
// so host overheads (launch latency, staging of pageable copies) are not counted.
#include "cuda_event.hpp"

#include "cuda_check.hpp"

namespace duet::cuda {

CudaEvent::CudaEvent(int ordinal) : ordinal_(ordinal) {
    // cudaEventDefault keeps timing on (cudaEventDisableTiming would make elapsed_ms fail).
    DUET_CUDA_CHECK(cudaEventCreateWithFlags(&start_, cudaEventDefault),
                    "creating a timing event on cuda:" + std::to_string(ordinal));
    const cudaError_t rc = traced(cudaEventCreateWithFlags(&end_, cudaEventDefault),
                                  "cudaEventCreateWithFlags(&end_, cudaEventDefault)");
    if (rc != cudaSuccess) {
        DUET_CUDA_RELEASE(cudaEventDestroy(start_));
        fail(rc, "cudaEventCreateWithFlags",
             "creating a timing event on cuda:" + std::to_string(ordinal));
    }
}

CudaEvent::~CudaEvent() {
    // Destroying an event that is still pending is allowed: CUDA frees it once it completes.
    DUET_CUDA_RELEASE(cudaSetDevice(ordinal_));
    DUET_CUDA_RELEASE(cudaEventDestroy(start_));
    DUET_CUDA_RELEASE(cudaEventDestroy(end_));
}

void CudaEvent::record_start(cudaStream_t stream) {
    DUET_CUDA_CHECK(cudaEventRecord(start_, stream),
                    "recording a start event on cuda:" + std::to_string(ordinal_));
}

void CudaEvent::record_end(cudaStream_t stream) {
    DUET_CUDA_CHECK(cudaEventRecord(end_, stream),
                    "recording an end event on cuda:" + std::to_string(ordinal_));
}

void CudaEvent::wait() {
    DUET_CUDA_CHECK(cudaSetDevice(ordinal_), "selecting cuda:" + std::to_string(ordinal_));
    // A failed operation (a faulting kernel) surfaces here as the sticky error it left.
    DUET_CUDA_CHECK(cudaEventSynchronize(end_),
                    "waiting for an operation on cuda:" + std::to_string(ordinal_));
}

double CudaEvent::elapsed_ms() {
    return elapsed_ms_until(*this);
}

double CudaEvent::elapsed_ms_until(EventImpl& last) {
    auto* end = dynamic_cast<CudaEvent*>(&last);
    if (!end)
        throw Error::usage("timing from a CUDA event to an event of another backend");
    if (end->ordinal_ != ordinal_)
        throw Error::usage("timing from an event on cuda:" + std::to_string(ordinal_) +
                           " to an event on cuda:" + std::to_string(end->ordinal_) +
                           "; both must come from one queue");
    end->wait();
    float ms = 0;
    DUET_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, end->end_),
                    "reading the time between two events on cuda:" + std::to_string(ordinal_));
    return static_cast<double>(ms);
}

} // namespace duet::cuda
