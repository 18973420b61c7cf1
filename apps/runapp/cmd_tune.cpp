// runapp tune: sweeps the tunable parameters of an app's variants on one device, prints every
// point, and stores the fastest correct one per variant in tuned.json, where `runapp run` and
// `runapp compare` find it.
#include <fstream>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "output.hpp"
#include "tuning.hpp"

namespace runapp {

namespace {

using duet::apps::TuneReport;
using duet::apps::TuneRow;
using duet::apps::TuneStatus;

std::string point_label(const TuneRow& row) {
    return row.point.label + (row.point.is_default ? " (default)" : "");
}

std::string define_list(const duet::apps::Defines& d) {
    std::string s;
    for (const auto& [k, v] : d)
        s += (s.empty() ? "" : ",") + k + "=" + v;
    return s;
}

// The winner's median against the defaults', as "1.52x the defaults".
std::string speedup(const TuneReport& rep, const std::string& variant, std::size_t win) {
    const auto def = rep.default_row(variant);
    if (!def)
        return "the defaults did not run";
    if (*def == win)
        return "the defaults";
    const double d = rep.rows[*def].result->kernel_ms.median;
    const double w = rep.rows[win].result->kernel_ms.median;
    if (!(w > 0))
        return "";
    return fmt("%.2fx", d / w) + " the defaults' speed";
}

void print_table(std::ostream& out, const TuneReport& rep, const duet::DeviceInfo& info) {
    out << "tune " << rep.app << " on " << info.id() << " (" << info.name << "), size "
        << rep.size_label << ", " << rep.reps << " timed runs per point\n";
    Table t({"variant", "point", "local", "kernel ms (med)", "min", "throughput", "check", "note"});
    for (const auto& row : rep.rows) {
        const bool ran = row.result.has_value();
        std::string note = row.reason;
        if (note.size() > 110)
            note = note.substr(0, 107) + "...";
        t.add({row.point.variant, point_label(row), ran ? row.result->local_label : "-",
               ran ? fmt("%.4f", row.result->kernel_ms.median) : "-",
               ran ? fmt("%.4f", row.result->kernel_ms.min) : "-",
               ran ? throughput(*row.result) : "-", duet::apps::to_string(row.status), note});
    }
    t.print(out);
    for (const auto& [variant, win] : rep.winners) {
        if (!win) {
            out << "chosen for " << variant << ": none (no point passed; nothing stored)\n";
            continue;
        }
        const auto& w = rep.rows[*win];
        out << "chosen for " << variant << ": " << point_label(w) << ", "
            << fmt("%.4f", w.result->kernel_ms.median) << " ms, " << throughput(*w.result) << ", "
            << speedup(rep, variant, *win) << "\n";
    }
}

nlohmann::json report_json(const TuneReport& rep, const duet::DeviceInfo& info,
                           const std::string& stored) {
    nlohmann::json j;
    j["app"] = rep.app;
    j["device"] = {{"id", info.id()},
                   {"name", info.name},
                   {"backend", info.backend},
                   {"platform", info.platform},
                   {"driver", info.driver_version}};
    j["size"] = rep.size_label;
    j["reps"] = rep.reps;
    j["duet_version"] = duet::version;
    j["points"] = nlohmann::json::array();
    for (const auto& row : rep.rows) {
        nlohmann::json p = {{"variant", row.point.variant},
                            {"point", row.point.label},
                            {"default", row.point.is_default},
                            {"status", duet::apps::to_string(row.status)}};
        p["defines"] = nlohmann::json::object();
        for (const auto& [k, v] : row.point.defines)
            p["defines"][k] = v;
        if (row.point.local)
            p["local"] = {(*row.point.local)[0], (*row.point.local)[1]};
        if (row.result) {
            p["kernel_ms"] = {{"median", row.result->kernel_ms.median},
                              {"min", row.result->kernel_ms.min},
                              {"max", row.result->kernel_ms.max}};
            p["throughput"] = throughput(*row.result);
            p["build_options"] = row.result->build_options;
            p["max_error"] = row.result->max_error;
        }
        if (!row.reason.empty())
            p["reason"] = row.reason;
        j["points"].push_back(p);
    }
    j["chosen"] = nlohmann::json::array();
    for (const auto& [variant, win] : rep.winners) {
        nlohmann::json w = {{"variant", variant}};
        if (win) {
            const auto& row = rep.rows[*win];
            w["point"] = row.point.label;
            w["defines"] = nlohmann::json::object();
            for (const auto& [k, v] : row.point.defines)
                w["defines"][k] = v;
            if (row.point.local)
                w["local"] = {(*row.point.local)[0], (*row.point.local)[1]};
            w["median_ms"] = row.result->kernel_ms.median;
            if (const auto def = rep.default_row(variant))
                w["speedup_vs_default"] =
                    rep.rows[*def].result->kernel_ms.median / row.result->kernel_ms.median;
        } else {
            w["point"] = nullptr;
        }
        j["chosen"].push_back(w);
    }
    j["stored"] = stored.empty() ? nlohmann::json(nullptr) : nlohmann::json(stored);
    return j;
}

// The apps `runapp tune` sweeps, after its usage checks (a usage Error for a bad command line).
std::vector<const duet::apps::App*> tune_apps(const Cli& c) {
    if (c.positional.empty())
        throw duet::Error::usage("which app? runapp tune APP; " + duet::apps::tunable_apps_text());
    if (!c.defines.empty() || !c.locals.empty())
        throw duet::Error::usage("runapp tune chooses the defines and work-groups itself; "
                                 "--define and --local belong to runapp run");
    if (c.verify_given && c.verify != duet::apps::Verify::full)
        throw duet::Error::usage("runapp tune checks every point in full: only a correct point "
                                 "may win (leave out --verify)");
    if (c.format == Format::csv)
        throw duet::Error::usage("runapp tune prints --format table or json");
    if (c.sizes.size() > 1)
        throw duet::Error::usage("runapp tune runs at one --size");
    std::vector<const duet::apps::App*> apps;
    for (const auto& name : c.positional)
        apps.push_back(&duet::apps::find_app(name));
    if (apps.size() > 1 && (c.variant != "all" || !c.sizes.empty()))
        throw duet::Error::usage("--variant and --size apply to one app; tune the apps one at a "
                                 "time");
    return apps;
}

// Stores the winners of `rep` in tuned.json; returns the file's path ("" when nothing was
// stored), sets `missing` when a variant had no winner and `store_error` when the save failed.
std::string store_winners(const duet::apps::TuneReport& rep, const duet::DeviceInfo& info,
                          bool& missing, std::string& store_error) {
    // Re-read the file just before writing, so sweeps of other apps or devices stored
    // since this process started are kept.
    duet::apps::TuningStore store(duet::apps::TuningStore::default_path());
    bool any = false;
    for (const auto& [variant, win] : rep.winners) {
        if (auto e = duet::apps::entry_for(rep, variant, info)) {
            store.put(std::move(*e));
            any = true;
        } else {
            missing = true;
        }
    }
    std::string stored;
    if (any) {
        std::string why;
        if (store.save(&why))
            stored = store.path();
        else
            store_error = "the tuned parameters were not stored: " + why;
    }
    return stored;
}

// The table of one app's sweep and what `runapp run` now uses.
void print_sweep(std::ostream& text, const duet::apps::App& app, const duet::apps::TuneReport& rep,
                 const duet::DeviceInfo& info, const std::string& stored) {
    print_table(text, rep, info);
    for (const auto& [variant, win] : rep.winners)
        if (win && !stored.empty()) {
            const auto& row = rep.rows[*win];
            std::string what = define_list(row.point.defines);
            if (row.point.local)
                what += std::string(what.empty() ? "" : ",") +
                        "local=" + std::to_string((*row.point.local)[0]);
            text << "runapp run " << app.name() << " --variant " << variant << " now uses "
                 << (what.empty() ? "the kernel's defaults" : what) << " on this device\n";
        }
    if (!stored.empty())
        text << "stored in " << stored << " (delete the file to forget every tuning)\n";
    text << "\n";
}

// The report to stdout, or to --output (and then the table to stdout too).
// `out` was opened before the sweep (open_output) when --output names a file.
void write_report(const Cli& c, std::ofstream& out, const std::string& body) {
    if (c.output.empty()) {
        std::cout << body;
        return;
    }
    out << body;
    close_written(out, "--output file " + c.output);
    if (c.format == Format::table)
        std::cout << body;
    std::cerr << "results written to " << c.output << "\n";
}

} // namespace

int cmd_tune(const Cli& c) {
    const auto apps = tune_apps(c);
    duet::Device& dev = chosen_device(c);
    const auto& info = dev.info();
    const bool progress = !c.quiet && isatty(STDERR_FILENO);
    // Opened before the sweep: a name that cannot be written is refused before minutes of work.
    std::ofstream out;
    if (!c.output.empty())
        open_output(out, c.output, "--output file");
    std::ostringstream text;
    nlohmann::json json_reports = nlohmann::json::array();
    bool wrong = false, missing = false;
    std::string store_error;

    for (const auto* app : apps) {
        const auto size =
            c.sizes.empty() ? std::vector<std::size_t>{} : app->parse_size(c.sizes[0]);
        const auto rep =
            duet::apps::tune(*app, dev, size, c.reps, c.variant, c.warmup,
                             [&](const duet::apps::TunePoint& p, std::size_t i, std::size_t n) {
                                 if (progress)
                                     std::cerr << "\r\033[Ktune " << app->name() << " " << p.variant
                                               << " " << p.label << " (" << i + 1 << "/" << n
                                               << ") on " << info.id() << " ..." << std::flush;
                             });
        if (progress)
            std::cerr << "\r\033[K" << std::flush;

        const std::string stored = store_winners(rep, info, missing, store_error);
        for (const auto& row : rep.rows)
            wrong = wrong || row.status == TuneStatus::fail;

        if (c.format == Format::json)
            json_reports.push_back(report_json(rep, info, stored));
        else
            print_sweep(text, *app, rep, info, stored);
    }

    std::string body =
        c.format == Format::json
            ? dump_json(json_reports.size() == 1 ? json_reports[0] : json_reports) + "\n"
            : text.str();
    write_report(c, out, body);
    if (!store_error.empty())
        std::cerr << "runapp: error: " << store_error << "\n";
    if (wrong)
        return 1; // a point computed a wrong result: a kernel bug worth knowing about
    return store_error.empty() && !missing ? 0 : 3;
}

} // namespace runapp
