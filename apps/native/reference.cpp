// The native reference rows of a run and the speed-ups over them.
#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "native/native.hpp"
#include "native/reference.hpp"

namespace duet::apps {

Result App::run_native(const RunConfig& cfg, const std::string& variant) const {
    (void)cfg;
    throw Error(ErrorKind::unsupported, "", "", 0, "",
                name() + " has no native CPU reference (for " + variant + ")");
}

Result native_result(const std::string& app, const std::string& variant,
                     const std::vector<std::size_t>& dims, const RunConfig& cfg,
                     const std::string& library) {
    heartbeat(); // a new row: the watchdog's clock starts again
    Result r;
    r.app = app;
    r.variant = variant;
    r.backend = "native";
    r.device_id = "native";
    r.device_name = native::device_name(library);
    r.size_label = dims_label(dims);
    r.seed = cfg.seed;
    r.clock = "host (native reference: steady_clock around each run)";
    r.provenance = "native code"; // no program was built or loaded
    return r;
}

namespace {

// A row that ran, passed (or was not checked) and has a plausible time.
bool timed(const Result& r) {
    return !r.skipped && !r.implausible && !(r.verified && !r.pass) && r.kernel_ms.median > 0;
}

} // namespace

std::vector<Result> run_native_references(std::vector<Result>& rows, const RunConfig& base,
                                          std::vector<std::string>& notes) {
    using Key = std::tuple<std::string, std::string, std::string>; // app, size, native variant
    std::map<Key, std::size_t> done; // index into out, or npos when it could not run
    std::vector<Result> out;
    for (const Result& r : rows) {
        if (r.backend == "native" || r.size_label.empty())
            continue;
        const App& app = find_app(r.app);
        const Key key{r.app, r.size_label, app.native_variant(r.variant)};
        if (done.count(key))
            continue;
        RunConfig cfg = base;
        cfg.size = app.parse_size(r.size_label);
        cfg.local.reset();
        cfg.defines.clear();
        cfg.perturb_input = -1;
        try {
            out.push_back(app.run_native(cfg, r.variant));
            done[key] = out.size() - 1;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::unsupported && e.kind() != ErrorKind::usage)
                throw;
            notes.push_back(r.app + " " + r.size_label + ": no native reference: " + e.what());
            done[key] = std::string::npos;
        }
    }
    // The copy bandwidth of the memory-bound rows' bytes, measured once per byte count.
    std::map<double, double> copy;
    for (auto* list : {&out, &rows})
        for (Result& r : *list) {
            if (r.flops > 0 || r.bytes <= 0 || r.skipped)
                continue;
            if (!copy.count(r.bytes)) {
                const auto c = native::copy_bandwidth(static_cast<std::size_t>(r.bytes),
                                                      std::max(3, base.reps));
                copy[r.bytes] = c.gbs;
                if (list == &out) {
                    char line[200];
                    std::snprintf(line, sizeof line,
                                  "native copy of the same %.0f MB: %.1f GB/s (%s, %u threads; "
                                  "the other stores %.1f GB/s)",
                                  r.bytes / 1e6, c.gbs, c.method.c_str(),
                                  native::host_cpu().threads, c.other_gbs);
                    r.note += std::string(r.note.empty() ? "" : "; ") + line;
                }
            }
            r.native_copy_gbs = copy[r.bytes];
        }
    for (Result& r : rows) {
        if (r.backend == "native" || !timed(r))
            continue;
        const App& app = find_app(r.app);
        const auto it = done.find(Key{r.app, r.size_label, app.native_variant(r.variant)});
        if (it == done.end() || it->second == std::string::npos)
            continue;
        const Result& ref = out[it->second];
        if (timed(ref))
            r.x_cpu = ref.kernel_ms.median / r.kernel_ms.median;
    }
    return out;
}

} // namespace duet::apps
