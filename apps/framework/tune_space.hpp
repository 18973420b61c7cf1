#pragma once
// A ladder step's tuning space: the compile-time parameters (tiles, work-groups) worth sweeping
// on a device, as points, the kernel's own defaults first. Part of the step's record (step.hpp);
// the sweep (tune_sweep.cpp) runs the points and the store (tuned_store.cpp) keeps the winners.
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

namespace duet::apps {

using Defines = std::vector<std::pair<std::string, std::string>>;

// One point of a sweep: the defines and/or work-group size one run is built and launched with.
struct TunePoint {
    std::string variant;                             // "best", "grid_stride_f32"
    Defines defines;                                 // empty: the step's own shapes
    std::optional<std::array<std::size_t, 2>> local; // the work-group, where it is the parameter
    bool is_default = false;                         // the variant as it runs untuned
    std::string label;                               // "BM=64 BN=64 BK=16 TM=4 TN=4", "local=256"
    std::string excluded;                            // non-empty: over a device limit, not run
};

// What a step's space is made of, and its points on a device.
struct TuneSpace {
    std::vector<std::string> params{}; // define names the points set
    bool local_param = false;          // the points set the work-group size
    bool local_bound = false; // the defines are the work-group (a --local contradicts them)
    // The points on `info`'s device, the untuned one first (is_default, no defines); points over
    // the device's limits are listed with `excluded` set. `variant` is filled in by tune_points.
    std::function<std::vector<TunePoint>(const DeviceInfo&)> points{};
};

// Why `items` work-items per group and `local_bytes` of local memory do not fit `info` ("" when
// they do): the `excluded` of a point.
std::string over_limits(std::size_t items, std::size_t local_bytes, const DeviceInfo& info);

} // namespace duet::apps
