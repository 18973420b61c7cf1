#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "cli.hpp"

namespace runapp {

namespace {

using duet::Error;

const std::vector<std::string> commands = {"list",    "info",      "run",    "compare",
                                           "tune",    "bandwidth", "doctor", "cache",
                                           "compile", "report",    "help",   "version"};

constexpr std::size_t max_sizes = 64;

int parse_int(const std::string& opt, const std::string& v, int lo, int hi) {
    // Ten digits: the largest value a caller allows (2147483647 for --seed) must pass.
    const bool digits =
        !v.empty() && v.size() <= 10 &&
        std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
    const long x = digits ? std::stol(v) : -1;
    if (!digits || x < lo || x > hi)
        throw Error::usage(opt + " '" + v + "': give a whole number from " + std::to_string(lo) +
                           " to " + std::to_string(hi));
    return static_cast<int>(x);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const auto p = s.find(sep, start);
        out.push_back(s.substr(start, p == std::string::npos ? p : p - start));
        if (p == std::string::npos)
            return out;
        start = p + 1;
    }
}

// The options that take no value; false when `name` is not one of them.
bool set_flag(Cli& c, const std::string& name, std::vector<std::string>& given) {
    if (name == "--help")
        c.command = "help";
    else if (name == "--version")
        c.command = "version";
    else if (name == "--quiet")
        c.quiet = true;
    else if (name == "--reference") {
        c.reference = true;
        given.push_back(name);
    } else if (name == "--strict")
        c.strict = true;
    else
        return false;
    return true;
}

const std::vector<std::string> valued = {
    "--backend", "--device", "--devices", "--size",   "--variant",    "--local",
    "--reps",    "--warmup", "--seed",    "--verify", "--format",     "--output",
    "--html",    "--define", "--timeout", "--target", "--kernel-text"};

// --local W or WxH, or a list of them.
void add_locals(Cli& c, const std::string& v) {
    for (auto& s : split(v, ',')) {
        std::vector<std::size_t> d;
        try {
            d = duet::apps::parse_dims(s);
        } catch (const Error& e) { // its message speaks of a size
            std::string why = e.detail();
            if (const auto at = why.find("': "); at != std::string::npos)
                why = why.substr(at + 3);
            why = why.substr(0, why.find(" (give")); // advice for sizes, not shapes
            throw Error::usage("--local '" + s + "': " + why +
                               "; give a work-group shape W or WxH, each a whole "
                               "number of at least 1 (e.g. 16x16)");
        }
        if (d.size() > 2)
            throw Error::usage("--local '" + s + "': give W or WxH");
        c.locals.push_back({d[0], d.size() > 1 ? d[1] : 1});
    }
}

// --kernel-text: a dialect Duet's own kernels are written in ("opencl-c", "cuda-c++").
std::string parse_kernel_text(const std::string& v) {
    std::string known;
    for (const auto& d : duet::dialects())
        if (!d.kernel_dir.empty()) {
            if (d.name == v)
                return v;
            known += (known.empty() ? "" : ", ") + d.name;
        }
    throw Error::usage("--kernel-text '" + v + "': Duet's kernels are written in " + known +
                       "; give one of them (each device builds that file of every step)");
}

duet::apps::Verify parse_verify(const std::string& v) {
    if (v == "full")
        return duet::apps::Verify::full;
    if (v == "sample")
        return duet::apps::Verify::sample;
    if (v == "off")
        return duet::apps::Verify::off;
    throw Error::usage("--verify '" + v + "': give full, sample or off");
}

Format parse_format(const std::string& v) {
    if (v == "table")
        return Format::table;
    if (v == "json")
        return Format::json;
    if (v == "csv")
        return Format::csv;
    throw Error::usage("--format '" + v + "': give table, json or csv");
}

double parse_timeout(const std::string& v) {
    char* end = nullptr;
    const double s = std::strtod(v.c_str(), &end);
    if (!end || *end || !(s >= 0) || s > 86400)
        throw Error::usage("--timeout '" + v + "': give seconds, 0 (no limit) up to 86400");
    return s;
}

// One option of `valued`, with its value (not empty).
void set_valued(Cli& c, const std::string& name, const std::string& v) {
    if (name == "--backend") {
        // Backends are matched without case ("OpenCL"); compare filters devices by this
        // name, and with "OpenCL" it found none (exit 3, "no device to compare on").
        c.backend = v;
        std::transform(c.backend.begin(), c.backend.end(), c.backend.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    } else if (name == "--device") {
        // A blank name is part of every name with a space: it would pick device 0.
        if (v.find_first_not_of(" \t\n\r\v\f") == std::string::npos)
            throw Error::usage("--device '" + v + "': give a device (see runapp list)");
        c.device = v;
    } else if (name == "--devices") {
        // An empty item would select the default device, silently ("opencl:0,").
        for (const auto& d : split(v, ','))
            if (d.find_first_not_of(" \t\n\r\v\f") == std::string::npos)
                throw Error::usage("--devices '" + v + "': an empty item in the list");
        c.devices = v;
    } else if (name == "--size") {
        // Each size is a problem made and checked in turn: 2,000 of them held 5.6 GB.
        for (auto& s : split(v, ','))
            c.sizes.push_back(s);
        if (c.sizes.size() > max_sizes)
            throw Error::usage("--size: " + std::to_string(c.sizes.size()) +
                               " sizes given; a run takes at most " + std::to_string(max_sizes) +
                               " (run the others in another call)");
    } else if (name == "--variant")
        c.variant = v;
    else if (name == "--local")
        add_locals(c, v);
    else if (name == "--reps") {
        c.reps = parse_int(name, v, 1, 100000);
        c.reps_given = true;
    } else if (name == "--warmup") {
        c.warmup = parse_int(name, v, 0, 100000);
        c.warmup_given = true;
    } else if (name == "--seed")
        c.seed = static_cast<std::uint64_t>(parse_int(name, v, 0, 2147483647));
    else if (name == "--verify") {
        c.verify_given = true;
        c.verify = parse_verify(v);
    } else if (name == "--format")
        c.format = parse_format(v);
    else if (name == "--output")
        c.output = v;
    else if (name == "--target")
        c.target = v;
    else if (name == "--kernel-text")
        c.kernel_text = parse_kernel_text(v);
    else if (name == "--html")
        c.html = v;
    else if (name == "--define") {
        const auto eq = v.find('=');
        if (eq == 0)
            throw Error::usage("--define '" + v + "': give NAME=VALUE");
        const std::string key = v.substr(0, eq);
        // Both would reach the compiler, which keeps one: the run's label would not say which.
        for (const auto& [k, old] : c.defines)
            if (k == key)
                throw Error::usage("--define " + key + " is given twice (" + key + "=" + old +
                                   " and " + v + "); give each name once");
        c.defines.emplace_back(key, eq == std::string::npos ? "" : v.substr(eq + 1));
    } else if (name == "--timeout")
        c.timeout_s = parse_timeout(v);
    else
        throw Error::usage("unknown option '" + name + "' (see runapp --help)");
}

// An option a command does not use is an error, not silently ignored: `runapp vecadd --devices
// opencl:1` would otherwise run on the default device.
void check_applies(const std::string& command, const std::vector<std::string>& given) {
    static const std::vector<std::string> run_opts = {
        "--backend", "--device",    "--size",   "--variant",    "--local", "--reps",
        "--warmup",  "--verify",    "--format", "--output",     "--seed",  "--define",
        "--timeout", "--reference", "--quiet",  "--kernel-text"};
    static const std::vector<std::pair<std::string, std::vector<std::string>>> table = {
        {"list", {"--format", "--timeout"}},
        {"info", {"--backend", "--device", "--format", "--timeout"}},
        {"run", run_opts},
        {"compare",
         {"--backend", "--devices", "--size", "--variant", "--local", "--reps", "--warmup",
          "--verify", "--format", "--output", "--html", "--seed", "--define", "--timeout",
          "--reference", "--quiet", "--kernel-text"}},
        {"tune",
         {"--backend", "--device", "--size", "--variant", "--local", "--reps", "--warmup",
          "--verify", "--format", "--output", "--define", "--timeout", "--quiet"}},
        {"bandwidth",
         {"--backend", "--device", "--size", "--reps", "--warmup", "--format", "--timeout"}},
        {"doctor", {"--format", "--timeout"}},
        {"cache", {"--timeout"}},
        {"compile", {"--target", "--format", "--output", "--timeout", "--quiet"}},
        {"report", {"--format", "--output", "--html", "--timeout", "--quiet"}},
    };
    if (command == "help" || command == "version") {
        // `runapp --backend opencl` alone is a forgotten command, not a request for help.
        if (!given.empty())
            throw Error::usage("option " + given[0] +
                               " needs a command or an app (for example "
                               "runapp run vecadd " +
                               given[0] + " ...)");
        return;
    }
    for (const auto& [cmd, allowed] : table) {
        if (cmd != command)
            continue;
        for (const auto& opt : given)
            if (std::find(allowed.begin(), allowed.end(), opt) == allowed.end()) {
                std::string list;
                for (const auto& a : allowed)
                    list += (list.empty() ? "" : " ") + a;
                throw Error::usage("option " + opt + " does not apply to runapp " + command +
                                   " (it takes: " + list + ")");
            }
    }
}

// A --format the command cannot print is an error, not a table printed instead.
void check_format(const std::string& command, const std::vector<std::string>& given, Format f) {
    if (std::find(given.begin(), given.end(), "--format") == given.end())
        return;
    static const std::vector<std::pair<std::string, std::vector<Format>>> formats = {
        {"info", {Format::table, Format::json}},
        {"doctor", {Format::table, Format::json}},
        {"tune", {Format::table, Format::json}},
    };
    static const char* names[] = {"table", "json", "csv"};
    for (const auto& [cmd, allowed] : formats) {
        if (cmd != command || std::find(allowed.begin(), allowed.end(), f) != allowed.end())
            continue;
        std::string list;
        for (const auto a : allowed)
            list += (list.empty() ? "" : " or ") + std::string(names[static_cast<int>(a)]);
        throw Error::usage("--format " + std::string(names[static_cast<int>(f)]) +
                           " does not apply to runapp " + command + " (it prints " + list + ")");
    }
}

} // namespace

void check_locals(const Cli& c, const std::vector<const duet::apps::App*>& apps) {
    for (const auto* app : apps)
        for (const auto& l : c.locals)
            if (app->group_dims() == 1 && l[1] > 1)
                throw Error::usage("--local " + std::to_string(l[0]) + "x" + std::to_string(l[1]) +
                                   ": " + app->name() +
                                   " launches 1-D work-groups; give one number (--local " +
                                   std::to_string(l[0]) + ")");
}

std::string usage_text() {
    std::string apps; // from the registry of apps (app_list.cpp)
    for (const auto* a : duet::apps::all_apps())
        apps += (apps.empty() ? "" : ", ") + a->name();
    return R"(runapp: run the same GPU apps on every CUDA and OpenCL device and time them side by side

usage:
  runapp list                                 devices of every backend, and why a backend has none
  runapp list steps                           every app's ladder: steps, kernels, needs, tuning
  runapp info DEVICE                          one device in full
  runapp [run] APP [options]                  run one app (all variants, or --variant NAME)
  runapp compare [APP...] [--devices all|LIST] [--html FILE]
                                              every variant on every device, one table
  runapp report FILE.json... [--html FILE] [--format table|csv|json] [--strict]
                                              merge result files (--format json of run/compare)
                                              from any machines: one table, one HTML page
  runapp tune APP [--device D] [--size S] [--reps N] [--variant V] [--format json]
                                              sweep tile/work-group sizes; the fastest correct
                                              point is stored per device and used by default
  runapp bandwidth [--device D]               host<->device and device<->device copies
  runapp doctor [--format json]               check loader, ICD files, libraries, devices
  runapp cache ls|clear                       the on-disk program cache
  runapp compile [APP|FILE.cl|FILE.cu] [--target all|intel|amd|spirv|nvidia|NAME,...]
                                              build kernels with the vendors' offline compilers
                                              (ocloc, clang amdgcn, SPIR-V, ptxas) for GPUs this
                                              machine lacks: registers, spills, local memory
  runapp --version | help

)"
           "apps: " +
           apps + R"(

devices: a stable id from `runapp list` (opencl:portable-computing-language/cpu-...: the same
         device whatever other OpenCL implementations are installed; use it in scripts), an
         index from `runapp list` (3), backend:index (opencl:1, cuda:0), a backend (cuda),
         uuid:HEX, pci:BUS, or part of the name; with --backend B, --device N is B's N-th device.

options:
  --backend cuda|opencl     --device D           --devices all|D1,D2,...
  --size S[,S...]           sizes: auto (default: per device), 4096, 2^20, 16M, 1024x768, MxNxK
  --variant NAME[,NAME]|all --local WxH[,WxH]    work-group shape(s)
  --reps N (10)             --warmup N (2)       --verify full|sample|off (full)
                            by default the timed runs stop after 0.3 s once 3 have run,
                            the warm-up after a run of 20 ms or more (long kernels)
  --format table|json|csv   --output FILE        --seed N (42)
  --define NAME=VALUE       --quiet (no progress lines on a terminal)
  --kernel-text opencl-c|cuda-c++
                            run, compare: every device builds that file of each step (one text
                            through both APIs: OpenCL C reaches CUDA through NVRTC); default:
                            each device its own language's twin
  --timeout SECONDS         end the run after SECONDS in all (0: never); by default it ends
                            when nothing finished for 600 s (DUET_IDLE_TIMEOUT_S)
  --reference               run: add the native CPU reference rows and the "x CPU" speed-ups
                            (compare always has them): OpenBLAS sgemm or a blocked loop for
                            matmul, threaded vector loops for the others, and the host's native
                            copy bandwidth for the memory-bound apps
  --strict                  report: one bad result file fails the command (exit 2)

exit codes: 0 success, 1 a result was wrong, 2 a usage error, 3 a device or runtime error
environment: DUET_LOG_LEVEL=debug, DUET_CACHE_DIR, DUET_KERNEL_DIR, DUET_BACKEND_PATH
)";
}

Cli parse(int argc, char** argv) {
    Cli c;
    std::vector<std::string> given; // the valued options, to check against the command
    std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string a = args[i];
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a, value;
            bool has_value = false;
            if (auto eq = a.find('='); eq != std::string::npos) {
                name = a.substr(0, eq);
                value = a.substr(eq + 1);
                has_value = true;
            }
            if (set_flag(c, name, given))
                continue;
            if (std::find(valued.begin(), valued.end(), name) == valued.end())
                throw Error::usage("unknown option '" + name + "' (see runapp --help)");
            given.push_back(name);
            if (!has_value) {
                if (i + 1 >= args.size())
                    throw Error::usage("option " + name + " needs a value (see runapp --help)");
                value = args[++i];
            }
            if (value.empty())
                throw Error::usage("option " + name + " has an empty value");
            set_valued(c, name, value);
            continue;
        }
        if (a.size() > 1 && a[0] == '-' && !std::isdigit(static_cast<unsigned char>(a[1])))
            throw Error::usage("unknown option '" + a +
                               "' (options start with --; see runapp --help)");
        if (c.command.empty()) {
            if (std::find(commands.begin(), commands.end(), a) != commands.end()) {
                c.command = a;
            } else {
                c.command = "run"; // `runapp matmul` runs the app
                c.positional.push_back(a);
            }
        } else {
            c.positional.push_back(a);
        }
    }
    if (c.command.empty())
        c.command = "help";
    if (c.quiet)
        given.push_back("--quiet");
    check_applies(c.command, given);
    check_format(c.command, given, c.format);
    if (c.strict && c.command != "report")
        throw Error::usage("option --strict applies to runapp report only");
    return c;
}

} // namespace runapp
