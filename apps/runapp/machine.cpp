#include <cstdlib>
#include <fstream>
#include <string>

#include <sys/utsname.h>
#include <unistd.h>

#include "machine.hpp"

namespace runapp {

namespace {

// The value of the first line of `path` that starts with `key`, after the separator `sep`.
std::string field(const char* path, const std::string& key, char sep) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(key, 0) == 0) {
            const auto p = line.find(sep);
            if (p == std::string::npos)
                continue;
            std::string v = line.substr(p + 1);
            const auto b = v.find_first_not_of(" \t\"");
            const auto e = v.find_last_not_of(" \t\"");
            return b == std::string::npos ? std::string() : v.substr(b, e - b + 1);
        }
    return {};
}

} // namespace

nlohmann::json machine_info() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    std::string cpu = field("/proc/cpuinfo", "model name", ':');
    if (cpu.empty())
        cpu = field("/proc/cpuinfo", "Model", ':'); // Arm boards
    struct utsname u {};
    const bool have_uname = uname(&u) == 0;
    std::string os = field("/etc/os-release", "PRETTY_NAME=", '=');
    if (os.empty() && have_uname)
        os = u.sysname;
    return {{"host", host},
            {"cpu", cpu},
            {"cpus", static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))},
            {"os", os},
            {"kernel", have_uname ? std::string(u.release) : std::string()}};
}

double peak_gflops(const duet::DeviceInfo& info) {
    // FP32 lanes per SM by NVIDIA compute capability, from NVIDIA's programming guide table;
    // the architecture names it, "sm_" and major and minor ("sm_90", "sm_120").
    const std::string& arch = info.architecture;
    if (arch.size() < 5 || arch.rfind("sm_", 0) != 0 || info.compute_units <= 0 ||
        info.clock_mhz <= 0)
        return 0;
    const int sm = std::atoi(arch.c_str() + 3), major = sm / 10, minor = sm % 10;
    if (major <= 0)
        return 0;
    int lanes = 0;
    if (major == 5 || (major == 6 && minor != 0) || (major == 8 && minor != 0) || major >= 9)
        lanes = 128;
    else if (major == 6 || major == 7 || major == 8)
        lanes = 64;
    return lanes * 2.0 * info.compute_units * info.clock_mhz * 1e6 / 1e9;
}

} // namespace runapp
