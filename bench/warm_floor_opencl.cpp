// The OpenCL driver's floor for a warm start (issue #15, item 4): what any program must do to
// have Duet's vecadd ready from a prebuilt binary, and nothing else: find the platform and the
// device, create a context, load the program binary, build it, create the kernel.
// bench/warm_start.py compares it with `runapp run vecadd` on a warm cache.
//
//   warm_floor_opencl PLATFORM BINARY [SOURCE]
//
// PLATFORM: a substring of the platform's name ("NVIDIA", "Portable"); the first GPU of that
// platform, else its first device. BINARY: the program binary; when it does not exist, SOURCE
// (kernels_cl/vecadd.cl) is built and its binary written there (the cold run, said in the JSON).
// Prints one JSON line: milliseconds from main's start to the end of each step.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <CL/cl.h>

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point t0 = Clock::now();
double ms() {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int fail(const char* what, cl_int rc) {
    std::fprintf(stderr, "warm_floor_opencl: %s failed (%d)\n", what, rc);
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: warm_floor_opencl PLATFORM BINARY [SOURCE]\n");
        return 2;
    }
    const double start = ms();
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(0, nullptr, &np);
    if (rc != CL_SUCCESS || np == 0)
        return fail("clGetPlatformIDs", rc);
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    const double platforms = ms();
    cl_platform_id platform = nullptr;
    for (auto p : ps) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
        if (std::strstr(name, argv[1])) {
            platform = p;
            break;
        }
    }
    if (!platform) {
        std::fprintf(stderr, "warm_floor_opencl: no platform named like '%s'\n", argv[1]);
        return 2;
    }
    cl_device_id dev = nullptr;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &dev, nullptr) != CL_SUCCESS &&
        (rc = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr)) != CL_SUCCESS)
        return fail("clGetDeviceIDs", rc);
    const double devices = ms();
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &rc);
    if (rc != CL_SUCCESS)
        return fail("clCreateContext", rc);
    const double context = ms();

    std::ifstream in(argv[2], std::ios::binary);
    const bool cold = !in;
    cl_program prog = nullptr;
    if (cold) {
        if (argc < 4) {
            std::fprintf(stderr, "warm_floor_opencl: no binary at %s and no SOURCE to build\n",
                         argv[2]);
            return 2;
        }
        std::ifstream s(argv[3], std::ios::binary);
        const std::string src{std::istreambuf_iterator<char>(s), {}};
        if (src.empty()) {
            std::fprintf(stderr, "warm_floor_opencl: cannot read the source %s\n", argv[3]);
            return 2;
        }
        const char* text = src.c_str();
        prog = clCreateProgramWithSource(ctx, 1, &text, nullptr, &rc);
    } else {
        const std::vector<unsigned char> bin{std::istreambuf_iterator<char>(in), {}};
        const unsigned char* data = bin.data();
        const size_t size = bin.size();
        prog = clCreateProgramWithBinary(ctx, 1, &dev, &size, &data, nullptr, &rc);
    }
    if (rc != CL_SUCCESS)
        return fail(cold ? "clCreateProgramWithSource" : "clCreateProgramWithBinary", rc);
    if ((rc = clBuildProgram(prog, 1, &dev, "-DDUET_OPENCL=1", nullptr, nullptr)) != CL_SUCCESS)
        return fail("clBuildProgram", rc);
    const double program = ms();
    cl_kernel k = clCreateKernel(prog, "vecadd_naive", &rc);
    if (rc != CL_SUCCESS)
        return fail("clCreateKernel(vecadd_naive)", rc);
    const double kernel = ms();
    if (cold) { // keep the binary for the warm runs
        size_t size = 0;
        clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr);
        std::vector<unsigned char> bin(size);
        unsigned char* p = bin.data();
        clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof p, &p, nullptr);
        std::ofstream(argv[2], std::ios::binary)
            .write(reinterpret_cast<const char*>(p), std::streamsize(size));
    }
    std::printf(
        "{\"backend\": \"opencl\", \"cold\": %s, \"start_ms\": %.3f, \"platforms_ms\": %.3f, "
        "\"device_ms\": %.3f, \"context_ms\": %.3f, \"program_ms\": %.3f, \"kernel_ms\": %.3f}\n",
        cold ? "true" : "false", start, platforms, devices, context, program, kernel);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return 0;
}
