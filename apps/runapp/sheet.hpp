#pragma once
// Several runs (from files, MPI ranks or this process) merged into one sheet: one column per
// device of each run, labelled by machine and date where more than one run is shown, and the
// pairs of columns that are one GPU seen through OpenCL and CUDA.
#include <string>
#include <utility>
#include <vector>

#include "result_file.hpp"

namespace runapp {

struct Column {
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    std::string label;         // "opencl:0", or "opencl:0 @ lab-node 2026-11-23 13:04"
    std::size_t run = 0;       // index in Sheet::runs
    std::string device_id;     // as the run named it
    std::string name;          // the device's name
    std::size_t device = none; // its entry in the run's RunInfo::devices (none: not listed)
    double peak_gbs = 0, peak_gflops = 0; // 0: unknown (a twin's when the device's are)
};

struct Sheet {
    std::vector<Run> runs;
    std::vector<Column> columns;
    // Every row of every run, in order, with device_id replaced by its column's label.
    std::vector<duet::apps::Result> rows;
    // (OpenCL column, CUDA column) of one GPU in one run (same UUID or PCI bus id).
    std::vector<std::pair<std::string, std::string>> twins;

    const Column* column(const std::string& label) const;
    // The column's device as its run's provenance lists it (all fields empty when not listed).
    const DeviceRecord& device(const Column& c) const;
};

Sheet make_sheet(std::vector<Run> runs);

} // namespace runapp
