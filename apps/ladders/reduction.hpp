#pragma once
// What reduction's host code (reduction.cpp) and its step records (reduction_steps.cpp) share.
#include <string>
#include <vector>

#include "app.hpp"

namespace duet::apps {

// How a step splits the input among work-groups.
enum class Split {
    one,         // one element per work-item (steps 1-3)
    two,         // two per work-item, added during the load (steps 4-6)
    grid,        // a capped number of groups walks the whole input (steps 7-8)
    grid_atomic, // as grid, one pass, group sums added atomically (step 9)
    chunk        // a few groups per compute unit, each work-item a contiguous chunk (cpu)
};

// One step of Harris's ladder; each becomes two records (step.hpp), STEP_i32 and STEP_f32.
struct ReductionStep {
    const char* name;
    const char* description;
    Split split;
    bool wg_define; // the OpenCL kernel is compiled for the work-group size (-DWG=...)
    bool tunable;   // its work-group size is swept by runapp tune
    SubGroups sub_groups = SubGroups::none;
};

// The eighteen records: the int32 ladder, then the float32 ladder.
const std::vector<Step>& reduction_steps();
// The ladder step of a record ("shuffle" for shuffle_f32); an unknown one is an Error.
const ReductionStep& reduction_step_of(const Step& record);

} // namespace duet::apps
