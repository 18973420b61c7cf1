#pragma once
// Files only the user can plant: a private directory (0700, owned by the user, every ancestor
// safe), bounded reads of regular files only, and writes through unique temporary files renamed
// into place. Duet's program cache keeps its files this way; an app that keeps its own state
// beside it (runapp's tuned.json) uses the same calls.
#include <cstddef>
#include <optional>
#include <string>

namespace duet {

// Creates `dir` (missing components 0700 whatever the umask, where the kernel resolves the path)
// and checks that no one but the user can change it (owned by the user, not writable by group or
// others, every ancestor owned by the user or root and sticky if others can write it). False
// with the reason and the fix in `why`; `variable` names the setting in the message.
bool make_private_dir(const std::string& dir, std::string* why,
                      const std::string& variable = "DUET_CACHE_DIR");

// Reads a regular file (never a FIFO, device or symlink: opened O_NOFOLLOW|O_NONBLOCK, then
// fstat) of the user's, writable by no one else, of at most `max_bytes`. nullopt when it does not
// exist; otherwise nullopt with `why`.
std::optional<std::string> read_private_file(const std::string& path, std::size_t max_bytes,
                                             std::string* why);

// Writes `data` to `path` (mode 0600) through a unique O_EXCL|O_NOFOLLOW temporary file in the
// same directory, then an atomic rename. Never follows a link planted at either name.
bool write_private_file(const std::string& path, const std::string& data, std::string* why);

} // namespace duet
