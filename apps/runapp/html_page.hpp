#pragma once
// The HTML page of runapp compare --html and runapp report --html: one self-contained file (no
// script, no network, a Content-Security-Policy that forbids loading anything) with, per app,
// a bar chart of every variant on every device, the ladder's speed-ups, a table of the numbers
// (% of the device's peak, CUDA/OpenCL ratio), the notes, and the provenance of every device.
#include <iosfwd>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "sheet.hpp"

namespace runapp {

void write_html(std::ostream& out, const Sheet& sheet);
// One run of this process (compare --html).
void write_html(std::ostream& out, const std::vector<duet::apps::Result>& results,
                const nlohmann::json& provenance);

namespace html {
// One app's section: charts, table, notes (html_app.cpp). `n` numbers the charts' ids.
void app_section(std::ostream& out, const Sheet& sheet, const std::string& app, int n);
} // namespace html

} // namespace runapp
