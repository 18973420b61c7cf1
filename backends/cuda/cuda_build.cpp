// Kernel loading: which code a kernel comes from, and the caches in front of NVRTC.
//
//   app source (BuildOptions::sources: CUDA C++,
//     or OpenCL C with duet_opencl_c.cuh)   -> NVRTC
//   app PTX (BuildOptions::sources)          -> the driver, which compiles it on load
//   Duet's kernel, defines exactly those of
//     an embedded build, no fast math,
//     DUET_KERNEL_DIR unset                  -> the fatbin embedded at build time (NVRTC, with
//                                               the same flags: cuda_nvrtc_flags.hpp)
//   Duet's kernel otherwise                  -> NVRTC on the file's text
//
// NVRTC output goes through the on-disk ProgramCache; every loaded module is also kept per
// device, keyed by source and options, so each file is loaded once per device.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>

#include <duet/backend/program_cache.hpp>
#include <duet/version.hpp>

#include "cuda_check.hpp"
#include "cuda_device.hpp"
#include "cuda_fatbins.hpp"
#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_args.hpp"
#include "cuda_nvrtc_toolkit.hpp"
#include "cuda_translate.hpp"

namespace duet::cuda {

namespace {

// What NVRTC compiles for: the device's own architecture as a CUBIN when NVRTC knows it (or
// an older one of the same major, which the GPU runs); for a GPU newer than NVRTC, PTX of the
// newest architecture it knows, which the driver compiles on load. Compute capability 9.0 is
// built as sm_90a (NVRTC 12 and newer), as the embedded code is (backends/cuda/CMakeLists.txt):
// the same GPUs, plus Hopper's own instructions, so that the wgmma kernels compiled from sources
// (DUET_KERNEL_DIR, an app's own) take their wgmma path instead of their plain fallback.
struct Target {
    std::string arch; // "sm_90a", "sm_86" or "compute_120"
    bool cubin = true;
};

// The architecture an app chose with -arch (cuda_nvrtc_args.hpp: requested_arch), checked
// against the GPU and against what this NVRTC can build.
Target chosen_target(const std::string& arch, const DeviceLimits& l, const Nvrtc& nv,
                     const std::string& device) {
    if (const std::string why = arch_problem(arch, l.cc_major, l.cc_minor); !why.empty())
        throw Error::usage("cuda-c++ option -arch=" + arch + " on " + device + ": " + why);
    const auto& archs = nv.supported_archs();
    const int n = arch_number(arch);
    if (!archs.empty() && std::find(archs.begin(), archs.end(), n) == archs.end())
        throw Error::unavailable(
            "cuda-c++ option -arch=" + arch + ": NVRTC " + nv.version() + " (" + nv.path() +
                ") does not build for it (it builds sm_" +
                std::to_string(*std::min_element(archs.begin(), archs.end())) + " to sm_" +
                std::to_string(*std::max_element(archs.begin(), archs.end())) + ")",
            "cuda");
    return {arch, arch.rfind("sm_", 0) == 0};
}

Target nvrtc_target(const DeviceLimits& l, const Nvrtc& nv, const std::string& device,
                    const BuildOptions& options) {
    if (const std::string arch = requested_arch(options); !arch.empty())
        return chosen_target(arch, l, nv, device);
    const int cc = l.cc_major * 10 + l.cc_minor;
    const auto& archs = nv.supported_archs();
    if (archs.empty() || std::find(archs.begin(), archs.end(), cc) != archs.end())
        return {"sm_" + std::to_string(cc) +
                    (cc == 90 && std::atoi(nv.version().c_str()) >= 12 ? "a" : ""),
                true};
    int same_major = 0;
    for (int a : archs)
        if (a / 10 == l.cc_major && a <= cc)
            same_major = std::max(same_major, a);
    if (same_major)
        return {"sm_" + std::to_string(same_major), true};
    const int newest = *std::max_element(archs.begin(), archs.end());
    if (cc > newest)
        return {"compute_" + std::to_string(newest), false};
    const int oldest = *std::min_element(archs.begin(), archs.end());
    throw Error::unavailable("NVRTC " + nv.version() + " (" + nv.path() + ") cannot compile for " +
                                 device + " (" + l.sm() + "): it supports sm_" +
                                 std::to_string(oldest) + " to sm_" + std::to_string(newest) +
                                 "; this GPU needs an older CUDA toolkit",
                             "cuda");
}

// The per-device module key of an embedded build: its file and defines.
std::string embedded_key(const std::string& origin, std::string_view defines) {
    return "embedded:" + origin + ":" + std::string(defines);
}

// "A=1 B=2" as "A=1 -DB=2", the rest of a -D list.
std::string replace_spaces(std::string_view defines) {
    std::string out;
    for (char c : defines)
        out += c == ' ' ? std::string(" -D") : std::string(1, c);
    return out;
}

// Errors that mean "this binary has no code this GPU can run", after which NVRTC is tried.
bool missing_code(const Error& e) {
    if (e.kind() != ErrorKind::runtime || e.backend() != "cuda")
        return false;
    switch (static_cast<cudaError_t>(e.code())) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidKernelImage:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidPtx:
    case cudaErrorJitCompilerNotFound:
        return true;
    default:
        return false;
    }
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : " ") + x;
    return s;
}

// "Duet's CUDA kernels include: a b c ... (N in all)", without the backend's own kernels.
std::string some_kernel_names() {
    std::vector<std::string> names;
    for (auto& n : kernel_names(KernelLanguage::cuda))
        if (n.rfind("duet_", 0) != 0)
            names.push_back(std::move(n));
    if (names.empty())
        return "Duet has no CUDA kernels in this build";
    constexpr std::size_t shown = 12;
    std::string s = "Duet's CUDA kernels include:";
    for (std::size_t i = 0; i < names.size() && i < shown; ++i)
        s += " " + names[i];
    if (names.size() > shown)
        s += " ... (" + std::to_string(names.size()) + " in all; runapp lists the apps)";
    return s;
}

// The lowered names of a build with name expressions are an entry of their own.
std::string lowered_names_key(const std::string& key) {
    return ProgramCache::key({key, "lowered names"});
}

// Lowered names as "expression\tsymbol" lines beside the image they belong to.
void store_lowered_names(const ProgramCache& cache, const std::string& key,
                         const std::vector<std::pair<std::string, std::string>>& names,
                         const std::string& description) {
    std::string text;
    for (const auto& [expression, symbol] : names)
        text += expression + '\t' + symbol + '\n';
    cache.store(key, std::vector<unsigned char>(text.begin(), text.end()),
                description + " | lowered names");
}

// False when the entry is missing or malformed (the build is then made again).
bool load_lowered_names(const ProgramCache& cache, const std::string& key,
                        std::vector<std::pair<std::string, std::string>>& names) {
    const auto data = cache.load(key);
    if (!data)
        return false;
    const std::string text(data->begin(), data->end());
    for (std::size_t at = 0; at < text.size();) {
        const auto end = text.find('\n', at);
        const auto tab = text.find('\t', at);
        if (end == std::string::npos || tab == std::string::npos || tab > end)
            return false;
        names.emplace_back(text.substr(at, tab - at), text.substr(tab + 1, end - tab - 1));
        at = end + 1;
    }
    return !names.empty();
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

bool CudaDevice::takes(const Dialect& dialect, const DialectRoute& route, std::string& why) const {
    if (route.translation == opencl_c_on_nvrtc)
        return true; // NVRTC's absence is the build's Error, with where it was looked for
    if (dialect.name == "ptx")
        return true; // the driver's JIT: PTX newer than the driver is the load's Error
    return Device::takes(dialect, route, why);
}

// The defines were checked by Device::load_kernel.
std::unique_ptr<Kernel> CudaDevice::do_load_kernel(const std::string& name,
                                                   const BuildOptions& options) {
    ModuleSource source;
    if (!options.sources.empty()) {
        // The text the dialect table's routes give this device (CudaDevice::takes).
        auto [text, route] = choose_text(options.sources);
        source.origin = std::move(text.origin);
        source.extern_c = !route.translation.empty();
        source.ptx = text.dialect == "ptx";
        source.text = route.translation.empty()
                          ? std::move(text.text)
                          : translated_source(route, text.text, source.origin);
    } else {
        auto file = find_kernel_source(name, KernelLanguage::cuda);
        if (!file)
            throw Error::not_found("no CUDA kernel named " + name + "; " + some_kernel_names(),
                                   "cuda");
        source.origin = file->name;
        source.text = std::move(file->text);
        const char* kernel_dir = std::getenv("DUET_KERNEL_DIR");
        // An embedded build is exactly the file with its defines (in any order) and no fast
        // math; anything else (or sources being edited in DUET_KERNEL_DIR) needs compiling.
        bool unique = false;
        const std::string defines = canonical_defines(options.defines, unique);
        if (unique && !options.fast_math && options.options_for("cuda-c++").empty() &&
            options.instantiations.empty() && !(kernel_dir && *kernel_dir))
            source.fatbin = find_embedded_fatbin(source.origin, defines);
    }
    return load_from(source, name, options);
}

std::unique_ptr<CudaKernel> CudaDevice::load_from(const ModuleSource& source,
                                                  const std::string& name,
                                                  const BuildOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    activate();
    // One build at a time per device: a second thread asking for the same file waits and then
    // finds it loaded instead of compiling it again.
    std::lock_guard lock(modules_mutex_);
    bool cache_hit = false, from_memory = false, embedded = false;
    std::unique_ptr<CudaKernel> kernel;
    if (source.fatbin) {
        try {
            kernel =
                std::make_unique<CudaKernel>(*this, embedded_module(source, from_memory), name);
            cache_hit = embedded = true;
        } catch (const Error& e) {
            if (!missing_code(e) || source.text.empty())
                throw;
            modules_.erase(embedded_key(source.origin, source.fatbin->defines));
            cache_hit = from_memory = embedded = false;
            duet::log().info("cuda: the embedded build of {} has no code for {} ({}); compiling "
                             "it with NVRTC",
                             source.origin, label(), limits_.sm());
            try {
                kernel = std::make_unique<CudaKernel>(
                    *this, compiled_module(source, name, options, cache_hit, from_memory), name);
            } catch (const Error& e2) {
                throw Error(e2.kind(), "cuda", e2.call(), e2.code(), e2.code_name(),
                            e2.detail() + " (NVRTC was tried because the embedded build failed: " +
                                e.what() + ")",
                            e2.build_log());
            }
        }
    } else if (source.ptx) {
        kernel = std::make_unique<CudaKernel>(*this, ptx_module(source, from_memory), name);
    } else {
        kernel = std::make_unique<CudaKernel>(
            *this, compiled_module(source, name, options, cache_hit, from_memory), name);
    }
    const double ms = from_memory ? 0.0 : ms_since(t0);
    const Provenance provenance = from_memory ? Provenance::memory_cache
                                  : embedded  ? Provenance::embedded_binary
                                  : cache_hit ? Provenance::disk_cache
                                              : Provenance::compiled;
    kernel->set_build_facts(ms, provenance);
    duet::log().debug("cuda: kernel {} from {} on {}: {} in {:.1f} ms", name, source.origin,
                      label(), provenance_name(provenance), ms);
    return kernel;
}

std::shared_ptr<CudaModule> CudaDevice::embedded_module(const ModuleSource& source,
                                                        bool& from_memory) {
    const std::string key = embedded_key(source.origin, source.fatbin->defines);
    if (auto it = modules_.find(key); it != modules_.end()) {
        from_memory = true;
        return it->second;
    }
    auto module = std::make_shared<CudaModule>(
        *this, source.fatbin->data, source.origin,
        std::string(embedded_build_options()) +
            (source.fatbin->defines.empty() ? "" : " -D" + replace_spaces(source.fatbin->defines)),
        kernels_defined_in(source.text, KernelLanguage::cuda),
        std::vector<std::pair<std::string, std::string>>{}, source.text);
    modules_.emplace(key, module);
    return module;
}

// An app's PTX, loaded as it is (cudaLibraryLoadData compiles PTX for the GPU); kept per device.
std::shared_ptr<CudaModule> CudaDevice::ptx_module(const ModuleSource& source, bool& from_memory) {
    const std::string key = "ptx\n" + source.text;
    if (auto it = modules_.find(key); it != modules_.end()) {
        from_memory = true;
        return it->second;
    }
    std::vector<std::string> names;
    for (const auto& k : scan_kernels(source.text, dialect("ptx")))
        names.push_back(k.name);
    auto module =
        std::make_shared<CudaModule>(*this, source.text.c_str(), source.origin, "ptx", names);
    modules_.emplace(key, module);
    return module;
}

std::shared_ptr<CudaModule> CudaDevice::compiled_module(const ModuleSource& source,
                                                        const std::string& name,
                                                        const BuildOptions& options,
                                                        bool& cache_hit, bool& from_memory) {
    const Nvrtc& nv = Nvrtc::instance();
    const Target target = nvrtc_target(limits_, nv, label(), options);
    // The flags the embedded code was built with (cuda_nvrtc_flags.hpp), then the defines and
    // the app's options; the name expressions to lower (cuda_nvrtc_args.hpp).
    const std::vector<std::string> includes = toolkit_include_dirs(nv.path());
    const std::vector<std::string> args = nvrtc_build_flags(target.arch, options, includes);
    const std::vector<std::string> expressions =
        nvrtc_name_expressions(name, options, source.extern_c ? std::string() : source.text);
    const std::string flags = join(args);
    std::string names_text;
    for (const auto& e : expressions)
        names_text += e + '\n';
    std::string header_text;
    const auto headers = nvrtc_headers(&header_text);
    header_text += toolkit_headers_digest(source.text, includes); // their contents key the build

    const std::string memory_key =
        "nvrtc:" + ProgramCache::key({source.origin, source.text, flags, header_text, names_text});
    if (auto it = modules_.find(memory_key); it != modules_.end()) {
        from_memory = true;
        return it->second;
    }

    const std::string cc =
        std::to_string(limits_.cc_major) + "." + std::to_string(limits_.cc_minor);
    const std::string driver = version_string(driver_version_);
    auto& cache = ProgramCache::instance();
    const std::string key = ProgramCache::key({"cuda", source.text, flags, info_.name, cc, driver,
                                               duet::version, "nvrtc " + nv.version(),
                                               info_.platform_version, header_text, names_text});
    std::shared_ptr<CudaModule> module =
        cached_module(source, key, flags, !target.cubin, !expressions.empty());
    cache_hit = module != nullptr;
    if (!module) {
        const std::string what = "building kernel " + name + " from " + source.origin + " for " +
                                 label() + " (" + limits_.sm() + ") with NVRTC " + nv.version() +
                                 " and options \"" + flags + "\"";
        NvrtcOutput out =
            nv.compile(source.text, source.origin, headers, args, target.cubin, what, expressions);
        if (!out.log.empty())
            duet::log().info("cuda: NVRTC messages for {}:\n{}", source.origin, out.log);
        module = std::make_shared<CudaModule>(*this, out.image.data(), source.origin, flags,
                                              kernels_defined_in(source.text, KernelLanguage::cuda),
                                              out.lowered_names, source.text);
        // Stored only once it has loaded: the cache never holds a build the driver refused.
        const std::string description =
            "cuda " + source.origin + " " + flags + " | " + info_.name + " | CUDA " + driver;
        if (!out.lowered_names.empty())
            store_lowered_names(cache, lowered_names_key(key), out.lowered_names, description);
        cache.store(key, out.image, description);
    }
    modules_.emplace(memory_key, module);
    return module;
}

std::shared_ptr<CudaModule> CudaDevice::cached_module(const ModuleSource& source,
                                                      const std::string& key,
                                                      const std::string& flags, bool ptx,
                                                      bool lowered) {
    auto& cache = ProgramCache::instance();
    std::vector<std::pair<std::string, std::string>> names;
    auto image = cache.load(key);
    if (!image || (lowered && !load_lowered_names(cache, lowered_names_key(key), names)))
        return nullptr;
    // PTX is loaded as a C string: make sure a cached one is terminated.
    if (ptx && (image->empty() || image->back() != 0))
        image->push_back(0);
    try {
        return std::make_shared<CudaModule>(*this, image->data(), source.origin, flags,
                                            kernels_defined_in(source.text, KernelLanguage::cuda),
                                            std::move(names), source.text);
    } catch (const Error& e) {
        duet::log().info("cuda: cached build of {} did not load ({}); rebuilding", source.origin,
                         e.what());
        cache.remove(key);
        return nullptr;
    }
}

} // namespace duet::cuda
