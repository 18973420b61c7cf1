// What kind of device the apps run on (device_kind.hpp).
#include "device_kind.hpp"

#include <string>

namespace duet::apps {

// By the one type a device is shown as (DeviceInfo::device_type), not by every bit it
// reports: Oclgrind reports CPU and GPU at once and is shaped for as a GPU.
bool is_cpu(const DeviceInfo& info) {
    return info.device_type == DeviceType::cpu;
}

bool is_gpu(const DeviceInfo& info) {
    return info.device_type == DeviceType::gpu;
}

bool has_subgroups(const DeviceInfo& info) {
    return info.caps.subgroup_functions;
}

} // namespace duet::apps
