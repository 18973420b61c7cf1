#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sheet.hpp"

namespace runapp {

namespace {

const nlohmann::json* find_device(const Run& run, const std::string& id) {
    auto devs = run.prov.find("devices");
    if (devs == run.prov.end() || !devs->is_array())
        return nullptr;
    for (const auto& d : *devs)
        if (d.is_object() && d.value("id", nlohmann::json()) == id)
            return &d;
    return nullptr;
}

std::string str(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double num(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() && it->get<double>() > 0 ? it->get<double>() : 0.0;
}

} // namespace

const Column* Sheet::column(const std::string& label) const {
    for (const auto& c : columns)
        if (c.label == label)
            return &c;
    return nullptr;
}

Sheet make_sheet(std::vector<Run> runs) {
    Sheet s;
    s.runs = std::move(runs);
    const bool many = s.runs.size() > 1;
    std::set<std::string> used;
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
        const Run& run = s.runs[i];
        std::map<std::string, std::string> relabel; // id -> label, in this run
        for (const auto& r : run.results) {
            if (relabel.count(r.device_id))
                continue;
            std::string label = r.device_id;
            if (many) {
                const std::string host = run.host().empty() ? "?" : run.host();
                label += " @ " + host + (run.date().empty() ? "" : " " + run.date());
            }
            // The same run given twice (or two runs in the same minute): still two columns.
            const std::string base = label;
            for (int n = 2; used.count(label); ++n)
                label = base + " #" + std::to_string(n);
            used.insert(label);
            relabel.emplace(r.device_id, label);
            Column c;
            c.label = label;
            c.run = i;
            c.device_id = r.device_id;
            c.name = r.device_name;
            if (const auto* d = find_device(run, r.device_id)) {
                c.device = *d;
                c.peak_gbs = num(*d, "peak_gbs");
                c.peak_gflops = num(*d, "peak_gflops");
            }
            s.columns.push_back(std::move(c));
        }
        for (auto r : run.results) {
            r.device_id = relabel.at(r.device_id);
            s.rows.push_back(std::move(r));
        }
    }
    // One GPU through both backends in the same run: the same UUID (or PCI bus id). Each OpenCL
    // column has one twin at most, found through a map (a hostile file may hold thousands).
    std::map<std::tuple<std::size_t, std::string, std::string>, std::string> cuda; // -> label
    for (const auto& b : s.columns)
        if (str(b.device, "backend") == "cuda")
            for (const char* key : {"uuid", "pci_bus_id"})
                if (!str(b.device, key).empty())
                    cuda.emplace(std::make_tuple(b.run, key, str(b.device, key)), b.label);
    for (const auto& a : s.columns) {
        if (str(a.device, "backend") != "opencl")
            continue;
        for (const char* key : {"uuid", "pci_bus_id"})
            if (auto it = cuda.find(std::make_tuple(a.run, key, str(a.device, key)));
                !str(a.device, key).empty() && it != cuda.end()) {
                s.twins.emplace_back(a.label, it->second);
                break;
            }
    }
    // A twin's peaks are the same GPU's: an OpenCL column borrows what CUDA reported.
    for (const auto& [ocl, cu] : s.twins) {
        auto* o = const_cast<Column*>(s.column(ocl));
        const auto* c = s.column(cu);
        if (o->peak_gflops == 0)
            o->peak_gflops = c->peak_gflops;
        if (o->peak_gbs == 0)
            o->peak_gbs = c->peak_gbs;
    }
    return s;
}

} // namespace runapp
