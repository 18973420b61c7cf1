#pragma once
// Tuning: per device, the compile-time parameters (tiles, work-groups) of the variants where
// they matter, chosen by a sweep (`runapp tune APP`), stored in tuned.json in the cache
// directory, and used by default by `runapp run` and `runapp compare`.
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "tune_space.hpp"

namespace duet::apps {

// What one point gave.
enum class TuneStatus { pass, fail, build_error, skipped, error };

struct TuneRow {
    TunePoint point;
    TuneStatus status = TuneStatus::skipped;
    std::optional<Result> result; // for pass and fail
    std::string reason;           // build error, skip reason, …
};

// A whole sweep of one app on one device.
struct TuneReport {
    std::string app, device_id, device_name, size_label;
    int reps = 0;
    std::vector<TuneRow> rows;
    // Per variant swept: the index in `rows` of the fastest passing point (nullopt: none passed).
    std::vector<std::pair<std::string, std::optional<std::size_t>>> winners;
    // The row of `variant`'s untuned point, if it ran.
    std::optional<std::size_t> default_row(const std::string& variant) const;
};

// "PASS", "FAIL", "build error", "skipped", "error".
const char* to_string(TuneStatus s);

// The variants of `app` that have something to tune (empty: the app has none): the steps whose
// record has a TuneSpace.
std::vector<std::string> tunable_variants(const App& app);
// "matmul (best), conv5x5 (best) and reduction (grid_stride_i32, ...)": the registry's apps that
// have something to tune, for messages.
std::string tunable_apps_text();
// The points of `variant` on `info`'s device (its defaults first); points over the device's
// work-group or local-memory limits are listed with `excluded` set. Empty: nothing to tune.
std::vector<TunePoint> tune_points(const App& app, const std::string& variant,
                                   const DeviceInfo& info);
// The size a sweep runs at when none is given: the app's hook App::tune_size.
std::vector<std::size_t> default_tune_size(const App& app, const DeviceInfo& info);

// Called before each point runs: the point, its index and the number of points.
using TuneProgress = std::function<void(const TunePoint&, std::size_t, std::size_t)>;

// Sweeps the tunable variants of `app` named by `variants` ("all" or a comma-separated list) on
// `dev`: every point through App::run at `size` (empty: default_tune_size) with `reps` timed runs
// and full verification, and picks per variant the passing point with the fastest median. A point
// that fails to build is recorded with the compiler's first error; device errors other than
// builds throw. Naming a variant with nothing to tune is a usage Error.
TuneReport tune(const App& app, Device& dev, const std::vector<std::size_t>& size, int reps,
                const std::string& variants = "all", int warmup = 1,
                const TuneProgress& progress = {});

// One stored winner.
struct TunedEntry {
    std::string backend, platform, device, driver; // the key's device part
    std::string app, variant;                      // the key's app part
    Defines defines;                               // empty: the kernel's defaults won
    std::optional<std::array<std::size_t, 2>> local;
    std::string size;     // the size it was tuned at, "512x512x512"
    std::string date;     // UTC, ISO 8601
    double median_ms = 0; // the winner's median kernel time at that size
    std::string duet_version;
};

// A TunedEntry for the winner of `variant` in `report` on `info`'s device (nullopt: none won).
std::optional<TunedEntry> entry_for(const TuneReport& report, const std::string& variant,
                                    const DeviceInfo& info);

// tuned.json: the winners of every sweep, keyed by backend, platform, device name, driver
// version, app and variant. A missing file reads as empty; a corrupt one reads as empty with a
// warning (and is replaced by the next save). Saves are atomic (temporary file, then rename).
class TuningStore {
  public:
    // $DUET_CACHE_DIR/tuned.json, else the program cache's directory; "" when caching is off.
    static std::string default_path();
    // Reads `path` ("" : an empty store that cannot be saved).
    explicit TuningStore(std::string path);

    // The entry of app/variant for this device, if any.
    const TunedEntry* find(const DeviceInfo& info, const std::string& app,
                           const std::string& variant) const;
    // Adds `e`, replacing the entry with the same key.
    void put(TunedEntry e);
    // Writes the store; on failure returns false and sets `why`.
    bool save(std::string* why = nullptr) const;

    const std::vector<TunedEntry>& entries() const { return entries_; }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
    std::vector<TunedEntry> entries_;
};

// Adds the stored parameters of `variant` on `info`'s device to `cfg`, unless they would
// contradict what the caller set (its own defines of those names, or a local size where the
// point is the work-group). Only the variant's own parameter names are applied, so a hand-edited
// file cannot pass other options. Returns the note for the result ("tuned: BEST_BM=64,…"), or
// "" when nothing applied.
std::string apply_tuned(const TuningStore& store, const DeviceInfo& info, const App& app,
                        const Variant& variant, RunConfig& cfg);

} // namespace duet::apps
