#pragma once
// The app interface: each app (apps/ladders/) is a ladder of step records (step.hpp) and host
// code written once against the runtime API; runapp and the tests drive it through this
// interface, and find it in the registry (app_list.cpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "auto_size.hpp"
#include "result.hpp"
#include "step.hpp"

namespace duet::apps {

// How much of the output is checked against the CPU reference.
enum class Verify { full, sample, off };

// What one run of one variant is asked to do.
struct RunConfig {
    std::vector<std::size_t> size;                   // app-specific dims (empty: the app's default)
    std::optional<std::array<std::size_t, 2>> local; // --local WxH (empty: the variant's own)
    int reps = 10;                                   // timed runs
    int warmup = 2;                                  // untimed runs first
    // A time budget in place of fixed counts (runapp when --reps / --warmup are not given; 0:
    // exactly reps and warmup): the timed runs stop once they have taken reps_budget_ms on the
    // host clock with at least 3 done, and the warm-up stops after a run of warmup_budget_ms or
    // more. Short kernels still run reps times; a slow device's long kernel runs fewer.
    double reps_budget_ms = 0, warmup_budget_ms = 0;
    Verify verify = Verify::full;
    std::uint64_t seed = 42;                                  // input seed (printed)
    std::vector<std::pair<std::string, std::string>> defines; // extra/tuned defines
    // --verify was given by the user: a full check too big for the CPU is then refused (usage
    // Error) instead of falling back to a sample that the note announces.
    bool verify_explicit = false;
    // Test hook: when set, input number `perturb_input` (0 = the first) gets its last element
    // changed on the device after the upload (the host copy the reference uses is untouched),
    // so a test proves that element influences a checked output (the run must FAIL).
    int perturb_input = -1;
    // The dialect of Duet's kernel files every device builds (BuildOptions::own_dialect:
    // "opencl-c" runs kernels_cl/ on CUDA through NVRTC); empty: each device's own twin.
    std::string kernel_text;
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
    // What the app's working set and work grow like: its rule for --size auto (auto_size.hpp).
    virtual SizeModel size_model() const = 0;
    // --size auto (the default of run and compare, an empty RunConfig::size): the size for the
    // device by the app's size model.
    virtual std::vector<std::size_t> auto_size(const DeviceInfo& info) const {
        return {choose_size(size_model(), info).n};
    }
    // The size `runapp tune` sweeps at when none is given (tuning is the steps' TuneSpace): a
    // size that fills a GPU, a small one on a CPU. By default the app's default size.
    virtual std::vector<std::size_t> tune_size(const DeviceInfo& info) const {
        (void)info;
        return default_size();
    }
    // Dimensions of its work-groups: 1 (a W from --local) or 2 (W x H).
    virtual int group_dims() const { return 2; }
    // Parses --size ("4096", "1024x512x256", "2^20", "16M"; "auto": empty, the device's size);
    // bad input is a usage Error.
    virtual std::vector<std::size_t> parse_size(const std::string& text) const;
    // Runs one variant on `dev`; a device or build failure throws duet::Error.
    virtual Result run(Device& dev, const Variant& variant, const RunConfig& cfg) const = 0;
    // The native reference (apps/native/): the problem of `variant` at cfg.size (never empty)
    // computed by the host CPU on all its cores, timed on the host clock (median of cfg.reps after
    // cfg.warmup) and checked as run() checks a device. The row has backend and device_id
    // "native"; its variant is native_variant(variant). The default: the app has none (an
    // unsupported Error).
    virtual Result run_native(const RunConfig& cfg, const std::string& variant) const;
    // The name of the native row a variant is measured against ("native", or one per type).
    virtual std::string native_variant(const std::string& variant) const {
        (void)variant;
        return "native";
    }
};

// All apps, in the order runapp shows them.
const std::vector<const App*>& all_apps();
// The app called `name`; an unknown name is a usage Error listing the apps.
const App& find_app(const std::string& name);
// The variants of `app` named by `spec` ("all", or a comma-separated list); unknown is an Error.
std::vector<Variant> select_variants(const App& app, const std::string& spec);

} // namespace duet::apps

// The helpers every app uses, one idea per header.
#include "checks.hpp"    // poisoned outputs, verification, plausible figures
#include "guard.hpp"     // guard zones on both sides of every checked output
#include "inputs.hpp"    // sizes, seeded inputs, CPU references, defines
#include "run.hpp"       // the steps every App::run shares, in one place
#include "sum_check.hpp" // whole-output sums where only a sample is compared
#include "timing.hpp"    // timed runs and which clock to believe
