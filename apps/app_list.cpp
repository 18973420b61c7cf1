// The list of apps runapp knows, in display order. Each app file defines its accessor.
#include "app.hpp"

namespace duet::apps {

const App& vecadd_app();
[[gnu::weak]] const App& matmul_app();   // TEMP until all apps land
[[gnu::weak]] const App& conv5x5_app();
[[gnu::weak]] const App& reduction_app();

const std::vector<const App*>& all_apps() {
    static const std::vector<const App*> apps = [] {
        std::vector<const App*> v;
        for (auto f : {&vecadd_app, &matmul_app, &conv5x5_app, &reduction_app})
            if (f)
                v.push_back(&f());
        return v;
    }();
    return apps;
}

} // namespace duet::apps
