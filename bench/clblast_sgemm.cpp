// CLBlast's SGEMM on an OpenCL device, timed with OpenCL events: the OpenCL reference of
// docs/results/nvidia-h100.md. Usage: clblast_sgemm PLATFORM_SUBSTRING N [N...]; prints JSON lines.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <clblast_c.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: clblast_sgemm PLATFORM_SUBSTRING N [N...]\n");
        return 2;
    }
    cl_uint np = 0;
    clGetPlatformIDs(0, nullptr, &np);
    std::vector<cl_platform_id> ps(np);
    clGetPlatformIDs(np, ps.data(), nullptr);
    cl_device_id dev = nullptr;
    for (auto p : ps) {
        char name[256] = {0};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        if (std::strstr(name, argv[1]) &&
            clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr) == CL_SUCCESS)
            break;
        dev = nullptr;
    }
    if (!dev) {
        std::fprintf(stderr, "no platform matching %s\n", argv[1]);
        return 3;
    }
    char dname[256] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dname, dname, nullptr);
    cl_int err = 0;
    cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    for (int i = 2; i < argc; ++i) {
        const size_t n = std::strtoul(argv[i], nullptr, 10);
        std::vector<float> h(n * n, 0.5f);
        cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4,
                                  h.data(), &err);
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * n * 4,
                                  h.data(), &err);
        cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * n * 4, nullptr, &err);
        std::vector<double> ms;
        for (int r = 0; r < 13; ++r) {
            // Timed on the host around the call and clFinish: CLBlast may run helper kernels
            // (padding, transposes) before the GEMM, and its event covers only the last one.
            cl_event ev = nullptr;
            clFinish(q);
            const auto h0 = std::chrono::steady_clock::now();
            CLBlastStatusCode s =
                CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                             1.0f, a, 0, n, b, 0, n, 0.0f, c, 0, n, &q, &ev);
            clFinish(q);
            const double host_ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0)
                    .count();
            if (s != CLBlastSuccess) {
                std::fprintf(stderr, "CLBlastSgemm failed: %d\n", s);
                return 3;
            }
            clReleaseEvent(ev);
            if (r >= 3)
                ms.push_back(host_ms);
        }
        std::sort(ms.begin(), ms.end());
        const double med = ms[ms.size() / 2];
        std::printf("{\"device\": \"%s\", \"n\": %zu, \"ms\": %.4f, \"gflops\": %.1f}\n", dname, n,
                    med, 2.0 * n * n * n / med / 1e6);
        clReleaseMemObject(a);
        clReleaseMemObject(b);
        clReleaseMemObject(c);
    }
    return 0;
}
