#pragma once
// The on-disk cache of built programs (OpenCL binaries, CUDA cubins), shared by the backends.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace duet {

// Content-addressed cache in a private directory. Entries carry an HMAC under a per-directory
// secret key; an entry that does not authenticate reads as a miss.
class ProgramCache {
  public:
    // One file in the cache, for `runapp cache ls`.
    struct Entry {
        std::string path, description;
        std::uint64_t bytes = 0;
        bool duet_entry = false; // a Duet entry by its header (removed by clear)
        bool unfinished = false; // Duet's own temporary file left by a killed write (removed)
    };
    // The process-wide cache in DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else ~/.cache/duet.
    static ProgramCache& instance();
    // A cache rooted at `dir` ("" disables caching).
    explicit ProgramCache(std::string dir);

    // Hex key over every part (source, options, device, driver, duet version, ...).
    static std::string key(const std::vector<std::string_view>& parts);
    // The payload stored under `key`, or nothing (missing, truncated, corrupt, unreadable).
    std::optional<std::vector<unsigned char>> load(const std::string& key) const;
    // Stores atomically (temp file, then rename); failures only log, they never throw.
    void store(const std::string& key, const std::vector<unsigned char>& data,
               const std::string& description) const;
    // Deletes the entry (after it failed to load as a program).
    void remove(const std::string& key) const;
    // All entries.
    std::vector<Entry> list() const;
    // Deletes every Duet entry (never other files or links); returns how many.
    std::size_t clear() const;
    // Directory in use ("" when caching is off).
    const std::string& dir() const { return dir_; }
    // False when no directory was set, or it is not private to the user, or unusable.
    bool enabled() const { return enabled_; }
    // Why the cache is off ("" when it is on or no directory was set).
    const std::string& why_off() const { return why_off_; }

  private:
    std::string path_for(const std::string& key) const;
    bool load_secret(std::string* why);
    std::string dir_, why_off_, secret_;
    bool enabled_ = false;
};

} // namespace duet
