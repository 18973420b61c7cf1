// Device-side timing: cudaEventElapsedTime between events recorded on the operation's stream,
// so host overheads (launch latency, staging of pageable copies) are not counted.
#include "cuda_event.hpp"

#include <mutex>
#include <vector>

#include "cuda_check.hpp"

namespace duet::cuda {

namespace {

// Events of finished operations, kept for the next ones: a timed operation would otherwise
// create and destroy two events (four driver calls, and a cudaSetDevice) besides its own call.
// Reusing one is safe once its CudaEvent is gone: no one can wait on it any more, and recording
// it again replaces whatever it held. Per device (events belong to its context), bounded.
constexpr std::size_t pooled_per_device = 256;
std::mutex pool_mutex;
std::vector<std::vector<cudaEvent_t>>& pool() {
    // Never destroyed: at exit the CUDA runtime may already be gone.
    static auto* p = new std::vector<std::vector<cudaEvent_t>>();
    return *p;
}

// A timing event of device `ordinal` (current): a pooled one, else a new one.
cudaEvent_t take_event(int ordinal) {
    {
        std::lock_guard lock(pool_mutex);
        auto& p = pool();
        if (static_cast<std::size_t>(ordinal) < p.size() && !p[ordinal].empty()) {
            const cudaEvent_t e = p[ordinal].back();
            p[ordinal].pop_back();
            return e;
        }
    }
    cudaEvent_t e = nullptr;
    // cudaEventDefault keeps timing on (cudaEventDisableTiming would make elapsed_ms fail).
    DUET_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDefault),
                    "creating a timing event on cuda:" + std::to_string(ordinal));
    return e;
}

void give_back(int ordinal, cudaEvent_t e) noexcept {
    try {
        std::lock_guard lock(pool_mutex);
        auto& p = pool();
        if (p.size() <= static_cast<std::size_t>(ordinal))
            p.resize(static_cast<std::size_t>(ordinal) + 1);
        if (p[ordinal].size() < pooled_per_device) {
            p[ordinal].push_back(e);
            return;
        }
    } catch (...) {
        // Out of memory for the pool: destroy the event instead.
    }
    // Destroying an event that is still pending is allowed: CUDA frees it once it completes.
    DUET_CUDA_RELEASE(cudaEventDestroy(e));
}

} // namespace

CudaEvent::CudaEvent(int ordinal) : ordinal_(ordinal) {
    start_ = take_event(ordinal);
    try {
        end_ = take_event(ordinal);
    } catch (...) {
        give_back(ordinal, start_);
        throw;
    }
}

CudaEvent::~CudaEvent() {
    give_back(ordinal_, start_);
    give_back(ordinal_, end_);
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
