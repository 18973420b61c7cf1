// duet_launch_overhead --patterns: the two launch patterns that decide how a short kernel feels
// through Duet, against the raw API on the same device (issue 39: at most 1.01x raw, measured
// here, never asserted):
//   launch_finish  launch the busy kernel, then finish()            (cudaStreamSynchronize)
//   launch_read    launch it, then a blocking read of one float     (a dot product's result)
// The busy kernel runs --busy-iters dependent multiply-adds per work-item over --busy-items
// work-items; its device time (median of Duet's events) is printed, so that --busy-iters can be
// set to the kernel length wanted (0.2 ms). The ways run in turn, their order turning every
// repetition; each figure is the wall clock of --iterations patterns / --iterations.
//
//   duet_launch_overhead --patterns [--busy-iters N] [--busy-items N] [--iterations N]
//                        [--reps R] [--device SPEC]...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "launch_overhead.hpp"

namespace duet_bench {

namespace {

struct PatternOptions {
    int iters = 60000, items = 65536, iterations = 200, reps = 5;
    std::vector<std::string> devices;
};

[[noreturn]] void pattern_usage(const std::string& problem) {
    std::cerr << "duet_launch_overhead: " << problem
              << "\nusage: duet_launch_overhead --patterns [--busy-iters N] [--busy-items N] "
                 "[--iterations N] [--reps R] [--device SPEC]...\n";
    std::exit(2);
}

PatternOptions parse_patterns(int argc, char** argv) {
    PatternOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--patterns")
            continue;
        if (i + 1 >= argc)
            pattern_usage(a == "--device" || a.rfind("--", 0) == 0 ? a + " needs a value"
                                                                   : "unknown argument " + a);
        const std::string v = argv[++i];
        char* end = nullptr;
        const long n = std::strtol(v.c_str(), &end, 10);
        const bool number = !v.empty() && !*end && n >= 1 && n <= 100000000;
        if (a == "--device") {
            o.devices.push_back(v);
            continue;
        }
        if (!number)
            pattern_usage(a + " needs a positive integer, not '" + v + "'");
        if (a == "--busy-iters")
            o.iters = int(n);
        else if (a == "--busy-items")
            o.items = int(duet::round_up(std::size_t(n), busy_local));
        else if (a == "--iterations")
            o.iterations = int(n);
        else if (a == "--reps")
            o.reps = int(n);
        else
            pattern_usage("unknown argument " + a);
    }
    return o;
}

// Duet as an app writes the patterns: q->launch then q->finish() / q->read_bytes(...), on the
// queue an app gets by default (untimed) or on a timed one. With `kernel_ms`, the kernel's own
// length from the device events of a timed queue of its own.
PatternWay duet_way(duet::Device& dev, const PatternOptions& o, bool timing, double* kernel_ms) {
    duet::BuildOptions opts;
    opts.sources.opencl = busy_opencl;
    opts.sources.cuda = busy_cuda;
    opts.sources.origin = "duet_launch_overhead busy kernel";
    std::shared_ptr<duet::Kernel> k = dev.load_kernel(busy_name, opts);
    std::shared_ptr<duet::Queue> q =
        timing ? dev.create_queue(duet::QueueOptions::timed()) : dev.create_queue();
    std::shared_ptr<duet::Buffer> out = dev.alloc<float>(std::size_t(o.items));
    const duet::Range range = duet::Range(std::size_t(o.items)).local(busy_local);
    const int iters = o.iters;
    if (kernel_ms) {
        auto timed = dev.create_queue(duet::QueueOptions::timed());
        std::vector<double> ms;
        for (int i = 0; i < 5; ++i)
            ms.push_back(timed->launch(*k, range, *out, iters).elapsed_ms());
        std::sort(ms.begin(), ms.end());
        *kernel_ms = ms[2];
    }
    return {timing ? "duet_timed" : "duet",
            timing ? "Duet (timed queue: QueueOptions::timed())"
                   : "Duet (the default queue: create_queue(), untimed)",
            [k, q, out, range, iters](int n) {
                for (int i = 0; i < n; ++i) {
                    q->launch(*k, range, *out, iters);
                    q->finish();
                }
            },
            [k, q, out, range, iters](int n) {
                float result = 0;
                for (int i = 0; i < n; ++i) {
                    q->launch(*k, range, *out, iters);
                    q->read_bytes(*out, &result, sizeof result);
                }
            }};
}

RawPatterns raw_ways(const duet::DeviceInfo& info, const PatternOptions& o) {
#ifdef DUET_BENCH_RAW_OPENCL
    if (info.backend == "opencl")
        return raw_opencl_patterns(info.local_index, info.platform, info.name, o.items, o.iters);
#endif
#ifdef DUET_BENCH_RAW_CUDA
    if (info.backend == "cuda")
        return raw_cuda_patterns(info.local_index, info.pci_bus_id, info.name, o.items, o.iters);
#endif
    return {{}, "no raw " + info.backend + " side in this build", {}};
}

double us_per(const std::function<void(int)>& f, int n) {
    const auto t0 = std::chrono::steady_clock::now();
    f(n);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
               .count() /
           n;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0
           : v.size() % 2 ? v[v.size() / 2]
                          : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double spread(const std::vector<double>& v) {
    if (v.empty())
        return 0;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *lo > 0 ? *hi / *lo : 0;
}

void measure_device(duet::Device& dev, const PatternOptions& o) {
    double kernel_ms = 0;
    std::vector<PatternWay> ways{duet_way(dev, o, false, &kernel_ms),
                                 duet_way(dev, o, true, nullptr)};
    RawPatterns raw = raw_ways(dev.info(), o);
    for (auto& w : raw.ways)
        ways.push_back(std::move(w));
    std::printf("%s: busy kernel %d work-items x %d multiply-adds = %.4f ms (device events)\n",
                dev.label().c_str(), o.items, o.iters, kernel_ms);
    if (!raw.note.empty())
        std::printf("  %s\n", raw.note.c_str());
    if (!raw.skipped.empty())
        std::printf("  skipped: %s\n", raw.skipped.c_str());
    std::vector<std::vector<double>> fin(ways.size()), rd(ways.size());
    for (auto& w : ways) { // warm-up: first launches, module loads, pinned staging buffers
        w.launch_finish(3);
        w.launch_read(3);
    }
    for (int rep = 0; rep < o.reps; ++rep)
        for (std::size_t j = 0; j < ways.size(); ++j) {
            const std::size_t w = (j + std::size_t(rep)) % ways.size();
            fin[w].push_back(us_per(ways[w].launch_finish, o.iterations));
            rd[w].push_back(us_per(ways[w].launch_read, o.iterations));
        }
    std::printf("  %-58s %14s %14s\n", "way", "launch+finish", "launch+read");
    for (std::size_t w = 0; w < ways.size(); ++w)
        std::printf("  %-58s %11.2f us %11.2f us\n", ways[w].label.c_str(), median(fin[w]),
                    median(rd[w]));
    for (std::size_t d = 0; d < 2; ++d)
        for (std::size_t w = 2; w < ways.size(); ++w)
            std::printf("  %-12s / %-43s %13.4fx %13.4fx   (target <= 1.01x)\n",
                        ways[d].key.c_str(), ways[w].key.c_str(), median(fin[d]) / median(fin[w]),
                        median(rd[d]) / median(rd[w]));
    // The raw way's own run-to-run spread: a ratio inside it is not a measured difference.
    for (std::size_t w = 2; w < ways.size(); ++w)
        std::printf("  %-58s %13.4fx %13.4fx   (max / min of its repetitions)\n",
                    (ways[w].key + " spread").c_str(), spread(fin[w]), spread(rd[w]));
}

} // namespace

int run_patterns(int argc, char** argv) {
    const PatternOptions o = parse_patterns(argc, argv);
    std::vector<duet::Device*> devices;
    try {
        devices = o.devices.empty() ? duet::devices() : std::vector<duet::Device*>{};
        for (const auto& spec : o.devices)
            devices.push_back(&duet::select_device(spec));
    } catch (const std::exception& e) {
        std::cerr << "duet_launch_overhead: " << e.what() << "\n";
        return 2;
    }
    std::printf("Launch patterns: %d iterations x %d repetitions per way, wall clock per "
                "iteration, median of the repetitions.\n\n",
                o.iterations, o.reps);
    int rc = 0;
    for (duet::Device* dev : devices) {
        try {
            measure_device(*dev, o);
        } catch (const std::exception& e) {
            std::printf("%s: error: %s\n", dev->label().c_str(), e.what());
            rc = 3;
        }
        std::printf("\n");
    }
    return rc;
}

} // namespace duet_bench
