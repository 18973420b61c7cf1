#pragma once
// The conformance suite: the device contract every backend keeps (transfers, fills, copies,
// launches, user kernels, caches, timing, clear errors), written once and run on every device
// of every backend. Only this header names backends: a test asks it which devices there are,
// whether a compiler is missing, and gives user kernels in both languages.
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <duet/duet.hpp>

#include "test_util.hpp"

namespace conformance {

// Every device of every backend (the plugins present, and the backends this build knows even
// when their plugin did not load): with DUET_REQUIRE_OPENCL=1 or DUET_REQUIRE_CUDA=1 a backend
// with no device fails the test (devices_of), so a broken install cannot pass by testing nothing.
inline std::vector<duet::Device*> every_device() {
    std::vector<std::string> names = {"opencl", "cuda"};
    for (const auto& r : duet::backend_reports()) {
        bool known = false;
        for (const auto& n : names)
            known = known || n == r.name;
        if (!known)
            names.push_back(r.name);
    }
    std::vector<duet::Device*> out;
    for (const auto& name : names)
        for (auto* d : duet_test::devices_of(name))
            out.push_back(d);
    return out;
}

// The user kernels of the suite, in OpenCL C and in CUDA (NVRTC, with Duet's header for local
// arguments): scale_add (y += s * x * FACTOR) and reverse_groups (each work-group's slice
// reversed through local memory given as an argument).
inline const char* const user_cl = R"(
__kernel void scale_add(__global const float* x, __global float* y, const float s, const int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = y[i] + s * x[i] * FACTOR;
}
// Reverses each work-group's slice through local memory given as an argument.
__kernel void reverse_groups(__global const int* in, __global int* out, __local int* tmp) {
    int l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
    tmp[l] = in[g * n + l];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g * n + l] = tmp[n - 1 - l];
}
)";

// The same two kernels in CUDA (built by NVRTC, with Duet's header for local arguments).
inline const char* const user_cu = R"(
#include "duet_cuda.cuh"
extern "C" __global__ void scale_add(const float* x, float* y, const float s, const int n) {
    const int i = duet_global_id(0);
    if (i < n) y[i] = y[i] + s * x[i] * FACTOR;
}
extern "C" __global__ void reverse_groups(const int* in, int* out, duet_local_t tmp_arg) {
    int* tmp = DUET_LOCAL(int, tmp_arg);
    const int l = threadIdx.x, n = blockDim.x, g = blockIdx.x;
    tmp[l] = in[g * n + l];
    __syncthreads();
    out[g * n + l] = tmp[n - 1 - l];
}
)";

// A user kernel source given in both languages: each device builds the one it runs.
inline duet::BuildOptions user_program(const char* opencl_c, const char* cuda, const char* origin) {
    duet::BuildOptions o;
    o.sources.opencl = opencl_c;
    o.sources.cuda = cuda;
    o.sources.origin = origin;
    return o;
}

// The device runs CUDA (its runtime compiler, NVRTC, may be missing where the driver is not).
inline bool runs_cuda(const duet::Device& dev) {
    return dev.info().backend == "cuda";
}

// A build that failed because the device has no run-time compiler (NVRTC missing): the checks
// that need one are skipped, and say so.
inline bool compiler_missing(const duet::Error& e) {
    if (e.kind() != duet::ErrorKind::unavailable)
        return false;
    MESSAGE("no run-time compiler, its checks skipped: " << e.what());
    return true;
}

// The kernel, or null when the device has no run-time compiler (its checks are then skipped,
// compiler_missing says so); any other failure throws.
inline std::unique_ptr<duet::Kernel> load_or_skip(duet::Device& dev, const std::string& name,
                                                  const duet::BuildOptions& options) {
    try {
        return dev.load_kernel(name, options);
    } catch (const duet::Error& e) {
        if (!compiler_missing(e))
            throw;
        return nullptr;
    }
}

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

} // namespace conformance
