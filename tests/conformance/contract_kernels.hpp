#pragma once
// The kernels of the launch-contract cases (conformance_contracts*.cpp), in OpenCL C and in
// CUDA: axpy (y = a * x + y), and two_locals, which reads two duet::local arguments (OpenCL:
// two __local int* parameters; CUDA: one `extern __shared__` array, the second argument at the
// first 16-byte boundary after the first, 4 * 33 = 132 bytes: at 144). The histogram, written
// as each language writes it, is tests/histogram_kernels.hpp.
#include <string>

#include "conformance.hpp"
#include "histogram_kernels.hpp"

namespace conformance {

inline const char* const contract_cl = R"(
__kernel void axpy(__global const float* x, __global float* y, const float a, const int n) {
    const int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
__kernel void two_locals(__global int* out, __local int* a, __local int* b) {
    const int l = get_local_id(0);
    a[l] = l;
    b[l] = 100 * l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[l] = a[32 - l] + b[l];
}
)";

inline const char* const contract_cu = R"(
extern "C" __global__ void axpy(const float* x, float* y, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
extern "C" __global__ void two_locals(int* out) {
    extern __shared__ __align__(16) unsigned char smem[];
    int* a = reinterpret_cast<int*>(smem);
    int* b = reinterpret_cast<int*>(smem + 144);
    const int l = threadIdx.x;
    a[l] = l;
    b[l] = 100 * l;
    __syncthreads();
    out[l] = a[32 - l] + b[l];
}
)";

inline duet::BuildOptions contract_program() {
    return user_program(contract_cl, contract_cu, "contracts");
}

inline duet::BuildOptions histogram_program() {
    return user_program(duet_test::histogram_cl, duet_test::histogram_cu, "histogram");
}

// axpy on one device, with a queue and its x and y buffers of n floats (unwritten); `kernel`
// is null when the device has no run-time compiler (load_or_skip says so).
struct Axpy {
    Axpy(duet::Device& dev, int n)
        : kernel(load_or_skip(dev, "axpy", contract_program())), queue(dev.create_queue()),
          x(dev.alloc<float>(n)), y(dev.alloc<float>(n)) {}
    std::unique_ptr<duet::Kernel> kernel;
    std::unique_ptr<duet::Queue> queue;
    std::unique_ptr<duet::Buffer> x, y;
};

// The text of the usage Error `f` throws (a failed check when it throws none, or another kind).
template <class F> std::string usage_error(F&& f) {
    try {
        f();
    } catch (const duet::Error& e) {
        CHECK(e.kind() == duet::ErrorKind::usage);
        return e.what();
    }
    FAIL("expected a usage Error");
    return {};
}

} // namespace conformance
