#pragma once
// The checks behind <duet/private_files.hpp> (which this includes), for the runtime's own use:
// whether a path is one only the user (and root, where allowed) can change, and whether a link
// on it could be repointed. Used by the program cache and the plugin loader.
#include <string>

#include <duet/private_files.hpp>

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

} // namespace duet
