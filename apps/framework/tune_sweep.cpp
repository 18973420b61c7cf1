// The sweep of `runapp tune` (tune_sweep.hpp): every point of a step's tuning space through
// App::run, the fastest correct one per step.
//
// The spaces are small on purpose (at most 12 points per variant, the kernel's defaults first):
// a sweep is something a user reruns after a driver update, so `runapp tune matmul` must finish
// in about a minute on a 2-core CPU through PoCL, where every point is a kernel build.
#include "tune_sweep.hpp"

#include <algorithm>

#include <duet/duet.hpp>

namespace duet::apps {

namespace {

// The first line of a build log that says "error", else the first line of `what`.
std::string build_reason(const Error& e) {
    auto first_line = [](const std::string& s) { return s.substr(0, s.find('\n')); };
    const std::string& log = e.build_log();
    for (std::size_t start = 0; start < log.size();) {
        const auto end = std::min(log.find('\n', start), log.size());
        const std::string line = log.substr(start, end - start);
        if (line.find("error") != std::string::npos) {
            const auto at = line.find("error");
            return line.substr(at);
        }
        start = end + 1;
    }
    return first_line(e.what());
}

} // namespace

const TuneSpace* tune_space_of(const App& app, const std::string& variant) {
    for (const auto& s : app.steps())
        if (s.name == variant)
            return s.tuning ? &*s.tuning : nullptr;
    return nullptr;
}

const char* to_string(TuneStatus s) {
    switch (s) {
    case TuneStatus::pass:
        return "PASS";
    case TuneStatus::fail:
        return "FAIL";
    case TuneStatus::build_error:
        return "build error";
    case TuneStatus::skipped:
        return "skipped";
    case TuneStatus::error:
        return "error";
    }
    return "?";
}

std::optional<std::size_t> TuneReport::default_row(const std::string& variant) const {
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].point.variant == variant && rows[i].point.is_default && rows[i].result)
            return i;
    return std::nullopt;
}

std::vector<std::string> tunable_variants(const App& app) {
    std::vector<std::string> out;
    for (const auto& v : app.variants())
        if (tune_space_of(app, v.name))
            out.push_back(v.name);
    return out;
}

std::string tunable_apps_text() {
    std::vector<std::string> parts;
    for (const App* a : all_apps()) {
        std::string names;
        for (const auto& v : tunable_variants(*a))
            names += (names.empty() ? "" : ", ") + v;
        if (!names.empty())
            parts.push_back(a->name() + " (" + names + ")");
    }
    std::string text = "the apps with tunable variants are ";
    for (std::size_t i = 0; i < parts.size(); ++i)
        text += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return text;
}

std::vector<TunePoint> tune_points(const App& app, const std::string& variant,
                                   const DeviceInfo& info) {
    const TuneSpace* space = tune_space_of(app, variant);
    if (!space || !space->points)
        return {};
    auto out = space->points(info);
    for (auto& p : out)
        p.variant = variant;
    return out;
}

std::vector<std::size_t> default_tune_size(const App& app, const DeviceInfo& info) {
    return app.tune_size(info);
}

namespace {

// The variants to sweep: every tunable one, or those named (a usage Error naming the tunable
// ones for another).
std::vector<Variant> chosen_variants(const App& app, const std::string& variants) {
    const auto tunable = tunable_variants(app);
    if (tunable.empty())
        throw Error::usage("app " + app.name() + " has nothing to tune; " + tunable_apps_text());
    std::vector<Variant> chosen;
    if (variants.empty() || variants == "all") {
        for (const auto& v : app.variants())
            if (std::find(tunable.begin(), tunable.end(), v.name) != tunable.end())
                chosen.push_back(v);
        return chosen;
    }
    for (const auto& v : select_variants(app, variants)) {
        if (std::find(tunable.begin(), tunable.end(), v.name) == tunable.end()) {
            std::string names;
            for (const auto& t : tunable)
                names += (names.empty() ? "" : ", ") + t;
            throw Error::usage(app.name() + " " + v.name +
                               " has nothing to tune; the tunable variants are: " + names);
        }
        chosen.push_back(v);
    }
    return chosen;
}

// One point's row: its run, or why it did not run (`first_usage` keeps the first usage Error).
TuneRow run_point(const App& app, Device& dev, const Variant& variant, const TunePoint& point,
                  const RunConfig& base, std::optional<Error>& first_usage) {
    TuneRow row;
    row.point = point;
    if (!point.excluded.empty()) {
        row.status = TuneStatus::skipped;
        row.reason = point.excluded;
        return row;
    }
    RunConfig cfg = base;
    cfg.defines = point.defines;
    cfg.local = point.local;
    try {
        Result r = app.run(dev, variant, cfg);
        row.status = r.pass ? TuneStatus::pass : TuneStatus::fail;
        if (!r.pass)
            row.reason = "max error " + std::to_string(r.max_error) + " " + r.error_kind +
                         " over the tolerance " + std::to_string(r.tolerance);
        row.result = std::move(r);
    } catch (const Error& e) {
        switch (e.kind()) {
        case ErrorKind::build:
            row.status = TuneStatus::build_error;
            row.reason = build_reason(e);
            break;
        case ErrorKind::unsupported:
            row.status = TuneStatus::skipped;
            row.reason = e.what();
            break;
        case ErrorKind::usage: // a point over this kernel's work-group limit, or a bad size
            if (!first_usage)
                first_usage = e;
            row.status = TuneStatus::skipped;
            row.reason = e.what();
            break;
        case ErrorKind::runtime: // e.g. out of resources at launch: this point cannot run
            row.status = TuneStatus::error;
            row.reason = e.what();
            break;
        default:
            throw;
        }
        log_message(LogLevel::debug, "tune " + app.name() + " " + point.variant + " " +
                                         point.label + ": " + row.reason);
    }
    return row;
}

// Each variant's winner: the passing row with the lowest median kernel time (none: nullopt).
void pick_winners(const std::vector<Variant>& chosen, TuneReport& rep) {
    for (const auto& v : chosen) {
        std::optional<std::size_t> best;
        for (std::size_t i = 0; i < rep.rows.size(); ++i) {
            const auto& row = rep.rows[i];
            if (row.point.variant != v.name || row.status != TuneStatus::pass)
                continue;
            if (!best || row.result->kernel_ms.median < rep.rows[*best].result->kernel_ms.median)
                best = i;
        }
        rep.winners.emplace_back(v.name, best);
    }
}

} // namespace

TuneReport tune(const App& app, Device& dev, const std::vector<std::size_t>& size, int reps,
                const std::string& variants, int warmup, const TuneProgress& progress) {
    const DeviceInfo& info = dev.info();
    const std::vector<Variant> chosen = chosen_variants(app, variants);

    RunConfig base;
    base.size = size.empty() ? default_tune_size(app, info) : size;
    base.reps = reps;
    base.warmup = warmup;
    base.verify = Verify::full;

    TuneReport rep;
    rep.app = app.name();
    rep.device_id = info.id();
    rep.device_name = info.name;
    rep.size_label = dims_label(base.size);
    rep.reps = reps;
    std::vector<std::pair<const Variant*, TunePoint>> points;
    for (const auto& v : chosen)
        for (auto& p : tune_points(app, v.name, info))
            points.emplace_back(&v, std::move(p));

    std::optional<Error> first_usage;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& [variant, point] = points[i];
        if (progress)
            progress(point, i, points.size());
        TuneRow row = run_point(app, dev, *variant, point, base, first_usage);
        if (row.result)
            rep.size_label = row.result->size_label;
        rep.rows.push_back(std::move(row));
    }
    // Nothing ran and the app refused the request: the caller's mistake (a bad --size).
    if (first_usage && std::none_of(rep.rows.begin(), rep.rows.end(),
                                    [](const TuneRow& r) { return r.result.has_value(); }))
        throw *first_usage;
    pick_winners(chosen, rep);
    return rep;
}

} // namespace duet::apps
