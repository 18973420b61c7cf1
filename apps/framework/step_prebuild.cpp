// A run's programs built up front, in parallel (step_prebuild.hpp).
#include "step_prebuild.hpp"
#include "kernel_text.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace duet::apps {

namespace {

// The facts of the builds made up front, by (device, kernel, options), until a row claims them.
struct Facts {
    double build_ms;
    bool cache_hit;
    Provenance provenance;
};
using Key = std::tuple<std::string, std::string, std::string>;
std::mutex facts_mutex;
std::map<Key, Facts>& facts() {
    static std::map<Key, Facts> f;
    return f;
}

// One program to build: a kernel with its options on a device.
struct Job {
    Device* device;
    std::string kernel;
    BuildOptions options;
};

// The first build of `step` of `app` on `dev` as a run of `cfg` starts it; false when the run
// would not build it that way (a refused device, no shape rule, no shape that fits).
bool first_build(const App& app, const Step& step, Device& dev, const RunConfig& cfg, Job& job) {
    const DeviceInfo& info = dev.info();
    const KernelTextScope scope(cfg.kernel_text);
    if (!step.shapes || (step.needs.refuses && !step.needs.refuses(info).empty()))
        return false;
    BuildOptions opts;
    opts.defines = cfg.defines;
    add_step_defines(app.name(), step, opts, info, cfg);
    const auto shapes = shapes_of(step, cfg, info);
    const std::size_t i = first_fitting(shapes, device_limits(info));
    if (i >= shapes.size())
        return false;
    job.device = &dev;
    job.kernel = shapes[i].kernel.empty() ? step.kernel : shapes[i].kernel;
    job.options = shape_build(opts, shapes[i]);
    return true;
}

} // namespace

Prebuilt prebuild_steps(const std::vector<std::pair<const App*, std::vector<Step>>>& steps,
                        const std::vector<Device*>& devices, const RunConfig& cfg,
                        unsigned threads) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<Job> jobs;
    for (Device* dev : devices)
        for (const auto& [app, list] : steps)
            for (const Step& step : list) {
                Job job;
                try {
                    if (first_build(*app, step, *dev, cfg, job))
                        jobs.push_back(std::move(job));
                } catch (const Error&) { // a bad define or size: the step's run says so
                }
            }
    // Jobs that may share a program (one device, the same defines: several kernels of one file)
    // go to one worker in ladder order, so that the step a run meets first is the one whose load
    // builds it, and whose row keeps the build's facts (claim_prebuilt).
    std::vector<std::vector<const Job*>> groups;
    std::map<std::pair<const Device*, Defines>, std::size_t> group_of;
    for (const Job& job : jobs) {
        const auto [it, added] =
            group_of.emplace(std::make_pair(job.device, job.options.defines), groups.size());
        if (added)
            groups.emplace_back();
        groups[it->second].push_back(&job);
    }
    Prebuilt out;
    out.builds = jobs.size();
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    out.threads = static_cast<unsigned>(std::min<std::size_t>(threads, groups.size()));
    std::atomic<std::size_t> next{0}, failed{0};
    const auto work = [&] {
        for (std::size_t g; (g = next.fetch_add(1)) < groups.size();)
            for (const Job* job : groups[g]) {
                try {
                    const auto k = job->device->load_kernel(job->kernel, job->options);
                    if (k->provenance() != Provenance::memory_cache) {
                        std::lock_guard lock(facts_mutex);
                        facts().emplace(
                            Key{job->device->info().id(), k->name(), k->build_options()},
                            Facts{k->build_ms(), k->cache_hit(), k->provenance()});
                    }
                } catch (...) { // the step's own build reports it
                    failed.fetch_add(1);
                }
                heartbeat(); // a build finished: progress for runapp's watchdog
            }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < out.threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto& t : pool)
        t.join();
    out.failed = failed.load();
    out.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

void claim_prebuilt(Result& r, const Device& dev, const Kernel& k) {
    if (k.provenance() != Provenance::memory_cache)
        return;
    std::lock_guard lock(facts_mutex);
    const auto it = facts().find(Key{dev.info().id(), k.name(), k.build_options()});
    if (it == facts().end())
        return;
    r.build_ms = it->second.build_ms;
    r.cache_hit = it->second.cache_hit;
    r.provenance = duet::provenance_name(it->second.provenance);
    facts().erase(it);
}

} // namespace duet::apps
