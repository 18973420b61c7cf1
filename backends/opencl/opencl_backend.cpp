// The OpenCL backend: every platform the ICD loader reports (never only the first), every
// device of each. A platform with no device (CL_DEVICE_NOT_FOUND) is reported, not an error.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <dlfcn.h>
#include <unistd.h>

#include <CL/cl_icd.h>

#include <duet/backend/backend.hpp>
#include <duet/backend/elf_check.hpp>
#include <duet/backend/log.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"
#include "opencl_doctor.hpp"

namespace duet::opencl {

namespace {

std::string platform_string(cl_platform_id p, cl_platform_info what) {
    std::size_t n = 0;
    if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return {};
    std::string s(n, '\0');
    clGetPlatformInfo(p, what, n, s.data(), nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

// The vendor library a platform lives in. ICD platforms start with a pointer to the vendor's
// dispatch table, whose entries are functions in that library: dladdr names the file.
std::string vendor_library(cl_platform_id p) {
    const auto* dispatch = *reinterpret_cast<const cl_icd_dispatch* const*>(p);
    Dl_info info{};
    if (dispatch && dispatch->clGetPlatformInfo &&
        dladdr(reinterpret_cast<void*>(dispatch->clGetPlatformInfo), &info) && info.dli_fname)
        return info.dli_fname;
    return {};
}

// ---- ICD screening ----
// The ICD loader dlopens every vendor library it is told about; a truncated one kills the
// process with SIGBUS before Duet sees an error. So the libraries are checked first, and when one
// is bad the loader is pointed at the good ones only (a private vendors directory in
// OCL_ICD_VENDORS, OCL_ICD_FILENAMES unset), and the bad one is reported as that library's fault.

namespace fs = std::filesystem;

struct IcdLibrary {
    std::string listed, path, origin; // as written, as found, where it was named
};

void add_icd_file(const fs::path& icd, std::vector<IcdLibrary>& out) {
    std::ifstream in(icd);
    std::string line;
    if (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        if (!line.empty())
            out.push_back({line, find_shared_library(line), icd.string()});
    }
}

// Every library the loader would open, as ocl-icd finds them.
std::vector<IcdLibrary> listed_icds() {
    std::vector<IcdLibrary> out;
    if (const char* f = std::getenv("OCL_ICD_FILENAMES"); f && *f) {
        std::stringstream ss(f);
        for (std::string l; std::getline(ss, l, ':');)
            if (!l.empty())
                out.push_back({l, find_shared_library(l), "OCL_ICD_FILENAMES"});
    }
    const char* v = std::getenv("OCL_ICD_VENDORS");
    const fs::path vendors = v && *v ? fs::path(v) : fs::path("/etc/OpenCL/vendors");
    std::error_code ec;
    if (fs::is_directory(vendors, ec)) {
        std::vector<fs::path> icds;
        for (const auto& e : fs::directory_iterator(vendors, ec))
            if (e.path().extension() == ".icd" && e.is_regular_file(ec))
                icds.push_back(e.path());
        std::sort(icds.begin(), icds.end());
        for (const auto& icd : icds)
            add_icd_file(icd, out);
    } else if (vendors.extension() == ".icd") {
        add_icd_file(vendors, out);
    } else if (v && *v) {
        out.push_back({v, find_shared_library(v), "OCL_ICD_VENDORS"});
    }
    return out;
}

// Checks the listed libraries; when one is bad, hides it from the loader. Returns the reports
// of the bad ones and, in `vendor_dir`, the private directory to remove after enumeration.
std::vector<PlatformReport> screen_icds(std::string& vendor_dir) {
    std::vector<PlatformReport> bad;
    std::vector<IcdLibrary> good;
    for (const auto& lib : listed_icds()) {
        const std::string why = lib.path.empty() ? std::string() : check_shared_library(lib.path);
        if (why.empty() || why.rfind("cannot open it", 0) == 0) {
            good.push_back(lib); // missing files are the loader's to report, harmlessly
            continue;
        }
        PlatformReport pr;
        pr.name = "(ICD library not loaded)";
        pr.library = lib.path;
        pr.note = "the OpenCL ICD library " + lib.path + " (named by " + lib.origin +
                  ") is damaged: " + why +
                  ". Duet kept it away from the ICD loader; reinstall "
                  "the driver package that owns it, or remove " +
                  lib.origin;
        log().warn("{}", pr.note);
        bad.push_back(std::move(pr));
    }
    if (bad.empty())
        return bad;
    std::string tmpl = (fs::temp_directory_path() / "duet-icd-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) {
        // Without a directory to point the loader at, no platform is safer than a SIGBUS.
        ::setenv("OCL_ICD_VENDORS", "/nonexistent-duet-icd-dir", 1);
        ::unsetenv("OCL_ICD_FILENAMES");
        return bad;
    }
    vendor_dir = tmpl;
    int i = 0;
    for (const auto& lib : good)
        std::ofstream(fs::path(tmpl) / (std::to_string(i++) + ".icd"))
            << (lib.path.empty() ? lib.listed : lib.path) << "\n";
    ::setenv("OCL_ICD_VENDORS", tmpl.c_str(), 1);
    ::unsetenv("OCL_ICD_FILENAMES");
    return bad;
}

std::optional<std::string> saved_env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::optional<std::string>(v) : std::nullopt;
}

void restore_env(const char* name, const std::optional<std::string>& v) {
    if (v)
        ::setenv(name, v->c_str(), 1);
    else
        ::unsetenv(name);
}

class OpenclBackend final : public Backend {
  public:
    OpenclBackend() {
        report_.name = "opencl";
        const auto saved_vendors = saved_env("OCL_ICD_VENDORS");
        const auto saved_filenames = saved_env("OCL_ICD_FILENAMES");
        std::string vendor_dir;
        const auto bad = screen_icds(vendor_dir);
        try {
            enumerate();
        } catch (const std::exception& e) {
            report_.reason = e.what();
        }
        if (!bad.empty()) {
            // The loader has read its list (it does so once per process): the user's settings
            // come back for anything that reads them later (doctor, child processes).
            restore_env("OCL_ICD_VENDORS", saved_vendors);
            restore_env("OCL_ICD_FILENAMES", saved_filenames);
            std::error_code ec;
            fs::remove_all(vendor_dir, ec);
        }
        report_.platforms.insert(report_.platforms.end(), bad.begin(), bad.end());
        if (devices_.empty() && report_.reason.empty() && !bad.empty())
            report_.reason = bad.front().note;
        if (devices_.empty() && report_.reason.empty())
            report_.reason = report_.platforms.empty()
                                 ? "the ICD loader reports no OpenCL platform (no ICD file in "
                                   "/etc/OpenCL/vendors or OCL_ICD_VENDORS names a library that "
                                   "loads); install one, e.g. pocl-opencl-icd, or run runapp doctor"
                             : !cache_home_problem().empty()
                                 ? "no platform has a device; " + cache_home_problem()
                                 : "no platform has a device";
    }
    BackendReport report() const override { return report_; }
    std::size_t device_count() const override { return devices_.size(); }
    Device& device(std::size_t i) override { return *devices_.at(i); }
    std::vector<Finding> diagnose() const override { return diagnose_icd(); }

  private:
    void enumerate() {
        cl_uint n = 0;
        log().debug("clGetPlatformIDs");
        cl_int err = clGetPlatformIDs(0, nullptr, &n);
        if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && n == 0))
            return;
        check(err, "clGetPlatformIDs", "listing OpenCL platforms");
        std::vector<cl_platform_id> ids(n);
        check(clGetPlatformIDs(n, ids.data(), nullptr), "clGetPlatformIDs",
              "listing OpenCL platforms");
        for (cl_platform_id id : ids) {
            PlatformReport pr;
            pr.name = platform_string(id, CL_PLATFORM_NAME);
            pr.vendor = platform_string(id, CL_PLATFORM_VENDOR);
            pr.version = platform_string(id, CL_PLATFORM_VERSION);
            pr.library = vendor_library(id);
            cl_uint nd = 0;
            log().debug("clGetDeviceIDs({})", pr.name);
            err = clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, 0, nullptr, &nd);
            if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && nd == 0)) {
                pr.note = "no devices (CL_DEVICE_NOT_FOUND)";
            } else if (err != CL_SUCCESS) {
                pr.note = std::string("clGetDeviceIDs failed with ") + error_name(err);
            } else {
                std::vector<cl_device_id> devs(nd);
                clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, nd, devs.data(), nullptr);
                cl::Platform platform(id, true);
                for (cl_device_id d : devs) {
                    cl::Device device(d, true);
                    try {
                        auto info = describe_device(platform, device,
                                                    static_cast<int>(devices_.size()), pr.library);
                        devices_.push_back(
                            std::make_unique<OpenclDevice>(platform, device, std::move(info)));
                        ++pr.device_count;
                    } catch (const std::exception& e) {
                        pr.note += std::string("a device could not be queried: ") + e.what();
                    }
                }
            }
            report_.platforms.push_back(std::move(pr));
        }
    }

    BackendReport report_;
    std::vector<std::unique_ptr<OpenclDevice>> devices_;
};

} // namespace

} // namespace duet::opencl

DUET_BACKEND_EXPORT int duet_backend_abi() {
    return DUET_BACKEND_ABI;
}

DUET_BACKEND_EXPORT duet::Backend* duet_backend_create() {
    try {
        return new duet::opencl::OpenclBackend();
    } catch (...) {
        return nullptr;
    }
}
