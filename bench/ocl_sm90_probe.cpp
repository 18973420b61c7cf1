// ocl_sm90_probe: what NVIDIA's OpenCL allows on Hopper beyond the OpenCL C compiler's sm_90
// (docs/design/opencl-hopper.md, "What NVIDIA's OpenCL allows beyond OpenCL C's sm_90"). One
// question a process, each in a context of its own, so that one failure hides no other; one line of
// answer at least:
//   info       the device, its local memory size, and the driver's PTX of the OpenCL C kernels
//   plain      a hand-written sm_90a PTX kernel, built with clCreateProgramWithBinary
//   a, a-explicit, a-odd, a-src
//              a kernel with .reqnctapercluster 2,1,1 (a-explicit: and .explicitcluster; a-odd:
//              an odd number of blocks; a-src: the directive put into the driver's own PTX of an
//              OpenCL C kernel): cluster registers, and a write into the other block's shared
//              memory (mapa + st.shared::cluster between cluster barriers)
//   b          static .shared of 32, 48, 96, 200, 227 KiB
//   b-src      a static __local array of 32 .. 200 KiB in OpenCL C, from source and through the
//              driver's PTX of a 32 KiB one with the array's size raised in the text
//   c, c-ptx   a __local argument of 32 .. 227 KiB (c-ptx: the driver's PTX rebuilt as a binary)
//   d, d-mcast cp.async.bulk global -> shared on an mbarrier (d-mcast: multicast in a 2-cluster)
//   tma, tma-nofence, tma-param
//              the tile copy engine: a tensor map from the CUDA driver's cuTensorMapEncodeTiled
//              (libcuda.so.1 by dlopen) over an OpenCL buffer, in a global buffer (tma-nofence:
//              without the tensormap acquire fence) or as a 128-byte argument (tma-param)
//   dump DIR   writes the hand-written PTX to DIR (for `ptxas -arch=sm_90a`)
// Build: the CMake target ocl_sm90_probe (-DDUET_BENCH=ON), or on its own
//   g++ -std=c++17 -O2 -DCL_TARGET_OPENCL_VERSION=120 bench/ocl_sm90_probe*.cpp -lOpenCL -ldl
// Run on the GPU machine after `source bench/gpu_env.sh` (registers NVIDIA's ICD); the NVIDIA
// platform is chosen by name (DUET_PROBE_PLATFORM=<substring> picks another for the OpenCL C
// questions).
#include <CL/cl.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "ocl_sm90_probe.hpp"
#include "ocl_sm90_probe_kernels.hpp"

namespace probe {

std::string info_str(cl_device_id d, cl_device_info what) {
    std::size_t n = 0;
    clGetDeviceInfo(d, what, 0, nullptr, &n);
    std::string s(n, '\0');
    clGetDeviceInfo(d, what, n, s.data(), nullptr);
    return s.c_str();
}

bool open_device(Ctx& c) {
    const char* want = std::getenv("DUET_PROBE_PLATFORM");
    const std::string needle = want ? want : "NVIDIA";
    cl_uint np = 0;
    clGetPlatformIDs(0, nullptr, &np);
    std::vector<cl_platform_id> ps(np);
    if (np)
        clGetPlatformIDs(np, ps.data(), nullptr);
    for (cl_platform_id p : ps) {
        char name[256] = {};
        clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
        if (std::string(name).find(needle) == std::string::npos)
            continue;
        if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &c.dev, nullptr) != CL_SUCCESS)
            continue;
        cl_int e = 0;
        c.ctx = clCreateContext(nullptr, 1, &c.dev, nullptr, nullptr, &e);
        c.q = clCreateCommandQueue(c.ctx, c.dev, 0, &e);
        return e == CL_SUCCESS;
    }
    std::printf("no OpenCL platform named *%s*\n", needle.c_str());
    return false;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

std::string build_log(cl_program p, cl_device_id d) {
    std::size_t n = 0;
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
    std::string s(n, '\0');
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, s.data(), nullptr);
    s = s.c_str();
    return replace_all(s, "\n", " | ");
}

// A program from PTX text (binary) or OpenCL C; nullptr with the reason printed.
cl_program build(Ctx& c, const std::string& text, bool binary, const char* what,
                 const char* options) {
    cl_int e = 0, status = 0;
    cl_program p = nullptr;
    if (binary) {
        const std::size_t n = text.size() + 1;
        const auto* bytes = reinterpret_cast<const unsigned char*>(text.c_str());
        p = clCreateProgramWithBinary(c.ctx, 1, &c.dev, &n, &bytes, &status, &e);
    } else {
        const char* s = text.c_str();
        p = clCreateProgramWithSource(c.ctx, 1, &s, nullptr, &e);
    }
    if (e != CL_SUCCESS) {
        std::printf("%s: clCreateProgramWith%s failed: %d (status %d)\n", what,
                    binary ? "Binary" : "Source", e, status);
        return nullptr;
    }
    e = clBuildProgram(p, 1, &c.dev, options, nullptr, nullptr);
    if (e != CL_SUCCESS) {
        std::printf("%s: clBuildProgram failed: %d; log: %s\n", what, e,
                    build_log(p, c.dev).c_str());
        clReleaseProgram(p);
        return nullptr;
    }
    return p;
}

std::string program_ptx(cl_program p) {
    std::size_t n = 0;
    clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, nullptr);
    std::string s(n, '\0');
    unsigned char* ptr = reinterpret_cast<unsigned char*>(s.data());
    clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr);
    return s.c_str();
}

cl_mem buffer(Ctx& c, std::size_t words, const std::vector<cl_uint>* init) {
    cl_int e = 0;
    std::vector<cl_uint> zero(words, 0xABABABABu);
    return clCreateBuffer(c.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, words * 4,
                          init ? const_cast<cl_uint*>(init->data()) : zero.data(), &e);
}

// Runs `k` on `groups` x 256 work-items; the words of `out` read back, or empty (reason printed).
std::vector<cl_uint> launch(Ctx& c, cl_kernel k, std::size_t groups, cl_mem out, std::size_t words,
                            const char* what) {
    const std::size_t global = groups * 256, local = 256;
    cl_int e = clEnqueueNDRangeKernel(c.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    if (e != CL_SUCCESS) {
        std::printf("%s: clEnqueueNDRangeKernel failed: %d\n", what, e);
        return {};
    }
    if ((e = clFinish(c.q)) != CL_SUCCESS) {
        std::printf("%s: clFinish failed: %d (the launch failed on the device)\n", what, e);
        return {};
    }
    std::vector<cl_uint> h(words);
    e = clEnqueueReadBuffer(c.q, out, CL_TRUE, 0, words * 4, h.data(), 0, nullptr, nullptr);
    if (e != CL_SUCCESS) {
        std::printf("%s: clEnqueueReadBuffer failed: %d\n", what, e);
        return {};
    }
    return h;
}

// The driver's spelling of a global pointer parameter, from its PTX of kernel_src_cluster.
std::string param_decl(Ctx& c, std::string* ptx_out) {
    const std::string fallback = ".param .u64 .ptr .global .align 4";
    cl_program p = build(c, probe_cl::source, false, "driver PTX");
    if (!p)
        return fallback;
    const std::string ptx = program_ptx(p);
    clReleaseProgram(p);
    if (ptx_out)
        *ptx_out = ptx;
    const std::size_t at = ptx.find("kernel_src_cluster_param_0");
    const std::size_t bol = ptx.rfind('\n', at);
    if (at == std::string::npos || bol == std::string::npos)
        return fallback;
    std::string decl = ptx.substr(bol + 1, at - bol - 1);
    decl.erase(0, decl.find_first_not_of(" \t"));
    return decl;
}

std::string hand_ptx(const std::string& body, const std::string& decl) {
    return std::string(probe_ptx::header) + replace_all(body, "@PARAM@", decl);
}

cl_kernel kernel_of(cl_program p, const char* name) {
    cl_int e = 0;
    cl_kernel k = clCreateKernel(p, name, &e);
    if (e != CL_SUCCESS)
        std::printf("%s: clCreateKernel failed: %d\n", name, e);
    return e == CL_SUCCESS ? k : nullptr;
}

} // namespace probe

using namespace probe;

int main(int argc, char** argv) {
    const std::string q = argc > 1 ? argv[1] : "";
    if (q == "dump" && argc > 2)
        return dump_ptx(argv[2]);
    Ctx c;
    if (q.empty()) {
        std::printf("usage: ocl_sm90_probe plain|a|a-explicit|a-odd|a-src|b|b-src|c|c-ptx|d|"
                    "d-mcast|tma|tma-nofence|tma-param|info | dump DIR\n");
        return 2;
    }
    if (!open_device(c))
        return 3;
    if (q == "info")
        return probe_info(c);
    const std::string decl = param_decl(c);
    std::printf("[%s] %s, driver %s; global pointer parameter declared as \"%s\"\n", q.c_str(),
                info_str(c.dev, CL_DEVICE_NAME).c_str(), info_str(c.dev, CL_DRIVER_VERSION).c_str(),
                decl.c_str());
    if (q == "plain")
        return probe_plain(c, decl);
    if (q == "a" || q == "a-explicit" || q == "a-odd")
        return probe_cluster(c, decl, q);
    if (q == "a-src")
        return probe_src_cluster(c);
    if (q == "b")
        return probe_static(c, decl);
    if (q == "b-src")
        return probe_static_src(c);
    if (q == "c" || q == "c-ptx")
        return probe_local(c, q == "c-ptx");
    if (q == "d" || q == "d-mcast")
        return probe_bulk(c, decl, q == "d-mcast");
    if (q == "tma" || q == "tma-nofence" || q == "tma-param")
        return probe_tma(c, decl, q);
    std::printf("unknown question %s\n", q.c_str());
    return 2;
}
