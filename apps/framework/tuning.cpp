// Tuning: the search spaces of the variants whose compile-time parameters matter, the sweep that
// times them, and tuned.json, where the winners are kept per device.
//
// The spaces are small on purpose (at most 12 points per variant, the kernel's defaults first):
// a sweep is something a user reruns after a driver update, so `runapp tune matmul` must finish
// in about a minute on a 2-core CPU through PoCL, where every point is a kernel build.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include <duet/backend/log.hpp>
#include <duet/backend/private_files.hpp>
#include <duet/backend/program_cache.hpp>
#include <nlohmann/json.hpp>

#include "tuning.hpp"

namespace duet::apps {

namespace fs = std::filesystem;

namespace {

// The variant's tuning space, from its record (step.hpp); nullptr: nothing to tune.
const TuneSpace* space_of(const App& app, const std::string& variant) {
    for (const auto& s : app.steps())
        if (s.name == variant)
            return s.tuning ? &*s.tuning : nullptr;
    return nullptr;
}

std::string local_label(const std::array<std::size_t, 2>& l) {
    return l[1] == 1 ? std::to_string(l[0]) : std::to_string(l[0]) + "x" + std::to_string(l[1]);
}

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

bool positive_integer(const std::string& s) {
    return !s.empty() && s.size() < 10 && s[0] != '0' &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

bool same_device(const TunedEntry& e, const DeviceInfo& info) {
    return e.backend == info.backend && e.platform == info.platform && e.device == info.name &&
           e.driver == info.driver_version;
}

bool same_key(const TunedEntry& a, const TunedEntry& b) {
    return a.backend == b.backend && a.platform == b.platform && a.device == b.device &&
           a.driver == b.driver && a.app == b.app && a.variant == b.variant;
}

using Json = nlohmann::ordered_json;

Json to_json(const TunedEntry& e) {
    Json j = {{"backend", e.backend}, {"platform", e.platform}, {"device", e.device},
              {"driver", e.driver},   {"app", e.app},           {"variant", e.variant}};
    j["defines"] = Json::object();
    for (const auto& [k, v] : e.defines)
        j["defines"][k] = v;
    if (e.local)
        j["local"] = {(*e.local)[0], (*e.local)[1]};
    j["size"] = e.size;
    j["date"] = e.date;
    j["median_ms"] = e.median_ms;
    j["duet_version"] = e.duet_version;
    return j;
}

// Throws nlohmann's exceptions on a malformed entry.
TunedEntry from_json(const Json& j) {
    TunedEntry e;
    e.backend = j.at("backend").get<std::string>();
    e.platform = j.at("platform").get<std::string>();
    e.device = j.at("device").get<std::string>();
    e.driver = j.at("driver").get<std::string>();
    e.app = j.at("app").get<std::string>();
    e.variant = j.at("variant").get<std::string>();
    for (const auto& [k, v] : j.at("defines").items())
        e.defines.emplace_back(k, v.get<std::string>());
    if (j.contains("local") && !j["local"].is_null()) {
        const auto l = j["local"].get<std::vector<std::size_t>>();
        if (l.size() != 2 || l[0] == 0 || l[1] == 0)
            throw std::runtime_error("local must be [width, height]");
        e.local = std::array<std::size_t, 2>{l[0], l[1]};
    }
    e.size = j.value("size", "");
    e.date = j.value("date", "");
    e.median_ms = j.value("median_ms", 0.0);
    e.duet_version = j.value("duet_version", "");
    return e;
}

} // namespace

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
        if (space_of(app, v.name))
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
    const TuneSpace* space = space_of(app, variant);
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

TuneReport tune(const App& app, Device& dev, const std::vector<std::size_t>& size, int reps,
                const std::string& variants, int warmup, const TuneProgress& progress) {
    const DeviceInfo& info = dev.info();
    const auto tunable = tunable_variants(app);
    if (tunable.empty())
        throw Error::usage("app " + app.name() + " has nothing to tune; " + tunable_apps_text());
    std::vector<Variant> chosen;
    if (variants.empty() || variants == "all") {
        for (const auto& v : app.variants())
            if (std::find(tunable.begin(), tunable.end(), v.name) != tunable.end())
                chosen.push_back(v);
    } else {
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
    }

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
        TuneRow row;
        row.point = point;
        if (!point.excluded.empty()) {
            row.status = TuneStatus::skipped;
            row.reason = point.excluded;
            rep.rows.push_back(std::move(row));
            continue;
        }
        RunConfig cfg = base;
        cfg.defines = point.defines;
        cfg.local = point.local;
        try {
            Result r = app.run(dev, *variant, cfg);
            row.status = r.pass ? TuneStatus::pass : TuneStatus::fail;
            if (!r.pass)
                row.reason = "max error " + std::to_string(r.max_error) + " " + r.error_kind +
                             " over the tolerance " + std::to_string(r.tolerance);
            rep.size_label = r.size_label;
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
            log().debug("tune {} {} {}: {}", app.name(), point.variant, point.label, row.reason);
        }
        rep.rows.push_back(std::move(row));
    }
    // Nothing ran and the app refused the request: the caller's mistake (a bad --size).
    if (first_usage && std::none_of(rep.rows.begin(), rep.rows.end(),
                                    [](const TuneRow& r) { return r.result.has_value(); }))
        throw *first_usage;

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
    return rep;
}

std::optional<TunedEntry> entry_for(const TuneReport& report, const std::string& variant,
                                    const DeviceInfo& info) {
    for (const auto& [name, row] : report.winners) {
        if (name != variant || !row)
            continue;
        const TuneRow& w = report.rows[*row];
        TunedEntry e;
        e.backend = info.backend;
        e.platform = info.platform;
        e.device = info.name;
        e.driver = info.driver_version;
        e.app = report.app;
        e.variant = variant;
        e.defines = w.point.defines;
        e.local = w.point.local;
        e.size = w.result->size_label;
        e.date = utc_now();
        e.median_ms = w.result->kernel_ms.median;
        e.duet_version = duet::version;
        return e;
    }
    return std::nullopt;
}

// ---- tuned.json ----

std::string TuningStore::default_path() {
    std::string dir;
    if (const char* d = std::getenv("DUET_CACHE_DIR"))
        dir = d; // an empty value turns the cache (and the store) off
    else
        dir = ProgramCache::instance().dir();
    return dir.empty() ? std::string{} : dir + "/tuned.json";
}

TuningStore::TuningStore(std::string path) : path_(std::move(path)) {
    if (path_.empty())
        return;
    // Tuned parameters become build defines: only a file in a private directory, a regular
    // file (a FIFO would hang the read), of a bounded size, is read.
    std::string why;
    const fs::path file(path_);
    if (file.has_parent_path() && !make_private_dir(file.parent_path().string(), &why)) {
        log().warn("tuned parameters in {} not used: {}", path_, why);
        return;
    }
    const auto text = read_private_file(path_, std::size_t(16) << 20, &why);
    if (!text) {
        if (!why.empty()) // otherwise no sweep has been stored yet
            log().warn("tuned parameters in {} not used: {}. Fix: remove it (rm {}) and run "
                       "`runapp tune` again",
                       path_, why, path_);
        return;
    }
    const Json j = Json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("entries") || !j["entries"].is_array()) {
        log().warn("tuned parameters in {} are unreadable (damaged, or not a Duet tuning file); "
                   "ignoring them: the kernels' defaults are used until `runapp tune` rewrites "
                   "it, or remove it (rm {})",
                   path_, path_);
        return;
    }
    for (const auto& item : j["entries"]) {
        try {
            entries_.push_back(from_json(item));
        } catch (const std::exception& e) {
            log().warn("tuned parameters in {}: ignoring a malformed entry ({})", path_, e.what());
        }
    }
}

const TunedEntry* TuningStore::find(const DeviceInfo& info, const std::string& app,
                                    const std::string& variant) const {
    for (const auto& e : entries_)
        if (same_device(e, info) && e.app == app && e.variant == variant)
            return &e;
    return nullptr;
}

void TuningStore::put(TunedEntry e) {
    for (auto& old : entries_)
        if (same_key(old, e)) {
            old = std::move(e);
            return;
        }
    entries_.push_back(std::move(e));
}

bool TuningStore::save(std::string* why) const {
    auto fail = [&](const std::string& msg) {
        if (why)
            *why = msg;
        return false;
    };
    if (path_.empty())
        return fail("no cache directory (DUET_CACHE_DIR is empty, or no HOME)");
    Json j = {{"format", "duet tuned parameters"}, {"version", 1}};
    j["entries"] = Json::array();
    for (const auto& e : entries_)
        j["entries"].push_back(to_json(e));

    const fs::path target(path_);
    std::string msg;
    if (target.has_parent_path() && !make_private_dir(target.parent_path().string(), &msg))
        return fail(msg);
    // A unique O_EXCL temporary file renamed into place: never follows a planted link.
    if (!write_private_file(path_, j.dump(2) + "\n", &msg))
        return fail(msg);
    return true;
}

std::string apply_tuned(const TuningStore& store, const DeviceInfo& info, const App& app,
                        const Variant& variant, RunConfig& cfg) {
    const TunedEntry* e = store.find(info, app.name(), variant.name);
    const auto space = space_of(app, variant.name);
    if (!e || !space)
        return {};
    const std::set<std::string> names(space->params.begin(), space->params.end());
    // The caller's own choices win: its defines of these names, or its work-group where the
    // point is the work-group.
    for (const auto& [k, v] : cfg.defines)
        if (names.count(k))
            return {};
    if (cfg.local && space->local_bound)
        return {};
    // Only this space's parameters, as positive integers: anything else is not ours.
    for (const auto& [k, v] : e->defines)
        if (!names.count(k) || !positive_integer(v)) {
            log().warn("tuned parameters for {} {} on {}: ignoring {}={} (not a parameter of "
                       "this variant); rerun `runapp tune {}`",
                       app.name(), variant.name, info.name, k, v, app.name());
            return {};
        }
    if (e->local && !space->local_param)
        return {};
    std::string what;
    for (const auto& [k, v] : e->defines) {
        cfg.defines.emplace_back(k, v);
        what += (what.empty() ? "" : ",") + k + "=" + v;
    }
    if (e->local) {
        cfg.local = e->local;
        what += (what.empty() ? "" : ",") + std::string("local=") + local_label(*e->local);
    }
    if (what.empty())
        what = "the kernel's defaults";
    return "tuned: " + what + " (runapp tune at " + (e->size.empty() ? "?" : e->size) + ")";
}

} // namespace duet::apps
