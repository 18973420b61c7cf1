// Device selection: what a device spec ("", "3", "opencl:1", a stable id, "cuda", "uuid:HEX",
// "pci:BUS", part of a name) means, and which devices of other backends are the same physical
// device.
#include <algorithm>
#include <cctype>

#include <duet/device_id.hpp>

#include "backend_registry.hpp"

namespace duet {

namespace {

using detail::LoadedBackend;

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
    const auto& devs = detail::all_devices();
    for (std::size_t i = 0; i < devs.size(); ++i)
        s += "\n  " + std::to_string(i) + "  " + devs[i]->info().id() + "  " + devs[i]->info().name;
    if (devs.empty())
        s = " none (run `runapp list` to see why)";
    return s;
}

Device& nth_of_backend(const LoadedBackend& b, const std::string& index_text) {
    if (!b.backend || b.backend->device_count() == 0)
        throw Error::unavailable(
            "the " + b.report.name + " backend has no devices: " + b.report.reason, b.report.name);
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

bool is_backend(const std::string& name) {
    const auto known = known_backends();
    return std::find(known.begin(), known.end(), name) != known.end();
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

Device& select_device(const std::string& spec) {
    // backend:index and a backend's name open that backend only.
    if (const auto colon = spec.find(':'); colon != std::string::npos) {
        const std::string head = lower(spec.substr(0, colon));
        if (is_backend(head)) {
            const LoadedBackend& b = detail::backend_named(head);
            const std::string tail = spec.substr(colon + 1);
            if (!tail.empty() && !all_digits(tail) && b.backend) // a stable id
                return by_stable_id(*b.backend, spec);
            return nth_of_backend(b, spec.substr(colon + 1));
        }
    }
    if (is_backend(lower(spec)))
        return nth_of_backend(detail::backend_named(lower(spec)), "0");
    const auto& devs = detail::all_devices();
    if (spec.empty()) {
        if (devs.empty())
            throw Error::unavailable(
                "no compute device found; run `runapp list` or `runapp doctor` to see why");
        // The first GPU if there is one: that is what a user running an app means.
        for (auto* d : devs)
            if (d->info().is_gpu())
                return *d;
        return *devs.front();
    }
    if (all_digits(spec)) {
        const std::size_t i = std::stoul(spec);
        if (i >= devs.size())
            throw Error::not_found("there is no device " + spec +
                                   "; the devices are:" + device_list());
        return *devs[i];
    }
    if (const auto colon = spec.find(':'); colon != std::string::npos) {
        const std::string head = lower(spec.substr(0, colon)), tail = spec.substr(colon + 1);
        if (head == "uuid") {
            for (auto* d : devs)
                if (!d->info().uuid.empty() && lower(d->info().uuid) == lower(tail))
                    return *d;
            throw Error::not_found("no device has UUID " + tail +
                                   "; the devices are:" + device_list());
        }
        if (head == "pci") { // the first device on that bus: CUDA before OpenCL
            for (auto* d : devs)
                if (!d->info().pci_bus_id.empty() && lower(d->info().pci_bus_id) == lower(tail))
                    return *d;
            throw Error::not_found("no device is on PCI bus " + tail +
                                   "; the devices are:" + device_list());
        }
    }
    for (auto* d : devs)
        if (lower(d->info().name).find(lower(spec)) != std::string::npos)
            return *d;
    throw Error::not_found(
        "no device matches '" + spec +
        "' (give an index, backend:index, a stable id from runapp list, uuid:HEX, pci:BUS or "
        "part of a name); the "
        "devices are:" +
        device_list());
}

Device& select_device(const std::string& spec, const std::string& backend) {
    const LoadedBackend& b = detail::backend_named(lower(backend));
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
    for (auto* d : detail::all_devices()) {
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
