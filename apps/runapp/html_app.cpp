// One app's section of the HTML page: the bar chart, the ladder, the table and the notes.
#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "html_page.hpp"
#include "html_svg.hpp"
#include "output.hpp"

namespace runapp::html {

namespace {

using duet::apps::Result;

struct Series {
    std::string label, column, size; // label: the column, plus the size where it ran several
};

// The app's rows as a grid: variants (ladder order) x series (device, size); one row per step,
// whatever launch shape each device chose (each cell says its own).
struct Grid {
    std::vector<std::string> variants;
    std::vector<Series> series;
    std::map<std::pair<std::size_t, std::size_t>, const Result*> cell; // (variant, series)
    std::string unit;
};

Grid grid_of(const Sheet& sheet, const std::string& app) {
    Grid g;
    std::map<std::string, std::set<std::string>> sizes; // column -> sizes
    for (const auto& r : sheet.rows)
        if (r.app == app)
            sizes[r.device_id].insert(r.size_label);
    // First-seen order, found through maps: a file of many distinct names stays n log n.
    std::map<std::string, std::size_t> variant_at, series_at;
    const auto index = [](auto& at, auto& v, const std::string& key, auto make) {
        const auto [it, added] = at.emplace(key, v.size());
        if (added)
            v.push_back(make());
        return it->second;
    };
    for (const auto& r : sheet.rows) {
        if (r.app != app)
            continue;
        const std::string v = r.step_label();
        const auto vi = index(variant_at, g.variants, v, [&] { return v; });
        const bool several = sizes[r.device_id].size() > 1;
        const Series s{several ? r.device_id + " (" + r.size_label + ")" : r.device_id, r.device_id,
                       r.size_label};
        const auto si = index(series_at, g.series, s.label, [&] { return s; });
        g.cell[{vi, si}] = &r;
        if (g.unit.empty() && !r.skipped)
            g.unit = r.flops > 0 ? "GFLOP/s" : r.pixels > 0 ? "Mpx/s" : r.bytes > 0 ? "GB/s" : "";
    }
    return g;
}

// A grid mostly of holes (every row its own variant and device) would be variants x devices
// cells: 4,000 rows made a 3 GB page. Past this the section lists its rows instead.
bool sparse(const Grid& g) {
    return g.variants.size() * g.series.size() > 4 * g.cell.size() + 64;
}

bool ran(const Result& r) {
    return !r.skipped && !r.implausible && !(r.verified && !r.pass) && r.kernel_ms.median > 0;
}

std::string status_of(const Result& r) {
    return r.skipped               ? "skipped"
           : r.verified && !r.pass ? "FAIL"
           : r.implausible         ? "implausible"
                                   : "";
}

// The fraction of the device's peak (GFLOP/s for arithmetic apps, else memory bandwidth); 0:
// unknown.
double of_peak(const Result& r, const Column* c) {
    if (!c || !ran(r))
        return 0;
    if (r.flops > 0)
        return c->peak_gflops > 0 ? r.gflops() / c->peak_gflops : 0;
    return r.bytes > 0 && c->peak_gbs > 0 ? r.gbs() / c->peak_gbs : 0;
}

// Step and total speed-ups per series, over the previous and the first step that ran.
void speedups(const Grid& g, std::vector<std::vector<double>>& step,
              std::vector<std::vector<double>>& total) {
    step.assign(g.series.size(), std::vector<double>(g.variants.size(), 0));
    total = step;
    for (std::size_t k = 0; k < g.series.size(); ++k) {
        double first = 0, prev = 0;
        for (std::size_t v = 0; v < g.variants.size(); ++v) {
            auto it = g.cell.find({v, k});
            if (it == g.cell.end() || !ran(*it->second))
                continue;
            const double ms = it->second->kernel_ms.median;
            if (first == 0)
                first = ms;
            step[k][v] = prev > 0 ? prev / ms : 1;
            total[k][v] = first / ms;
            prev = ms;
        }
    }
}

// A sparse grid's section: one table line per row that exists, no charts.
void sparse_section(std::ostream& out, const Grid& g, const std::string& app) {
    out << "<p class=\"empty\">" << g.cell.size() << " results over " << g.variants.size()
        << " variants and " << g.series.size()
        << " devices: too sparse to chart, listed instead.</p>\n<div class=\"scroll\"><table "
           "class=\"numbers\"><caption>"
        << esc(app)
        << ": every result</caption><thead><tr><th>variant</th><th>device</th><th>ms</th>"
           "<th>throughput</th><th>check</th></tr></thead><tbody>\n";
    for (const auto& [key, r] : g.cell) {
        const std::string label = check_label(*r);
        out << "<tr><th>" << esc(g.variants[key.first] + at_shape(r->local_label)) << "</th><td>"
            << esc(g.series[key.second].label) << "</td><td class=n>"
            << (ran(*r) ? fmt("%.4g", r->kernel_ms.median) : "—") << "</td><td class=n>"
            << (ran(*r) ? esc(throughput(*r)) : "—") << "</td><td class=\"check " << label << "\">"
            << label << "</td></tr>\n";
    }
    out << "</tbody></table></div>\n</section>\n";
}

// The bar chart of every variant on every device: one bar per (variant, series) that ran, its
// whiskers from the slowest to the fastest run, and a description that names the fastest.
BarChart bars_of(const Grid& g, const std::string& app, int n,
                 const std::vector<std::string>& names) {
    BarChart bc{"bars" + std::to_string(n),
                app + ": throughput of every variant on every device",
                g.unit,
                "",
                g.variants,
                names,
                {}};
    const Result* best = nullptr;
    int missing = 0;
    for (std::size_t v = 0; v < g.variants.size(); ++v) {
        bc.cells.emplace_back();
        for (std::size_t k = 0; k < g.series.size(); ++k) {
            Cell c;
            auto it = g.cell.find({v, k});
            if (it == g.cell.end()) {
                c.status = "not run";
            } else if (const Result& r = *it->second; !ran(r)) {
                c.status = status_of(r).empty() ? "no time" : status_of(r);
                c.tip = r.note;
                ++missing;
            } else {
                c.value = throughput_value(r);
                c.lo = r.kernel_ms.max > 0 ? c.value * r.kernel_ms.median / r.kernel_ms.max : 0;
                c.hi = r.kernel_ms.min > 0 ? c.value * r.kernel_ms.median / r.kernel_ms.min : 0;
                c.unchecked = !r.verified;
                c.tip = throughput(r) + ", median " + fmt("%.4g", r.kernel_ms.median) +
                        " ms, size " + r.size_label + ", " + check_label(r);
                if (!best || throughput_value(r) > throughput_value(*best))
                    best = &r;
            }
            bc.cells.back().push_back(c);
        }
    }
    bc.desc = "Bars: median " + g.unit +
              " of each variant (groups) on each device (colours); "
              "whiskers: from the slowest to the fastest timed run. ";
    if (best)
        bc.desc += "Fastest: " + best->variant + " on " + best->device_id + ", " +
                   throughput(*best) + ". ";
    if (missing)
        bc.desc += std::to_string(missing) + " variant(s) did not give a result and have no bar. ";
    bc.desc += "The numbers are in the table below.";
    return bc;
}

// The two figures: throughput bars, and the ladder of speed-ups.
void charts(std::ostream& out, const Grid& g, const std::string& app, int n,
            const std::vector<std::string>& names) {
    out << "<h3>Throughput, every variant on every device</h3><figure>";
    bar_chart(out, bars_of(g, app, n, names));
    out << "<figcaption>Median " << esc(g.unit)
        << " per variant (higher is better); whiskers: "
           "slowest to fastest run; pale: unchecked (--verify off); × marks a variant that "
           "gave "
           "no result.</figcaption></figure>\n";
    Ladder ld{"ladder" + std::to_string(n),
              app + ": the ladder, speed-up of each step",
              "",
              g.variants,
              names,
              {},
              {}};
    speedups(g, ld.step, ld.total);
    ld.desc = "One line per device: the speed-up of each variant over the first variant that ran "
              "there (total); each point's tooltip also gives the step over the previous one.";
    out << "<h3>The ladder: speed-up of each step</h3><figure>";
    ladder_chart(out, ld);
    out << "<figcaption>The ladder: cumulative speed-up over the first step (labels: the "
           "step's own "
           "speed-up where one device is shown; hover a point for it); dashed: over a step "
           "that did not run.</figcaption></figure>\n";
}

// The series that are one GPU through both backends: (OpenCL, CUDA) series indexes, same size.
std::vector<std::pair<std::size_t, std::size_t>> twins_of(const Sheet& sheet, const Grid& g) {
    std::vector<std::pair<std::size_t, std::size_t>> twins;
    std::map<std::pair<std::string, std::string>, std::size_t> at; // (column, size) -> series
    for (std::size_t a = 0; a < g.series.size(); ++a)
        at.emplace(std::make_pair(g.series[a].column, g.series[a].size), a);
    for (const auto& [ocl, cu] : sheet.twins)
        for (std::size_t a = 0; a < g.series.size(); ++a)
            if (auto b = at.find({cu, g.series[a].size});
                g.series[a].column == ocl && b != at.end())
                twins.emplace_back(a, b->second);
    return twins;
}

// Variant `v`'s cells of the numbers table: six per series, then one per twin pair.
void table_cells(std::ostream& out, const Sheet& sheet, const Grid& g, std::size_t v,
                 const std::vector<std::vector<double>>& step,
                 const std::vector<std::vector<double>>& total,
                 const std::vector<std::pair<std::size_t, std::size_t>>& twins) {
    for (std::size_t k = 0; k < g.series.size(); ++k) {
        auto it = g.cell.find({v, k});
        if (it == g.cell.end()) {
            out << "<td colspan=6 class=\"na\">not run</td>";
            continue;
        }
        const Result& r = *it->second;
        const std::string label = check_label(r);
        if (!ran(r)) {
            out << "<td colspan=5 class=\"na\">"
                << esc(status_of(r).empty() ? "no time" : status_of(r)) << "</td><td class=\"check "
                << label << "\">" << label << "</td>";
            continue;
        }
        const double p = of_peak(r, sheet.column(g.series[k].column));
        out << "<td class=n>" << fmt("%.4g", r.kernel_ms.median)
            << (r.local_label.empty() ? "" : "<br><small>@" + esc(r.local_label) + "</small>")
            << "</td><td class=n>" << esc(throughput(r)) << "</td><td class=n>"
            << (p > 0 ? fmt("%.0f%%", 100 * p) : "—") << "</td><td class=n>"
            << fmt("%.2f×", step[k][v]) << "</td><td class=n>" << fmt("%.2f×", total[k][v])
            << "</td><td class=\"check " << label << "\">" << label << "</td>";
    }
    for (const auto& [a, b] : twins) {
        auto x = g.cell.find({v, a}), y = g.cell.find({v, b});
        const bool both =
            x != g.cell.end() && y != g.cell.end() && ran(*x->second) && ran(*y->second);
        out << "<td class=n>"
            << (both ? fmt("%.2f", x->second->kernel_ms.median / y->second->kernel_ms.median) : "—")
            << "</td>";
    }
}

// The numbers, as a table (the charts' text alternative).
void numbers_table(std::ostream& out, const Sheet& sheet, const Grid& g, const std::string& app) {
    std::vector<std::vector<double>> step, total;
    speedups(g, step, total);
    out << "<div class=\"scroll\"><table class=\"numbers\"><caption>" << esc(app)
        << ": every variant on every device</caption><thead><tr><th rowspan=2>variant</th>";
    for (const auto& s : g.series)
        out << "<th colspan=6 class=\"dev\">" << esc(s.label) << "</th>";
    const auto twins = twins_of(sheet, g);
    for (const auto& [a, b] : twins)
        out << "<th rowspan=2 class=\"twin\" title=\""
            << esc(g.series[a].label + " over " + g.series[b].label)
            << "\">OpenCL ÷ CUDA<br>time, same GPU</th>";
    out << "</tr><tr>";
    for (std::size_t k = 0; k < g.series.size(); ++k)
        out << "<th>ms</th><th>throughput</th><th>% "
               "peak</th><th>step</th><th>total</th><th>check</th>";
    out << "</tr></thead><tbody>\n";
    for (std::size_t v = 0; v < g.variants.size(); ++v) {
        out << "<tr><th>" << esc(g.variants[v]) << "</th>";
        table_cells(out, sheet, g, v, step, total, twins);
        out << "</tr>\n";
    }
    out << "</tbody></table></div>\n";
}

// The rows' notes, and the clock of any row not timed by device events.
void notes_list(std::ostream& out, const Grid& g) {
    bool notes = false;
    for (const auto& [key, r] : g.cell)
        if (!r->note.empty() || (!r->skipped && !r->clock.empty() && r->clock != "device events")) {
            if (!notes)
                out << "<ul class=\"notes\">\n";
            notes = true;
            out << "<li><b>" << esc(g.variants[key.first]) << "</b> on "
                << esc(g.series[key.second].label) << ": " << esc(r->note);
            if (!r->skipped && !r->clock.empty() && r->clock != "device events")
                out << (r->note.empty() ? "" : "; ") << "clock: " << esc(r->clock);
            out << "</li>\n";
        }
    if (notes)
        out << "</ul>\n";
}

} // namespace

void app_section(std::ostream& out, const Sheet& sheet, const std::string& app, int n) {
    const Grid g = grid_of(sheet, app);
    out << "<section class=\"app\" id=\"app-" << n << "\"><h2>" << esc(app) << "</h2>\n";
    if (sparse(g))
        return sparse_section(out, g, app);
    std::vector<std::string> names;
    for (const auto& s : g.series)
        names.push_back(s.label);
    if (g.unit.empty())
        out << "<p class=\"empty\">Nothing ran: every variant was skipped (the notes say "
               "why).</p>\n";
    else
        charts(out, g, app, n, names);
    numbers_table(out, sheet, g, app);
    notes_list(out, g);
    out << "</section>\n";
}

} // namespace runapp::html
