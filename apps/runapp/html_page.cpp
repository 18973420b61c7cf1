// The HTML page: head and style (light, dark, print), the summary, one section per app
// (html_app.cpp), the machines and the provenance of every device.
#include <algorithm>
#include <ostream>
#include <set>

#include "html_page.hpp"
#include "html_svg.hpp"
#include "output.hpp"
#include "report.hpp"

namespace runapp {

namespace {

using duet::apps::Result;
using html::esc;

const char* style = R"(
:root{color-scheme:light dark;--bg:#fff;--fg:#1d2330;--muted:#5f6b7a;--grid:#e3e7ee;--card:#f5f7fa;
--pass:#1a7f37;--fail:#c62828;--skip:#8a6d00;
--s0:#0072b2;--s1:#e69f00;--s2:#009e73;--s3:#cc79a7;--s4:#56b4e9;--s5:#d55e00;--s6:#b8a000;--s7:#6e6e6e}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--fg:#e6e9ef;--muted:#9aa4b2;--grid:#2a303a;
--card:#1b2029;--pass:#4cc26a;--fail:#ff6b6b;--skip:#e0c04a;
--s0:#4ea8e8;--s1:#f2b33d;--s2:#2fc79a;--s3:#e39ac4;--s4:#8fd1f5;--s5:#ff8a4c;--s6:#e8d44d;--s7:#b0b0b0}}
body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;
margin:0 auto;padding:1.5em 2em 3em;max-width:1100px}
h1{font-size:1.9em;margin:.2em 0}h2{font-size:1.45em;margin:1.8em 0 .4em;border-bottom:2px solid var(--grid)}
h3{font-size:1.05em;margin:1.2em 0 0;color:var(--muted);font-weight:600}
.sub{color:var(--muted);margin:0 0 1em}
nav a{margin-right:1em}a{color:var(--s0)}
.cards{display:flex;flex-wrap:wrap;gap:.8em;margin:1em 0}
.card{background:var(--card);border-radius:8px;padding:.6em 1em;min-width:12em}
.card b{display:block;font-size:1.35em}.card span{color:var(--muted);font-size:.9em}
figure{margin:1em 0}figcaption{color:var(--muted);font-size:.88em}
svg.chart{width:100%;height:auto;display:block}
svg text{fill:var(--fg);font-size:12px}svg .tick,svg .axis-title{fill:var(--muted)}
svg .grid{stroke:var(--grid)}svg .axis{stroke:var(--muted)}
svg .whisker{stroke:var(--fg);stroke-width:1.2;fill:none;opacity:.75}
svg .unchecked{opacity:.4;stroke:var(--fg);stroke-dasharray:3 2}
svg .nobar text{fill:var(--muted);font-size:11px}svg .failmark text{fill:var(--fail);font-weight:bold}
svg .ladder{stroke-width:2.5;fill:none}svg .gap{stroke-dasharray:5 4}
svg .steplabel{font-size:10.5px;fill:var(--muted)}
)"
                    R"(
.s0{fill:var(--s0);stroke:var(--s0)}.s1{fill:var(--s1);stroke:var(--s1)}.s2{fill:var(--s2);stroke:var(--s2)}
.s3{fill:var(--s3);stroke:var(--s3)}.s4{fill:var(--s4);stroke:var(--s4)}.s5{fill:var(--s5);stroke:var(--s5)}
.s6{fill:var(--s6);stroke:var(--s6)}.s7{fill:var(--s7);stroke:var(--s7)}rect.bar{stroke:none}
.scroll{overflow-x:auto}
table{border-collapse:collapse;margin:.6em 0 1em;font-size:.88em}caption{text-align:left;color:var(--muted);padding:.3em 0}
th,td{padding:3px 8px;border-bottom:1px solid var(--grid);text-align:left;vertical-align:top}
th.dev{text-align:center;border-bottom:2px solid var(--muted);white-space:nowrap}th.twin{white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.na{color:var(--muted);font-style:italic;text-align:center}
.check{font-weight:600}.PASS{color:var(--pass)}.FAIL,.IMPLAUSIBLE{color:var(--fail)}
.SKIPPED,.UNCHECKED{color:var(--skip)}
.notes{color:var(--muted);font-size:.88em}code{font-size:.92em;word-break:break-all}
@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--grid:#ccc;--card:#f2f2f2}
body{max-width:none;padding:0;font-size:11pt}nav{display:none}a{color:#000}
figure,table,.card{break-inside:avoid}section.app{break-before:auto}.scroll{overflow:visible}}
)";

// Distinct values joined: the build options or clocks a device used.
std::string distinct(const std::set<std::string>& values) {
    std::string out;
    for (const auto& v : values)
        out += (out.empty() ? "" : "; ") + (v.empty() ? std::string("(none)") : v);
    return out.size() > 600 ? out.substr(0, 600) + "..." : out;
}

void summary(std::ostream& out, const Sheet& s, const std::vector<std::string>& apps) {
    out << "<div class=\"cards\">\n";
    for (const auto& app : apps) {
        const Result* best = nullptr;
        for (const auto& r : s.rows)
            if (r.app == app && !r.skipped && !r.implausible && r.verified && r.pass &&
                r.kernel_ms.median > 0 && (!best || throughput_value(r) > throughput_value(*best)))
                best = &r;
        out << "<div class=\"card\">" << esc(app) << "<b>"
            << (best ? esc(throughput(*best)) : "no checked result") << "</b><span>"
            << (best ? esc(best->variant + " on " + best->device_id) : "") << "</span></div>\n";
    }
    out << "</div>\n";
}

void machines(std::ostream& out, const Sheet& s) {
    out << "<h2 id=\"machines\">Machines and runs</h2><div "
           "class=\"scroll\"><table><thead><tr><th>host</th>"
           "<th>CPU</th><th>OS</th><th>date "
           "(UTC)</th><th>duet</th><th>command</th><th>file</th></tr></thead><tbody>\n";
    for (const auto& run : s.runs) {
        const RunInfo& i = run.info;
        out << "<tr><td>" << esc(i.machine.host) << "</td><td>" << esc(i.machine.cpu) << "</td><td>"
            << esc(i.machine.os) << "</td><td>" << esc(i.date()) << "</td><td>"
            << esc(i.duet_version) << "</td><td><code>" << esc(i.command) << "</code></td><td>"
            << esc(run.file) << "</td></tr>\n";
    }
    out << "</tbody></table></div>\n";
}

void provenance_table(std::ostream& out, const Sheet& s) {
    out << "<h2 id=\"provenance\">Devices and provenance</h2><div "
           "class=\"scroll\"><table><thead><tr>"
           "<th>device</th><th>name</th><th>platform</th><th>driver</th><th>ICD / library</th>"
           "<th>peak memory</th><th>peak FP32</th><th>build options</th><th>program cache</th>"
           "<th>clock used</th><th>sizes</th></tr></thead><tbody>\n";
    for (const auto& c : s.columns) {
        std::set<std::string> options, clocks, sizes;
        int builds = 0, hits = 0;
        for (const auto& r : s.rows) {
            if (r.device_id != c.label)
                continue;
            sizes.insert(r.app + " " + r.size_label);
            if (r.skipped)
                continue;
            options.insert(r.build_options);
            clocks.insert(r.clock);
            ++builds;
            hits += r.cache_hit ? 1 : 0;
        }
        const DeviceRecord& d = s.device(c);
        out << "<tr><th>" << esc(c.label) << "</th><td>" << esc(c.name) << "</td><td>"
            << esc(d.platform + " " + d.platform_version) << "</td><td>" << esc(d.driver)
            << "</td><td><code>" << esc(d.library) << "</code></td><td class=n>"
            << (c.peak_gbs > 0 ? fmt("%.0f GB/s", c.peak_gbs) : "—") << "</td><td class=n>"
            << (c.peak_gflops > 0 ? fmt("%.0f GFLOP/s", c.peak_gflops) : "—") << "</td><td><code>"
            << esc(distinct(options)) << "</code></td><td>" << hits << " of " << builds
            << " hit</td><td>" << esc(distinct(clocks)) << "</td><td>" << esc(distinct(sizes))
            << "</td></tr>\n";
    }
    out << "</tbody></table></div>\n<p class=\"notes\">Peaks come from the device query (memory "
           "clock x bus "
           "width; FP32 lanes x clock for CUDA devices); — where the device does not say. % peak "
           "in the "
           "tables is against them. Timed with device events unless the clock column says "
           "otherwise.</p>\n";
}

} // namespace

void write_html(std::ostream& out, const Sheet& s) {
    std::vector<std::string> apps;
    for (const auto& r : s.rows)
        if (std::find(apps.begin(), apps.end(), r.app) == apps.end())
            apps.push_back(r.app);
    std::set<std::string> hosts;
    for (const auto& run : s.runs)
        hosts.insert(run.info.machine.host);
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
           "'unsafe-inline'\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<meta name=\"color-scheme\" content=\"light dark\">\n<title>Duet "
           "results</title>\n<style>"
        << style << "</style></head><body>\n<header><h1>Duet results</h1><p class=\"sub\">"
        << apps.size() << " app(s) on " << s.columns.size() << " device(s), " << hosts.size()
        << " machine(s), " << s.runs.size() << " run(s)";
    std::set<std::string> dates;
    for (const auto& run : s.runs)
        dates.insert(run.info.date());
    if (!dates.empty())
        out << "; " << esc(*dates.begin())
            << (dates.size() > 1 ? " to " + esc(*dates.rbegin()) : "") << " UTC";
    out << "</p></header>\n<nav>";
    for (std::size_t i = 0; i < apps.size(); ++i)
        out << "<a href=\"#app-" << i << "\">" << esc(apps[i]) << "</a>";
    out << "<a href=\"#machines\">machines</a><a href=\"#provenance\">provenance</a></nav>\n";
    summary(out, s, apps);
    for (std::size_t i = 0; i < apps.size(); ++i)
        html::app_section(out, s, apps[i], static_cast<int>(i));
    machines(out, s);
    provenance_table(out, s);
    out << "</body></html>\n";
}

void write_html(std::ostream& out, const std::vector<Result>& results, const nlohmann::json& prov) {
    Sheet s = make_sheet({Run{"", run_info_from_json(prov), results}});
    label_repeated_rows(s.rows); // every row of a repeated key shown (report.hpp)
    write_html(out, s);
}

} // namespace runapp
