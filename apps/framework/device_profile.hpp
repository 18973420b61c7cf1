#pragma once
// Device profiles: what was measured on a class of devices (tile depths, best's plan costs and
// stream speeds, the build switches a kernel dialect takes, a step's defines for a device), as
// data: apps/profiles/device_profiles.json, embedded at build time. Every row whose match holds
// applies, in order, over the rows before it; the first is the plain default. Apps ask the
// profile, DeviceCapabilities and DeviceInfo::has_extension, never a backend's, language's or
// vendor's name. A row's match keys: vendor (a substring of DeviceInfo::vendor), language,
// architecture (DeviceInfo::architecture, "sm_90"), type, caps (DeviceCapabilities' named
// booleans), extensions (DeviceInfo::extensions), subgroup_width, min_local_mem_bytes.
#include <cstddef>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "tune_space.hpp" // Defines

namespace duet::apps {

// matmul_best_stream's speed over best's: in its rounds of whole blocks, and in the shared rest.
struct StreamSpeed {
    double whole = 1.0, shared = 1.0;
};

// best's plan model (matmul_best_plan.cpp), in units of one block's time.
struct BestProfile {
    std::size_t tile_depth = 8;   // BEST_BK the kernels build with when nothing sets it
    double edge_speed = 0.2;      // matmul_best_edge's multiply-adds per second over best's
    double clamp_cost = 0;        // a clamped block's extra time (BEST_CLAMP), every block
    double waves_clamp_cost = 0;  // > 0: clamp in waves only where it ends before the checked
    double checked_edge_cost = 0; //      loop's edge blocks would (each this much slower)
    double split_cost = 1.5;      // a split of K's traffic, times this for what else it costs
    double flops_per_byte = 16;   // the device's FP32 rate over its memory bandwidth
    StreamSpeed stream_inside{0.98, 0.92};  // blocks all inside C, K whole tiles
    StreamSpeed stream_outside{0.91, 0.87}; // otherwise
    Defines stream_clamped_defines;         // matmul_best_stream's build over clamped blocks
    Defines stream_inside_defines;          // over unclamped blocks all inside C
};

// One device's profile: the rows it matched, merged.
struct DeviceProfile {
    std::vector<std::string> rows;  // the names of the rows that applied, in order
    std::vector<std::string> takes; // build switches its kernel dialect has (WG, CPU_VW, ...)
    // Defines per step ("matmul/best"), the device's own, under the user's and tuned.json's.
    std::vector<std::pair<std::string, Defines>> step_defines;
    // The launch a step's host code takes on this device ("matmul/tf32" -> "wgmma_from_source"),
    // named as data beside the defines that build its kernel for it; the step knows the names.
    std::vector<std::pair<std::string, std::string>> step_launch;
    BestProfile best;

    // The kernels this device builds honour the switch `macro`.
    bool takes_define(const std::string& macro) const;
    // The profile's defines for app/step ({} when none): those of "app/*" (every step of the
    // app), then the step's own over them; a copy, so that it outlives a temporary profile
    // (profile_of(info).defines_for(...) in a range-for).
    Defines defines_for(const std::string& app, const std::string& step) const;
    // The launch the profile names for app/step: the step's own, else "app/*"'s; "" (the step's
    // plain launch) where no row names one.
    std::string launch_for(const std::string& app, const std::string& step) const;
};

// The profile of `info`'s device from the shipped rows.
DeviceProfile profile_of(const DeviceInfo& info);
// The same from the rows of a profile file's text (tests, other tables); a runtime Error naming
// what is wrong when the text is not a profile file.
DeviceProfile profile_from(const std::string& json_text, const DeviceInfo& info);
// The shipped profile file's text (apps/profiles/device_profiles.json).
const std::string& shipped_profiles();

} // namespace duet::apps
