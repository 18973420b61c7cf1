// See host_memory.hpp.
#include <cstdio>
#include <fstream>
#include <string>

#include <sys/sysinfo.h>

#include <duet/backend/host_memory.hpp>

namespace duet {

std::uint64_t host_memory_available() {
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t kib = 0;
    std::string unit;
    while (in >> key >> kib >> unit)
        if (key == "MemAvailable:")
            return kib * 1024;
    struct sysinfo si {};
    if (::sysinfo(&si) == 0)
        return (std::uint64_t(si.freeram) + si.bufferram) * si.mem_unit;
    return 0;
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
