// See private_files.hpp. Path checks use lstat on every component of the real path, so a link
// or a directory someone else can write is seen before anything is read from or written to it.
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <duet/backend/private_files.hpp>

namespace duet {

namespace fs = std::filesystem;

namespace {

bool fail(std::string* why, std::string msg) {
    if (why)
        *why = std::move(msg);
    return false;
}

std::string err(int e) {
    return std::strerror(e);
}

std::string octal(mode_t m) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
    return buf;
}

// Creates the missing components of `dir`, each 0700 (chmod after mkdir: the umask only
// narrows, but a 0700 directory must not depend on it).
bool create_missing(const fs::path& dir, std::string* why) {
    std::vector<fs::path> missing;
    for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) == 0)
            break;
        if (errno != ENOENT)
            return fail(why, "cannot inspect " + p.string() + ": " + err(errno));
        missing.push_back(p);
        if (p == p.parent_path())
            break;
    }
    for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
            return fail(why, "cannot create " + it->string() + ": " + err(errno));
        struct stat st {};
        // Only a directory this process made and owns is narrowed; one that appeared meanwhile
        // is judged by the checks below.
        if (::lstat(it->c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid())
            ::chmod(it->c_str(), 0700);
    }
    return true;
}

// A symbolic link on the way is followed by every later open: one that someone else owns can
// be pointed at their own directory after the checks have passed. Checked on the path as given
// (not lexically normalised): in "LINK/../x" the kernel follows LINK before "..".
bool links_trusted(const fs::path& given, const std::string& what, const std::string& fix,
                   std::string* why) {
    const uid_t me = ::geteuid();
    fs::path prefix;
    for (const auto& part : given) {
        prefix /= part;
        struct stat ls {};
        if (::lstat(prefix.c_str(), &ls) == 0 && S_ISLNK(ls.st_mode) && ls.st_uid != me &&
            ls.st_uid != 0)
            return fail(why, what + " goes through the symbolic link " + prefix.string() +
                                 ", owned by uid " + std::to_string(ls.st_uid) +
                                 ": they could point it elsewhere. " + fix);
    }
    return true;
}

// Every ancestor of the real path `rp` is owned by the user or root and, when group or others
// can write it, sticky (as /tmp is).
bool ancestors_trusted(const fs::path& rp, const std::string& what, const std::string& variable,
                       std::string* why) {
    const uid_t me = ::geteuid();
    for (fs::path p = rp.parent_path(); !p.empty(); p = p.parent_path()) {
        struct stat a {};
        if (::lstat(p.c_str(), &a) != 0)
            return fail(why, "cannot inspect " + p.string() + ": " + err(errno));
        const bool owner_ok = a.st_uid == me || a.st_uid == 0;
        const bool others_write = a.st_mode & (S_IWGRP | S_IWOTH);
        if (!owner_ok || (others_write && !(a.st_mode & S_ISVTX)))
            return fail(why, what + " lies under " + p.string() +
                                 ", which someone else can change (owner uid " +
                                 std::to_string(a.st_uid) + ", mode " + octal(a.st_mode) +
                                 "): they could swap it. Point " + variable +
                                 " at a path of your own");
        if (p == p.parent_path())
            break;
    }
    return true;
}

} // namespace

bool check_trusted_path(const std::string& path, const TrustRule& rule, std::string* why) {
    if (path.empty())
        return fail(why, "no path");
    const fs::path given = fs::absolute(fs::path(path));
    if (!links_trusted(given, path, "Point " + rule.variable + " at a path of your own", why))
        return false;
    char real[PATH_MAX];
    if (!::realpath(given.c_str(), real))
        return fail(why, "cannot resolve " + given.string() + ": " + err(errno));
    const uid_t me = ::geteuid();
    struct stat st {};
    if (::lstat(real, &st) != 0 || (rule.directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)))
        return fail(why,
                    path + (rule.directory ? " is not a directory" : " is not a regular file"));
    if (st.st_uid != me && !(rule.root_may_own && st.st_uid == 0))
        return fail(why, path + " is owned by uid " + std::to_string(st.st_uid) +
                             ", not by you (uid " + std::to_string(me) +
                             (rule.root_may_own ? ") or root" : ")") +
                             ": someone else could plant files there. Point " + rule.variable +
                             " at a path of your own");
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return fail(why, path +
                             " is writable by group or others: someone else could plant files "
                             "there. Fix: chmod " +
                             (rule.directory ? "700 " : "go-w ") + std::string(real));
    return ancestors_trusted(fs::path(real), path, rule.variable, why);
}

bool check_links(const std::string& path, const std::string& fix, std::string* why) {
    return links_trusted(fs::absolute(fs::path(path)), path, fix, why);
}

bool make_private_dir(const std::string& dir, std::string* why, const std::string& variable) {
    if (dir.empty())
        return fail(why, "no directory");
    const fs::path given = fs::absolute(fs::path(dir));
    // Links are judged before anything is created through them; the directories are then made
    // where the kernel resolves the path ("LINK/../x" is beside LINK's target, not beside LINK).
    if (!links_trusted(given, dir, "Point " + variable + " at a path of your own", why))
        return false;
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(given, ec);
    if (ec)
        return fail(why, "cannot resolve " + given.string() + ": " + ec.message());
    if (!create_missing(real, why))
        return false;
    return check_trusted_path(dir, TrustRule{variable, true, false}, why);
}

std::optional<std::string> read_private_file(const std::string& path, std::size_t max_bytes,
                                             std::string* why) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            fail(why, "cannot open " + path + ": " +
                          (errno == ELOOP ? "it is a symbolic link" : err(errno)));
        else if (why)
            why->clear();
        return std::nullopt;
    }
    struct stat st {};
    std::string out;
    if (::fstat(fd, &st) != 0) {
        fail(why, "cannot inspect " + path + ": " + err(errno));
    } else if (!S_ISREG(st.st_mode)) {
        fail(why, path + " is not a regular file (a FIFO, device or directory)");
    } else if (st.st_uid != ::geteuid()) {
        fail(why, path + " is not owned by you");
    } else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        fail(why, path + " is writable by group or others (mode " + octal(st.st_mode) +
                      "): someone else could change it. Fix: chmod go-w " + path);
    } else if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
        fail(why, path + " is " + std::to_string(st.st_size) + " bytes, more than the " +
                      std::to_string(max_bytes) + " such a file may hold");
    } else {
        out.resize(static_cast<std::size_t>(st.st_size));
        std::size_t got = 0;
        while (got < out.size()) {
            const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            got += static_cast<std::size_t>(n);
        }
        char extra;
        if (got != out.size() || ::read(fd, &extra, 1) != 0)
            fail(why, path + " changed while it was read");
        else {
            ::close(fd);
            return out;
        }
    }
    ::close(fd);
    return std::nullopt;
}

bool write_private_file(const std::string& path, const std::string& data, std::string* why) {
    const fs::path target(path);
    std::string tmpl =
        (target.parent_path() / ("." + target.filename().string() + ".XXXXXX")).string();
    // mkstemp opens with O_CREAT|O_EXCL and mode 0600: a link planted at the name fails it.
    const int fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0)
        return fail(why, "cannot create a temporary file next to " + path + ": " + err(errno));
    ::fchmod(fd, 0600);
    std::size_t done = 0;
    bool ok = true;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            ok = fail(why, "cannot write " + tmpl + ": " + err(errno));
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 && ok)
        ok = fail(why, "cannot write " + tmpl + ": " + err(errno));
    // rename replaces a link at `path` itself, never the file it points to.
    if (ok && ::rename(tmpl.c_str(), path.c_str()) != 0)
        ok = fail(why, "cannot rename " + tmpl + " to " + path + ": " + err(errno));
    if (!ok)
        ::unlink(tmpl.c_str());
    return ok;
}

} // namespace duet
