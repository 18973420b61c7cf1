#pragma once
// The sweep of `runapp tune APP`: every point of the tuning spaces of the app's steps (their
// records' TuneSpace, tune_space.hpp) through App::run with full verification; per step the
// fastest point that passes. Stored by tuned_store.hpp.
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "tune_space.hpp"

namespace duet::apps {

// The tuning space of `app`'s step `variant` (nullptr: nothing to tune).
const TuneSpace* tune_space_of(const App& app, const std::string& variant);

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

} // namespace duet::apps
