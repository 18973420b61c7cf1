// What kind of device the apps run on (device_kind.hpp).
#include "device_kind.hpp"

#include <sstream>
#include <string>

namespace duet::apps {

namespace {

bool has_token(const std::string& list, const std::string& token) {
    std::istringstream in(list);
    for (std::string t; in >> t;)
        if (t == token)
            return true;
    return false;
}

} // namespace

bool is_cpu(const DeviceInfo& info) { return info.type.find("CPU") != std::string::npos; }

bool is_gpu(const DeviceInfo& info) {
    return info.backend == "cuda" || info.type.find("GPU") != std::string::npos;
}

KernelLanguage kernel_language(const DeviceInfo& info) {
    return info.backend == "cuda" ? KernelLanguage::cuda : KernelLanguage::opencl_c;
}

bool has_subgroups(const DeviceInfo& info) {
    if (kernel_language(info) == KernelLanguage::cuda)
        return true;
    for (const auto& [label, value] : info.details)
        if (label == "Extensions" && has_token(value, "cl_khr_subgroups"))
            return true;
    return false;
}

} // namespace duet::apps
