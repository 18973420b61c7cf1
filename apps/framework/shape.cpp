// Launch shapes that fit the device (shape.hpp).
#include "shape.hpp"

#include <algorithm>

#include "app.hpp"

namespace duet::apps {

std::string shape_misfit(const Shape& s, const ShapeLimits& lim) {
    const std::string shape = std::to_string(s.local[0]) + "x" + std::to_string(s.local[1]);
    if (lim.max_items && s.items() > lim.max_items)
        return shape + " is " + std::to_string(s.items()) + " work-items, over the limit of " +
               std::to_string(lim.max_items);
    for (int d = 0; d < 2; ++d)
        if (lim.max_dims[d] && s.local[d] > lim.max_dims[d])
            return shape + " is over the limit of " + std::to_string(lim.max_dims[d]) +
                   " work-items in dimension " + std::to_string(d);
    const bool optin = s.local_by_argument && lim.optin_local_bytes > lim.local_bytes;
    const std::uint64_t local = optin ? lim.optin_local_bytes : lim.local_bytes;
    if (local && s.local_bytes > local)
        return shape + " needs " + std::to_string(s.local_bytes) +
               " bytes of local memory, over the " + std::to_string(local) + " there are" +
               (optin ? " by opt-in" : "");
    return "";
}

std::size_t first_fitting(const std::vector<Shape>& shapes, const ShapeLimits& lim,
                          std::size_t from) {
    for (std::size_t i = from; i < shapes.size(); ++i)
        if (shape_misfit(shapes[i], lim).empty())
            return i;
    return shapes.size();
}

ShapeLimits device_limits(const DeviceInfo& info) {
    ShapeLimits lim;
    lim.max_items = info.max_work_group_size;
    lim.max_dims = {info.max_work_item_sizes[0], info.max_work_item_sizes[1]};
    lim.local_bytes = info.local_mem_bytes;
    lim.optin_local_bytes = info.local_mem_optin_bytes;
    return lim;
}

Fitted build_fitting(Device& dev, const std::string& kernel, const BuildOptions& base,
                     const std::vector<Shape>& shapes, const std::string& variant) {
    if (shapes.empty())
        throw Error::runtime(variant + ": no launch shape listed");
    Fitted f;
    f.limits = device_limits(dev.info());
    // Start at the first shape the device itself allows; each build may lower the kernel's limit.
    std::size_t i = first_fitting(shapes, f.limits);
    const Shape* built = nullptr;
    while (i < shapes.size()) {
        if (!built || built->defines != shapes[i].defines || built->kernel != shapes[i].kernel) {
            f.kernel = dev.load_kernel(shapes[i].kernel.empty() ? kernel : shapes[i].kernel,
                                       shape_build(base, shapes[i]));
            built = &shapes[i];
        }
        const std::size_t k = f.kernel->max_work_group_size();
        if (k && (!f.limits.max_items || k < f.limits.max_items))
            f.limits.max_items = k;
        if (shape_misfit(shapes[i], f.limits).empty()) {
            f.shape = shapes[i];
            f.index = i;
            f.reason = shape_misfit(shapes.front(), f.limits);
            return f;
        }
        i = first_fitting(shapes, f.limits, i + 1);
    }
    // The smallest shape's reason is the one that matters: nothing smaller exists.
    throw Error::unsupported(variant + " cannot run on this device: even its smallest shape, " +
                             shape_misfit(shapes.back(), f.limits));
}

std::string shape_note(const std::string& variant, const Fitted& f) {
    if (f.index == 0)
        return "";
    return variant + " as " + f.shape.label + " (its textbook " + f.reason + ")";
}

void add_unset(std::vector<std::pair<std::string, std::string>>& to,
               const std::vector<std::pair<std::string, std::string>>& from) {
    for (const auto& d : from)
        if (std::none_of(to.begin(), to.end(), [&](const auto& o) { return o.first == d.first; }))
            to.push_back(d);
}

BuildOptions shape_build(const BuildOptions& base, const Shape& shape) {
    BuildOptions out = base;
    add_unset(out.defines, shape.defines);
    return out;
}

bool user_sets(const RunConfig& cfg, const std::vector<std::string>& names) {
    return std::any_of(cfg.defines.begin(), cfg.defines.end(), [&](const auto& d) {
        return std::find(names.begin(), names.end(), d.first) != names.end();
    });
}

std::vector<Shape> halving_shapes(std::array<std::size_t, 2> start) {
    std::vector<Shape> out;
    for (auto l = start;;) {
        Shape s;
        s.local = l;
        s.cols = l[0];
        s.rows = l[1];
        s.label = std::to_string(l[0]) + "x" + std::to_string(l[1]) + " work-items";
        out.push_back(s);
        if (l[0] <= 1 && l[1] <= 1)
            return out;
        if (l[1] >= l[0] && l[1] > 1)
            l[1] /= 2;
        else
            l[0] /= 2;
    }
}

} // namespace duet::apps
