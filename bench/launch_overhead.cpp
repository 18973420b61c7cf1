// duet_launch_overhead: the host cost of one kernel launch through Duet against the raw API on
// the same device (issue "Performance": Duet at most 1 µs over raw; reported, not asserted).
//
// The kernel is empty (one int argument, Range(256).local(256)), so what is timed is the launch
// path. Per repetition: N launches in a loop, then a finish; wall clock over both, divided by N.
// The raw side does the same work on a queue of the same kind (in-order, profiling on / a CUDA
// stream), with an event per launch and without one. Duet's side: the default queue (untimed),
// an explicitly untimed one and a timed one (an event per launch); the default queue is compared
// with every raw way, the others with the raw way that does their work.
//
//   duet_launch_overhead [--launches N] [--reps R] [--warmup W] [--device SPEC]... [--json]
//   duet_launch_overhead --patterns [...]   launch + finish, launch + small read
//   (launch_patterns.cpp)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <duet/duet.hpp>

#include "launch_overhead.hpp"

namespace {

using duet_bench::Method;
using duet_bench::RawPath;
using Clock = std::chrono::steady_clock;

constexpr double target_us = 1.0;

struct Options {
    int launches = 20000;
    int reps = 5;
    int warmup = 2000;
    std::vector<std::string> devices; // empty: every device
    std::string only;                 // one way by its key ("duet", "raw_no_event"); empty: all
    bool json = false;
};

struct MethodResult {
    Method method;
    std::vector<double> total_us; // per launch, loop + finish, one per repetition
    std::vector<double> loop_us;  // per launch, the enqueue loop alone
};

struct DeviceResult {
    duet::Device* device = nullptr;
    std::vector<MethodResult> methods;
    std::string error; // the Duet side could not be set up, or a launch failed
    std::string raw_note, raw_skipped;
};

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double minimum(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

double maximum(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

[[noreturn]] void usage(const std::string& problem) {
    if (!problem.empty())
        std::cerr << "duet_launch_overhead: " << problem << "\n";
    std::cerr << "usage: duet_launch_overhead [--launches N] [--reps R] [--warmup W] "
                 "[--device SPEC]... [--json]\n"
                 "  --launches N   launches per repetition (default 20000)\n"
                 "  --reps R       repetitions; the median is reported (default 5)\n"
                 "  --warmup W     launches before timing, per way of launching (default 2000)\n"
                 "  --device SPEC  a device as runapp names it (opencl:0, cuda:0, 1, a name);\n"
                 "                 repeatable or comma-separated; default every device\n"
                 "  --only KEY     time one way only (duet, duet_untimed, duet_timed, raw_event,\n"
                 "                 raw_no_event, ...): for profilers (bench/launch_callgrind.sh)\n"
                 "  --json         JSON instead of the table\n";
    std::exit(problem.empty() ? 0 : 2);
}

int integer(const std::string& flag, const char* text, long least) {
    char* end = nullptr;
    const long v = std::strtol(text, &end, 10);
    if (!*text || *end || v < least || v > 100000000)
        usage(flag + " needs an integer of at least " + std::to_string(least) + ", not '" + text +
              "'");
    return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc)
                usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--launches")
            o.launches = integer(a, value(), 1);
        else if (a == "--reps")
            o.reps = integer(a, value(), 1);
        else if (a == "--warmup")
            o.warmup = integer(a, value(), 0);
        else if (a == "--device") {
            std::stringstream list(value());
            for (std::string s; std::getline(list, s, ',');)
                if (!s.empty())
                    o.devices.push_back(s);
        } else if (a == "--only")
            o.only = value();
        else if (a == "--json")
            o.json = true;
        else if (a == "-h" || a == "--help")
            usage("");
        else
            usage("unknown argument '" + a + "'");
    }
    return o;
}

// Duet's way: the public API as an app calls it, the returned Event dropped at once; on the
// queue an app gets by default (create_queue(): untimed), one created untimed explicitly, or a
// timed one (QueueOptions::timed(): an Event with device times per launch).
enum class DuetQueue { default_queue, untimed, timed };
Method duet_method(duet::Device& dev, DuetQueue which) {
    duet::BuildOptions opts;
    opts.sources.opencl = duet_bench::kernel_opencl;
    opts.sources.cuda = duet_bench::kernel_cuda;
    opts.sources.origin = "duet_launch_overhead";
    std::shared_ptr<duet::Kernel> kernel = dev.load_kernel(duet_bench::kernel_name, opts);
    duet::QueueOptions untimed;
    untimed.timing = false;
    std::shared_ptr<duet::Queue> queue = which == DuetQueue::default_queue ? dev.create_queue()
                                         : which == DuetQueue::untimed
                                             ? dev.create_queue(untimed)
                                             : dev.create_queue(duet::QueueOptions::timed());
    const char* key = which == DuetQueue::default_queue ? "duet"
                      : which == DuetQueue::untimed     ? "duet_untimed"
                                                        : "duet_timed";
    const char* label =
        which == DuetQueue::default_queue ? "Duet q->launch, the default queue (create_queue())"
        : which == DuetQueue::untimed
            ? "Duet q->launch, queue with timing off (QueueOptions::timing = false)"
            : "Duet q->launch, timed queue (QueueOptions::timed(): an Event per launch)";
    return {key, label,
            [kernel, queue](int n) {
                for (int i = 0; i < n; ++i)
                    queue->launch(*kernel,
                                  duet::Range(duet_bench::work_items).local(duet_bench::work_items),
                                  i);
            },
            [queue] { queue->finish(); }};
}

RawPath raw_path(const duet::DeviceInfo& info) {
    if (info.backend == "opencl") {
#ifdef DUET_BENCH_RAW_OPENCL
        return duet_bench::raw_opencl(info.local_index, info.platform, info.name);
#else
        return {{}, "raw OpenCL not built (no OpenCL ICD loader when this was configured)", {}};
#endif
    }
    if (info.backend == "cuda") {
#ifdef DUET_BENCH_RAW_CUDA
        return duet_bench::raw_cuda(info.local_index, info.pci_bus_id, info.name);
#else
        return {{},
                "raw CUDA not built (no CUDA toolkit, or nvcc unusable, when this was configured)",
                {}};
#endif
    }
    return {{}, "no raw path for backend " + info.backend, {}};
}

// One timed repetition: the loop, then the finish; both per launch, in µs.
void time_once(MethodResult& r, int launches) {
    const auto t0 = Clock::now();
    r.method.enqueue(launches);
    const auto t1 = Clock::now();
    r.method.finish();
    const auto t2 = Clock::now();
    const auto us = [&](Clock::duration d) {
        return std::chrono::duration<double, std::micro>(d).count() / launches;
    };
    r.total_us.push_back(us(t2 - t0));
    r.loop_us.push_back(us(t1 - t0));
}

DeviceResult measure(duet::Device& dev, const Options& o) {
    DeviceResult res;
    res.device = &dev;
    try {
        for (auto which : {DuetQueue::default_queue, DuetQueue::untimed, DuetQueue::timed})
            res.methods.push_back({duet_method(dev, which), {}, {}});
    } catch (const std::exception& e) {
        res.error = e.what();
    }
    try {
        RawPath raw = raw_path(dev.info());
        res.raw_note = raw.note;
        res.raw_skipped = raw.skipped;
        for (auto& m : raw.methods)
            res.methods.push_back({std::move(m), {}, {}});
    } catch (const std::exception& e) {
        res.raw_skipped = e.what();
    }
    if (!o.only.empty())
        res.methods.erase(
            std::remove_if(res.methods.begin(), res.methods.end(),
                           [&](const MethodResult& m) { return m.method.key != o.only; }),
            res.methods.end());
    try {
        for (auto& m : res.methods) {
            if (o.warmup > 0)
                m.method.enqueue(o.warmup);
            m.method.finish();
        }
        // The order of the ways turns every repetition, so that no way always runs first.
        const std::size_t n = res.methods.size();
        for (int rep = 0; rep < o.reps; ++rep)
            for (std::size_t j = 0; j < n; ++j)
                time_once(res.methods[(j + static_cast<std::size_t>(rep)) % n], o.launches);
    } catch (const std::exception& e) {
        res.error += (res.error.empty() ? "" : "; ") + std::string("while timing: ") + e.what();
    }
    return res;
}

const MethodResult* find(const DeviceResult& r, const std::string& key) {
    for (const auto& m : r.methods)
        if (m.method.key == key && !m.total_us.empty())
            return &m;
    return nullptr;
}

std::string now_utc() {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    return buf;
}

nlohmann::json to_json(const std::vector<DeviceResult>& results, const Options& o) {
    nlohmann::json j;
    j["benchmark"] = "launch_overhead";
    j["duet_version"] = duet::version;
    j["time"] = now_utc();
    j["launches"] = o.launches;
    j["reps"] = o.reps;
    j["warmup"] = o.warmup;
    j["kernel"] = {{"name", duet_bench::kernel_name},
                   {"global", duet_bench::work_items},
                   {"local", duet_bench::work_items},
                   {"arguments", "int"}};
    j["method"] = "wall clock over N launches plus one finish, divided by N; median of the "
                  "repetitions";
    j["target_us_over_raw"] = target_us;
#ifdef DUET_BENCH_RAW_OPENCL
    j["raw_opencl_built"] = true;
#else
    j["raw_opencl_built"] = false;
#endif
#ifdef DUET_BENCH_RAW_CUDA
    j["raw_cuda_built"] = true;
#else
    j["raw_cuda_built"] = false;
#endif
    j["devices"] = nlohmann::json::array();
    for (const auto& r : results) {
        const auto& info = r.device->info();
        nlohmann::json d = {{"id", info.id()},           {"index", duet::global_index(*r.device)},
                            {"name", info.name},         {"backend", info.backend},
                            {"platform", info.platform}, {"driver", info.driver_version}};
        if (!r.error.empty())
            d["error"] = r.error;
        if (!r.raw_note.empty())
            d["raw_note"] = r.raw_note;
        if (!r.raw_skipped.empty())
            d["raw_skipped"] = r.raw_skipped;
        nlohmann::json methods = nlohmann::json::object();
        for (const auto& m : r.methods) {
            if (m.total_us.empty())
                continue;
            methods[m.method.key] = {{"label", m.method.label},
                                     {"median_us", median(m.total_us)},
                                     {"min_us", minimum(m.total_us)},
                                     {"max_us", maximum(m.total_us)},
                                     {"loop_median_us", median(m.loop_us)},
                                     {"samples_us", m.total_us},
                                     {"loop_samples_us", m.loop_us}};
        }
        d["methods"] = methods;
        if (const auto* duet = find(r, "duet")) {
            nlohmann::json diff = nlohmann::json::object(), loop = nlohmann::json::object();
            for (const auto& m : r.methods)
                if (m.method.key.rfind("duet", 0) != 0 && !m.total_us.empty()) {
                    diff[m.method.key] = median(duet->total_us) - median(m.total_us);
                    loop[m.method.key] = median(duet->loop_us) - median(m.loop_us);
                }
            d["duet_minus_raw_us"] = diff;
            d["duet_minus_raw_loop_us"] = loop;
        }
        if (const auto* untimed = find(r, "duet_untimed"); untimed && find(r, "raw_no_event"))
            d["duet_untimed_minus_raw_no_event_us"] =
                median(untimed->total_us) - median(find(r, "raw_no_event")->total_us);
        j["devices"].push_back(d);
    }
    return j;
}

void print_table(const std::vector<DeviceResult>& results, const Options& o) {
    std::printf("Launch overhead: empty kernel %s(int), Range(%d).local(%d); %d launches x %d "
                "repetitions after %d warm-up launches.\n"
                "us/launch = wall clock of the launch loop + one finish, / launches (median of "
                "the repetitions); loop = the launch loop alone (lower than us/launch when "
                "the device, not the host, sets the pace: then the queue grows during the loop "
                "and the finish waits for it).\n\n",
                duet_bench::kernel_name, duet_bench::work_items, duet_bench::work_items, o.launches,
                o.reps, o.warmup);
    for (const auto& r : results) {
        std::printf("%s  [Duet %s]\n", r.device->label().c_str(), duet::version);
        if (!r.raw_note.empty())
            std::printf("  %s\n", r.raw_note.c_str());
        std::printf("  %-76s %9s %9s %9s %9s\n", "way", "us/launch", "min", "max", "loop");
        for (const auto& m : r.methods) {
            if (m.total_us.empty())
                continue;
            std::printf("  %-76s %9.3f %9.3f %9.3f %9.3f\n", m.method.label.c_str(),
                        median(m.total_us), minimum(m.total_us), maximum(m.total_us),
                        median(m.loop_us));
        }
        if (const auto* duet = find(r, "duet")) {
            for (const auto& m : r.methods) {
                if (m.method.key.rfind("duet", 0) == 0 || m.total_us.empty())
                    continue;
                const double diff = median(duet->total_us) - median(m.total_us);
                const double loop = median(duet->loop_us) - median(m.loop_us);
                std::printf("  Duet - %-69s %+9.3f %29s %+9.3f   (target <= %.1f us: %s)\n",
                            m.method.key.c_str(), diff, "", loop, target_us,
                            diff <= target_us ? "within" : "over");
            }
        }
        // Each other Duet queue against the raw way that does the same work.
        for (const auto& [mine, raw] :
             {std::pair{"duet_untimed", "raw_no_event"}, std::pair{"duet_timed", "raw_event"}}) {
            const auto* a = find(r, mine);
            const auto* b = find(r, raw);
            if (!a || !b)
                continue;
            const double diff = median(a->total_us) - median(b->total_us);
            std::printf("  %-12s - %-61s %+9.3f %29s %+9.3f   (target <= %.1f us: %s)\n", mine, raw,
                        diff, "", median(a->loop_us) - median(b->loop_us), target_us,
                        diff <= target_us ? "within" : "over");
        }
        if (!r.error.empty())
            std::printf("  error: %s\n", r.error.c_str());
        if (!r.raw_skipped.empty())
            std::printf("  skipped: %s\n", r.raw_skipped.c_str());
        std::printf("\n");
    }
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string(argv[i]) == "--patterns")
            return duet_bench::run_patterns(argc, argv);
    const Options o = parse(argc, argv);
    std::vector<duet::Device*> devices;
    try {
        if (o.devices.empty())
            devices = duet::devices();
        for (const auto& spec : o.devices)
            devices.push_back(&duet::select_device(spec));
    } catch (const std::exception& e) {
        std::cerr << "duet_launch_overhead: " << e.what() << "\n";
        return 2;
    }
    if (devices.empty()) {
        std::cerr << "duet_launch_overhead: no devices (runapp list says why)\n";
        return 3;
    }
    std::string cuda_note;
#ifdef DUET_BENCH_RAW_CUDA
    if (std::none_of(devices.begin(), devices.end(),
                     [](const duet::Device* d) { return d->info().backend == "cuda"; }))
        cuda_note = duet_bench::raw_cuda_probe();
#else
    cuda_note = "the raw CUDA comparison is not built into this binary (no CUDA toolkit, or nvcc "
                "unusable, when it was configured)";
#endif
    if (!o.json && !cuda_note.empty())
        std::printf("note: %s\n", cuda_note.c_str());
    std::vector<DeviceResult> results;
    for (duet::Device* dev : devices) {
        if (!o.json)
            std::fprintf(stderr, "timing %s ...\n", dev->label().c_str());
        results.push_back(measure(*dev, o));
    }
    if (o.json) {
        auto j = to_json(results, o);
        if (!cuda_note.empty())
            j["raw_cuda_note"] = cuda_note;
        std::cout << j.dump(2) << "\n";
    } else
        print_table(results, o);
    bool failed = false;
    for (const auto& r : results)
        failed = failed || !r.error.empty();
    return failed ? 3 : 0;
}
