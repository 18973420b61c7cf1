#pragma once
// Files only the user can plant: a private directory (0700, owned by the user, every ancestor
// safe), bounded reads of regular files only, and writes through unique temporary files renamed
// into place. Used by the program cache and the tuning store.
#include <cstddef>
#include <optional>
#include <string>

namespace duet {

// Creates `dir` (missing components 0700 whatever the umask) and checks that no one else can
// plant files in it: the directory is owned by the user and not writable by group or others,
// and each ancestor is owned by the user or root and, if others can write it, sticky (/tmp).
// Returns false with the reason and the fix in `why`.
bool make_private_dir(const std::string& dir, std::string* why);

// Reads a regular file (never a FIFO, device or symlink: opened O_NOFOLLOW|O_NONBLOCK, then
// fstat) of at most `max_bytes`. nullopt when it does not exist; otherwise nullopt with `why`.
std::optional<std::string> read_private_file(const std::string& path, std::size_t max_bytes,
                                             std::string* why);

// Writes `data` to `path` (mode 0600) through a unique O_EXCL|O_NOFOLLOW temporary file in the
// same directory, then an atomic rename. Never follows a link planted at either name.
bool write_private_file(const std::string& path, const std::string& data, std::string* why);

} // namespace duet
