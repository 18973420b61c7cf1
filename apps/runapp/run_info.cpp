#include <cmath>

#include "run_info.hpp"

namespace runapp {

namespace {

using nlohmann::json;

// A string, or a number as its JSON text (a driver version written as a number); else "".
std::string lenient_text(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end())
        return {};
    return it->is_string() ? it->get<std::string>() : it->is_number() ? it->dump() : std::string();
}

// A finite number > 0, else 0 (unknown).
double peak(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number())
        return 0;
    const double v = it->get<double>();
    return std::isfinite(v) && v > 0 ? v : 0;
}

DeviceRecord device_from_json(const json& d) {
    DeviceRecord r;
    r.id = lenient_text(d, "id");
    r.backend = lenient_text(d, "backend");
    r.platform = lenient_text(d, "platform");
    r.platform_version = lenient_text(d, "platform_version");
    r.driver = lenient_text(d, "driver");
    r.library = lenient_text(d, "library");
    r.uuid = lenient_text(d, "uuid");
    r.pci_bus_id = lenient_text(d, "pci_bus_id");
    r.peak_gbs = peak(d, "peak_gbs");
    r.peak_gflops = peak(d, "peak_gflops");
    return r;
}

} // namespace

std::string RunInfo::date() const {
    std::string s = time.substr(0, 16);
    if (s.size() > 10 && s[10] == 'T')
        s[10] = ' ';
    return s;
}

RunInfo run_info_from_json(json provenance) {
    RunInfo info;
    info.time = lenient_text(provenance, "time");
    info.command = lenient_text(provenance, "command");
    info.duet_version = lenient_text(provenance, "duet_version");
    if (auto m = provenance.find("machine"); m != provenance.end() && m->is_object()) {
        info.machine.host = lenient_text(*m, "host");
        info.machine.cpu = lenient_text(*m, "cpu");
        info.machine.os = lenient_text(*m, "os");
    }
    if (auto ds = provenance.find("devices"); ds != provenance.end() && ds->is_array())
        for (const auto& d : *ds)
            if (d.is_object())
                info.devices.push_back(device_from_json(d));
    if (auto f = provenance.find("failures"); f != provenance.end() && f->is_array())
        for (const auto& line : *f)
            if (line.is_string())
                info.failures.push_back(line.get<std::string>());
    info.document = std::move(provenance);
    return info;
}

} // namespace runapp
