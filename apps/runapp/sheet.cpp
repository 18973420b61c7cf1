#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sheet.hpp"

namespace runapp {

const Column* Sheet::column(const std::string& label) const {
    for (const auto& c : columns)
        if (c.label == label)
            return &c;
    return nullptr;
}

const DeviceRecord& Sheet::device(const Column& c) const {
    static const DeviceRecord unlisted;
    return c.device == Column::none ? unlisted : runs[c.run].info.devices[c.device];
}

namespace {

// One GPU through both backends in the same run: the same UUID (or PCI bus id). Each OpenCL
// column has one twin at most, found through a map (a hostile file may hold thousands).
void find_twins(Sheet& s) {
    constexpr std::string DeviceRecord::*keys[] = {&DeviceRecord::uuid, &DeviceRecord::pci_bus_id};
    std::map<std::tuple<std::size_t, int, std::string>, std::string> cuda; // -> label
    for (const auto& b : s.columns)
        if (const auto& d = s.device(b); d.backend == "cuda")
            for (int k = 0; k < 2; ++k)
                if (!(d.*keys[k]).empty())
                    cuda.emplace(std::make_tuple(b.run, k, d.*keys[k]), b.label);
    for (const auto& a : s.columns) {
        const auto& d = s.device(a);
        if (d.backend != "opencl")
            continue;
        for (int k = 0; k < 2; ++k)
            if (auto it = cuda.find(std::make_tuple(a.run, k, d.*keys[k]));
                !(d.*keys[k]).empty() && it != cuda.end()) {
                s.twins.emplace_back(a.label, it->second);
                break;
            }
    }
}

} // namespace

Sheet make_sheet(std::vector<Run> runs) {
    Sheet s;
    s.runs = std::move(runs);
    const bool many = s.runs.size() > 1;
    std::set<std::string> used;
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
        const Run& run = s.runs[i];
        std::map<std::string, std::string> relabel; // id -> label, in this run
        std::map<std::string, std::size_t> listed;  // id -> its first provenance entry
        for (std::size_t d = 0; d < run.info.devices.size(); ++d)
            listed.emplace(run.info.devices[d].id, d);
        for (const auto& r : run.results) {
            if (relabel.count(r.device_id))
                continue;
            std::string label = r.device_id;
            if (many) {
                const std::string& host = run.info.machine.host;
                const std::string date = run.info.date();
                label += " @ " + (host.empty() ? "?" : host) + (date.empty() ? "" : " " + date);
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
            if (auto d = listed.find(r.device_id); d != listed.end()) {
                c.device = d->second;
                c.peak_gbs = run.info.devices[d->second].peak_gbs;
                c.peak_gflops = run.info.devices[d->second].peak_gflops;
            }
            s.columns.push_back(std::move(c));
        }
        for (auto r : run.results) {
            r.device_id = relabel.at(r.device_id);
            s.rows.push_back(std::move(r));
        }
    }
    find_twins(s);
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
