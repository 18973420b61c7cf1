// NVRTC through dlopen for the OpenCL backend (opencl_nvrtc.hpp). Its few C entry points are
// declared here, not taken from nvrtc.h: their signatures have been stable since CUDA 11.
#include "opencl_nvrtc.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <type_traits>

#include <duet/backend/log.hpp>
#include <duet/error.hpp>

#include "nvidia_toolkit.hpp"

namespace duet::opencl {

namespace {

namespace fs = std::filesystem;

struct Program; // nvrtcProgram
using Create = int (*)(Program**, const char*, const char*, int, const char* const*,
                       const char* const*);
using Compile = int (*)(Program*, int, const char* const*);
using Destroy = int (*)(Program**);
using GetSize = int (*)(Program*, std::size_t*);
using GetText = int (*)(Program*, char*);
using Version = int (*)(int*, int*);
using AddName = int (*)(Program*, const char*);
using Lowered = int (*)(Program*, const char*, const char**);
using ErrorString = const char* (*)(int);

struct Api {
    Create create = nullptr;
    Compile compile = nullptr;
    Destroy destroy = nullptr;
    GetSize log_size = nullptr, ptx_size = nullptr;
    GetText log = nullptr, ptx = nullptr;
    AddName add_name = nullptr;
    Lowered lowered = nullptr;
    ErrorString error = nullptr;
    Version version = nullptr;
};

// The loader's search path first (LD_LIBRARY_PATH, ldconfig), then the toolkit beside nvcc on
// PATH, CUDA_PATH, CUDA_HOME and /usr/local/cuda; CUDA 13's library, then 12's.
std::vector<std::string> candidates() {
    std::vector<fs::path> roots;
    if (const char* path = std::getenv("PATH"))
        for (std::string rest = path; !rest.empty();) {
            const auto colon = rest.find(':');
            const fs::path nvcc = fs::path(rest.substr(0, colon)) / "nvcc";
            std::error_code ec;
            if (!nvcc.parent_path().empty() && fs::is_regular_file(nvcc, ec))
                roots.push_back(fs::weakly_canonical(nvcc, ec).parent_path().parent_path());
            rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
        }
    for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
        if (const char* v = std::getenv(var); v && *v)
            roots.emplace_back(v);
    roots.emplace_back("/usr/local/cuda");
    std::vector<std::string> c;
    for (const char* soname : {"libnvrtc.so.13", "libnvrtc.so.12"}) {
        c.emplace_back(soname);
        for (const auto& root : roots)
            c.push_back((root / "lib64" / soname).string());
    }
    return c;
}

struct Loaded {
    Api api;
    NvrtcTool tool;
};

Loaded load() {
    Loaded l;
    void* lib = nullptr;
    std::string tried;
    for (const auto& c : candidates()) {
        if ((lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL)))
            break;
        const char* e = dlerror();
        tried += (tried.empty() ? "" : "; ") + c + " (" + (e ? e : "not found") + ")";
    }
    if (!lib) {
        l.tool.missing = "no NVRTC (tried " + tried +
                         "; install the CUDA toolkit's cuda-nvrtc, or set CUDA_PATH)";
        return l;
    }
    Api& a = l.api;
    // Each entry point by name; false when one is missing.
    const auto bind = [lib](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
        return fn != nullptr;
    };
    const bool all =
        bind(a.create, "nvrtcCreateProgram") && bind(a.compile, "nvrtcCompileProgram") &&
        bind(a.destroy, "nvrtcDestroyProgram") && bind(a.log_size, "nvrtcGetProgramLogSize") &&
        bind(a.log, "nvrtcGetProgramLog") && bind(a.ptx_size, "nvrtcGetPTXSize") &&
        bind(a.ptx, "nvrtcGetPTX") && bind(a.add_name, "nvrtcAddNameExpression") &&
        bind(a.lowered, "nvrtcGetLoweredName") && bind(a.error, "nvrtcGetErrorString") &&
        bind(a.version, "nvrtcVersion");
    link_map* map = nullptr;
    l.tool.path = dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name ? map->l_name : "";
    int major = 0, minor = 0;
    if (!all || a.version(&major, &minor) != 0) {
        l.tool.missing = "the NVRTC library " + l.tool.path + " lacks an entry point Duet needs";
        return l; // never dlclosed, like a library that loaded
    }
    l.tool.version = std::to_string(major) + "." + std::to_string(minor);
    l.tool.identity = "NVRTC " + l.tool.version + " " + l.tool.path;
    log().info("opencl: {} for CUDA C++ to PTX", l.tool.identity);
    return l;
}

const Loaded& loaded() {
    static const Loaded l = load();
    return l;
}

std::string text_of(Program* p, GetSize size, GetText get) {
    std::size_t n = 0;
    if (size(p, &n) != 0 || n == 0)
        return "";
    std::string s(n, '\0');
    if (get(p, s.data()) != 0)
        return "";
    s.resize(n - 1); // the size counts the NUL
    return s;
}

} // namespace

const NvrtcTool& nvrtc_tool() {
    return loaded().tool;
}

std::vector<std::string> nvrtc_ptx_options(const std::string& arch, const BuildOptions& options) {
    std::vector<std::string> args{"-std=c++17", "-default-device", "-DDUET_CUDA=1"};
    if (!arch.empty())
        args.push_back("--gpu-architecture=" + arch);
    for (const auto& dir : nvidia::toolkit_include_dirs(nvrtc_tool().path))
        args.push_back("-I" + dir);
    for (const auto& [n, v] : options.defines)
        args.push_back("-D" + n + (v.empty() ? "" : "=" + v));
    if (options.fast_math)
        args.emplace_back("--use_fast_math");
    const auto starts = [](const std::string& o, std::initializer_list<const char*> ps) {
        return std::any_of(ps.begin(), ps.end(), [&](const char* p) { return o.rfind(p, 0) == 0; });
    };
    for (const auto& o : options.options_for("cuda-c++")) {
        if (starts(o, {"-arch=", "--arch=", "-gpu-architecture=", "--gpu-architecture="}))
            continue;
        if (starts(o, {"-std=", "--std="})) // NVRTC takes one: the app's
            args.erase(std::remove(args.begin(), args.end(), "-std=c++17"), args.end());
        args.push_back(o);
    }
    return args;
}

NvrtcPtx nvrtc_ptx(const std::string& text, const std::string& origin,
                   const std::vector<std::string>& args,
                   const std::vector<std::string>& name_expressions) {
    const Loaded& l = loaded();
    if (!l.tool.missing.empty())
        throw Error(ErrorKind::unavailable, "opencl", "dlopen", 0, "", l.tool.missing);
    const Api& a = l.api;
    const std::string what = "compiling the CUDA C++ of " + origin + " to PTX with NVRTC";
    Program* p = nullptr;
    if (const int rc = a.create(&p, text.c_str(), origin.c_str(), 0, nullptr, nullptr); rc != 0)
        throw Error(ErrorKind::runtime, "opencl", "nvrtcCreateProgram", rc, a.error(rc), what);
    const auto destroy = [&a](Program** q) { a.destroy(q); };
    std::unique_ptr<Program*, decltype(destroy)> guard(&p, destroy);
    for (const auto& n : name_expressions)
        if (const int rc = a.add_name(p, n.c_str()); rc != 0)
            throw Error(ErrorKind::usage, "opencl", "nvrtcAddNameExpression", rc, a.error(rc),
                        what + ": the name expression \"" + n + "\" was refused");
    std::vector<const char*> argv;
    for (const auto& o : args)
        argv.push_back(o.c_str());
    const int rc = a.compile(p, static_cast<int>(argv.size()), argv.data());
    NvrtcPtx out;
    out.log = text_of(p, a.log_size, a.log);
    if (rc != 0)
        throw Error(ErrorKind::build, "opencl", "nvrtcCompileProgram", rc, a.error(rc), what,
                    out.log.empty() ? "(NVRTC gave no log)" : out.log);
    for (const auto& n : name_expressions) {
        const char* lowered = nullptr;
        if (const int r = a.lowered(p, n.c_str(), &lowered); r != 0 || !lowered)
            throw Error(ErrorKind::build, "opencl", "nvrtcGetLoweredName", r, a.error(r),
                        what + ": the name expression \"" + n +
                            "\" names no __global__ function of the text");
        out.lowered[n] = lowered;
    }
    out.ptx = text_of(p, a.ptx_size, a.ptx);
    if (out.ptx.empty())
        throw Error(ErrorKind::runtime, "opencl", "nvrtcGetPTX", 0, "empty output", what);
    return out;
}

} // namespace duet::opencl
