// The host CPU as the native reference rows describe it, its threads and its clock.
#include <algorithm>
#include <fstream>
#include <thread>
#include <vector>

#include "native.hpp"

namespace duet::apps::native {

namespace {

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon == std::string::npos)
                break;
            auto s = line.substr(colon + 1);
            s.erase(0, s.find_first_not_of(" \t"));
            // "Intel(R) Xeon(R) Platinum 8480+" reads better without the marks
            for (const char* mark : {"(R)", "(TM)", "(tm)"})
                for (std::size_t at; (at = s.find(mark)) != std::string::npos;)
                    s.erase(at, std::string(mark).size());
            return s;
        }
    return "unknown CPU";
}

} // namespace

const HostCpu& host_cpu() {
    static const HostCpu cpu = [] {
        HostCpu c;
        c.model = cpu_model();
        c.threads = std::max(1u, std::thread::hardware_concurrency());
#if defined(__x86_64__) || defined(__i386__)
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx512f"))
            c.vector_bits = 512, c.isa = "AVX-512";
        else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
            c.vector_bits = 256, c.isa = "AVX2";
        else
            c.vector_bits = 128, c.isa = "SSE2";
#else
        c.vector_bits = 128, c.isa = "128-bit SIMD";
#endif
        return c;
    }();
    return cpu;
}

std::string device_name(const std::string& library) {
    const HostCpu& c = host_cpu();
    return "host CPU (" + c.model + ", " + std::to_string(c.threads) +
           (c.threads == 1 ? " thread, " : " threads, ") + c.isa +
           (library.empty() ? "" : ", " + library) + ")";
}

} // namespace duet::apps::native
