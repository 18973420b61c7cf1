// The on-disk program cache. An entry is one file named by the key:
//   "DUETCACHE2\n" <description> "\n" <payload size, 16 hex> "\n" <HMAC-SHA256, 64 hex> "\n"
//   <payload>
// The HMAC covers the key, the description, the size and the payload under a secret that lives
// in the cache directory's key file (0600), never in an entry: whoever can write an entry but
// not read the key cannot make one that loads. PoCL's binaries hold native code, so an entry
// that does not authenticate is a miss and is rebuilt, never handed to a driver. The directory
// must be private (private_files.cpp); otherwise the run goes on uncached, with one warning.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <duet/backend/log.hpp>
#include <duet/backend/private_files.hpp>
#include <duet/backend/program_cache.hpp>

namespace duet {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view magic = "DUETCACHE2\n";
constexpr std::size_t secret_bytes = 32;
constexpr std::size_t max_entry_bytes = std::size_t(1) << 30; // far above any program binary
constexpr std::size_t max_header_bytes = 4096;

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string hex(const unsigned char* p, std::size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}

std::string hex64(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

std::string default_dir() {
    if (const char* d = std::getenv("DUET_CACHE_DIR"))
        return d; // an empty value turns the cache off
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return std::string(x) + "/duet";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/duet";
    return {};
}

// The entry's MAC over everything that gives it meaning: the key (so an entry cannot be moved
// to another name), the description, the size line and the payload.
std::string mac_of(const std::string& secret, const std::string& key, std::string_view desc,
                   std::string_view size_line, std::string_view payload) {
    std::string msg;
    msg.reserve(key.size() + desc.size() + size_line.size() + payload.size() + 16);
    msg.append(magic).append(key).push_back('\0');
    msg.append(desc).push_back('\0');
    msg.append(size_line).push_back('\0');
    msg.append(payload);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
              reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), md, &len))
        return {};
    return hex(md, len);
}

// The parts of an entry file, or nothing when it is not one.
struct Parsed {
    std::string_view description, size_line, mac, payload;
};
std::optional<Parsed> parse(std::string_view f) {
    if (f.substr(0, magic.size()) != magic)
        return std::nullopt;
    Parsed p;
    std::size_t at = magic.size();
    auto line = [&](std::string_view& out) {
        const auto nl = f.find('\n', at);
        if (nl == std::string_view::npos || nl - at > max_header_bytes)
            return false;
        out = f.substr(at, nl - at);
        at = nl + 1;
        return true;
    };
    if (!line(p.description) || !line(p.size_line) || !line(p.mac) || p.size_line.size() != 16 ||
        p.mac.size() != 64)
        return std::nullopt;
    std::uint64_t size = 0;
    try {
        size = std::stoull(std::string(p.size_line), nullptr, 16);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (size != f.size() - at) // bounded by the header: short or long files are not entries
        return std::nullopt;
    p.payload = f.substr(at);
    return p;
}

} // namespace

ProgramCache& ProgramCache::instance() {
    static ProgramCache cache(default_dir());
    return cache;
}

ProgramCache::ProgramCache(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty())
        return;
    std::string why;
    if (!make_private_dir(dir_, &why) || !load_secret(&why)) {
        why_off_ = why;
        log().warn("program cache off, running uncached: {}", why);
        return;
    }
    enabled_ = true;
}

bool ProgramCache::load_secret(std::string* why) {
    const std::string path = dir_ + "/cache.key";
    for (int attempt = 0; attempt < 2; ++attempt) {
        std::string err;
        if (auto s = read_private_file(path, 4096, &err)) {
            struct stat st {};
            if (::lstat(path.c_str(), &st) != 0 || (st.st_mode & 077) ||
                s->size() != secret_bytes) {
                *why = "the cache key " + path + " is not a private " +
                       std::to_string(secret_bytes) + "-byte file; remove it (rm " + path +
                       ") and Duet makes a new one";
                return false;
            }
            secret_ = std::move(*s);
            return true;
        }
        if (!err.empty()) {
            *why = err + "; remove it (rm " + path + ") and Duet makes a new one";
            return false;
        }
        // No key yet: write one privately and link it into place; link() fails if another
        // process got there first, and then its key is read.
        std::string fresh(secret_bytes, '\0');
        if (RAND_bytes(reinterpret_cast<unsigned char*>(fresh.data()), secret_bytes) != 1) {
            *why = "no random bytes for the cache key";
            return false;
        }
        const std::string tmp = dir_ + "/.cache.key.new." + std::to_string(::getpid());
        ::unlink(tmp.c_str());
        if (!write_private_file(tmp, fresh, &err)) {
            *why = err;
            return false;
        }
        const int rc = ::link(tmp.c_str(), path.c_str());
        ::unlink(tmp.c_str());
        OPENSSL_cleanse(fresh.data(), fresh.size());
        if (rc != 0 && errno != EEXIST) {
            *why = "cannot create the cache key " + path + ": " + std::strerror(errno);
            return false;
        }
    }
    *why = "cannot read the cache key " + dir_ + "/cache.key";
    return false;
}

std::string ProgramCache::key(const std::vector<std::string_view>& parts) {
    std::uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
    for (auto p : parts) {
        const std::uint64_t len = p.size(); // the length keeps ("ab","c") apart from ("a","bc")
        a = fnv1a(&len, sizeof len, fnv1a(p.data(), p.size(), a));
        b = fnv1a(p.data(), p.size(), fnv1a(&len, sizeof len, b));
    }
    return hex64(a) + hex64(b);
}

std::string ProgramCache::path_for(const std::string& key) const {
    return dir_ + "/" + key + ".bin";
}

std::optional<std::vector<unsigned char>> ProgramCache::load(const std::string& key) const {
    if (!enabled_)
        return std::nullopt;
    std::string why;
    const auto file = read_private_file(path_for(key), max_entry_bytes, &why);
    if (!file) {
        if (!why.empty())
            log().warn("program cache: ignoring {}: {}", path_for(key), why);
        return std::nullopt;
    }
    const auto p = parse(*file);
    const std::string want =
        p ? mac_of(secret_, key, p->description, p->size_line, p->payload) : std::string();
    if (!p || want.empty() || CRYPTO_memcmp(want.data(), p->mac.data(), want.size()) != 0) {
        log().warn("program cache entry {} is damaged or not signed by this cache's key; "
                   "rebuilding it",
                   path_for(key));
        return std::nullopt;
    }
    return std::vector<unsigned char>(p->payload.begin(), p->payload.end());
}

void ProgramCache::store(const std::string& key, const std::vector<unsigned char>& data,
                         const std::string& description) const {
    if (!enabled_ || data.size() > max_entry_bytes)
        return;
    std::string desc = description.substr(0, max_header_bytes);
    for (auto& c : desc)
        if (c == '\n')
            c = ' ';
    const std::string_view payload(reinterpret_cast<const char*>(data.data()), data.size());
    const std::string size_line = hex64(data.size());
    std::string file;
    file.reserve(data.size() + 256);
    file.append(magic).append(desc).append("\n").append(size_line).append("\n");
    file.append(mac_of(secret_, key, desc, size_line, payload)).append("\n").append(payload);
    std::string why;
    if (!write_private_file(path_for(key), file, &why))
        log().warn("program cache: {}; continuing without caching it", why);
}

void ProgramCache::remove(const std::string& key) const {
    if (enabled_)
        ::unlink(path_for(key).c_str()); // unlink removes a link itself, never its target
}

namespace {

bool all_of_class(std::string_view s, int (*is)(int)) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
        return is(static_cast<unsigned char>(c)) != 0;
    });
}

// The names of Duet's own temporary files in the cache directory, which a process killed while
// writing leaves behind: ".KEY.bin.XXXXXX" and ".tuned.json.XXXXXX" (write_private_file), and
// ".cache.key.new.PID" with its own ".cache.key.new.PID.XXXXXX". Nothing else matches.
bool duet_temp_name(std::string_view f) {
    if (f.size() < 2 || f[0] != '.')
        return false;
    f.remove_prefix(1);
    const std::string_view key_tmp = "cache.key.new.";
    if (f.substr(0, key_tmp.size()) == key_tmp && all_of_class(f.substr(key_tmp.size()), isdigit))
        return true;
    if (f.size() < 8 || f[f.size() - 7] != '.' || !all_of_class(f.substr(f.size() - 6), isalnum))
        return false;
    const std::string_view base = f.substr(0, f.size() - 7);
    if (base == "tuned.json")
        return true;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".bin")
        return all_of_class(base.substr(0, base.size() - 4), isxdigit);
    return base.size() > 1 && base[0] == '.' && base.substr(1, key_tmp.size()) == key_tmp &&
           all_of_class(base.substr(1 + key_tmp.size()), isdigit);
}

} // namespace

std::vector<ProgramCache::Entry> ProgramCache::list() const {
    std::vector<Entry> out;
    if (dir_.empty())
        return out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (duet_temp_name(e.path().filename().string())) {
            struct stat st {};
            // Only a regular file of the user's own: never a link, never someone else's file.
            if (::lstat(e.path().c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
                st.st_uid == ::geteuid())
                out.push_back({e.path().string(),
                               "(unfinished write of an interrupted run: cache clear removes it)",
                               static_cast<std::uint64_t>(st.st_size), false, true});
            continue;
        }
        if (e.path().extension() != ".bin")
            continue;
        Entry en;
        en.path = e.path().string();
        struct stat st {};
        if (::lstat(en.path.c_str(), &st) != 0)
            continue;
        en.bytes = static_cast<std::uint64_t>(st.st_size);
        std::string why;
        const auto file =
            S_ISREG(st.st_mode) ? read_private_file(en.path, max_entry_bytes, &why) : std::nullopt;
        const auto p = file ? parse(*file) : std::nullopt;
        if (p) {
            en.description = std::string(p->description);
            en.duet_entry = true;
        } else {
            en.description = "(not a Duet cache entry: left alone)";
        }
        out.push_back(std::move(en));
    }
    return out;
}

std::size_t ProgramCache::clear() const {
    std::size_t n = 0;
    for (const auto& e : list())
        if ((e.duet_entry || e.unfinished) && ::unlink(e.path.c_str()) == 0)
            ++n;
    return n;
}

} // namespace duet
