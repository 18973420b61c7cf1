// The CUDA queue: one stream, every operation bracketed by two timing events where the queue is
// timed. cudaSetDevice comes before every call because one thread may drive several devices.
#include "cuda_queue.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <utility>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_event.hpp"
#include "cuda_launch.hpp"
#include "cuda_memory.hpp"
#include "cuda_module.hpp"

namespace duet::cuda {

namespace {

// Threads per block of the fill kernel, and blocks per multiprocessor: enough resident
// threads to saturate memory, while the grid-stride loop covers any size.
constexpr unsigned fill_threads = 256;
constexpr unsigned fill_blocks_per_sm = 8;

char* at(const CudaBuffer& buf, std::size_t offset) {
    return static_cast<char*>(buf.ptr()) + offset;
}

} // namespace

CudaQueue::CudaQueue(CudaDevice& device, const QueueOptions& options)
    : device_(device), timing_(options.timing) {
    device_.activate();
    DUET_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, options.non_blocking ? cudaStreamNonBlocking
                                                                             : cudaStreamDefault),
                    "creating a stream on " + device_.label());
    if (!timing_) {
        // The stream may be gone when the Event is waited on; the device outlives both.
        const int ordinal = device_.ordinal();
        untimed_ = untimed_event([ordinal] {
            DUET_CUDA_CHECK(cudaSetDevice(ordinal), "selecting device " + std::to_string(ordinal));
            DUET_CUDA_CHECK(cudaDeviceSynchronize(),
                            "waiting for device " + std::to_string(ordinal));
        });
    }
}

CudaQueue::~CudaQueue() {
    DUET_CUDA_RELEASE(cudaSetDevice(device_.ordinal()));
    DUET_CUDA_RELEASE(cudaStreamSynchronize(stream_));
    DUET_CUDA_RELEASE(cudaStreamDestroy(stream_));
}

const Device& CudaQueue::device() const {
    return device_;
}

std::string CudaQueue::who() const {
    return "the queue of " + device_.label();
}

const CudaBuffer& CudaQueue::own(const Buffer& buf, const char* role) const {
    const CudaBuffer& cb = as_cuda_buffer(buf, role, who());
    if (&cb.device() != &device_)
        throw Error::usage(std::string(role) + " given to " + who() + " lives on " +
                           cb.device().label() + "; use a queue of that device");
    return cb;
}

template <class Op> Event CudaQueue::enqueue(Op&& op) {
    device_.activate();
    return enqueue_current(std::forward<Op>(op));
}

template <class Op> Event CudaQueue::enqueue_current(Op&& op) {
    if (!timing_) {
        op();
        return untimed_;
    }
    auto event = std::make_shared<CudaEvent>(device_.ordinal());
    event->record_start(stream_);
    op();
    event->record_end(stream_);
    return Event(std::move(event));
}

// Spans and host pointers were checked by the runtime (runtime/src/queue.cpp); 0 bytes are a
// no-op on CUDA.
Event CudaQueue::do_write_bytes(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset,
                                bool blocking) {
    const CudaBuffer& buf = own(dst, "the destination of a write");
    Event ev = enqueue([&] {
        if (bytes > 0)
            DUET_CUDA_CHECK(
                cudaMemcpyAsync(at(buf, offset), src, bytes, cudaMemcpyHostToDevice, stream_),
                "writing " + bytes_string(bytes) + " to " + device_.label());
    });
    if (blocking)
        DUET_CUDA_CHECK(cudaStreamSynchronize(stream_),
                        "waiting for a write of " + bytes_string(bytes) + " to " + device_.label());
    return ev;
}

Event CudaQueue::do_read_bytes(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset,
                               bool blocking) {
    const CudaBuffer& buf = own(src, "the source of a read");
    Event ev = enqueue([&] {
        if (bytes > 0)
            DUET_CUDA_CHECK(
                cudaMemcpyAsync(dst, at(buf, offset), bytes, cudaMemcpyDeviceToHost, stream_),
                "reading " + bytes_string(bytes) + " from " + device_.label());
    });
    if (blocking)
        DUET_CUDA_CHECK(cudaStreamSynchronize(stream_), "waiting for a read of " +
                                                            bytes_string(bytes) + " from " +
                                                            device_.label());
    return ev;
}

Event CudaQueue::do_copy(const Buffer& src, Buffer& dst, std::size_t bytes) {
    const CudaBuffer& s = as_cuda_buffer(src, "the source of a copy", who());
    const CudaBuffer& d = as_cuda_buffer(dst, "the destination of a copy", who());
    if (&s.device() != &device_ && &d.device() != &device_)
        throw Error::usage("a copy between " + s.device().label() + " and " + d.device().label() +
                           " given to " + who() + "; use a queue of one of the two devices");
    return enqueue([&] {
        if (bytes == 0 || s.ptr() == d.ptr())
            return;
        if (&s.device() == &d.device())
            DUET_CUDA_CHECK(
                cudaMemcpyAsync(d.ptr(), s.ptr(), bytes, cudaMemcpyDeviceToDevice, stream_),
                "copying " + bytes_string(bytes) + " on " + device_.label());
        else // through NVLink/PCIe peer access where enabled, else staged by the driver
            DUET_CUDA_CHECK(cudaMemcpyPeerAsync(d.ptr(), d.device().ordinal(), s.ptr(),
                                                s.device().ordinal(), bytes, stream_),
                            "copying " + bytes_string(bytes) + " from " + s.device().label() +
                                " to " + d.device().label());
    });
}

Event CudaQueue::do_fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size,
                               std::size_t bytes) {
    const CudaBuffer& buf = own(dst, "the destination of a fill");

    // The pattern repeated to 16 bytes: 2, 4 and 8 divide 16, so byte k of the buffer is byte
    // k % 16 of this (the buffer starts 256-byte aligned, as cudaMalloc guarantees).
    std::array<unsigned char, 16> pattern16{};
    for (std::size_t i = 0; i < 16; i += pattern_size)
        std::memcpy(pattern16.data() + i, pattern, pattern_size);
    const bool bytewise = std::all_of(pattern16.begin(), pattern16.end(),
                                      [&](unsigned char b) { return b == pattern16[0]; });

    // Loaded before the start event so that a first fill's module load is not timed.
    const cudaKernel_t kernel = bytes > 0 && !bytewise ? device_.fill_kernel() : nullptr;
    return enqueue([&] {
        if (bytes == 0)
            return;
        if (bytewise) { // cudaMemset fills single bytes: the fast path for 0 and 0xFF poison
            DUET_CUDA_CHECK(cudaMemsetAsync(buf.ptr(), pattern16[0], bytes, stream_),
                            "filling " + bytes_string(bytes) + " on " + device_.label());
            return;
        }
        void* ptr = buf.ptr();
        unsigned long long count = bytes;
        void* argv[] = {&ptr, &count, pattern16.data()};
        const std::size_t chunks = std::max<std::size_t>(bytes / 16, 1);
        const std::size_t wanted = (chunks + fill_threads - 1) / fill_threads;
        const std::size_t cap =
            static_cast<std::size_t>(std::max(device_.limits().multiprocessors, 1)) *
            fill_blocks_per_sm;
        const dim3 grid(static_cast<unsigned>(std::min(wanted, cap)));
        DUET_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid,
                                         dim3(fill_threads), argv, 0, stream_),
                        "filling " + bytes_string(bytes) + " on " + device_.label() +
                            " with the duet_fill_bytes kernel");
    });
}

CudaKernel& CudaQueue::own(Kernel& kernel) const {
    auto* k = dynamic_cast<CudaKernel*>(&kernel);
    if (!k)
        throw Error::usage("kernel " + kernel.name() + " given to " + who() +
                           " was loaded by another backend; load it on this device");
    if (&k->device() != &device_)
        throw Error::usage("kernel " + kernel.name() + " was loaded on " + k->device().label() +
                           " but launched on " + who() + "; load it on each device");
    return *k;
}

LaunchContract CudaQueue::launch_contract(Kernel& kernel) const {
    return launch_contract_of(own(kernel));
}

Event CudaQueue::do_launch(Kernel& kernel, const Range& range,
                           const std::array<std::size_t, 3>& local, KernelArgs args) {
    // launch_contract() has made sure the kernel is one of this device's.
    auto* k = static_cast<CudaKernel*>(&kernel);
    device_.activate(); // the plan may ask the driver (occupancy)
    LaunchPlan& plan = plan_;
    plan_launch(*k, range, local, args, plan);
    return enqueue_current([&] {
        const auto what = [&] {
            return "launching kernel " + k->name() + " over " + range.to_string() + " (grid " +
                   std::to_string(plan.grid.x) + "x" + std::to_string(plan.grid.y) + "x" +
                   std::to_string(plan.grid.z) + ", block " + std::to_string(plan.block.x) + "x" +
                   std::to_string(plan.block.y) + "x" + std::to_string(plan.block.z) + ", " +
                   std::to_string(plan.shared_bytes) + " bytes of dynamic shared memory) on " +
                   device_.label();
        };
        // A cudaKernel_t is accepted in place of a function symbol (see cudaLaunchKernel).
        DUET_CUDA_CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(k->handle()), plan.grid,
                                         plan.block, plan.argv.data(), plan.shared_bytes, stream_),
                        what()); // (it returns the launch's own errors)
    });
}

void CudaQueue::finish() {
    device_.activate();
    DUET_CUDA_CHECK(cudaStreamSynchronize(stream_),
                    "waiting for the queue of " + device_.label() + " to finish");
}

} // namespace duet::cuda
