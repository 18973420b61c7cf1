// A ladder step's record (step.hpp): what the apps ask of it.
#include "step.hpp"

#include <algorithm>

#include "app.hpp"
#include "device_profile.hpp"

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

void add_hook_defines(const Step& step, BuildOptions& opts, const DeviceInfo& info,
                      const RunConfig& cfg) {
    if (step.hooks && step.hooks->defines)
        step.hooks->defines(opts, info, cfg);
}

void add_step_defines(const std::string& app, const Step& step, BuildOptions& opts,
                      const DeviceInfo& info, const RunConfig& cfg) {
    add_hook_defines(step, opts, info, cfg);
    opts.own_dialect = cfg.kernel_text;
    if (step.hooks && step.hooks->takes_profile && !step.hooks->takes_profile(cfg))
        return;
    for (auto& d : profile_of(info).defines_for(app, step.name)) {
        const bool set = std::any_of(opts.defines.begin(), opts.defines.end(),
                                     [&](const auto& o) { return o.first == d.first; });
        if (!set && !user_sets(cfg, {d.first}))
            opts.defines.push_back(std::move(d));
    }
}

} // namespace duet::apps
