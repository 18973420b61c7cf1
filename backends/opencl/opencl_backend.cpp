// The OpenCL backend: every platform the ICD loader reports (never only the first), every
// device of each. A platform with no device (CL_DEVICE_NOT_FOUND) is reported, not an error.
#include <dlfcn.h>

#include <CL/cl_icd.h>

#include <duet/backend/backend.hpp>
#include <duet/backend/log.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"

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

class OpenclBackend final : public Backend {
public:
    OpenclBackend() {
        report_.name = "opencl";
        try {
            enumerate();
        } catch (const std::exception& e) {
            report_.reason = e.what();
        }
        if (devices_.empty() && report_.reason.empty())
            report_.reason = report_.platforms.empty()
                                 ? "the ICD loader reports no OpenCL platform (no ICD file in "
                                   "/etc/OpenCL/vendors or OCL_ICD_VENDORS names a library that "
                                   "loads); install one, e.g. pocl-opencl-icd, or run runapp doctor"
                                 : "no platform has a device";
    }
    BackendReport report() const override { return report_; }
    std::size_t device_count() const override { return devices_.size(); }
    Device& device(std::size_t i) override { return *devices_.at(i); }

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

DUET_BACKEND_EXPORT int duet_backend_abi() { return DUET_BACKEND_ABI; }

DUET_BACKEND_EXPORT duet::Backend* duet_backend_create() {
    try {
        return new duet::opencl::OpenclBackend();
    } catch (...) {
        return nullptr;
    }
}
