// diagnose_backends(): each backend's own findings, then one line for the backend itself.
#include "backend_registry.hpp"

namespace duet {

std::vector<Finding> diagnose_backends() {
    std::vector<Finding> out;
    for (const auto& why : plugins_refused())
        out.push_back({"WARN", "plugin path", why,
                       "plugins run with your rights: load them only from directories no one "
                       "else can change"});
    for (const auto* b : detail::all_backends()) {
        const BackendReport& r = b->report;
        if (b->backend) {
            try {
                for (auto& f : b->backend->diagnose())
                    out.push_back(std::move(f));
            } catch (const std::exception& e) {
                out.push_back({"FAIL", "backend " + r.name + " self-check", e.what(),
                               "the backend's self-check failed: report it as a bug"});
            }
        }
        if (r.device_count > 0)
            out.push_back({"PASS", "backend " + r.name,
                           std::to_string(r.device_count) + " device(s)" +
                               (r.version.empty() ? "" : ", " + r.version),
                           ""});
        else if (r.plugin.empty())
            out.push_back({"INFO", "backend " + r.name, r.reason, ""});
        else if (!r.loaded)
            out.push_back({"FAIL", "backend " + r.name, r.reason,
                           "the Duet plugin " + r.plugin +
                               " is at fault, not the driver: rebuild or reinstall Duet, or fix "
                               "DUET_BACKEND_PATH"});
        else
            out.push_back(
                {"WARN", "backend " + r.name, r.reason, "see the " + r.name + " findings above"});
    }
    return out;
}

} // namespace duet
