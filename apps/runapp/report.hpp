#pragma once
// The side-by-side comparison: a text table per app, and a self-contained HTML page.
#include <iosfwd>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"

namespace runapp {

// One table per app and size: every variant on every device, with step and total speed-ups
// and the CUDA/OpenCL ratio where one GPU is seen through both.
void print_comparison(std::ostream& out, const std::vector<duet::apps::Result>& results);
// One HTML page (no script, no network) with a bar chart of each ladder per device.
void write_html(std::ostream& out, const std::vector<duet::apps::Result>& results,
                const nlohmann::json& provenance);

} // namespace runapp
