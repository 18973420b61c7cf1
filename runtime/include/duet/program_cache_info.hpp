#pragma once
// The on-disk program cache as tools see it (runapp cache): where it is, whether it is on, what
// it holds, and clearing it. The cache itself is the backends' (duet/backend/program_cache.hpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace duet {

// Where the process-wide program cache is and whether it is used.
struct ProgramCacheStatus {
    std::string dir;      // "" when caching is off because no directory could be chosen
    bool enabled = false; // false: no directory, or one that is not private to the user
    std::string why_off;  // why a directory that is set is not used ("" otherwise)
};

// One file in the cache directory.
struct CachedProgram {
    std::string path, description;
    std::uint64_t bytes = 0;
    bool duet_entry = false; // a Duet entry by its header (removed by clear)
    bool unfinished = false; // Duet's own temporary file left by a killed write (removed)
};

// The cache in DUET_CACHE_DIR, else $XDG_CACHE_HOME/duet, else ~/.cache/duet.
ProgramCacheStatus program_cache_status();
// Every file in it.
std::vector<CachedProgram> program_cache_list();
// Removes every Duet entry and unfinished temporary file (never other files or links); returns
// how many.
std::size_t program_cache_clear();

} // namespace duet
