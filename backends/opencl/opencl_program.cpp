// Program builds: from the on-disk cache when an entry loads, from source otherwise.
#include <chrono>

#include <duet/backend/build_options.hpp>
#include <duet/backend/log.hpp>
#include <duet/backend/program_cache.hpp>
#include <duet/version.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"
#include "opencl_program.hpp"

namespace duet::opencl {

namespace {

std::string build_log(const cl::Program& p, const cl::Device& d) {
    try {
        return p.getBuildInfo<CL_PROGRAM_BUILD_LOG>(d);
    } catch (...) {
        return "(the build log could not be read)";
    }
}

} // namespace

std::string build_options(const BuildOptions& options) {
    std::string s = "-DDUET_OPENCL=1";
    for (const auto& [name, value] : options.defines) {
        check_define(name, value);
        s += " -D" + name + (value.empty() ? "" : "=" + value);
    }
    if (options.fast_math)
        s += " -cl-fast-relaxed-math";
    return s;
}

std::shared_ptr<ProgramEntry> build_program(OpenclDevice& dev, const std::string& source,
                                            const std::string& options, const std::string& origin) {
    const auto& info = dev.info();
    auto entry = std::make_shared<ProgramEntry>();
    entry->options = options;
    entry->origin = origin;
    const auto t0 = std::chrono::steady_clock::now();
    auto& cache = ProgramCache::instance();
    const std::string key = ProgramCache::key({"opencl", source, options, info.name, info.vendor,
                                               info.device_version, info.driver_version,
                                               info.platform, info.platform_version, info.library,
                                               duet::version});
    std::vector<cl::Device> devs{dev.cl_device()};
    if (auto bin = cache.load(key)) {
        try {
            log().debug("clCreateProgramWithBinary({} bytes, {})", bin->size(), origin);
            cl::Program::Binaries bins{*bin};
            cl::Program p(dev.context(), devs, bins);
            p.build(devs, options.c_str());
            entry->program = p;
            entry->cache_hit = true;
        } catch (const cl::Error& e) {
            // A binary the driver refuses (another driver version, a damaged file) is rebuilt.
            log().info("cached binary for {} did not load ({}); rebuilding", origin, error_name(e.err()));
            cache.remove(key);
        }
    }
    if (!entry->cache_hit) {
        cl::Program p;
        try {
            log().debug("clBuildProgram({}, \"{}\")", origin, options);
            p = cl::Program(dev.context(), source);
            p.build(devs, options.c_str());
        } catch (const cl::Error& e) {
            if (e.err() == CL_BUILD_PROGRAM_FAILURE || e.err() == CL_INVALID_BUILD_OPTIONS ||
                e.err() == CL_COMPILE_PROGRAM_FAILURE)
                throw Error(ErrorKind::build, "opencl", "clBuildProgram", e.err(), error_name(e.err()),
                            "building " + origin + " with options \"" + options + "\" for " +
                                dev.where() + " failed; the compiler's log follows",
                            build_log(p, dev.cl_device()));
            rethrow(e, "building " + origin + " for " + dev.where());
        }
        entry->program = p;
        try {
            auto bins = p.getInfo<CL_PROGRAM_BINARIES>();
            if (!bins.empty() && !bins[0].empty())
                cache.store(key, bins[0], "opencl " + origin + " " + options + " | " + info.name +
                                              " | " + info.driver_version);
        } catch (const cl::Error& e) {
            log().info("program binary of {} not available for caching: {}", origin, error_name(e.err()));
        }
    }
    entry->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return entry;
}

} // namespace duet::opencl
