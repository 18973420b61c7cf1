// The OpenCL backend's self-check for runapp doctor: the ICD loader, the ICD files it reads,
// each vendor library they name (opened and asked for its platforms directly, past the
// loader), and vendor libraries installed but registered in no ICD file.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include <dlfcn.h>
#include <unistd.h>

#include <duet/backend/elf_check.hpp>

#include "opencl_doctor.hpp"

namespace duet::opencl {

namespace {

namespace fs = std::filesystem;

std::string trim(std::string s) {
    while (!s.empty() &&
           (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\0'))
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
    if (auto ext = reinterpret_cast<GetExt>(dlsym(h, "clGetExtensionFunctionAddress"));
        !get_ids && ext)
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

std::vector<std::pair<std::string, std::string>> icd_files(std::vector<Finding>& steps) {
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
        steps.push_back({"INFO", "OCL_ICD_VENDORS", dir,
                         "the loader reads ICD files from here instead of /etc/OpenCL/vendors"});
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

// The advice for a library that no ICD file the loader reads names.
std::string register_hint(const std::string& path, const std::string& icd) {
    const std::string system = "/etc/OpenCL/vendors/" + icd;
    std::error_code ec;
    const char* v = std::getenv("OCL_ICD_VENDORS");
    if (v && *v && fs::exists(system, ec))
        return std::string("OCL_ICD_VENDORS=") + v + " makes the loader read that instead of " +
               "/etc/OpenCL/vendors, where " + system + " registers it: unset OCL_ICD_VENDORS, " +
               "or copy " + system + " there";
    if (v && *v)
        return "register it where OCL_ICD_VENDORS points: echo " + path + " > " + v + "/" + icd;
    return "register it: echo " + path + " | sudo tee " + system;
}

} // namespace

std::string cache_home_problem() {
    const char* x = std::getenv("XDG_CACHE_HOME");
    const char* h = std::getenv("HOME");
    const bool xdg = x && *x;
    const std::string var = xdg ? "XDG_CACHE_HOME" : "HOME";
    const std::string dir = xdg ? x : h && *h ? std::string(h) + "/.cache" : "";
    if (dir.empty())
        return "HOME is not set: drivers keep their kernel caches under $HOME/.cache (PoCL "
               "offers no device without one); set HOME or XDG_CACHE_HOME to a directory you "
               "can write";
    // The nearest part that exists must take a new directory (access() says yes to root on
    // /proc): made and removed at once.
    fs::path p = dir;
    std::error_code ec;
    while (p.has_parent_path() && p != p.parent_path() && !fs::exists(p, ec))
        p = p.parent_path();
    std::string probe = (p / ".duet-probe-XXXXXX").string();
    if (::mkdtemp(probe.data())) {
        ::rmdir(probe.c_str());
        return {};
    }
    return var + "=" + (xdg ? dir : std::string(h)) + " cannot be written (" + p.string() +
           "): drivers keep their kernel caches under " + dir +
           " (PoCL offers no device without one); set " + var +
           " to a directory you can write (or POCL_CACHE_DIR for PoCL)";
}

std::vector<Finding> diagnose_icd() {
    std::vector<Finding> steps;
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
        steps.push_back({"FAIL", "OpenCL ICD loader",
                         std::string("libOpenCL.so.1 could not be opened: ") + (e ? e : ""),
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
            steps.push_back(
                {no_hardware ? "WARN" : "FAIL", "ICD " + from, lib + ": " + p.error,
                 no_hardware
                     ? (cache_home_problem().empty()
                            ? "a vendor driver without its hardware (or without access to it): "
                              "harmless if this machine has no such GPU; otherwise check the "
                              "driver and the permissions of /dev/dri"
                            : cache_home_problem())
                     : "the vendor library loads but offers no platform: check its driver"});
            continue;
        }
        for (const auto& [name, nd] : p.platforms)
            steps.push_back(
                {nd > 0 ? "PASS" : "WARN", "ICD " + from,
                 lib + ": platform \"" + name + "\", " + std::to_string(nd) + " device(s)",
                 nd > 0                          ? ""
                 : !cache_home_problem().empty() ? cache_home_problem()
                                                 : "a platform with no device: its hardware or "
                                                   "driver is missing"});
    }
    // 3. Vendor libraries installed but registered in no ICD file.
    const std::vector<std::pair<std::string, std::string>> vendors = {
        {"libnvidia-opencl.so.1", "nvidia.icd"},
        {"libamdocl64.so", "amdocl64.icd"},
        {"libintelocl.so", "intel-cpu.icd"},
        {"libigdrcl.so", "intel.icd"},
        {"libpocl.so.2", "pocl.icd"},
        {"libze_intel_gpu.so.1", ""}};
    for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
                            "/opt/rocm/lib", "/usr/lib/wsl/lib"})
        for (const auto& [lib, icd] : vendors) {
            std::error_code ec;
            const fs::path p = fs::path(dir) / lib;
            if (icd.empty() || registered.count(stem(lib)) || !fs::exists(p, ec))
                continue;
            registered.insert(stem(lib));
            steps.push_back({"WARN", "unregistered OpenCL library",
                             p.string() + " is installed but no ICD file names it",
                             register_hint(p.string(), icd)});
        }
    return steps;
}

} // namespace duet::opencl
