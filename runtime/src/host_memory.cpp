// See host_memory.hpp.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/resource.h>
#include <sys/sysinfo.h>

#include <duet/host_memory.hpp>

namespace duet {

namespace {

constexpr std::uint64_t unknown = ~std::uint64_t{0};

// The number after `key` in a "Key: value kB" file (/proc/meminfo, /proc/self/status), in bytes.
std::uint64_t kib_field(const char* file, const std::string& key) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);)
        if (line.compare(0, key.size(), key) == 0) {
            std::istringstream fields(line.substr(key.size()));
            std::uint64_t kib = 0;
            return fields >> kib ? kib * 1024 : unknown;
        }
    return unknown;
}

// A cgroup file's one number ("max" or missing: unknown).
std::uint64_t number_in(const std::string& file) {
    std::ifstream in(file);
    unsigned long long v = 0;
    return in >> v ? v : unknown;
}

// limit - usage of the cgroup at `dir` and each ancestor up to `root`, the smallest.
std::uint64_t cgroup_room(std::string root, std::string dir, const char* limit, const char* usage) {
    std::uint64_t room = unknown;
    for (;;) {
        const std::uint64_t l = number_in(root + dir + "/" + limit);
        const std::uint64_t u = number_in(root + dir + "/" + usage);
        if (l != unknown && l < (std::uint64_t{1} << 62)) // v1 says "no limit" with ~2^63
            room = std::min(room, u != unknown && u < l ? l - u : 0);
        if (dir.empty() || dir == "/")
            return room;
        dir.erase(dir.find_last_of('/'));
    }
}

// What the memory cgroup of this process (v2: memory.max - memory.current; v1:
// memory.limit_in_bytes - memory.usage_in_bytes, its ancestors' too) leaves.
std::uint64_t cgroup_available() {
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    std::uint64_t room = unknown;
    while (std::getline(in, line)) {
        const auto a = line.find(':'), b = line.find(':', a + 1);
        if (a == std::string::npos || b == std::string::npos)
            continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controllers.empty()) // v2
            room = std::min(room, cgroup_room("/sys/fs/cgroup", path == "/" ? "" : path,
                                              "memory.max", "memory.current"));
        else if (("," + controllers + ",").find(",memory,") != std::string::npos)
            for (const std::string& dir : {path == "/" ? std::string() : path, std::string()})
                if (const auto r = cgroup_room("/sys/fs/cgroup/memory", dir,
                                               "memory.limit_in_bytes", "memory.usage_in_bytes");
                    r != unknown) { // the path as given, or (a container's view) the root
                    room = std::min(room, r);
                    break;
                }
    }
    return room;
}

// RLIMIT_AS less the address space already in use (VmSize).
std::uint64_t address_space_available() {
    rlimit lim{};
    if (::getrlimit(RLIMIT_AS, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
        return unknown;
    const std::uint64_t used = kib_field("/proc/self/status", "VmSize:");
    return used == unknown ? std::uint64_t(lim.rlim_cur)
                           : (used < lim.rlim_cur ? lim.rlim_cur - used : 0);
}

} // namespace

std::uint64_t host_memory_available() {
    std::uint64_t avail = kib_field("/proc/meminfo", "MemAvailable:");
    if (avail == unknown) {
        struct sysinfo si {};
        avail = ::sysinfo(&si) == 0 ? (std::uint64_t(si.freeram) + si.bufferram) * si.mem_unit
                                    : unknown;
    }
    avail = std::min({avail, cgroup_available(), address_space_available()});
    return avail == unknown ? 0 : std::max<std::uint64_t>(avail, 1);
}

std::string bytes_text(std::uint64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        ++u;
    }
    char buf[48];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

} // namespace duet
