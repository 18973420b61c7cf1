// The raw OpenCL side of duet_launch_overhead: the C API only, exactly what a hand-written
// OpenCL program does to launch a kernel (clSetKernelArg, clEnqueueNDRangeKernel), with and
// without an event per launch.
#include <CL/cl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "launch_overhead.hpp"

namespace duet_bench {

namespace {

void check(cl_int err, const char* call) {
    if (err != CL_SUCCESS)
        throw std::runtime_error(std::string("raw OpenCL: ") + call + " failed with " +
                                 std::to_string(err));
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
    std::size_t n = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return {};
    std::string s(n, '\0');
    clGetPlatformInfo(p, what, n, s.data(), nullptr);
    s.resize(s.find('\0') == std::string::npos ? n : s.find('\0'));
    return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
    std::size_t n = 0;
    if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return {};
    std::string s(n, '\0');
    clGetDeviceInfo(d, what, n, s.data(), nullptr);
    s.resize(s.find('\0') == std::string::npos ? n : s.find('\0'));
    return s;
}

struct Found {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::string platform_name, device_name;
};

// Every device of every platform in loader order, as Duet's OpenCL backend numbers them.
std::vector<Found> all_devices() {
    std::vector<Found> out;
    cl_uint np = 0;
    if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0)
        return out;
    std::vector<cl_platform_id> platforms(np);
    check(clGetPlatformIDs(np, platforms.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id p : platforms) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0)
            continue;
        std::vector<cl_device_id> devs(nd);
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr) != CL_SUCCESS)
            continue;
        const std::string pname = platform_string(p, CL_PLATFORM_NAME);
        for (cl_device_id d : devs)
            out.push_back({p, d, pname, device_string(d, CL_DEVICE_NAME)});
    }
    return out;
}

// The context, queue, program and kernel, released in reverse order.
struct State {
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    cl_program program = nullptr;
    cl_kernel kernel = nullptr;
    ~State() {
        if (queue)
            clFinish(queue);
        if (kernel)
            clReleaseKernel(kernel);
        if (program)
            clReleaseProgram(program);
        if (queue)
            clReleaseCommandQueue(queue);
        if (context)
            clReleaseContext(context);
    }
};

// The device Duet calls opencl:`local_index`, checked by platform and device name.
const Found* find_device(const std::vector<Found>& devices, int local_index,
                         const std::string& platform, const std::string& name) {
    if (local_index >= 0 && static_cast<std::size_t>(local_index) < devices.size() &&
        devices[local_index].platform_name == platform && devices[local_index].device_name == name)
        return &devices[local_index];
    for (const auto& d : devices)
        if (d.platform_name == platform && d.device_name == name)
            return &d;
    return nullptr;
}

// A context, an in-order profiling queue (as Duet's) and `kernel` built from `source`.
std::shared_ptr<State> make_state(const Found& found, const char* source, const char* kernel);

} // namespace

namespace {

// The device and `kernel` from `source` on it, or null with `skipped` saying why; `note`
// names what the raw side runs on.
std::shared_ptr<State> open_device(int local_index, const std::string& platform,
                                   const std::string& name, const char* source, const char* kernel,
                                   std::string& skipped, std::string& note) {
    const auto devices = all_devices();
    const Found* found = find_device(devices, local_index, platform, name);
    if (!found) {
        skipped = "raw OpenCL: no device named '" + name + "' on platform '" + platform + "'";
        return nullptr;
    }
    note = "raw OpenCL on " + found->platform_name + " / " + found->device_name;
    return make_state(*found, source, kernel);
}

} // namespace

RawPath raw_opencl(int local_index, const std::string& platform, const std::string& name) {
    RawPath path;
    auto s = open_device(local_index, platform, name, kernel_opencl, kernel_name, path.skipped,
                         path.note);
    if (!s)
        return path;

    const auto finish = [s] { check(clFinish(s->queue), "clFinish"); };
    path.methods.push_back(
        {"raw_event", "raw clSetKernelArg + clEnqueueNDRangeKernel(&event) + clReleaseEvent",
         [s](int n) {
             const std::size_t global = work_items, local = work_items;
             for (int i = 0; i < n; ++i) {
                 check(clSetKernelArg(s->kernel, 0, sizeof(int), &i), "clSetKernelArg");
                 cl_event ev = nullptr;
                 check(clEnqueueNDRangeKernel(s->queue, s->kernel, 1, nullptr, &global, &local, 0,
                                              nullptr, &ev),
                       "clEnqueueNDRangeKernel");
                 clReleaseEvent(ev);
             }
         },
         finish});
    path.methods.push_back(
        {"raw_no_event", "raw clSetKernelArg + clEnqueueNDRangeKernel, no event",
         [s](int n) {
             const std::size_t global = work_items, local = work_items;
             for (int i = 0; i < n; ++i) {
                 check(clSetKernelArg(s->kernel, 0, sizeof(int), &i), "clSetKernelArg");
                 check(clEnqueueNDRangeKernel(s->queue, s->kernel, 1, nullptr, &global, &local, 0,
                                              nullptr, nullptr),
                       "clEnqueueNDRangeKernel");
             }
         },
         finish});
    return path;
}

RawPatterns raw_opencl_patterns(int local_index, const std::string& platform,
                                const std::string& name, int items, int iters) {
    RawPatterns raw;
    auto s =
        open_device(local_index, platform, name, busy_opencl, busy_name, raw.skipped, raw.note);
    if (!s)
        return raw;
    cl_int err = CL_SUCCESS;
    cl_mem out = clCreateBuffer(s->context, CL_MEM_READ_WRITE, sizeof(float) * std::size_t(items),
                                nullptr, &err);
    check(err, "clCreateBuffer");
    std::shared_ptr<void> out_guard(out, [](void* m) { clReleaseMemObject(cl_mem(m)); });
    const auto launch = [s, out, items, iters] {
        const std::size_t global = std::size_t(items), local = busy_local;
        check(clSetKernelArg(s->kernel, 0, sizeof(cl_mem), &out), "clSetKernelArg");
        check(clSetKernelArg(s->kernel, 1, sizeof(int), &iters), "clSetKernelArg");
        check(clEnqueueNDRangeKernel(s->queue, s->kernel, 1, nullptr, &global, &local, 0, nullptr,
                                     nullptr),
              "clEnqueueNDRangeKernel");
    };
    raw.ways.push_back({"raw", "raw clEnqueueNDRangeKernel + clFinish / blocking read",
                        [s, out_guard, launch](int n) {
                            for (int i = 0; i < n; ++i) {
                                launch();
                                check(clFinish(s->queue), "clFinish");
                            }
                        },
                        [s, out_guard, out, launch](int n) {
                            float result = 0;
                            for (int i = 0; i < n; ++i) {
                                launch();
                                check(clEnqueueReadBuffer(s->queue, out, CL_TRUE, 0, sizeof result,
                                                          &result, 0, nullptr, nullptr),
                                      "clEnqueueReadBuffer");
                            }
                        }});
    return raw;
}

namespace {

std::shared_ptr<State> make_state(const Found& found, const char* source, const char* kernel) {
    auto s = std::make_shared<State>();
    cl_int err = CL_SUCCESS;
    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(found.platform), 0};
    s->context = clCreateContext(props, 1, &found.device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    // In order (no CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) with profiling, as Duet's queues.
    s->queue = clCreateCommandQueue(s->context, found.device, CL_QUEUE_PROFILING_ENABLE, &err);
    check(err, "clCreateCommandQueue");
    s->program = clCreateProgramWithSource(s->context, 1, &source, nullptr, &err);
    check(err, "clCreateProgramWithSource");
    err = clBuildProgram(s->program, 1, &found.device, "", nullptr, nullptr);
    if (err != CL_SUCCESS) {
        std::size_t n = 0;
        clGetProgramBuildInfo(s->program, found.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
        std::string log(n, '\0');
        clGetProgramBuildInfo(s->program, found.device, CL_PROGRAM_BUILD_LOG, n, log.data(),
                              nullptr);
        throw std::runtime_error("raw OpenCL: clBuildProgram failed with " + std::to_string(err) +
                                 ": " + log);
    }
    s->kernel = clCreateKernel(s->program, kernel, &err);
    check(err, "clCreateKernel");
    return s;
}

} // namespace

} // namespace duet_bench
