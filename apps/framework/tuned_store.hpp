#pragma once
// tuned.json: the winners of `runapp tune`, per device, and the rule that applies them to runs
// (`runapp run` and `runapp compare` use them by default).
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"
#include "tune_sweep.hpp"

namespace duet::apps {

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
