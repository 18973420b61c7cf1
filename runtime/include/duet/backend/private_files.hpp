#pragma once
// Files only the user can plant: a private directory (0700, owned by the user, every ancestor
// safe), bounded reads of regular files only, and writes through unique temporary files renamed
// into place. Used by the program cache and the tuning store.
#include <cstddef>
#include <optional>
#include <string>

namespace duet {

// What check_trusted_path asks of a path: which variable named it (for the fix in the message),
// whether it must be a directory or a regular file, and whether root may own it.
struct TrustRule {
    std::string variable; // "DUET_CACHE_DIR", "DUET_BACKEND_PATH"
    bool directory = true;
    bool root_may_own = false;
};

// Checks that no one but the user (and root, when the rule allows) can change `path`: no link
// on the way owned by someone else, the real path is a directory (or regular file) owned by the
// user and not writable by group or others, and each ancestor is owned by the user or root and,
// if others can write it, sticky (/tmp). False with the reason and the fix in `why`.
bool check_trusted_path(const std::string& path, const TrustRule& rule, std::string* why);

// False, with the reason and `fix` in `why`, when a symbolic link on `path` (as given) belongs
// to someone other than the user or root: they could repoint it at any file the user can read.
bool check_links(const std::string& path, const std::string& fix, std::string* why);

// Creates `dir` (missing components 0700 whatever the umask, where the kernel resolves the path)
// and checks it with check_trusted_path (owned by the user). `variable` names the setting in
// the message.
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
