// The CUDA driver's floor for a warm start (issue #15, item 4): what any program must do to have
// Duet's vecadd ready from its prebuilt fatbin (the one the CUDA plugin embeds), and nothing
// else: initialise the driver, take the device's primary context (as the CUDA runtime does), load
// the module, find the kernel. bench/warm_start.py compares it with `runapp run vecadd`.
//
//   warm_floor_cuda FATBIN [DEVICE]
//
// FATBIN: kernels_cu/vecadd.cu compiled by nvcc -fatbin (the build copies the plugin's beside
// this binary as vecadd.fatbin). Prints one JSON line: milliseconds from main's start to the end
// of each step.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include <cuda.h>

namespace {

using Clock = std::chrono::steady_clock;
const Clock::time_point t0 = Clock::now();
double ms() {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

int fail(const char* what, CUresult rc) {
    const char* name = nullptr;
    cuGetErrorName(rc, &name);
    std::fprintf(stderr, "warm_floor_cuda: %s failed (%s)\n", what, name ? name : "?");
    return 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: warm_floor_cuda FATBIN [DEVICE]\n");
        return 2;
    }
    const double start = ms();
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "warm_floor_cuda: cannot read %s\n", argv[1]);
        return 2;
    }
    const std::vector<char> image{std::istreambuf_iterator<char>(in), {}};
    const double read = ms();
    CUresult rc = cuInit(0);
    if (rc != CUDA_SUCCESS)
        return fail("cuInit", rc);
    const double init = ms();
    CUdevice dev = 0;
    if ((rc = cuDeviceGet(&dev, argc > 2 ? std::atoi(argv[2]) : 0)) != CUDA_SUCCESS)
        return fail("cuDeviceGet", rc);
    CUcontext ctx = nullptr;
    if ((rc = cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
        return fail("cuDevicePrimaryCtxRetain", rc);
    if ((rc = cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
        return fail("cuCtxSetCurrent", rc);
    const double context = ms();
    CUmodule mod = nullptr;
    if ((rc = cuModuleLoadData(&mod, image.data())) != CUDA_SUCCESS)
        return fail("cuModuleLoadData", rc);
    const double module = ms();
    CUfunction f = nullptr;
    if ((rc = cuModuleGetFunction(&f, mod, "vecadd_naive")) != CUDA_SUCCESS)
        return fail("cuModuleGetFunction(vecadd_naive)", rc);
    const double kernel = ms();
    std::printf("{\"backend\": \"cuda\", \"start_ms\": %.3f, \"read_ms\": %.3f, \"init_ms\": %.3f, "
                "\"context_ms\": %.3f, \"module_ms\": %.3f, \"kernel_ms\": %.3f}\n",
                start, read, init, context, module, kernel);
    cuModuleUnload(mod);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
