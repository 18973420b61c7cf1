// The registry: loads each backend plugin once, when it is first needed, and numbers the
// devices in a fixed order (every CUDA device, then every OpenCL one). Plugins are looked for in
// DUET_BACKEND_PATH, then next to libduet (lib/duet/, lib/). A plugin that is missing or fails to
// load is a backend with zero devices and a reason.
// A device named by backend (cuda:0, opencl:1, --backend) opens only that backend, so a CUDA run
// does not pay for initialising every OpenCL platform (NVIDIA's, PoCL's) and the reverse; anything
// that needs the global numbering or the whole list opens them all.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include <dlfcn.h>

#include <duet/backend/backend.hpp>
#include <duet/backend/elf_check.hpp>
#include <duet/backend/log.hpp>
#include <duet/device_id.hpp>
#include <duet/registry.hpp>

namespace duet {

namespace fs = std::filesystem;

namespace {

struct Loaded {
    BackendReport report;
    Backend* backend = nullptr; // never destroyed: drivers may be gone at static destruction
};

fs::path library_dir() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&library_dir), &info) && info.dli_fname)
        return fs::path(info.dli_fname).parent_path();
    return {};
}

std::vector<fs::path> search_dirs() {
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("DUET_BACKEND_PATH")) {
        std::stringstream ss(env);
        for (std::string d; std::getline(ss, d, ':');) {
            if (d.empty())
                continue;
            std::error_code ec;
            if (!fs::is_directory(d, ec)) {
                static std::once_flag said;
                std::call_once(said, [&] {
                    log().warn("DUET_BACKEND_PATH names {}, which is not a directory; plugins are "
                               "looked for next to libduet instead. Fix the path or unset it", d);
                });
            }
            dirs.emplace_back(d);
        }
    }
    const fs::path lib = library_dir();
    if (!lib.empty()) {
        dirs.push_back(lib / "duet");
        dirs.push_back(lib);
    }
    return dirs;
}

Loaded load_backend(const std::string& name) {
    Loaded l;
    l.report.name = name;
    const std::string file = "libduet_" + name + ".so";
    std::string looked;
    fs::path found;
    for (const auto& d : search_dirs()) {
        looked += (looked.empty() ? "" : ", ") + d.string();
        std::error_code ec;
        if (fs::exists(d / file, ec)) {
            found = d / file;
            break;
        }
    }
    if (found.empty()) {
        l.report.reason = "plugin " + file + " not found (looked in " + looked +
                          "); this build of Duet has no " + name +
                          " backend, or DUET_BACKEND_PATH is wrong";
        return l;
    }
    l.report.plugin = found.string();
    // A truncated plugin would be mapped and then kill the process with SIGBUS on first touch.
    if (const std::string bad = check_shared_library(found.string()); !bad.empty()) {
        l.report.reason = "plugin " + found.string() + " is damaged (" + bad +
                          "); reinstall or rebuild Duet, or fix DUET_BACKEND_PATH";
        return l;
    }
    log().debug("dlopen({})", found.string());
    void* h = dlopen(found.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        l.report.reason = "plugin " + found.string() + " could not be opened: " + (e ? e : "?");
        return l;
    }
    auto abi = reinterpret_cast<duet_backend_abi_fn>(dlsym(h, "duet_backend_abi"));
    auto create = reinterpret_cast<duet_backend_create_fn>(dlsym(h, "duet_backend_create"));
    if (!abi || !create) {
        l.report.reason = "plugin " + found.string() + " lacks the duet_backend_* entry points";
        return l;
    }
    if (abi() != DUET_BACKEND_ABI) {
        l.report.reason = "plugin " + found.string() + " was built for backend ABI " +
                          std::to_string(abi()) + ", this libduet needs " +
                          std::to_string(DUET_BACKEND_ABI) + "; rebuild or reinstall it";
        return l;
    }
    try {
        l.backend = create();
    } catch (const std::exception& e) {
        l.report.reason = std::string("backend initialisation failed: ") + e.what();
        return l;
    }
    if (!l.backend) {
        l.report.reason = "backend initialisation returned nothing";
        return l;
    }
    const std::string plugin = l.report.plugin;
    l.report = l.backend->report();
    l.report.plugin = plugin;
    l.report.loaded = true;
    l.report.device_count = static_cast<int>(l.backend->device_count());
    return l;
}

struct Slot {
    std::string name;
    std::once_flag once;
    Loaded loaded;
};

struct Registry {
    std::vector<std::unique_ptr<Slot>> slots; // known_backends() order
    std::once_flag all_once;
    std::vector<Loaded*> backends; // every backend, once all are loaded
    std::vector<Device*> devices;  // every device, in that order

    Registry() {
        log(); // made now, so that a wrong DUET_LOG_LEVEL is reported by every command
        for (const auto& name : known_backends()) {
            slots.push_back(std::make_unique<Slot>());
            slots.back()->name = name;
        }
    }

    Loaded& one(Slot& s) {
        std::call_once(s.once, [&] { s.loaded = load_backend(s.name); });
        return s.loaded;
    }

    void all() {
        std::call_once(all_once, [&] {
            for (auto& s : slots) {
                Loaded& b = one(*s);
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

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool all_digits(const std::string& s) {
    return !s.empty() && s.size() < 10 &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string device_list() {
    std::string s;
    const auto& devs = registry().devices;
    for (std::size_t i = 0; i < devs.size(); ++i)
        s += "\n  " + std::to_string(i) + "  " + devs[i]->info().id() + "  " + devs[i]->info().name;
    if (devs.empty())
        s = " none (run `runapp list` to see why)";
    return s;
}

const Loaded& find_backend(const std::string& name) {
    Registry& r = registry_slots();
    for (auto& s : r.slots)
        if (s->name == name)
            return r.one(*s);
    std::string known;
    for (const auto& n : known_backends())
        known += (known.empty() ? "" : ", ") + n;
    throw Error::usage("unknown backend '" + name + "'; Duet knows: " + known);
}

Device& nth_of_backend(const Loaded& b, const std::string& index_text) {
    if (!b.backend || b.backend->device_count() == 0)
        throw Error(ErrorKind::unavailable, b.report.name, "", 0, "",
                    "the " + b.report.name + " backend has no devices: " + b.report.reason);
    if (!all_digits(index_text))
        throw Error::usage("device index '" + index_text + "' for backend " + b.report.name +
                           " is not a number; it has devices 0 to " +
                           std::to_string(b.backend->device_count() - 1));
    const std::size_t i = std::stoul(index_text);
    if (i >= b.backend->device_count())
        throw Error::not_found("there is no device " + b.report.name + ":" + index_text +
                               "; the devices are:" + device_list());
    return b.backend->device(i);
}

// A stable id (device_id.hpp) among one backend's devices.
Device& by_stable_id(Backend& b, const std::string& spec) {
    std::vector<const DeviceInfo*> siblings;
    for (std::size_t i = 0; i < b.device_count(); ++i)
        siblings.push_back(&b.device(i).info());
    for (std::size_t i = 0; i < b.device_count(); ++i)
        if (lower(stable_id(*siblings[i], siblings)) == lower(spec))
            return b.device(i);
    std::string ids;
    for (const auto* s : siblings)
        ids += "\n  " + stable_id(*s, siblings);
    throw Error::not_found("no device has the id '" + spec + "'; this backend's devices are:" +
                           (ids.empty() ? std::string(" none") : ids));
}

} // namespace

std::vector<std::string> known_backends() { return {"cuda", "opencl"}; }

std::vector<Device*> devices() { return registry().devices; }

int global_index(const Device& dev) {
    const auto& devs = registry().devices;
    for (std::size_t i = 0; i < devs.size(); ++i)
        if (devs[i] == &dev)
            return static_cast<int>(i);
    return -1;
}

std::vector<BackendReport> backend_reports() {
    std::vector<BackendReport> out;
    for (const auto* b : registry().backends)
        out.push_back(b->report);
    return out;
}

Device& select_device(const std::string& spec) {
    // backend:index and a backend's name open that backend only.
    const auto known = known_backends();
    if (const auto colon = spec.find(':'); colon != std::string::npos) {
        const std::string head = lower(spec.substr(0, colon));
        if (std::find(known.begin(), known.end(), head) != known.end()) {
            const Loaded& b = find_backend(head);
            if (!all_digits(spec.substr(colon + 1)) && b.backend)
                return by_stable_id(*b.backend, spec);
            return nth_of_backend(b, spec.substr(colon + 1));
        }
    }
    if (std::find(known.begin(), known.end(), lower(spec)) != known.end())
        return nth_of_backend(find_backend(lower(spec)), "0");
    auto& devs = registry().devices;
    if (spec.empty()) {
        if (devs.empty())
            throw Error(ErrorKind::unavailable, "", "", 0, "",
                        "no compute device found; run `runapp list` or `runapp doctor` to see why");
        // The first GPU if there is one: that is what a user running an app means.
        for (auto* d : devs)
            if (d->info().type == "GPU")
                return *d;
        return *devs.front();
    }
    if (all_digits(spec)) {
        const std::size_t i = std::stoul(spec);
        if (i >= devs.size())
            throw Error::not_found("there is no device " + spec + "; the devices are:" +
                                   device_list());
        return *devs[i];
    }
    if (const auto colon = spec.find(':'); colon != std::string::npos) {
        const std::string head = lower(spec.substr(0, colon)), tail = spec.substr(colon + 1);
        if (head == "uuid") {
            for (auto* d : devs)
                if (!d->info().uuid.empty() && lower(d->info().uuid) == lower(tail))
                    return *d;
            throw Error::not_found("no device has UUID " + tail + "; the devices are:" +
                                   device_list());
        }
        if (head == "pci") { // the first device on that bus: CUDA before OpenCL
            for (auto* d : devs)
                if (!d->info().pci_bus_id.empty() && lower(d->info().pci_bus_id) == lower(tail))
                    return *d;
            throw Error::not_found("no device is on PCI bus " + tail + "; the devices are:" +
                                   device_list());
        }
    }
    for (auto* d : devs)
        if (lower(d->info().name).find(lower(spec)) != std::string::npos)
            return *d;
    throw Error::not_found("no device matches '" + spec +
                           "' (give an index, backend:index, a stable id from runapp list, uuid:HEX, pci:BUS or "
                           "part of a name); the "
                           "devices are:" + device_list());
}

Device& select_device(const std::string& spec, const std::string& backend) {
    const Loaded& b = find_backend(lower(backend));
    if (spec.empty())
        return nth_of_backend(b, "0");
    if (spec.find(':') != std::string::npos || !all_digits(spec)) {
        Device& d = select_device(spec);
        if (d.info().backend != b.report.name)
            throw Error::usage("device '" + spec + "' is a " + d.info().backend +
                               " device, but --backend " + backend + " was asked for");
        return d;
    }
    return nth_of_backend(b, spec);
}

std::vector<Device*> same_physical_device(const Device& dev) {
    std::vector<Device*> out;
    const auto& a = dev.info();
    for (auto* d : registry().devices) {
        const auto& b = d->info();
        if (d == &dev || b.backend == a.backend)
            continue;
        const bool uuid = !a.uuid.empty() && !b.uuid.empty();
        if (uuid ? lower(a.uuid) == lower(b.uuid)
                 : !a.pci_bus_id.empty() && lower(a.pci_bus_id) == lower(b.pci_bus_id))
            out.push_back(d);
    }
    return out;
}

} // namespace duet
