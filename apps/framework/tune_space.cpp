// A step's tuning space (tune_space.hpp): the device limits a point must fit.
#include "tune_space.hpp"

namespace duet::apps {

std::string over_limits(std::size_t items, std::size_t local_bytes, const DeviceInfo& info) {
    if (info.max_work_group_size && items > info.max_work_group_size)
        return "needs " + std::to_string(items) + " work-items per group (device limit " +
               std::to_string(info.max_work_group_size) + ")";
    if (info.local_mem_bytes && local_bytes > info.local_mem_bytes)
        return "needs " + std::to_string(local_bytes) + " bytes of local memory (device limit " +
               std::to_string(info.local_mem_bytes) + ")";
    return {};
}

} // namespace duet::apps
