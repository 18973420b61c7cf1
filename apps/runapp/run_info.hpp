#pragma once
// What a result file says about the run besides its rows (its provenance: machine, time, command,
// devices), typed: read once from the document, then every writer (table, CSV, HTML, the sheet's
// columns and twins) reads these fields, never the JSON by name.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace runapp {

// The machine a run happened on.
struct Machine {
    std::string host, cpu, os;
};

// One device of a run, as its provenance records it (output.cpp's provenance() writes it).
struct DeviceRecord {
    std::string id, backend, platform, platform_version, driver, library;
    std::string uuid, pci_bus_id;         // "" when the device does not say
    double peak_gbs = 0, peak_gflops = 0; // 0: unknown
};

struct RunInfo {
    std::string time; // "2026-11-23T13:04:05Z" (UTC), "" when absent
    std::string command, duet_version;
    Machine machine;
    std::vector<DeviceRecord> devices;
    std::vector<std::string> failures; // device errors of an MPI run's ranks
    // The provenance exactly as it was written, for the JSON writer alone: a merged report keeps
    // what this model does not name (a kept result file's title and notes, a device's clock).
    nlohmann::json document = nlohmann::json::object();

    std::string date() const; // "2026-11-23 13:04", from time
};

// The typed provenance of a document whose field types the reader has checked ("machine" an
// object, "devices" an array of objects, "time", "command", "duet_version" strings). A text field
// that is a number reads as its JSON text; a peak that is not a finite number > 0 reads as 0.
RunInfo run_info_from_json(nlohmann::json provenance);

} // namespace runapp
