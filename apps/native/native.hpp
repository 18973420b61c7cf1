#pragma once
// The native CPU reference: each app's problem computed by the host CPU itself, on all its cores
// with its widest vectors (and OpenBLAS's sgemm for matmul where the build found it), so that a
// device's speed-up is measured against the CPU at its honest best. Not a Duet backend: the apps
// call these loops from App::run_native, time them with the host clock and check their output
// with the same checker and tolerances as a device's.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <duet/duet.hpp>

namespace duet::apps::native {

// The host CPU as the reference rows name it.
struct HostCpu {
    std::string model;     // "AMD EPYC 7B13" (from /proc/cpuinfo; "unknown CPU" without it)
    unsigned threads = 1;  // threads the loops use: std::thread::hardware_concurrency()
    int vector_bits = 128; // widest float vectors the loops run with: 512, 256 or 128
    std::string isa;       // "AVX-512", "AVX2" or "SSE2"
};
const HostCpu& host_cpu();

// "host CPU (AMD EPYC 7B13, 2 threads, AVX2[, LIBRARY])": the device column of a reference row.
std::string device_name(const std::string& library = "");

// Runs body(t) for t in [0, threads) on that many threads at once (the caller's thread is t = 0),
// on threads started once and kept (native/thread_pool.cpp); rethrows a body's exception.
void on_threads(unsigned threads, const std::function<void(unsigned)>& body);

// ---- the loops (all threads, vectorised for the widest ISA the CPU has) ----
void vecadd(const float* a, const float* b, float* c, std::size_t n);
float reduce_f32(const float* x, std::size_t n);
std::int32_t reduce_i32(const std::int32_t* x, std::size_t n);
// 5x5 convolution with clamp-to-edge borders, row-major W x H; filter is 5x5 row-major.
void conv5x5(const float* img, const float* filter, float* out, std::size_t W, std::size_t H);
// C = A * B, row-major, A M x K, B K x N: cblas_sgemm when the build found OpenBLAS, else a
// blocked, threaded, vectorised loop.
void sgemm(const float* a, const float* b, float* c, std::size_t M, std::size_t N, std::size_t K);
// Which of the two sgemm uses: "OpenBLAS 0.3.21 (Haswell kernels, 2 threads)" or
// "blocked C++ loop (no OpenBLAS in this build)".
std::string sgemm_library();
// Empty, or why the sgemm figure understates this CPU: OpenBLAS that did not recognise the CPU
// and fell back to kernels narrower than the vectors the CPU has (e.g. Prescott's SSE3 kernels
// on an AVX-512 CPU in a virtual machine), with the setting that fixes it.
std::string sgemm_warning();

// ---- the copy bandwidth the memory-bound apps are measured against ----
struct Copy {
    double gbs = 0;        // (bytes read + bytes written) / time, best of the two methods
    std::string method;    // "non-temporal stores" or "ordinary stores (memcpy)"
    double other_gbs = 0;  // the method not chosen, for the record
    std::size_t bytes = 0; // bytes read + written per copy
};
// Copies bytes/2 from one buffer into another (page-aligned, first touched by the thread that
// copies each part), on every thread, `reps` times after one warm-up, with ordinary and with
// non-temporal stores; the median of each, the faster one reported.
Copy copy_bandwidth(std::size_t bytes, int reps);

} // namespace duet::apps::native
