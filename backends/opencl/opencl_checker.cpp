// What Oclgrind has reported: its Logger counts every error and warning it prints (invalid
// accesses, data races, uninitialised reads, API errors) in one process-wide counter,
// oclgrind::Logger::m_numErrors, an exported symbol of its core library. Reading it lets a run
// fail when Oclgrind reported something during it, rather than leaving the messages on stderr
// beside a PASS. (Oclgrind has no setting that stops the program at its first error.)
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <link.h>

#include "opencl_device.hpp"

namespace duet::opencl {

namespace {

// The path of the loaded Oclgrind core library (liboclgrind-VERSION.so, not its -rt or -icd
// front ends), or empty.
std::string oclgrind_core_path() {
    std::string found;
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            const char* name = info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
            name = name ? name + 1 : info->dlpi_name;
            if (name && std::strncmp(name, "liboclgrind-", 12) == 0 &&
                std::strncmp(name, "liboclgrind-rt", 14) != 0) {
                *static_cast<std::string*>(data) = info->dlpi_name;
                return 1;
            }
            return 0;
        },
        &found);
    return found;
}

const unsigned* oclgrind_counter() {
    static const unsigned* counter = []() -> const unsigned* {
        const std::string path = oclgrind_core_path();
        if (path.empty())
            return nullptr;
        void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD); // already mapped: no new code
        if (!h)
            return nullptr;
        return static_cast<const unsigned*>(dlsym(h, "_ZN8oclgrind6Logger11m_numErrorsE"));
    }();
    return counter;
}

} // namespace

long long OpenclDevice::checker_reports() const {
    if (info_.platform.find("Oclgrind") == std::string::npos)
        return -1;
    const unsigned* counter = oclgrind_counter();
    return counter ? static_cast<long long>(__atomic_load_n(counter, __ATOMIC_RELAXED)) : -1;
}

} // namespace duet::opencl
