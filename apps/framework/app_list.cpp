// The list of apps runapp knows, in display order. Each app file defines its accessor.
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

} // namespace duet::apps
