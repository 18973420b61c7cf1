// What kind of device the apps run on (device_kind.hpp).
#include "device_kind.hpp"

#include <string>

namespace duet::apps {

bool is_cpu(const DeviceInfo& info) {
    return info.is_cpu();
}

bool is_gpu(const DeviceInfo& info) {
    return info.is_gpu();
}

bool has_subgroups(const DeviceInfo& info) {
    return info.caps.subgroup_functions;
}

} // namespace duet::apps
