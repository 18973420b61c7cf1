// NVRTC through dlopen. The few entry points are declared here rather than taken from nvrtc.h,
// so the plugin neither links libnvrtc nor depends on its headers matching the installed library;
// their C signatures have been stable since CUDA 11.1 (nvrtcGetCUBIN).
#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_host_code.hpp"

#include <cuda_runtime_api.h> // CUDART_VERSION: which NVRTC major to look for first
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <memory>
#include <mutex>

#include <duet/backend/log.hpp>
#include <duet/error.hpp>

namespace duet::cuda {

namespace {

// nvrtcResult is a C enum: int-sized; 0 is NVRTC_SUCCESS.
using nvrtcResult = int;
constexpr nvrtcResult nvrtc_success = 0;
struct NvrtcProgramTag;
using nvrtcProgram = NvrtcProgramTag*;

using CreateProgramFn = nvrtcResult (*)(nvrtcProgram*, const char*, const char*, int,
                                        const char* const*, const char* const*);
using CompileProgramFn = nvrtcResult (*)(nvrtcProgram, int, const char* const*);
using DestroyProgramFn = nvrtcResult (*)(nvrtcProgram*);
using GetSizeFn = nvrtcResult (*)(nvrtcProgram, std::size_t*);
using GetDataFn = nvrtcResult (*)(nvrtcProgram, char*);
using GetErrorStringFn = const char* (*)(nvrtcResult);
using VersionFn = nvrtcResult (*)(int*, int*);
using NumArchsFn = nvrtcResult (*)(int*);
using ArchsFn = nvrtcResult (*)(int*);
using AddNameFn = nvrtcResult (*)(nvrtcProgram, const char*);
using LoweredNameFn = nvrtcResult (*)(nvrtcProgram, const char*, const char**);

} // namespace

struct Nvrtc::Api {
    void* handle = nullptr;
    CreateProgramFn create = nullptr;
    CompileProgramFn compile = nullptr;
    DestroyProgramFn destroy = nullptr;
    GetSizeFn log_size = nullptr;
    GetDataFn log = nullptr;
    GetSizeFn cubin_size = nullptr;
    GetDataFn cubin = nullptr;
    GetSizeFn ptx_size = nullptr;
    GetDataFn ptx = nullptr;
    GetErrorStringFn error_string = nullptr;
    VersionFn version = nullptr;
    NumArchsFn num_archs = nullptr; // optional (CUDA 11.2+)
    ArchsFn archs = nullptr;        // optional
    AddNameFn add_name = nullptr;   // nvrtcAddNameExpression (CUDA 8+)
    LoweredNameFn lowered_name = nullptr;

    std::string error(nvrtcResult rc) const {
        const char* s = error_string ? error_string(rc) : nullptr;
        return s ? s : "NVRTC error " + std::to_string(rc);
    }
};

namespace {

constexpr int cuda_major = CUDART_VERSION / 1000;

// Where NVRTC may be: the loader's search path (LD_LIBRARY_PATH, ldconfig), then toolkits.
std::vector<std::string> candidates() {
    const std::string soname = "libnvrtc.so." + std::to_string(cuda_major);
    std::vector<std::string> c{soname, "libnvrtc.so"};
    for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
        if (const char* root = std::getenv(var); root && *root)
            c.push_back(std::string(root) + "/lib64/" + soname);
    c.push_back("/usr/local/cuda/lib64/" + soname);
    return c;
}

std::string loaded_path(void* handle, const std::string& fallback) {
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        return map->l_name;
    return fallback;
}

template <class Fn> bool resolve(void* handle, const char* name, Fn& fn) {
    fn = reinterpret_cast<Fn>(dlsym(handle, name));
    return fn != nullptr;
}

std::mutex instance_mutex;
std::unique_ptr<Nvrtc> instance_ptr;

} // namespace

const Nvrtc& Nvrtc::instance() {
    std::lock_guard lock(instance_mutex);
    if (instance_ptr)
        return *instance_ptr;

    std::string tried;
    void* handle = nullptr;
    std::string name;
    for (const auto& c : candidates()) {
        handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
        log().debug("cuda: dlopen({}) -> {}", c, handle ? "ok" : "failed");
        if (handle) {
            name = c;
            break;
        }
        const char* e = dlerror();
        tried += "\n  " + c + ": " + (e ? e : "not found");
    }
    if (!handle)
        throw Error(ErrorKind::unavailable, "cuda", "dlopen", 0, "",
                    "NVRTC (CUDA's run-time compiler, needed to build kernels with defines, "
                    "fast math, DUET_KERNEL_DIR or an app's own CUDA source) could not be "
                    "opened:" +
                        tried + "\nInstall it (NVIDIA's apt repository: cuda-nvrtc-" +
                        std::to_string(cuda_major) +
                        "-X; pip: nvidia-cuda-nvrtc) and put its "
                        "lib directory on LD_LIBRARY_PATH, or set CUDA_PATH to a CUDA toolkit");

    auto api = std::make_unique<Api>();
    api->handle = handle;
    const bool ok = resolve(handle, "nvrtcCreateProgram", api->create) &&
                    resolve(handle, "nvrtcCompileProgram", api->compile) &&
                    resolve(handle, "nvrtcDestroyProgram", api->destroy) &&
                    resolve(handle, "nvrtcGetProgramLogSize", api->log_size) &&
                    resolve(handle, "nvrtcGetProgramLog", api->log) &&
                    resolve(handle, "nvrtcGetCUBINSize", api->cubin_size) &&
                    resolve(handle, "nvrtcGetCUBIN", api->cubin) &&
                    resolve(handle, "nvrtcGetPTXSize", api->ptx_size) &&
                    resolve(handle, "nvrtcGetPTX", api->ptx) &&
                    resolve(handle, "nvrtcGetErrorString", api->error_string) &&
                    resolve(handle, "nvrtcVersion", api->version) &&
                    resolve(handle, "nvrtcAddNameExpression", api->add_name) &&
                    resolve(handle, "nvrtcGetLoweredName", api->lowered_name);
    const std::string path = loaded_path(handle, name);
    if (!ok) {
        dlclose(handle);
        throw Error(ErrorKind::unavailable, "cuda", "dlsym", 0, "",
                    "the NVRTC library " + path +
                        " lacks nvrtcGetCUBIN or another entry point Duet needs; it is older "
                        "than CUDA 11.1: install a current NVRTC or set CUDA_PATH");
    }
    resolve(handle, "nvrtcGetNumSupportedArchs", api->num_archs);
    resolve(handle, "nvrtcGetSupportedArchs", api->archs);

    std::unique_ptr<Nvrtc> n(new Nvrtc());
    int major = 0, minor = 0;
    if (api->version(&major, &minor) == nvrtc_success)
        n->version_ = std::to_string(major) + "." + std::to_string(minor);
    else
        n->version_ = "unknown";
    int count = 0;
    if (api->num_archs && api->archs && api->num_archs(&count) == nvrtc_success && count > 0) {
        n->archs_.resize(static_cast<std::size_t>(count));
        if (api->archs(n->archs_.data()) != nvrtc_success)
            n->archs_.clear();
    }
    n->path_ = path;
    // Never dlclosed: NVRTC keeps process-wide state, and unloading buys nothing.
    n->api_ = api.release();
    log().info("cuda: NVRTC {} from {}", n->version_, n->path_);
    instance_ptr = std::move(n);
    return *instance_ptr;
}

NvrtcOutput Nvrtc::compile(const std::string& source, const std::string& program_name,
                           const std::vector<SourceFile>& headers,
                           const std::vector<std::string>& options, bool cubin,
                           const std::string& what,
                           const std::vector<std::string>& name_expressions) const {
    const Api& a = *api_;
    std::vector<const char*> header_texts, header_names;
    std::vector<std::string> names, dirs;
    for (const auto& h : headers) {
        header_texts.push_back(h.text.c_str());
        header_names.push_back(h.name.c_str());
        names.push_back(h.name);
    }
    for (const auto& o : options)
        if (o.rfind("-I", 0) == 0)
            dirs.push_back(o.substr(2));
    // A .cu file as people have it: its host code (main, <<<>>> launches, <stdio.h>) left out.
    const DeviceCode device = device_code(source, dirs, names);
    std::string left_out;
    for (const auto& l : device.left_out)
        left_out += (left_out.empty() ? "" : ", ") + l;
    if (!left_out.empty()) {
        left_out = "duet: host code NVRTC cannot compile, left out of " + program_name + ": " +
                   left_out + "\n";
        log().info("cuda: {}", left_out);
    }
    nvrtcProgram prog = nullptr;
    nvrtcResult rc =
        a.create(&prog, device.text.c_str(), program_name.c_str(), static_cast<int>(headers.size()),
                 header_texts.data(), header_names.data());
    log().debug("cuda: nvrtcCreateProgram({}) -> {}", program_name, rc);
    if (rc != nvrtc_success)
        throw Error(ErrorKind::runtime, "cuda", "nvrtcCreateProgram", rc, a.error(rc), what);
    const auto destroy = [&a](nvrtcProgram* p) { a.destroy(p); };
    std::unique_ptr<nvrtcProgram, decltype(destroy)> guard(&prog, destroy);

    for (const auto& n : name_expressions) {
        rc = a.add_name(prog, n.c_str());
        if (rc != nvrtc_success)
            throw Error(ErrorKind::usage, "cuda", "nvrtcAddNameExpression", rc, a.error(rc),
                        what + ": the name expression \"" + n + "\" was refused");
    }
    std::vector<const char*> argv;
    for (const auto& o : options)
        argv.push_back(o.c_str());
    rc = a.compile(prog, static_cast<int>(argv.size()), argv.data());
    log().debug("cuda: nvrtcCompileProgram({}) -> {}", program_name, rc);

    NvrtcOutput out;
    out.log = left_out;
    std::size_t log_size = 0;
    if (a.log_size(prog, &log_size) == nvrtc_success && log_size > 1) {
        std::string text(log_size, '\0');
        if (a.log(prog, text.data()) == nvrtc_success) {
            text.resize(log_size - 1); // the size counts the terminating NUL
            out.log += text;
        }
    }
    if (rc != nvrtc_success)
        throw Error(ErrorKind::build, "cuda", "nvrtcCompileProgram", rc, a.error(rc), what,
                    out.log.empty() ? "(NVRTC gave no log)" : out.log);

    for (const auto& n : name_expressions) {
        const char* lowered = nullptr;
        rc = a.lowered_name(prog, n.c_str(), &lowered);
        log().debug("cuda: nvrtcGetLoweredName({}) -> {} {}", n, rc, lowered ? lowered : "");
        if (rc != nvrtc_success || !lowered)
            throw Error(ErrorKind::build, "cuda", "nvrtcGetLoweredName", rc, a.error(rc),
                        what + ": the name expression \"" + n +
                            "\" names no __global__ function of the source");
        out.lowered_names.emplace_back(n, lowered);
    }
    std::size_t size = 0;
    rc = cubin ? a.cubin_size(prog, &size) : a.ptx_size(prog, &size);
    if (rc == nvrtc_success && size > 0) {
        out.image.resize(size);
        rc = cubin ? a.cubin(prog, reinterpret_cast<char*>(out.image.data()))
                   : a.ptx(prog, reinterpret_cast<char*>(out.image.data()));
    }
    if (rc != nvrtc_success || size == 0)
        throw Error(ErrorKind::runtime, "cuda", cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", rc,
                    rc != nvrtc_success ? a.error(rc) : "empty output", what);
    return out;
}

} // namespace duet::cuda
