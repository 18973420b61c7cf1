#pragma once
// duet_launch_overhead: the ways of launching one empty kernel that the benchmark times side by
// side. Each way lives in its own file (Duet, raw OpenCL, raw CUDA compiled by nvcc), so this
// header holds only standard C++ that nvcc's default C++17 accepts.
#include <functional>
#include <string>
#include <vector>

namespace duet_bench {

// The empty kernel: one int argument, nothing done. The same name in both languages.
inline constexpr const char* kernel_name = "duet_bench_empty";
inline constexpr const char* kernel_opencl = "__kernel void duet_bench_empty(int n) { (void)n; }\n";
inline constexpr const char* kernel_cuda =
    "extern \"C\" __global__ void duet_bench_empty(int n) { (void)n; }\n";
// Every launch is one work-group of this many work-items: Range(256).local(256), grid 1 x 256.
inline constexpr int work_items = 256;

// The busy kernel of the launch patterns (--patterns): every work-item runs `iters` dependent
// multiply-adds and writes one float, so a launch lasts as long as --busy-iters makes it (about
// 0.2 ms on an H100 is the pattern the patterns are about; the output states the time measured).
inline constexpr const char* busy_name = "duet_bench_busy";
inline constexpr const char* busy_opencl =
    "__kernel void duet_bench_busy(__global float* out, const int iters) {\n"
    "    const int i = get_global_id(0);\n"
    "    float y = 1.0f, x = (float)i * 1e-7f;\n"
    "    for (int k = 0; k < iters; ++k) y = y * 0.9999999f + x;\n"
    "    out[i] = y;\n"
    "}\n";
inline constexpr const char* busy_cuda =
    "extern \"C\" __global__ void duet_bench_busy(float* out, int iters) {\n"
    "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float y = 1.0f, x = (float)i * 1e-7f;\n"
    "    for (int k = 0; k < iters; ++k) y = y * 0.9999999f + x;\n"
    "    out[i] = y;\n"
    "}\n";
inline constexpr int busy_local = 256;

// One way of running the two launch patterns: `launch_finish(n)` n times launches the busy
// kernel over `items` work-items and waits for the queue; `launch_read(n)` n times launches it
// and reads its first float back with a blocking read (the "dot product, then its result"
// pattern).
struct PatternWay {
    std::string key, label;
    std::function<void(int)> launch_finish, launch_read;
};

// The raw ways for one device, or why there are none (as RawPath).
struct RawPatterns {
    std::vector<PatternWay> ways;
    std::string skipped, note;
};
RawPatterns raw_opencl_patterns(int local_index, const std::string& platform,
                                const std::string& name, int items, int iters);
RawPatterns raw_cuda_patterns(int local_index, const std::string& pci_bus_id,
                              const std::string& name, int items, int iters);

// duet_launch_overhead --patterns ...: launch + finish and launch + small blocking read of the
// busy kernel, Duet against raw CUDA / OpenCL (launch_patterns.cpp). Returns the exit code.
int run_patterns(int argc, char** argv);

// One way of launching the kernel: `enqueue(n)` queues n launches (argument i for the i-th),
// `finish()` waits until the queue is empty.
struct Method {
    std::string key;   // JSON key: "duet", "raw_event", "raw_no_event", "raw_event_record"
    std::string label; // for the table
    std::function<void(int)> enqueue;
    std::function<void()> finish;
};

// The raw ways for one device, or why there are none.
struct RawPath {
    std::vector<Method> methods;
    std::string skipped; // not empty: why this device has no raw comparison
    std::string note;    // what the raw side runs on (platform, matched device)
};

// Raw OpenCL on the device Duet calls opencl:`local_index` (every platform in loader order,
// CL_DEVICE_TYPE_ALL, as Duet counts them), checked by platform and device name: its own
// context and in-order profiling queue, the kernel built with clBuildProgram.
RawPath raw_opencl(int local_index, const std::string& platform, const std::string& name);

// Raw CUDA runtime on the device Duet calls cuda:`local_index` (found by PCI bus id when known):
// cudaLaunchKernel of an empty __global__ kernel compiled into this program by nvcc, on a
// stream of its own (cudaStreamCreate, as Duet's queue).
RawPath raw_cuda(int local_index, const std::string& pci_bus_id, const std::string& name);
// Why the raw CUDA side has no device here ("raw CUDA: no CUDA device at run time (...)"), or
// what it sees when Duet lists no CUDA device although the runtime has some.
std::string raw_cuda_probe();

} // namespace duet_bench
