#pragma once
// The app framework: each app (vecadd, matmul, conv5x5, reduction) is host code written once
// against the runtime API; runapp and the tests drive it through this interface.
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "result.hpp"
#include "step.hpp"

namespace duet::apps {

// How much of the output is checked against the CPU reference.
enum class Verify { full, sample, off };

// What one run of one variant is asked to do.
struct RunConfig {
    std::vector<std::size_t> size;             // app-specific dims (empty: the app's default)
    std::optional<std::array<std::size_t, 2>> local; // --local WxH (empty: the variant's own)
    int reps = 10;                             // timed runs
    int warmup = 2;                            // untimed runs first
    Verify verify = Verify::full;
    std::uint64_t seed = 42;                   // input seed (printed)
    std::vector<std::pair<std::string, std::string>> defines; // extra/tuned defines
    // --verify was given by the user: a full check too big for the CPU is then refused (usage
    // Error) instead of falling back to a sample that the note announces.
    bool verify_explicit = false;
    // Test hook: when set, input number `perturb_input` (0 = the first) gets its last element
    // changed on the device after the upload (the host copy the reference uses is untouched),
    // so a test proves that element influences a checked output (the run must FAIL).
    int perturb_input = -1;
};


// One app: a ladder of variants sharing inputs, reference and checks.
class App {
public:
    virtual ~App() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    // The app's ladder: one record per step, in ladder order (step.hpp).
    virtual const std::vector<Step>& steps() const = 0;
    const std::vector<Step>& variants() const { return steps(); }
    // Default size: finishes in seconds on a 2-core CPU.
    virtual std::vector<std::size_t> default_size() const = 0;
    // --size auto (the default of run and compare, an empty RunConfig::size): the size for the
    // device, from the app's rule in auto_size.hpp.
    virtual std::vector<std::size_t> auto_size(const DeviceInfo& info) const {
        (void)info;
        return default_size();
    }
    // The size `runapp tune` sweeps at when none is given (tuning is the steps' TuneSpace): a
    // size that fills a GPU, a small one on a CPU. By default the app's default size.
    virtual std::vector<std::size_t> tune_size(const DeviceInfo& info) const {
        (void)info;
        return default_size();
    }
    // Parses --size ("4096", "1024x512x256", "2^20", "16M"; "auto": empty, the device's size);
    // bad input is a usage Error.
    virtual std::vector<std::size_t> parse_size(const std::string& text) const;
    // Runs one variant on `dev`; a device or build failure throws duet::Error.
    virtual Result run(Device& dev, const Variant& variant, const RunConfig& cfg) const = 0;
};

// All apps, in the order runapp shows them.
const std::vector<const App*>& all_apps();
// The app called `name`; an unknown name is a usage Error listing the apps.
const App& find_app(const std::string& name);
// The variants of `app` named by `spec` ("all", or a comma-separated list); unknown is an Error.
std::vector<Variant> select_variants(const App& app, const std::string& spec);

// ---- helpers shared by the apps ----

// Keeps the last value computed for one key: the CPU reference of a problem, shared by the
// variants of a ladder (their inputs depend only on the sizes and the seed). Thread-safe.
template <class Key, class Value> class LastValueCache {
public:
    // The value for `key`, computed by `compute()` unless it is the one already held.
    template <class F> std::shared_ptr<const Value> get(const Key& key, F&& compute) {
        std::lock_guard lock(mutex_);
        if (!value_ || !(key_ == key)) {
            value_.reset(); // free the old one first: at large sizes it is big
            value_ = compute();
            key_ = key;
        }
        return value_;
    }

private:
    std::mutex mutex_;
    std::shared_ptr<const Value> value_;
    Key key_{};
};

// Parses "4096", "2^20", "16M", "64k", "1024x768" into dims; rejects 0, negatives, junk.
std::vector<std::size_t> parse_dims(const std::string& text);
// "1024x768"
std::string dims_label(const std::vector<std::size_t>& dims);
// Seeded uniform floats in [lo, hi).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.f, float hi = 1.f);
// Seeded uniform ints in [lo, hi].
std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi);
// Fills a buffer with NaN bytes (0xFF) so an output the kernel never wrote cannot pass.
void poison(Queue& q, Buffer& buf);
// Runs `launch` cfg.warmup times untimed, then cfg.reps times; each call returns the first
// and last Event of one run (the same Event for single-launch variants). Returns ms per run.
Stats time_runs(Queue& q, const RunConfig& cfg, const std::function<std::pair<Event, Event>()>& launch);
// The same, also timing each run on the host (steady_clock from the launch to its completion);
// sets r.kernel_ms, r.host_ms and r.clock from choose_clock.
void time_runs(Result& r, Queue& q, const RunConfig& cfg,
               const std::function<std::pair<Event, Event>()>& launch);

// Which clock to believe for one set of timed runs. device_ms: the event time of each run (NaN
// when an event gave none); host_ms: the host time of each run, from its launch to its
// completion; launches: kernel launches per run. Events are believed when every one is positive
// and finite and their total D against the host total H satisfies
//   D <= H * 1.05 + 0.05 ms  (a device cannot take longer than the wall clock around it) and
//   D >= (H - allowance) / 2, allowance = 0.2 ms per launch + 1 ms
// (host time includes launch overhead events do not, up to the allowance; beyond it a kernel
// cannot be more than twice as fast on the device as the host saw it finish).
struct ClockChoice {
    bool host = false;  // use the host times
    std::string clock;  // "device events" or "host (events ...: why)"
};
ClockChoice choose_clock(const std::vector<double>& device_ms, const std::vector<double>& host_ms,
                         int launches);

// The device's plausible ceilings, with generous margins, from its reported clocks and units
// (0 = unknown): FLOP/s as 1024 flops per cycle per compute unit (4x a 128-lane FMA SM or two
// AVX-512 FMA ports), bytes/s as 2x the memory's peak or, unreported, 512 bytes per cycle per
// compute unit (above any L1).
struct Ceiling {
    double gflops = 0, gbs = 0;
};
Ceiling plausible_ceiling(const DeviceInfo& info);
// Marks r implausible (with a note) when its figure is over the ceiling on the clock used; a
// figure over it on the device's events but not on the host's takes the host's.
void check_plausible(Result& r, const Ceiling& c);

// Guard elements past the end of every checked output: allocate with alloc_guarded, poison the
// whole buffer, and after the run check_guard fails the result when any guard byte changed.
constexpr std::size_t guard_bytes = 256;
std::unique_ptr<Buffer> alloc_guarded(Device& dev, std::size_t bytes);
// True when bytes[used, size) are all 0xFF (the poison); false names a write past the end.
bool guard_intact(const std::vector<unsigned char>& tail);
void check_guard(Result& r, Queue& q, const Buffer& buf, std::size_t used_bytes);
// The verification level to use at `work` CPU multiply-adds: cfg.verify, unless full is over
// `limit`. Then, when the user asked for full (cfg.verify_explicit), full if the estimate is at
// most a minute of CPU time, else a usage Error saying how long it would take; by default,
// sample with a note in r.
Verify verify_level(const RunConfig& cfg, double work, double limit, Result& r,
                    const std::string& app);
// The test hook RunConfig::perturb_input: changes the last element of input `which` on the device.
void perturb(const RunConfig& cfg, int which, Queue& q, Buffer& buf, std::size_t elem_bytes);
// Indices to check: all of [0, n) for Verify::full, an even spread of up to 4096 for sample.
std::vector<std::size_t> check_indices(std::size_t n, Verify v, std::uint64_t seed);
// The value of macro `name` among cfg.defines, or `fallback`: the host sizes launches with the
// same tunables the kernels are compiled with. A value that is not a positive integer is a usage
// Error naming `app`.
std::size_t define_or(const RunConfig& cfg, const std::string& app, const std::string& name,
                      std::size_t fallback);
// Runs work(begin, end) over [0, n), split across the CPU's cores, each part at least `grain`
// items: the CPU references of the big apps.
void parallel_for(std::size_t n, std::size_t grain,
                  const std::function<void(std::size_t, std::size_t)>& work);
// Checks out[indices[t]] against ref[t]: the error is |out - ref|, divided by scale[t] when a
// scale is given. Sets r.max_error and r.pass (a NaN, i.e. an output never written, fails).
// Every element of `out` is also scanned for NaN/Inf, sampled or not.
void compare_outputs(Result& r, const std::vector<float>& out,
                     const std::vector<std::size_t>& indices, const std::vector<double>& ref,
                     const std::vector<double>* scale = nullptr);
// Fills the device fields and build facts of a Result.
void describe(Result& r, const Device& dev, const Kernel& k, const std::string& app,
              const Variant& v);
// The local size to use: cfg.local if given, else `fallback`, checked against the kernel.
std::array<std::size_t, 2> pick_local(const RunConfig& cfg, std::array<std::size_t, 2> fallback,
                                      const Kernel& k);

} // namespace duet::apps
