#pragma once
// reduction's det_f32 step (reduction_det.cpp): its record, its passes and its run.
#include <cstddef>
#include <vector>

#include "app.hpp"

namespace duet::apps {

// One launch of reduce_det_f32: `items` values (floats, or (sum, error) pairs after the first
// pass) in `groups` fixed chunks.
struct DetPass {
    std::size_t items, groups;
    bool pairs;
};

// The passes for n values: a function of n (and the chunk defines) only, never of the device.
std::vector<DetPass> det_plan(std::size_t n, const RunConfig& cfg);
// The step's record (reduction_steps.cpp lists it after the ladder).
Step det_f32_step();
// One run of the step (its record's ReductionHooks: Reduction::run hands it det_f32).
Result run_det_f32(Device& dev, const App& app, const Step& v, const RunConfig& cfg);

} // namespace duet::apps
