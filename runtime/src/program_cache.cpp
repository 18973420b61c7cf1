// The on-disk program cache. An entry is one file named by the key:
//   "DUETCACHE1\n" <description> "\n" <payload size, 16 hex> <payload FNV-1a, 16 hex> "\n" <payload>
// A file that is short, has the wrong magic, size or checksum reads as a miss, so a torn or
// corrupted entry is rebuilt rather than handed to a driver. Writes go to a unique temporary
// file renamed into place, so concurrent processes never see a partial entry.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

#include <duet/backend/log.hpp>
#include <duet/backend/program_cache.hpp>

namespace duet {

namespace fs = std::filesystem;

namespace {

constexpr const char* magic = "DUETCACHE1\n";

std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
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

} // namespace

ProgramCache& ProgramCache::instance() {
    static ProgramCache cache(default_dir());
    return cache;
}

ProgramCache::ProgramCache(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty())
        return;
    std::error_code ec;
    fs::create_directories(dir_, ec);
    // Writability is what matters: a read-only directory means no cache, not a failure.
    enabled_ = !ec && fs::is_directory(dir_, ec) && ::access(dir_.c_str(), W_OK | R_OK) == 0;
    if (!enabled_)
        log().info("program cache off: directory {} is not writable", dir_);
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

std::string ProgramCache::path_for(const std::string& key) const { return dir_ + "/" + key + ".bin"; }

std::optional<std::vector<unsigned char>> ProgramCache::load(const std::string& key) const {
    if (!enabled_)
        return std::nullopt;
    std::ifstream in(path_for(key), std::ios::binary);
    if (!in)
        return std::nullopt;
    std::string line;
    if (!std::getline(in, line) || line + "\n" != magic)
        return std::nullopt;
    std::string description, header;
    if (!std::getline(in, description) || !std::getline(in, header) || header.size() != 32)
        return std::nullopt;
    std::uint64_t size = 0, sum = 0;
    try {
        size = std::stoull(header.substr(0, 16), nullptr, 16);
        sum = std::stoull(header.substr(16), nullptr, 16);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (size > (1ULL << 32))
        return std::nullopt;
    std::vector<unsigned char> data(size);
    in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(size));
    if (static_cast<std::uint64_t>(in.gcount()) != size || in.peek() != EOF ||
        fnv1a(data.data(), data.size(), 0xcbf29ce484222325ULL) != sum) {
        log().warn("program cache entry {} is damaged; rebuilding it", path_for(key));
        return std::nullopt;
    }
    return data;
}

void ProgramCache::store(const std::string& key, const std::vector<unsigned char>& data,
                         const std::string& description) const {
    if (!enabled_)
        return;
    static std::atomic<unsigned> counter{0};
    const std::string tmp = dir_ + "/." + key + "." + std::to_string(::getpid()) + "." +
                            std::to_string(counter++) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        std::string desc = description;
        for (auto& c : desc)
            if (c == '\n')
                c = ' ';
        out << magic << desc << "\n"
            << hex64(data.size()) << hex64(fnv1a(data.data(), data.size(), 0xcbf29ce484222325ULL))
            << "\n";
        out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
        if (!out.good()) {
            std::error_code ec;
            fs::remove(tmp, ec);
            log().warn("program cache: could not write {}; continuing without caching it", tmp);
            return;
        }
    }
    std::error_code ec;
    fs::rename(tmp, path_for(key), ec);
    if (ec) {
        fs::remove(tmp, ec);
        log().warn("program cache: could not rename into {}: {}", path_for(key), ec.message());
    }
}

void ProgramCache::remove(const std::string& key) const {
    std::error_code ec;
    fs::remove(path_for(key), ec);
}

std::vector<ProgramCache::Entry> ProgramCache::list() const {
    std::vector<Entry> out;
    if (dir_.empty())
        return out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        if (!e.is_regular_file() || e.path().extension() != ".bin")
            continue;
        Entry en;
        en.path = e.path().string();
        en.bytes = e.file_size(ec);
        std::ifstream in(e.path(), std::ios::binary);
        std::string line;
        if (std::getline(in, line) && line + "\n" == magic)
            std::getline(in, en.description);
        else
            en.description = "(not a Duet cache entry)";
        out.push_back(std::move(en));
    }
    return out;
}

std::size_t ProgramCache::clear() const {
    std::size_t n = 0;
    for (const auto& e : list()) {
        std::error_code ec;
        if (fs::remove(e.path, ec))
            ++n;
    }
    return n;
}

} // namespace duet
