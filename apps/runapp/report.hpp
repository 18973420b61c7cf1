#pragma once
// The side-by-side comparison: a text table per app, and a self-contained HTML page.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"

namespace runapp {

// One table per app and size: every variant on every device, with step and total speed-ups
// and the CUDA/OpenCL ratio where one GPU is seen through both.
void print_comparison(std::ostream& out, const std::vector<duet::apps::Result>& results);
// The exit code of a run: 1 when a checked result was wrong; 3 when a figure was implausible
// or every variant of an app was skipped on a device (nothing ran there); else 0. `why` gets
// one line per reason (with the skip reasons).
int results_exit_code(const std::vector<duet::apps::Result>& results, std::vector<std::string>& why);
// One HTML page (no script, no network) with a bar chart of each ladder per device.
void write_html(std::ostream& out, const std::vector<duet::apps::Result>& results,
                const nlohmann::json& provenance);

} // namespace runapp
