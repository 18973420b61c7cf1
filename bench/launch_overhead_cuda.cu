// The raw CUDA side of duet_launch_overhead: an empty kernel compiled into the benchmark by nvcc
// and launched with cudaLaunchKernel, the runtime call Duet's CUDA queue makes. Three event
// policies: none; a pair of events created, recorded and destroyed around every launch (what
// Duet's queue does, so the same work); and one pair created once and recorded around every
// launch (how hand-written CUDA usually times work).
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "launch_overhead.hpp"

namespace {

__global__ void duet_bench_empty_raw(int n) {
    (void)n;
}

void check(cudaError_t rc, const char* call) {
    if (rc != cudaSuccess)
        throw std::runtime_error(std::string("raw CUDA: ") + call + " failed with " +
                                 cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc));
}

struct State {
    int ordinal = 0;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, end = nullptr;
    ~State() {
        cudaSetDevice(ordinal);
        if (stream)
            cudaStreamSynchronize(stream);
        if (start)
            cudaEventDestroy(start);
        if (end)
            cudaEventDestroy(end);
        if (stream)
            cudaStreamDestroy(stream);
    }
};

inline void launch(const State& s, int i) {
    void* args[] = {&i};
    check(cudaLaunchKernel(reinterpret_cast<const void*>(&duet_bench_empty_raw), dim3(1),
                           dim3(duet_bench::work_items), args, 0, s.stream),
          "cudaLaunchKernel");
}

} // namespace

namespace duet_bench {

std::string raw_cuda_probe() {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess)
        return std::string("raw CUDA: no CUDA device at run time (cudaGetDeviceCount: ") +
               cudaGetErrorName(rc) + "), that part is skipped";
    if (count == 0)
        return "raw CUDA: no CUDA device at run time (0 devices), that part is skipped";
    return "raw CUDA: the runtime sees " + std::to_string(count) +
           " device(s) but none was selected through Duet's CUDA backend";
}

RawPath raw_cuda(int local_index, const std::string& pci_bus_id, const std::string& name) {
    RawPath path;
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        path.skipped = std::string("raw CUDA: no CUDA device at run time (cudaGetDeviceCount: ") +
                       (rc != cudaSuccess ? cudaGetErrorName(rc) : "0 devices") + ")";
        return path;
    }
    int ordinal = local_index;
    if (!pci_bus_id.empty()) {
        int by_bus = -1;
        if (cudaDeviceGetByPCIBusId(&by_bus, pci_bus_id.c_str()) == cudaSuccess)
            ordinal = by_bus;
    }
    if (ordinal < 0 || ordinal >= count) {
        path.skipped =
            "raw CUDA: no device " + std::to_string(ordinal) + " among " + std::to_string(count);
        return path;
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
    path.note = "raw CUDA on device " + std::to_string(ordinal) + " (" + prop.name + ")";
    if (name != prop.name)
        path.note += "; Duet calls it " + name;

    auto s = std::make_shared<State>();
    s->ordinal = ordinal;
    check(cudaSetDevice(ordinal), "cudaSetDevice");
    check(cudaStreamCreate(&s->stream), "cudaStreamCreate");
    check(cudaEventCreateWithFlags(&s->start, cudaEventDefault), "cudaEventCreateWithFlags");
    check(cudaEventCreateWithFlags(&s->end, cudaEventDefault), "cudaEventCreateWithFlags");

    const auto finish = [s] {
        check(cudaSetDevice(s->ordinal), "cudaSetDevice");
        check(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
    };
    // Every enqueue selects the device once, as a program driving one GPU from one thread would;
    // Duet selects it on every launch (it may be driving several devices), which is its cost.
    path.methods.push_back(
        {"raw_event", "raw cudaEventCreate x2 + Record + cudaLaunchKernel + Record + Destroy x2",
         [s](int n) {
             check(cudaSetDevice(s->ordinal), "cudaSetDevice");
             for (int i = 0; i < n; ++i) {
                 cudaEvent_t a = nullptr, b = nullptr;
                 check(cudaEventCreateWithFlags(&a, cudaEventDefault), "cudaEventCreateWithFlags");
                 check(cudaEventCreateWithFlags(&b, cudaEventDefault), "cudaEventCreateWithFlags");
                 check(cudaEventRecord(a, s->stream), "cudaEventRecord");
                 launch(*s, i);
                 check(cudaEventRecord(b, s->stream), "cudaEventRecord");
                 check(cudaEventDestroy(a), "cudaEventDestroy");
                 check(cudaEventDestroy(b), "cudaEventDestroy");
             }
         },
         finish});
    path.methods.push_back(
        {"raw_event_record",
         "raw cudaEventRecord + cudaLaunchKernel + cudaEventRecord (events reused)",
         [s](int n) {
             check(cudaSetDevice(s->ordinal), "cudaSetDevice");
             for (int i = 0; i < n; ++i) {
                 check(cudaEventRecord(s->start, s->stream), "cudaEventRecord");
                 launch(*s, i);
                 check(cudaEventRecord(s->end, s->stream), "cudaEventRecord");
             }
         },
         finish});
    path.methods.push_back({"raw_no_event", "raw cudaLaunchKernel, no event",
                            [s](int n) {
                                check(cudaSetDevice(s->ordinal), "cudaSetDevice");
                                for (int i = 0; i < n; ++i)
                                    launch(*s, i);
                            },
                            finish});
    return path;
}

} // namespace duet_bench
