// The registry of apps: the one list of the apps runapp and the tests know, in display order
// (each app file in apps/ladders/ defines its accessor), and lookups by name. A new app is its
// kernels, its file in apps/ladders/, one line here, and its test.
#include <algorithm>

#include "app.hpp"

namespace duet::apps {

const App& vecadd_app();
const App& matmul_app();
const App& conv5x5_app();
const App& reduction_app();

const std::vector<const App*>& all_apps() {
    static const std::vector<const App*> apps = {&vecadd_app(), &matmul_app(), &conv5x5_app(),
                                                 &reduction_app()};
    return apps;
}

const App& find_app(const std::string& name) {
    std::string names;
    for (const App* a : all_apps()) {
        if (a->name() == name)
            return *a;
        names += (names.empty() ? "" : ", ") + a->name();
    }
    throw Error::usage("unknown app '" + name + "'; the apps are: " + names);
}

std::vector<Variant> select_variants(const App& app, const std::string& spec) {
    const auto all = app.variants();
    if (spec.empty() || spec == "all")
        return all;
    std::vector<Variant> out;
    std::size_t start = 0;
    for (;;) {
        const auto comma = spec.find(',', start);
        const std::string name =
            spec.substr(start, comma == std::string::npos ? comma : comma - start);
        auto it =
            std::find_if(all.begin(), all.end(), [&](const Variant& v) { return v.name == name; });
        if (it == all.end()) {
            std::string names;
            for (const auto& v : all)
                names += (names.empty() ? "" : ", ") + v.name;
            throw Error::usage("app " + app.name() + " has no variant '" + name +
                               "'; its variants are: " + names);
        }
        out.push_back(*it);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace duet::apps
