// runapp doctor: walks loader -> ICD files -> vendor libraries -> platforms -> backends ->
// devices -> a test kernel on each device, with PASS/FAIL and what to do about a failure.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <dlfcn.h>

#include <duet/backend/elf_check.hpp>
#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "output.hpp"

namespace runapp {

namespace {

namespace fs = std::filesystem;

struct Step {
    std::string status; // PASS, FAIL, WARN, INFO
    std::string what, detail, hint;
};

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\0'))
        s.pop_back();
    while (!s.empty() && s.front() == ' ')
        s.erase(s.begin());
    return s;
}

// ICD entry: the first pointer of a platform object is the vendor's dispatch table; in the
// table, clGetPlatformIDs is entry 0, clGetPlatformInfo 1, clGetDeviceIDs 2 (the ICD ABI).
using GetPlatformIDsKHR = int (*)(unsigned, void**, unsigned*);
using GetPlatformInfo = int (*)(void*, unsigned, std::size_t, void*, std::size_t*);
using GetDeviceIDs = int (*)(void*, unsigned long, unsigned, void**, unsigned*);

struct VendorProbe {
    bool opened = false;
    std::string error;
    std::vector<std::pair<std::string, int>> platforms; // name, device count
};

VendorProbe probe_vendor(const std::string& lib) {
    VendorProbe p;
    // A truncated library would kill doctor with SIGBUS inside dlopen: check it first.
    if (const auto path = duet::find_shared_library(lib); !path.empty())
        if (auto bad = duet::check_shared_library(path); !bad.empty()) {
            p.error = path + " is damaged (" + bad + ")";
            return p;
        }
    void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        p.error = e ? e : "dlopen failed";
        return p;
    }
    p.opened = true;
    // The loader asks the vendor's clGetExtensionFunctionAddress for the ICD entry point.
    using GetExt = void* (*)(const char*);
    auto get_ids = reinterpret_cast<GetPlatformIDsKHR>(dlsym(h, "clIcdGetPlatformIDsKHR"));
    if (auto ext = reinterpret_cast<GetExt>(dlsym(h, "clGetExtensionFunctionAddress")); !get_ids && ext)
        get_ids = reinterpret_cast<GetPlatformIDsKHR>(ext("clIcdGetPlatformIDsKHR"));
    if (!get_ids) {
        p.error = "the library has no clIcdGetPlatformIDsKHR: it is not an OpenCL ICD";
        return p;
    }
    unsigned n = 0;
    if (get_ids(0, nullptr, &n) != 0 || n == 0) {
        p.error = "it reports no platform";
        return p;
    }
    std::vector<void*> ids(n);
    get_ids(n, ids.data(), nullptr);
    for (void* id : ids) {
        void* const* table = *static_cast<void* const* const*>(id);
        auto info = reinterpret_cast<GetPlatformInfo>(table[1]);
        auto devs = reinterpret_cast<GetDeviceIDs>(table[2]);
        char name[256] = {0};
        info(id, 0x0902 /* CL_PLATFORM_NAME */, sizeof name - 1, name, nullptr);
        unsigned nd = 0;
        if (devs(id, 0xFFFFFFFF /* CL_DEVICE_TYPE_ALL */, 0, nullptr, &nd) != 0)
            nd = 0;
        p.platforms.emplace_back(name, static_cast<int>(nd));
    }
    return p; // the library stays open: ICD libraries often cannot be unloaded safely
}

std::vector<std::pair<std::string, std::string>> icd_files(std::vector<Step>& steps) {
    std::vector<std::pair<std::string, std::string>> out; // (where it came from, library)
    if (const char* f = std::getenv("OCL_ICD_FILENAMES"); f && *f) {
        std::string s = f;
        std::size_t start = 0;
        for (;;) {
            auto c = s.find(':', start);
            auto lib = s.substr(start, c == std::string::npos ? c : c - start);
            if (!lib.empty())
                out.emplace_back("OCL_ICD_FILENAMES", lib);
            if (c == std::string::npos)
                break;
            start = c + 1;
        }
    }
    std::string dir = "/etc/OpenCL/vendors";
    if (const char* v = std::getenv("OCL_ICD_VENDORS"); v && *v) {
        dir = v;
        steps.push_back({"INFO", "OCL_ICD_VENDORS", dir, "the loader reads ICD files from here instead of /etc/OpenCL/vendors"});
    }
    std::error_code ec;
    if (fs::is_regular_file(dir, ec)) {
        std::ifstream in(dir);
        std::string line;
        std::getline(in, line);
        out.emplace_back(dir, trim(line));
    } else if (fs::is_directory(dir, ec)) {
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".icd")
                files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto& p : files) {
            std::ifstream in(p);
            std::string line;
            std::getline(in, line);
            out.emplace_back(p.string(), trim(line));
        }
    }
    if (out.empty())
        steps.push_back({"FAIL", "ICD files", "none found in " + dir,
                         "install an OpenCL implementation (pocl-opencl-icd for CPUs, the GPU "
                         "vendor's driver) or point OCL_ICD_VENDORS at a folder of .icd files"});
    return out;
}

} // namespace

int cmd_doctor(const Cli& c) {
    std::vector<Step> steps;
    // The backends first: the OpenCL one checks the ICD libraries before the loader opens
    // them (once per process), so the loader's own calls below cannot map a truncated one.
    (void)duet::backend_reports();
    // 1. The ICD loader.
    if (void* h = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL)) {
        Dl_info info{};
        std::string where = "libOpenCL.so.1";
        if (void* sym = dlsym(h, "clGetPlatformIDs"); sym && dladdr(sym, &info) && info.dli_fname)
            where = info.dli_fname;
        std::string version;
        using GetExt = void* (*)(const char*);
        using LoaderInfo = int (*)(unsigned, std::size_t, void*, std::size_t*);
        if (auto ext = reinterpret_cast<GetExt>(dlsym(h, "clGetExtensionFunctionAddress")))
            if (auto li = reinterpret_cast<LoaderInfo>(ext("clGetICDLoaderInfoOCLICD"))) {
                char buf[128] = {0};
                if (li(1 /* CL_ICDL_VERSION */, sizeof buf - 1, buf, nullptr) == 0)
                    version = std::string(" (ocl-icd ") + buf + ")";
            }
        steps.push_back({"PASS", "OpenCL ICD loader", where + version, ""});
    } else {
        const char* e = dlerror();
        steps.push_back({"FAIL", "OpenCL ICD loader", std::string("libOpenCL.so.1 could not be opened: ") + (e ? e : ""),
                         "apt-get install ocl-icd-libopencl1 (the OpenCL backend needs it)"});
    }
    // 2. ICD files and their vendor libraries.
    // Libraries are compared by name up to ".so": an ICD file may name libpocl.so.2.10.0
    // where the system has libpocl.so.2.
    auto stem = [](const std::string& path) {
        const std::string f = fs::path(path).filename().string();
        return f.substr(0, f.find(".so"));
    };
    std::set<std::string> registered;
    for (const auto& [from, lib] : icd_files(steps)) {
        registered.insert(stem(lib));
        auto p = probe_vendor(lib);
        if (!p.opened) {
            steps.push_back({"FAIL", "ICD " + from, lib + " could not be opened: " + p.error,
                             "the vendor library named by this ICD file is at fault: reinstall "
                             "the driver package that owns it, or fix or remove the ICD file"});
            continue;
        }
        if (p.platforms.empty()) {
            // A vendor driver installed without its hardware (intel-opencl-icd for ocloc on a
            // machine with no Intel GPU) offers no platform; the loader skips it, so it is a
            // warning like a platform with no device, not a broken set-up.
            const bool no_hardware = p.error == "it reports no platform";
            steps.push_back({no_hardware ? "WARN" : "FAIL", "ICD " + from, lib + ": " + p.error,
                             no_hardware ? "a vendor driver without its hardware (or without access to it): "
                                           "harmless if this machine has no such GPU; otherwise check the "
                                           "driver and the permissions of /dev/dri"
                                         : "the vendor library loads but offers no platform: check its driver"});
            continue;
        }
        for (const auto& [name, nd] : p.platforms)
            steps.push_back({nd > 0 ? "PASS" : "WARN", "ICD " + from,
                             lib + ": platform \"" + name + "\", " + std::to_string(nd) + " device(s)",
                             nd > 0 ? "" : "a platform with no device: its hardware or driver is missing"});
    }
    // 3. Vendor libraries installed but registered in no ICD file.
    const std::vector<std::pair<std::string, std::string>> vendors = {
        {"libnvidia-opencl.so.1", "nvidia.icd"}, {"libamdocl64.so", "amdocl64.icd"},
        {"libintelocl.so", "intel-cpu.icd"},     {"libigdrcl.so", "intel.icd"},
        {"libpocl.so.2", "pocl.icd"},            {"libze_intel_gpu.so.1", ""}};
    for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
                            "/opt/rocm/lib", "/usr/lib/wsl/lib"})
        for (const auto& [lib, icd] : vendors) {
            std::error_code ec;
            const fs::path p = fs::path(dir) / lib;
            if (icd.empty() || registered.count(stem(lib)) || !fs::exists(p, ec))
                continue;
            registered.insert(stem(lib));
            steps.push_back({"WARN", "unregistered OpenCL library", p.string() + " is installed but no ICD file names it",
                             "register it: echo " + p.string() + " | sudo tee /etc/OpenCL/vendors/" + icd});
        }
    // 4. Backends.
    for (const auto& r : duet::backend_reports()) {
        if (r.device_count > 0)
            steps.push_back({"PASS", "backend " + r.name,
                             std::to_string(r.device_count) + " device(s)" + (r.version.empty() ? "" : ", " + r.version), ""});
        else if (r.plugin.empty())
            steps.push_back({"INFO", "backend " + r.name, r.reason, ""});
        else
            steps.push_back({r.loaded ? "WARN" : "FAIL", "backend " + r.name, r.reason,
                             !r.loaded ? "the Duet plugin " + r.plugin +
                                             " is at fault, not the driver: rebuild or reinstall "
                                             "Duet, or fix DUET_BACKEND_PATH"
                             : r.name == "cuda" ? "needs an NVIDIA GPU and driver (nvidia-smi should work)"
                                                : "see the ICD steps above"});
    }
    // 5. NVRTC (CUDA's run-time compiler, ~100 MB): needed only for CUDA kernels compiled at
    // run time: an app's own .cu source, defines, fast math, DUET_KERNEL_DIR. Duet's kernels
    // without defines run from the binaries built in, and need no NVRTC. The places searched are
    // the CUDA plugin's: the loader's path, then $CUDA_PATH, $CUDA_HOME and /usr/local/cuda.
    {
        std::vector<std::string> names;
        for (const char* so : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}) {
            names.push_back(so);
            for (const char* var : {"CUDA_PATH", "CUDA_HOME"})
                if (const char* root = std::getenv(var); root && *root)
                    names.push_back(std::string(root) + "/lib64/" + so);
            names.push_back(std::string("/usr/local/cuda/lib64/") + so);
        }
        std::string found;
        for (const auto& n : names)
            if (void* h = dlopen(n.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
                found = n;
                dlclose(h);
                break;
            }
        steps.push_back({found.empty() ? "INFO" : "PASS", "NVRTC",
                         found.empty() ? "not found" : "found: " + found,
                         found.empty()
                             ? "needed only for CUDA kernels compiled at run time (an app's own .cu "
                               "source, --define, fast math, DUET_KERNEL_DIR); Duet's own kernels "
                               "run without it. To add it: NVIDIA's apt package cuda-nvrtc-13-X "
                               "(or pip nvidia-cuda-nvrtc), with its lib directory on "
                               "LD_LIBRARY_PATH or CUDA_PATH set to the toolkit"
                             : ""});
    }
    // 6. A test kernel on every device.
    for (auto* d : duet::devices()) {
        try {
            const int n = 1000;
            std::vector<float> a(n), b(n), out(n, -1.f);
            for (int i = 0; i < n; ++i) {
                a[i] = float(i);
                b[i] = float(2 * i);
            }
            auto q = d->create_queue();
            auto da = d->alloc<float>(n), db = d->alloc<float>(n), dc = d->alloc<float>(n);
            q->write(*da, a);
            q->write(*db, b);
            auto k = d->load_kernel("vecadd_naive");
            q->launch(*k, duet::Range(duet::round_up(n, 64)).local(64), *da, *db, *dc, n);
            q->read(*dc, out);
            int bad = 0;
            for (int i = 0; i < n; ++i)
                bad += out[i] != float(3 * i);
            steps.push_back({bad ? "FAIL" : "PASS", "test kernel on " + d->info().id(),
                             d->info().name + (bad ? ": " + std::to_string(bad) + " wrong results" : ": vecadd correct"),
                             bad ? "the device computes wrong results: update its driver" : ""});
        } catch (const std::exception& e) {
            steps.push_back({"FAIL", "test kernel on " + d->info().id(), e.what(),
                             "the device is listed but cannot run a kernel: check its driver"});
        }
    }
    bool failed = false;
    for (const auto& s : steps)
        failed = failed || s.status == "FAIL";
    if (c.format == Format::json) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& s : steps)
            j.push_back({{"status", s.status}, {"step", s.what}, {"detail", s.detail}, {"hint", s.hint}});
        std::cout << dump_json(nlohmann::json{{"steps", j}, {"ok", !failed}}) << "\n";
    } else {
        for (const auto& s : steps) {
            std::cout << "[" << s.status << "] " << s.what << ": " << s.detail << "\n";
            if (!s.hint.empty() && s.status != "PASS")
                std::cout << "       -> " << s.hint << "\n";
        }
    }
    return failed ? 3 : 0;
}

} // namespace runapp
