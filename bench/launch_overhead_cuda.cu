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

// The busy kernel of the launch patterns, as launch_overhead.hpp's busy_cuda.
__global__ void duet_bench_busy_raw(float* out, int iters) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float y = 1.0f, x = (float)i * 1e-7f;
    for (int k = 0; k < iters; ++k)
        y = y * 0.9999999f + x;
    out[i] = y;
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

// The ordinal of the device Duet calls cuda:`local_index` (by PCI bus id when known), or -1
// with `skipped` saying why; `note` names what the raw side runs on.
int find_ordinal(int local_index, const std::string& pci_bus_id, const std::string& name,
                 std::string& skipped, std::string& note) {
    int count = 0;
    const cudaError_t rc = cudaGetDeviceCount(&count);
    if (rc != cudaSuccess || count == 0) {
        skipped = std::string("raw CUDA: no CUDA device at run time (cudaGetDeviceCount: ") +
                  (rc != cudaSuccess ? cudaGetErrorName(rc) : "0 devices") + ")";
        return -1;
    }
    int ordinal = local_index;
    if (!pci_bus_id.empty()) {
        int by_bus = -1;
        if (cudaDeviceGetByPCIBusId(&by_bus, pci_bus_id.c_str()) == cudaSuccess)
            ordinal = by_bus;
    }
    if (ordinal < 0 || ordinal >= count) {
        skipped =
            "raw CUDA: no device " + std::to_string(ordinal) + " among " + std::to_string(count);
        return -1;
    }
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
    note = "raw CUDA on device " + std::to_string(ordinal) + " (" + prop.name + ")";
    if (name != prop.name)
        note += "; Duet calls it " + name;
    return ordinal;
}

// The device selected and a stream of its own (cudaStreamCreate, as Duet's queue).
std::shared_ptr<State> open_stream(int ordinal) {
    auto s = std::make_shared<State>();
    s->ordinal = ordinal;
    check(cudaSetDevice(ordinal), "cudaSetDevice");
    check(cudaStreamCreate(&s->stream), "cudaStreamCreate");
    return s;
}

RawPatterns raw_cuda_patterns(int local_index, const std::string& pci_bus_id,
                              const std::string& name, int items, int iters) {
    RawPatterns raw;
    const int ordinal = find_ordinal(local_index, pci_bus_id, name, raw.skipped, raw.note);
    if (ordinal < 0)
        return raw;
    auto s = open_stream(ordinal);
    float* out = nullptr;
    check(cudaMalloc(&out, sizeof(float) * std::size_t(items)), "cudaMalloc");
    std::shared_ptr<float> out_guard(out, [](float* p) { cudaFree(p); });
    const auto launch = [s, out, items, iters] {
        float* o = out;
        int k = iters;
        void* args[] = {&o, &k};
        check(cudaLaunchKernel(reinterpret_cast<const void*>(&duet_bench_busy_raw),
                               dim3(unsigned(items / busy_local)), dim3(busy_local), args, 0,
                               s->stream),
              "cudaLaunchKernel");
    };
    raw.ways.push_back({"raw", "raw cudaLaunchKernel + cudaStreamSynchronize / memcpy + sync",
                        [s, out_guard, launch](int n) {
                            check(cudaSetDevice(s->ordinal), "cudaSetDevice");
                            for (int i = 0; i < n; ++i) {
                                launch();
                                check(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
                            }
                        },
                        [s, out_guard, out, launch](int n) {
                            check(cudaSetDevice(s->ordinal), "cudaSetDevice");
                            float result = 0;
                            for (int i = 0; i < n; ++i) {
                                launch();
                                check(cudaMemcpyAsync(&result, out, sizeof result,
                                                      cudaMemcpyDeviceToHost, s->stream),
                                      "cudaMemcpyAsync");
                                check(cudaStreamSynchronize(s->stream), "cudaStreamSynchronize");
                            }
                        }});
    return raw;
}

RawPath raw_cuda(int local_index, const std::string& pci_bus_id, const std::string& name) {
    RawPath path;
    const int ordinal = find_ordinal(local_index, pci_bus_id, name, path.skipped, path.note);
    if (ordinal < 0)
        return path;

    auto s = open_stream(ordinal);
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
