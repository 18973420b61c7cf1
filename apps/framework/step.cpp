// A ladder step's record (step.hpp): what the apps ask of it.
#include "step.hpp"

#include "app.hpp"

namespace duet::apps {

std::vector<Shape> shapes_of(const Step& step, const RunConfig& cfg, const DeviceInfo& info) {
    if (!step.shapes)
        throw Error::runtime(step.name + ": no shape rule in its record");
    return step.shapes(cfg, info);
}

void check_needs(const Step& step, const DeviceInfo& info) {
    if (!step.needs.refuses)
        return;
    if (const auto why = step.needs.refuses(info); !why.empty())
        throw Error::unsupported(step.name + " " + why);
}

void add_step_defines(const Step& step, BuildOptions& opts, const DeviceInfo& info,
                      const RunConfig& cfg) {
    if (step.hooks && step.hooks->defines)
        step.hooks->defines(opts, info, cfg);
}

} // namespace duet::apps
