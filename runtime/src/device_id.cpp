// Stable device ids (device_id.hpp): derived from the platform and device names, which do not
// move when another ICD is installed, with the PCI bus id or a position to tell twins apart.
#include <cctype>

#include <duet/device_id.hpp>
#include <duet/registry.hpp>

namespace duet {

namespace {

// "Intel(R) Xeon(R) Gold" -> "intel-r-xeon-r-gold"
std::string slug(const std::string& s) {
    std::string out;
    bool dash = false;
    for (unsigned char c : s) {
        if (std::isalnum(c)) {
            if (dash && !out.empty())
                out += '-';
            out += static_cast<char>(std::tolower(c));
            dash = false;
        } else {
            dash = true;
        }
    }
    return out.empty() ? "unnamed" : out;
}

std::string base_id(const DeviceInfo& i) {
    if (i.backend == "cuda")
        return "cuda:" + slug(i.name);
    return i.backend + ":" + slug(i.platform) + "/" + slug(i.name);
}

} // namespace

std::string stable_id(const DeviceInfo& info, const std::vector<const DeviceInfo*>& siblings) {
    const std::string base = base_id(info);
    int twins = 0, position = 0;
    bool all_have_pci = true;
    for (const auto* s : siblings) {
        if (base_id(*s) != base)
            continue;
        ++twins;
        all_have_pci = all_have_pci && !s->pci_bus_id.empty();
        if (s == &info || (s->local_index == info.local_index && s->backend == info.backend))
            position = twins;
    }
    if (twins <= 1)
        return base;
    // Twins: the PCI bus id when every twin has one (and they differ), else the position.
    if (all_have_pci) {
        int same_bus = 0;
        for (const auto* s : siblings)
            if (base_id(*s) == base && s->pci_bus_id == info.pci_bus_id)
                ++same_bus;
        if (same_bus == 1)
            return base + "@" + info.pci_bus_id;
    }
    return base + "#" + std::to_string(position);
}

std::string stable_id(const Device& dev) {
    std::vector<const DeviceInfo*> siblings;
    for (auto* d : devices())
        if (d->info().backend == dev.info().backend)
            siblings.push_back(&d->info());
    return stable_id(dev.info(), siblings);
}

} // namespace duet
