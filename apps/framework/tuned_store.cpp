// tuned.json (tuned_store.hpp): the winners of every sweep, per device, and the rule that applies
// them to a run.
#include "tuned_store.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <set>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

namespace duet::apps {

namespace fs = std::filesystem;

namespace {

std::string local_label(const std::array<std::size_t, 2>& l) {
    return l[1] == 1 ? std::to_string(l[0]) : std::to_string(l[0]) + "x" + std::to_string(l[1]);
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
        dir = program_cache_status().dir;
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
        log_message(LogLevel::warn, "tuned parameters in " + path_ + " not used: " + why);
        return;
    }
    const auto text = read_private_file(path_, std::size_t(16) << 20, &why);
    if (!text) {
        if (!why.empty()) // otherwise no sweep has been stored yet
            log_message(LogLevel::warn, "tuned parameters in " + path_ + " not used: " + why +
                                            ". Fix: remove it (rm " + path_ +
                                            ") and run `runapp tune` again");
        return;
    }
    const Json j = Json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("entries") || !j["entries"].is_array()) {
        log_message(LogLevel::warn,
                    "tuned parameters in " + path_ +
                        " are unreadable (damaged, or not a Duet tuning file); ignoring them: the "
                        "kernels' defaults are used until `runapp tune` rewrites it, or remove "
                        "it (rm " +
                        path_ + ")");
        return;
    }
    for (const auto& item : j["entries"]) {
        try {
            entries_.push_back(from_json(item));
        } catch (const std::exception& e) {
            log_message(LogLevel::warn, "tuned parameters in " + path_ +
                                            ": ignoring a malformed entry (" + e.what() + ")");
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
    const TuneSpace* space = tune_space_of(app, variant.name);
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
            log_message(LogLevel::warn, "tuned parameters for " + app.name() + " " + variant.name +
                                            " on " + info.name + ": ignoring " + k + "=" + v +
                                            " (not a parameter of this variant); rerun `runapp "
                                            "tune " +
                                            app.name() + "`");
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
