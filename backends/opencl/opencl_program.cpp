// Program builds: from the on-disk cache when an entry loads, from source otherwise.
#include <algorithm>
#include <cctype>
#include <chrono>

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
    for (const auto& [name, value] : options.defines)
        s += " -D" + name + (value.empty() ? "" : "=" + value);
    if (options.fast_math)
        s += " -cl-fast-relaxed-math";
    s += " -cl-kernel-arg-info"; // parameter names and types for launch checks (kernel_signature)
    for (const auto& o : options.options_for("opencl-c")) // checked (check_compiler_options)
        s += " " + o;
    return s;
}

namespace {

// Bytes of an OpenCL C scalar or vector type named like "float", "uint4", "double3"; 0 when
// not one (a struct: its size is not checked).
std::size_t type_size(std::string t) {
    static const std::pair<const char*, std::size_t> bases[] = {
        {"char", 1},           {"uchar", 1},        {"short", 2},        {"ushort", 2},
        {"half", 2},           {"int", 4},          {"uint", 4},         {"float", 4},
        {"long", 8},           {"ulong", 8},        {"double", 8},       {"unsigned char", 1},
        {"unsigned short", 2}, {"unsigned int", 4}, {"unsigned long", 8}};
    std::size_t digits = t.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(t[digits - 1])))
        --digits;
    const std::size_t n = digits < t.size() ? std::stoul(t.substr(digits)) : 1;
    t.resize(digits);
    for (const auto& [name, size] : bases)
        if (t == name)
            return size * (n == 3 ? 4 : n);
    return 0;
}

template <class T> bool arg_info(const cl::Kernel& k, cl_uint i, cl_kernel_arg_info what, T& out) {
    try {
        return k.getArgInfo(i, what, &out) == CL_SUCCESS;
    } catch (const cl::Error&) {
        return false; // CL_KERNEL_ARG_INFO_NOT_AVAILABLE: built without -cl-kernel-arg-info
    }
}

// True when the program's kernels can say what their arguments are (CL_KERNEL_ARG_*): the
// launch checks of argument kinds and sizes need it. Some drivers drop it from a program made
// from a binary (Intel's CPU runtime), so a cached program must be checked before it is used.
bool keeps_arg_info(cl::Program p) { // (by value: createKernels is not const)
    try {
        std::vector<cl::Kernel> kernels;
        p.createKernels(&kernels);
        for (const auto& k : kernels) {
            if (k.getInfo<CL_KERNEL_NUM_ARGS>() == 0)
                continue;
            cl_kernel_arg_address_qualifier space = 0;
            return arg_info(k, 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER, space);
        }
        return true; // no kernel takes arguments: nothing to lose
    } catch (const cl::Error&) {
        return false;
    }
}

// Whether a program built from `binary` on this device keeps its argument information.
bool binary_keeps_arg_info(OpenclDevice& dev, const std::vector<unsigned char>& binary,
                           const std::string& options) {
    try {
        std::vector<cl::Device> devs{dev.cl_device()};
        log().debug("clCreateProgramWithBinary({} bytes, to see whether it keeps its argument "
                    "information)",
                    binary.size());
        cl::Program p(dev.context(), devs, cl::Program::Binaries{binary});
        p.build(devs, options.c_str());
        return keeps_arg_info(p);
    } catch (const cl::Error&) {
        return false;
    }
}

} // namespace

KernelSignature kernel_signature(const cl::Kernel& k) {
    KernelSignature sig;
    cl_uint count = 0;
    if (clGetKernelInfo(k(), CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr) != CL_SUCCESS)
        return sig;
    sig.known = true;
    sig.params.resize(count);
    for (cl_uint i = 0; i < count; ++i) {
        KernelParam& p = sig.params[i];
        cl_kernel_arg_address_qualifier space = 0;
        std::string type, name;
        if (!arg_info(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, space))
            continue; // no argument information: the count alone is checked
        arg_info(k, i, CL_KERNEL_ARG_TYPE_NAME, type);
        arg_info(k, i, CL_KERNEL_ARG_NAME, name);
        while (!type.empty() && type.back() == '\0')
            type.pop_back();
        while (!name.empty() && name.back() == '\0')
            name.pop_back();
        p.name = name;
        switch (space) {
        case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        case CL_KERNEL_ARG_ADDRESS_CONSTANT:
            p.kind = KernelParam::Kind::buffer;
            p.type = (space == CL_KERNEL_ARG_ADDRESS_GLOBAL ? "global " : "constant ") + type;
            p.size = sizeof(cl_mem);
            break;
        case CL_KERNEL_ARG_ADDRESS_LOCAL:
            p.kind = KernelParam::Kind::local;
            p.type = "local " + type;
            break;
        default:
            // Private: a value, unless it is an image or sampler (not Duet arguments).
            p.kind = type.find("image") != std::string::npos || type == "sampler_t"
                         ? KernelParam::Kind::unknown
                         : KernelParam::Kind::scalar;
            p.type = type;
            p.size = p.kind == KernelParam::Kind::scalar ? type_size(type) : 0;
            break;
        }
    }
    return sig;
}

std::size_t OpenclKernel::suggested_group_size(std::size_t dynamic_local_bytes) const {
    try {
        cl::Kernel& k = const_cast<cl::Kernel&>(kernel_); // the C++ wrapper's queries are not const
        const std::size_t multiple = std::max<std::size_t>(
            k.getWorkGroupInfo<CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE>(device_), 1);
        const cl_ulong kernel_local = k.getWorkGroupInfo<CL_KERNEL_LOCAL_MEM_SIZE>(device_);
        const cl_ulong device_local = device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
        if (kernel_local + dynamic_local_bytes > device_local)
            throw Error::usage("kernel " + name_ + ": " + std::to_string(dynamic_local_bytes) +
                               " bytes of duet::local memory besides its own " +
                               std::to_string(kernel_local) + " do not fit the device's " +
                               std::to_string(device_local) + " bytes of local memory");
        return max_wg_ >= multiple ? max_wg_ / multiple * multiple : max_wg_;
    } catch (const cl::Error& e) {
        rethrow(e, "asking the preferred work-group size of kernel " + name_);
    }
}

namespace {
// Stores a program built from source in the cache, where a program made from its binary keeps
// the kernels' argument information (checked once per device).
void store_binary(OpenclDevice& dev, const cl::Program& p, const std::string& key,
                  const std::string& options, const std::string& origin);
} // namespace

namespace {

cl::Program build_source(OpenclDevice& dev, const std::string& source, const std::string& options,
                         const std::string& origin) {
    std::vector<cl::Device> devs{dev.cl_device()};
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
    return p;
}

// A source build of a kernel with marked sm_90a lines, on a device that can raise them: the
// raised program, else (logged) the source built again with the fallback define.
cl::Program build_raised(OpenclDevice& dev, const std::string& source, std::string& options,
                         const std::string& origin) {
    cl::Program p = build_source(dev, source, options, origin);
    std::string why;
    if (auto raised = build_sm90a(dev, p, options, origin, why))
        return *raised;
    if (why.empty())
        return p; // no marked line in this build: the kernel took its other path
    log().warn("{} on {}: its sm_90a PTX did not build ({}); building it again with {} (the "
               "kernel's path without sm_90a instructions)",
               origin, dev.where(), why, sm90a_fallback_define);
    options += std::string(" -D") + sm90a_fallback_define + "=1";
    p = build_source(dev, source, options, origin);
    if (holds_sm90a(p))
        throw Error(ErrorKind::build, "opencl", "clBuildProgram", CL_BUILD_PROGRAM_FAILURE,
                    "CL_BUILD_PROGRAM_FAILURE",
                    origin + " keeps marked sm_90a lines when built with " + sm90a_fallback_define +
                        ": such a kernel must hide them behind #ifndef " + sm90a_fallback_define +
                        " (kernels_cl/sm90a.clh)",
                    "");
    return p;
}

// The program's cache key; a raised build (sm_90a) has its own, versioned with the transform.
std::string program_key(const DeviceInfo& info, const std::string& source,
                        const std::string& options, bool raised) {
    std::vector<std::string_view> parts{"opencl",
                                        source,
                                        options,
                                        info.name,
                                        info.vendor,
                                        info.device_version,
                                        info.driver_version,
                                        info.platform,
                                        info.platform_version,
                                        info.library,
                                        duet::version};
    if (raised)
        parts.emplace_back("sm90a-ptx-1");
    return ProgramCache::key(parts);
}

} // namespace

std::shared_ptr<ProgramEntry> build_program(OpenclDevice& dev, const std::string& source,
                                            const std::string& given_options,
                                            const std::string& origin) {
    const auto& info = dev.info();
    auto entry = std::make_shared<ProgramEntry>();
    // Marked sm_90a lines (opencl_program_sm90a.cpp): raised where the device can take them,
    // else the kernel's other path from the start.
    const bool marked = may_hold_sm90a(source);
    const bool raise = marked && info.has_extension(sm90a_extension);
    std::string options = given_options;
    if (marked && !raise)
        options += std::string(" -D") + sm90a_fallback_define + "=1";
    entry->options = options;
    entry->origin = origin;
    const auto t0 = std::chrono::steady_clock::now();
    auto& cache = ProgramCache::instance();
    const std::string key = program_key(info, source, options, raise);
    std::vector<cl::Device> devs{dev.cl_device()};
    if (auto bin = cache.load(key)) {
        try {
            log().debug("clCreateProgramWithBinary({} bytes, {})", bin->size(), origin);
            cl::Program::Binaries bins{*bin};
            cl::Program p(dev.context(), devs, bins);
            p.build(devs, options.c_str());
            if (keeps_arg_info(p)) {
                entry->program = p;
                entry->cache_hit = true;
            } else {
                log().info("cached binary for {} lost its kernels' argument information on this "
                           "driver; building from source",
                           origin);
                cache.remove(key);
            }
        } catch (const cl::Error& e) {
            // A binary the driver refuses (another driver version, a damaged file) is rebuilt.
            log().info("cached binary for {} did not load ({}); rebuilding", origin,
                       error_name(e.err()));
            cache.remove(key);
        }
    }
    if (!entry->cache_hit) {
        cl::Program p = raise ? build_raised(dev, source, options, origin)
                              : build_source(dev, source, options, origin);
        entry->program = p;
        entry->options = options; // with the fallback define where the raise failed
        // With no cache (DUET_CACHE_DIR empty or unusable) nothing is stored, so the binary is
        // neither read back nor built again to see whether it keeps its argument information.
        if (cache.enabled())
            store_binary(dev, p, key, options, origin);
    }
    entry->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return entry;
}

namespace {

void store_binary(OpenclDevice& dev, const cl::Program& p, const std::string& key,
                  const std::string& options, const std::string& origin) {
    const auto& info = dev.info();
    auto& cache = ProgramCache::instance();
    try {
        auto bins = p.getInfo<CL_PROGRAM_BINARIES>();
        // Not cached where a program made from the binary would lose what the launch
        // checks need (Intel's CPU runtime): built from source every time there.
        if (!bins.empty() && !bins[0].empty() && dev.binaries_keep_arg_info < 0)
            dev.binaries_keep_arg_info = binary_keeps_arg_info(dev, bins[0], options) ? 1 : 0;
        if (!bins.empty() && !bins[0].empty() && dev.binaries_keep_arg_info == 0)
            log().info("program binary of {} not cached: this driver drops the kernels' "
                       "argument information from programs made from binaries",
                       origin);
        else if (!bins.empty() && !bins[0].empty())
            cache.store(key, bins[0],
                        "opencl " + origin + " " + options + " | " + info.name + " | " +
                            info.driver_version);
    } catch (const cl::Error& e) {
        log().info("program binary of {} not available for caching: {}", origin,
                   error_name(e.err()));
    }
}

} // namespace

} // namespace duet::opencl
