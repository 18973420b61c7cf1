// A ladder step's record (step.hpp): what the apps ask of it.
#include "step.hpp"

#include "app.hpp"

namespace duet::apps {

std::vector<Shape> shapes_of(const Step& step, const RunConfig& cfg, const DeviceInfo& info) {
    if (!step.shapes)
        throw Error(ErrorKind::runtime, "", "", 0, "", step.name + ": no shape rule in its record");
    return step.shapes(cfg, info);
}

void check_needs(const Step& step, const DeviceInfo& info) {
    if (!step.needs.refuses)
        return;
    if (const auto why = step.needs.refuses(info); !why.empty())
        throw Error(ErrorKind::unsupported, "", "", 0, "", step.name + " " + why);
}

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
