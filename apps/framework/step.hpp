#pragma once
// A ladder step as one record: its name, kernel, doc line, what it needs from a device, its shape
// rule and its tuning space. Each app keeps one table of these (apps/ladders/APP_steps.cpp, or
// the app's file); the variant list, the launch shapes, the tuning sweep and the step list of
// design/ladders.md (steps_doc.cpp) all come from it. A new step is its kernels and one record.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "shape.hpp"
#include "tune_space.hpp"

namespace duet::apps {

struct RunConfig;

// What a step assumes of sub-groups (warps).
enum class SubGroups {
    none, // assumes no sub-group or warp width
    uses, // sub-group/warp reductions where the device has them, a local-memory tree elsewhere
};

// What a step needs from a device beyond its shapes (the work-items per group and the local
// memory of each shape are in the shape rule's Shape::items() and Shape::local_bytes).
struct Needs {
    SubGroups sub_groups = SubGroups::none;
    // Why `info`'s device cannot run the step ("" when it can): a known compiler fault, a
    // missing feature. Empty function: every device can.
    std::function<std::string(const DeviceInfo&)> refuses{};
    std::string refuses_note{}; // `refuses` in words, for design/ladders.md ("not PoCL 5's ...")
};

// The launch shapes of a step for one run on one device, its textbook shape first, then smaller
// shapes of the same algorithm (shape.hpp); each carries the tile macros its kernel reads (the
// kernels have no tile defaults: the records are their one source).
using ShapeRule = std::function<std::vector<Shape>(const RunConfig&, const DeviceInfo&)>;

// A step's own host code, kept on its record, so an app's run() needs no branch on a step's
// name. The fields here are every app's contract: the framework calls them (add_step_defines);
// an app with more derives its hook set from this (vecadd's launch size, conv5x5's geometry,
// matmul's work, reduction's ladder step) and reads it back with hooks_of.
struct StepHooks {
    virtual ~StepHooks() = default;
    // Defines the step adds to its build on a device, after the user's (the cpu steps' vector
    // width: cpu_width_hooks).
    std::function<void(BuildOptions&, const DeviceInfo&, const RunConfig&)> defines{};
    // Whether the device profile's defines for the step apply to a run of `cfg` (empty: they
    // do). tf32's emulated mma (DUET_TF32_EMULATE) builds without NVIDIA's PTX switches.
    std::function<bool(const RunConfig&)> takes_profile{};
};

struct Step {
    std::string name{};        // "tiled16"
    std::string kernel{};      // kernel name, found across kernels_cl/ and kernels_cu/
    std::string description{}; // one line: what this step changes (runapp and design/ladders.md)
    Needs needs{};
    ShapeRule shapes{};                       // empty: the app launches it without a shape rule
    std::optional<TuneSpace> tuning{};        // empty: nothing worth sweeping
    std::shared_ptr<const StepHooks> hooks{}; // empty: the app's plain path
    // Kernels of other files its host code builds with the step's defines (best's stream-K):
    // what builds kernel files outside a run (`runapp compile`) gives them the step's macros.
    std::vector<std::string> extra_kernels{};
};

// The hooks of `step` as the app's type T, or nullptr (none, or another app's).
template <class T> const T* hooks_of(const Step& step) {
    return dynamic_cast<const T*>(step.hooks.get());
}

// The apps call a step of their ladder a variant.
using Variant = Step;

// The shapes of `step` for `cfg` on `info` (an Error when the step has no shape rule).
std::vector<Shape> shapes_of(const Step& step, const RunConfig& cfg, const DeviceInfo& info);
// Throws ErrorKind::unsupported when the step's needs refuse `info`'s device.
void check_needs(const Step& step, const DeviceInfo& info);
// Adds the step's own defines for `info`'s device to `opts` (its hooks' `defines`; none without):
// what a build outside a run takes (step_builds.hpp).
void add_hook_defines(const Step& step, BuildOptions& opts, const DeviceInfo& info,
                      const RunConfig& cfg);
// What every app's run adds to its build of `step` of `app`, once: the step's own defines
// (add_hook_defines), RunConfig::kernel_text as BuildOptions::own_dialect, then the device
// profile's for app/step (device_profile.hpp) whose names neither the user's --define nor `opts`
// set (unless the hooks' takes_profile says no).
void add_step_defines(const std::string& app, const Step& step, BuildOptions& opts,
                      const DeviceInfo& info, const RunConfig& cfg);

// The step list of design/ladders.md, derived from the records of every app in the registry: one
// Markdown table per app (step, kernel, what it changes, textbook group and local memory, needs,
// tuned parameters). `runapp list steps` prints it; test_shapes checks the doc holds it.
std::string steps_markdown();

} // namespace duet::apps
