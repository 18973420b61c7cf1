// runapp list (devices, or every ladder's steps) and runapp info.
#include <iostream>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "commands.hpp"
#include "device_profile.hpp"
#include "output.hpp"

namespace runapp {

namespace {

std::string mib(std::uint64_t b) {
    return fmt("%.0f MiB", double(b) / (1 << 20));
}

std::string other_ids(const duet::Device& d) {
    std::string s;
    for (auto* o : duet::same_physical_device(d))
        s += (s.empty() ? "" : ", ") + o->info().id();
    return s;
}

} // namespace

duet::Device& chosen_device(const Cli& c) {
    if (!c.backend.empty())
        return duet::select_device(c.device, c.backend);
    return duet::select_device(c.device);
}

namespace {

// "fp64, fp16, sub-group functions, ..." : what the device's kernels may use.
std::string capability_list(const duet::DeviceCapabilities& c) {
    std::string s;
    const auto add = [&](bool on, const char* name) {
        if (on)
            s += (s.empty() ? "" : ", ") + std::string(name);
    };
    add(c.fp64, "fp64");
    add(c.fp16, "fp16");
    add(c.subgroup_functions, "sub-group functions");
    add(c.float_atomics, "float atomics");
    add(c.int64_atomics, "int64 atomics");
    add(c.inline_asm, "inline assembly");
    add(c.matrix_units, "matrix units");
    add(c.device_scope_fence, "device-scope fence");
    add(c.simulator, "simulator");
    return s.empty() ? "-" : s;
}

// The rows of apps/profiles/device_profiles.json the device matched, in the order they apply.
std::string profile_rows(const duet::DeviceInfo& info) {
    std::string s;
    for (const auto& r : duet::apps::profile_of(info).rows)
        s += (s.empty() ? "" : " + ") + r;
    return s;
}

// "nv.mma_sync, nv.wgmma", or "-".
std::string joined(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names)
        s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? "-" : s;
}

std::string subgroup_sizes(const duet::DeviceCapabilities& c) {
    std::string s;
    for (int v : c.subgroup_sizes)
        s += (s.empty() ? "" : ", ") + std::to_string(v);
    return s.empty() ? "unknown" : s;
}

const char* local_memory_kind(duet::LocalMemoryKind k) {
    switch (k) {
    case duet::LocalMemoryKind::dedicated:
        return "dedicated";
    case duet::LocalMemoryKind::global:
        return "in global memory";
    default:
        return "unknown";
    }
}

// runapp list --format json: every backend with its platforms, then every device.
nlohmann::json list_json(const std::vector<duet::BackendReport>& reports,
                         const std::vector<duet::Device*>& devs) {
    nlohmann::json j;
    j["backends"] = nlohmann::json::array();
    for (const auto& r : reports) {
        nlohmann::json b = {
            {"name", r.name},       {"plugin", r.plugin},        {"loaded", r.loaded},
            {"version", r.version}, {"devices", r.device_count}, {"reason", r.reason}};
        b["platforms"] = nlohmann::json::array();
        for (const auto& p : r.platforms)
            b["platforms"].push_back({{"name", p.name},
                                      {"vendor", p.vendor},
                                      {"version", p.version},
                                      {"library", p.library},
                                      {"devices", p.device_count},
                                      {"note", p.note}});
        j["backends"].push_back(b);
    }
    j["plugins_refused"] = duet::plugins_refused();
    j["devices"] = nlohmann::json::array();
    for (auto* d : devs) {
        const auto& i = d->info();
        nlohmann::json same = nlohmann::json::array();
        for (auto* o : duet::same_physical_device(*d))
            same.push_back(o->info().id());
        j["devices"].push_back({{"index", duet::global_index(*d)},
                                {"id", i.id()},
                                {"stable_id", duet::stable_id(*d)},
                                {"name", i.name},
                                {"backend", i.backend},
                                {"type", i.type},
                                {"vendor", i.vendor},
                                {"platform", i.platform},
                                {"uuid", i.uuid},
                                {"pci_bus_id", i.pci_bus_id},
                                {"same_device_as", same}});
    }
    return j;
}

// runapp list --format csv: the devices, one a line.
void list_csv(const std::vector<duet::Device*>& devs) {
    std::cout << "index,id,stable_id,type,name,compute_units,global_mem_bytes,platform,"
                 "same_device_as\n";
    for (auto* d : devs) {
        const auto& i = d->info();
        std::string same;
        for (auto* o : duet::same_physical_device(*d))
            same += (same.empty() ? "" : " ") + o->info().id();
        std::cout << duet::global_index(*d) << ',' << i.id() << ','
                  << csv_field(duet::stable_id(*d)) << ',' << csv_field(i.type) << ','
                  << csv_field(i.name) << ',' << i.compute_units << ',' << i.global_mem_bytes << ','
                  << csv_field(i.platform) << ',' << same << "\n";
    }
}

// runapp list as tables: what each backend found, then the devices (status: 3 for none).
int list_table(const std::vector<duet::BackendReport>& reports,
               const std::vector<duet::Device*>& devs, int status) {
    for (const auto& r : reports) {
        std::cout << r.name << ": ";
        if (r.device_count > 0)
            std::cout << r.device_count << " device" << (r.device_count > 1 ? "s" : "");
        else
            std::cout << "no devices: " << r.reason;
        if (!r.version.empty())
            std::cout << " (" << r.version << ")";
        std::cout << "\n";
        for (const auto& p : r.platforms) {
            std::cout << "  platform " << p.name << " | " << p.version;
            if (!p.library.empty())
                std::cout << " | " << p.library;
            std::cout << " | " << p.device_count << " device" << (p.device_count == 1 ? "" : "s");
            if (!p.note.empty())
                std::cout << " | " << p.note;
            std::cout << "\n";
        }
    }
    for (const auto& why : duet::plugins_refused())
        std::cout << printable(why) << "\n";
    std::cout << "\n";
    if (devs.empty()) {
        std::cerr << "no devices found; `runapp doctor` walks through why\n";
        return status;
    }
    Table t({"#", "id", "stable id", "type", "name", "CUs", "memory", "platform", "same GPU as"});
    for (auto* d : devs) {
        const auto& i = d->info();
        t.add({std::to_string(duet::global_index(*d)), i.id(), duet::stable_id(*d), i.type, i.name,
               std::to_string(i.compute_units), mib(i.global_mem_bytes), i.platform,
               other_ids(*d)});
    }
    t.print(std::cout);
    std::cout << "\nA stable id names the same device when other OpenCL implementations are "
                 "installed or removed;\n`opencl:N` is a position that can move. Use the stable "
                 "id in scripts (--device ID).\n";
    return 0;
}

} // namespace

int cmd_list(const Cli& c) {
    if (!c.positional.empty()) {
        // runapp list steps: every app's ladder from its step records (design/ladders.md's list).
        if (c.positional.size() != 1 || c.positional[0] != "steps")
            throw duet::Error::usage("runapp list takes no argument '" + c.positional.back() +
                                     "' (only `steps`: every ladder's steps)");
        std::cout << duet::apps::steps_markdown();
        return 0;
    }
    const auto reports = duet::backend_reports();
    const auto devs = duet::devices();
    // No device at all is a device error (exit 3), in every format: `runapp list && ...` in a
    // script learns that nothing can run; the output still says what each backend found.
    const int status = devs.empty() ? 3 : 0;
    if (c.format == Format::json) {
        std::cout << dump_json(list_json(reports, devs)) << "\n";
        return status;
    }
    if (c.format == Format::csv) {
        list_csv(devs);
        return status;
    }
    return list_table(reports, devs, status);
}

int cmd_info(const Cli& c) {
    if (c.positional.size() > 1)
        throw duet::Error::usage("runapp info takes one device, got " +
                                 std::to_string(c.positional.size()));
    Cli pick = c;
    if (!c.positional.empty()) {
        const std::string& d = c.positional[0];
        // A blank name would select the default device, and two names one of them, silently.
        if (d.find_first_not_of(" \t\n\r\v\f") == std::string::npos)
            throw duet::Error::usage("runapp info '" + d +
                                     "': give a device (an index, backend:N or a name from "
                                     "runapp list)");
        if (!c.device.empty() && c.device != d)
            throw duet::Error::usage("runapp info " + d + " --device " + c.device +
                                     ": two devices named; give one");
        pick.device = d;
    }
    duet::Device& d = chosen_device(pick);
    const auto& i = d.info();
    std::vector<std::pair<std::string, std::string>> rows = {
        {"Index", std::to_string(duet::global_index(d))},
        {"Id", i.id()},
        {"Stable id", duet::stable_id(d)},
        {"Name", i.name},
        {"Vendor", i.vendor},
        {"Type", i.type},
        {"Backend", i.backend},
        {"Platform", i.platform},
        {"Platform version", i.platform_version},
        {"Device version", i.device_version},
        {"Driver version", i.driver_version},
        {"Library", i.library},
        {"UUID", i.uuid.empty() ? "(not reported)" : i.uuid},
        {"PCI bus id", i.pci_bus_id.empty() ? "(not reported)" : i.pci_bus_id},
        {"Same device as", other_ids(d).empty() ? "-" : other_ids(d)},
        {"Compute units", std::to_string(i.compute_units)},
        {"Max clock", std::to_string(i.clock_mhz) + " MHz"},
        {"Global memory", mib(i.global_mem_bytes)},
        {"Max allocation", mib(i.max_alloc_bytes)},
        {"Local/shared memory per group", std::to_string(i.local_mem_bytes / 1024) + " KiB"},
        {"Constant memory", std::to_string(i.constant_mem_bytes / 1024) + " KiB"},
        {"Max work-group size", std::to_string(i.max_work_group_size)},
        {"Max work-item sizes", std::to_string(i.max_work_item_sizes[0]) + " x " +
                                    std::to_string(i.max_work_item_sizes[1]) + " x " +
                                    std::to_string(i.max_work_item_sizes[2])},
        {"Sub-group / warp width", i.subgroup_width ? std::to_string(i.subgroup_width) : "unknown"},
        {"Unified host memory", i.unified_memory ? "yes" : "no"},
        {"Capabilities", capability_list(i.caps)},
        {"Sub-group sizes", subgroup_sizes(i.caps)},
        {"Local memory", local_memory_kind(i.caps.local_memory)},
        {"Device timers", !i.caps.device_timers ? "no"
                          : i.caps.timer_resolution_ns > 0
                              ? fmt("yes, %g ns resolution", i.caps.timer_resolution_ns)
                              : "yes"},
        {"Architecture", i.architecture.empty() ? "-" : i.architecture},
        {"Extensions", joined(i.extensions)},
        {"Device profile", profile_rows(i)},
    };
    if (i.memory_clock_mhz)
        rows.emplace_back("Memory clock", std::to_string(i.memory_clock_mhz) + " MHz");
    if (i.memory_bus_bits)
        rows.emplace_back("Memory bus", std::to_string(i.memory_bus_bits) + " bits");
    if (i.peak_bandwidth_gbs() > 0)
        rows.emplace_back("Peak memory bandwidth",
                          fmt("%.0f GB/s (theoretical)", i.peak_bandwidth_gbs()));
    for (const auto& kv : i.details)
        rows.push_back(kv);
    if (c.format == Format::json) {
        nlohmann::json j;
        for (const auto& [k, v] : rows)
            j[k] = v;
        std::cout << dump_json(j) << "\n";
        return 0;
    }
    std::size_t w = 0;
    for (const auto& r : rows)
        w = std::max(w, r.first.size());
    for (const auto& [k, v] : rows)
        std::cout << k << std::string(w - k.size() + 2, ' ') << v << "\n";
    return 0;
}

} // namespace runapp
