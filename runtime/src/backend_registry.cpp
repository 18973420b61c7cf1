// The registry: loads each backend plugin once, when it is first needed, and numbers the
// devices in a fixed order: the backends this build of Duet was configured with, in the order
// the build lists them (DUET_BUILD_BACKENDS, from the top-level CMakeLists.txt), then any
// other plugin found in the search path, by name. A build's backend whose plugin is missing is
// still listed, with the reason.
// A device named by backend (cuda:0, opencl:1, --backend) opens only that backend, so a run on
// one backend does not pay for initialising every platform of another; anything that needs the
// global numbering or the whole list opens them all.
#include "backend_registry.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <sstream>

#include <duet/backend/log.hpp>

#ifndef DUET_BUILD_BACKENDS
#define DUET_BUILD_BACKENDS ""
#endif

namespace duet {

namespace detail {

namespace {

struct Slot {
    std::string name;
    std::once_flag once;
    LoadedBackend loaded;
};

struct Registry {
    std::vector<std::unique_ptr<Slot>> slots; // known_backends() order
    std::once_flag all_once;
    std::vector<const LoadedBackend*> backends; // every backend, once all are loaded
    std::vector<Device*> devices;               // every device, in that order

    Registry() {
        log(); // made now, so that a wrong DUET_LOG_LEVEL is reported by every command
        for (const auto& name : known_backends()) {
            slots.push_back(std::make_unique<Slot>());
            slots.back()->name = name;
        }
    }

    LoadedBackend& one(Slot& s) {
        std::call_once(s.once, [&] { s.loaded = load_plugin(s.name); });
        return s.loaded;
    }

    void all() {
        std::call_once(all_once, [&] {
            for (auto& s : slots) {
                LoadedBackend& b = one(*s);
                backends.push_back(&b);
                for (std::size_t i = 0; b.backend && i < b.backend->device_count(); ++i)
                    devices.push_back(&b.backend->device(i));
            }
        });
    }
};

Registry& registry_slots() {
    static std::once_flag once;
    static Registry* r = nullptr; // never destroyed, as the backends
    std::call_once(once, [] { r = new Registry(); });
    return *r;
}

// Every backend loaded: for the global numbering and the whole list.
Registry& registry() {
    Registry& r = registry_slots();
    r.all();
    return r;
}

} // namespace

const LoadedBackend& backend_named(const std::string& name) {
    Registry& r = registry_slots();
    for (auto& s : r.slots)
        if (s->name == name)
            return r.one(*s);
    std::string known;
    for (const auto& s : r.slots)
        known += (known.empty() ? "" : ", ") + s->name;
    throw Error::usage("unknown backend '" + name + "'; Duet knows: " + known);
}

const std::vector<const LoadedBackend*>& all_backends() {
    return registry().backends;
}

const std::vector<Device*>& all_devices() {
    return registry().devices;
}

} // namespace detail

std::vector<std::string> known_backends() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        std::stringstream ss(DUET_BUILD_BACKENDS);
        for (std::string n; std::getline(ss, n, ',');)
            if (!n.empty() && std::find(out.begin(), out.end(), n) == out.end())
                out.push_back(n);
        for (const auto& n : detail::discover_plugins())
            if (std::find(out.begin(), out.end(), n) == out.end())
                out.push_back(n);
        return out;
    }();
    return names;
}

std::vector<Device*> devices() {
    return detail::all_devices();
}

int global_index(const Device& dev) {
    const auto& devs = detail::all_devices();
    for (std::size_t i = 0; i < devs.size(); ++i)
        if (devs[i] == &dev)
            return static_cast<int>(i);
    return -1;
}

std::vector<BackendReport> backend_reports() {
    std::vector<BackendReport> out;
    for (const auto* b : detail::all_backends())
        out.push_back(b->report);
    return out;
}

std::vector<std::string> plugins_refused() {
    std::vector<std::string> out = detail::plugin_path().refused;
    for (auto& n : detail::unshipped_plugins())
        out.push_back(std::move(n));
    return out;
}

} // namespace duet
