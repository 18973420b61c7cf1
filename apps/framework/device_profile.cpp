// Device profiles (device_profile.hpp): the shipped rows, matched against a device and merged.
#include "device_profile.hpp"
#include "kernel_text.hpp"

#include <algorithm>
#include <cstdlib>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

namespace duet::apps {

namespace {

// Ordered: a row's defines reach the build in the order the file gives them.
using json = nlohmann::ordered_json;

bool has_cap(const DeviceCapabilities& c, const std::string& name) {
    if (name == "inline_asm")
        return c.inline_asm;
    if (name == "subgroup_functions")
        return c.subgroup_functions;
    if (name == "device_scope_fence")
        return c.device_scope_fence;
    if (name == "matrix_units")
        return c.matrix_units;
    throw Error::runtime(
        "device profiles: a row's match names the capability \"" + name +
        "\", which DeviceCapabilities has not (apps/framework/device_profile.cpp; a vendor's "
        "feature is an extension: \"extensions\")");
}

// The keys a row's match may give; any other is an error, not a row that matches more widely.
constexpr const char* match_keys[] = {
    "vendor", "language",   "architecture",   "type",
    "caps",   "extensions", "subgroup_width", "min_local_mem_bytes"};

void check_keys(const json& m) {
    for (const auto& [key, value] : m.items())
        if (std::find_if(std::begin(match_keys), std::end(match_keys),
                         [&](const char* k) { return key == k; }) == std::end(match_keys))
            throw Error::runtime(
                "device profiles: a row's match gives \"" + key +
                "\", which is not a match key (apps/framework/device_profile.hpp)");
}

// Whether the row's match holds for `info`: every key it gives.
bool matches(const json& m, const DeviceInfo& info) {
    check_keys(m);
    if (m.contains("vendor") &&
        info.vendor.find(m["vendor"].get<std::string>()) == std::string::npos)
        return false;
    if (m.contains("language") &&
        m["language"].get<std::string>() != kernel_language_name(info.kernel_language))
        return false;
    if (m.contains("architecture") && m["architecture"].get<std::string>() != info.architecture)
        return false;
    if (m.contains("type") && m["type"].get<std::string>() != device_type_name(info.device_type))
        return false;
    for (const auto& c : m.value("caps", json::array()))
        if (!has_cap(info.caps, c.get<std::string>()))
            return false;
    for (const auto& e : m.value("extensions", json::array()))
        if (!info.has_extension(e.get<std::string>()))
            return false;
    if (m.contains("subgroup_width") && m["subgroup_width"].get<int>() != info.subgroup_width)
        return false;
    return info.local_mem_bytes >= m.value("min_local_mem_bytes", std::uint64_t{0});
}

Defines defines_of(const json& j) {
    Defines out;
    for (const auto& [name, value] : j.items())
        out.emplace_back(name, value.get<std::string>());
    return out;
}

StreamSpeed speed_of(const json& j) {
    if (!j.is_array() || j.size() != 2)
        throw Error::runtime("device profiles: a stream speed is [whole, shared], got " + j.dump());
    return {j[0].get<double>(), j[1].get<double>()};
}

void apply_best(const json& b, BestProfile& p) {
    p.tile_depth = b.value("tile_depth", p.tile_depth);
    p.edge_speed = b.value("edge_speed", p.edge_speed);
    p.clamp_cost = b.value("clamp_cost", p.clamp_cost);
    p.waves_clamp_cost = b.value("waves_clamp_cost", p.waves_clamp_cost);
    p.checked_edge_cost = b.value("checked_edge_cost", p.checked_edge_cost);
    p.split_cost = b.value("split_cost", p.split_cost);
    p.flops_per_byte = b.value("flops_per_byte", p.flops_per_byte);
    if (b.contains("stream_inside"))
        p.stream_inside = speed_of(b["stream_inside"]);
    if (b.contains("stream_outside"))
        p.stream_outside = speed_of(b["stream_outside"]);
    if (b.contains("stream_clamped_defines"))
        p.stream_clamped_defines = defines_of(b["stream_clamped_defines"]);
    if (b.contains("stream_inside_defines"))
        p.stream_inside_defines = defines_of(b["stream_inside_defines"]);
}

// A row over the profile so far: its lists replace, its step defines add to the step's.
void apply_row(const json& row, DeviceProfile& p) {
    p.rows.push_back(row.value("name", std::string("(unnamed)")));
    if (row.contains("takes"))
        p.takes = row["takes"].get<std::vector<std::string>>();
    const json steps = row.value("step_defines", json::object());
    for (const auto& [step, defs] : steps.items()) {
        auto it = std::find_if(p.step_defines.begin(), p.step_defines.end(),
                               [&](const auto& s) { return s.first == step; });
        if (it == p.step_defines.end())
            it = p.step_defines.insert(p.step_defines.end(), {step, {}});
        for (auto& [name, value] : defines_of(defs)) {
            std::erase_if(it->second, [&](const auto& d) { return d.first == name; });
            it->second.emplace_back(std::move(name), std::move(value));
        }
    }
    const json launches = row.value("step_launch", json::object());
    for (const auto& [step, launch] : launches.items()) {
        std::erase_if(p.step_launch, [&](const auto& s) { return s.first == step; });
        p.step_launch.emplace_back(step, launch.get<std::string>());
    }
    if (row.contains("best"))
        apply_best(row["best"], p.best);
}

DeviceProfile merge(const json& file, const DeviceInfo& info) {
    if (!file.is_object() || file.value("format", 0) != 1 || !file.contains("rows") ||
        !file["rows"].is_array() || file["rows"].empty())
        throw Error::runtime("device profiles: not a profile file of format 1 with rows");
    DeviceProfile p;
    for (const auto& row : file["rows"])
        if (matches(row.value("match", json::object()), info))
            apply_row(row, p);
    return p;
}

json parse(const std::string& text) {
    try {
        return json::parse(text);
    } catch (const json::exception& e) {
        throw Error::runtime(std::string("device profiles: ") + e.what());
    }
}

} // namespace

bool DeviceProfile::takes_define(const std::string& macro) const {
    return std::find(takes.begin(), takes.end(), macro) != takes.end();
}

Defines DeviceProfile::defines_for(const std::string& app, const std::string& step) const {
    Defines out;
    const std::string keys[] = {app + "/*", app + "/" + step};
    for (const auto& key : keys)
        for (const auto& [name, defines] : step_defines)
            if (name == key)
                for (const auto& d : defines) {
                    std::erase_if(out, [&](const auto& o) { return o.first == d.first; });
                    out.push_back(d);
                }
    return out;
}

std::string DeviceProfile::launch_for(const std::string& app, const std::string& step) const {
    std::string out;
    for (const std::string& key : {app + "/*", app + "/" + step})
        for (const auto& [name, launch] : step_launch)
            if (name == key)
                out = launch;
    return out;
}

DeviceProfile profile_from(const std::string& json_text, const DeviceInfo& info) {
    try {
        return merge(parse(json_text), info);
    } catch (const json::exception& e) {
        throw Error::runtime(std::string("device profiles: ") + e.what());
    }
}

DeviceProfile profile_of(const DeviceInfo& info) {
    static const json shipped = parse(shipped_profiles());
    try {
        // Under --kernel-text, the rows of the text's language (kernel_text.hpp).
        if (const std::string& text = kernel_text_in_scope(); !text.empty())
            if (const auto lang = dialect(text).language; lang && *lang != info.kernel_language) {
                DeviceInfo as = info;
                as.kernel_language = *lang;
                return merge(shipped, as);
            }
        return merge(shipped, info);
    } catch (const json::exception& e) {
        throw Error::runtime(std::string("device profiles (shipped): ") + e.what());
    }
}

} // namespace duet::apps
