// The OpenCL backend's compile step of CUDA C++ for NVIDIA's OpenCL (backends/opencl/
// opencl_clang.hpp, the cuda-c++-via-ptx route): clang makes PTX in the form NVIDIA's OpenCL
// builds as a program binary (every kernel an .entry, pointer parameters .ptr .global), which
// ptxas accepts for sm_90 where the CUDA toolkit is installed. No device is needed.
#include <doctest/doctest.h>

#include <string>

#include <duet/error.hpp>

#include "opencl_clang.hpp"
#include "ptxas_check.hpp"

using duet::opencl::clang_tools;
using duet::opencl::ClangTarget;
using duet::opencl::cuda_through_clang;

namespace {

// CUDA C++ as an app writes it: two kernels, shared memory, a barrier, a math function, a define.
const char* kernels = R"(
extern "C" __global__ void vecadd(const float* a, const float* __restrict__ b, float* c, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
extern "C" __global__ void __launch_bounds__(TILE) tile_norms(float* out, const float* in) {
    __shared__ float tile[TILE];
    tile[threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (int i = 0; i < TILE; ++i)
            s += tile[i] * tile[i];
        out[blockIdx.x] = sqrtf(s);
    }
}
)";

bool has(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// The lines of `ptx` that declare parameters of the kernel that begins at `entry`.
std::string params_of(const std::string& ptx, const std::string& entry) {
    const auto at = ptx.find(".entry " + entry + "(");
    REQUIRE(at != std::string::npos);
    return ptx.substr(at, ptx.find(')', at) - at);
}

} // namespace

TEST_CASE("clang to PTX: every kernel an .entry, pointer parameters .ptr .global") {
    const auto& tools = clang_tools(ClangTarget::ptx);
    if (!tools.missing.empty()) {
        // The route is closed with what to install.
        MESSAGE("the PTX route is closed here: " << tools.missing);
        CHECK(has(tools.missing, "Debian:"));
        return;
    }
    duet::BuildOptions options;
    options.defines = {{"TILE", "64"}};
    std::string flags;
    const auto bytes = cuda_through_clang(ClangTarget::ptx, kernels, "k.cu", options, flags);
    REQUIRE(!bytes.empty());
    CHECK(bytes.back() == '\0'); // NVIDIA's OpenCL reads the binary as a C string
    const std::string ptx(bytes.begin(), bytes.end() - 1);
    INFO(ptx);
    CHECK(has(flags, "nvptx64-nvidia-nvcl"));
    CHECK(has(flags, "-DTILE=64"));
    CHECK(has(ptx, ".target sm_"));
    CHECK(has(ptx, "texmode_independent")); // NVIDIA OpenCL's form, not CUDA's
    const std::string vec = params_of(ptx, "vecadd"), norms = params_of(ptx, "tile_norms");
    std::size_t global = 0;
    for (auto at = vec.find(".ptr .global"); at != std::string::npos;
         at = vec.find(".ptr .global", at + 1))
        ++global;
    CHECK(global == 3); // a, b and c; n stays a value
    CHECK(has(norms, ".ptr .global"));
    CHECK(has(ptx, "bar.sync"));  // __syncthreads
    CHECK(has(ptx, ".shared"));   // __shared__
    CHECK(has(ptx, "sqrt"));      // sqrtf, from libclc's builtins
    CHECK(!has(ptx, "call.uni")); // no call left to a builtin that was not linked in

    check_ptxas_accepts(ptx);
}

TEST_CASE("clang to PTX: a text clang refuses is a build Error with clang's log") {
    if (!clang_tools(ClangTarget::ptx).missing.empty())
        return;
    std::string flags;
    try {
        cuda_through_clang(ClangTarget::ptx, "__global__ void k(float* p) { p[0] = undeclared; }",
                           "bad.cu", {}, flags);
        FAIL("no Error");
    } catch (const duet::Error& e) {
        CHECK(e.kind() == duet::ErrorKind::build);
        CHECK(has(e.what(), "bad.cu"));
        CHECK(has(e.what(), "to PTX"));
        CHECK(has(e.build_log(), "undeclared"));
    }
}
