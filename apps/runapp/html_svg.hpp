#pragma once
// Inline SVG charts for the HTML page: a grouped bar chart (median bars, min-max whiskers, log
// scale past a 10x range) and a ladder line (cumulative speed-up per step). No script, no
// external resource; every chart has a <title> and a <desc>, and colours come from the page's
// CSS (light, dark and print).
#include <iosfwd>
#include <string>
#include <vector>

namespace runapp::html {

// Text for HTML and SVG, attributes included: every string from a result file goes through it.
std::string esc(const std::string& s);
// 1234 -> "1.23k"; 0.0123 -> "0.0123": axis and label numbers.
std::string short_number(double v);

// One bar of a chart: a result (value > 0, status empty) or why there is none (status
// "skipped", "FAIL", "implausible", "not run") drawn as a marker that never looks like a bar.
struct Cell {
    double value = 0, lo = 0, hi = 0; // median throughput, and from the slowest/fastest run
    std::string status;               // "" for a result
    bool unchecked = false;           // --verify off: a pale bar
    std::string tip;                  // hover text
};

struct BarChart {
    std::string id, title, unit, desc;
    std::vector<std::string> groups;      // variants, in ladder order
    std::vector<std::string> series;      // devices (columns)
    std::vector<std::vector<Cell>> cells; // [group][series]
};
void bar_chart(std::ostream& out, const BarChart& c);

struct Ladder {
    std::string id, title, desc;
    std::vector<std::string> groups;        // variants
    std::vector<std::string> series;        // devices
    std::vector<std::vector<double>> total; // [series][group]: over the first step; 0: no point
    std::vector<std::vector<double>> step;  // [series][group]: over the previous step that ran
};
void ladder_chart(std::ostream& out, const Ladder& c);

} // namespace runapp::html
